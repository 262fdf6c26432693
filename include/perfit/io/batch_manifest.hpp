// The manifest of `perfit batch` (docs/batch.md): which models to fit to which sets of which
// stores, with which options. Only read and checked here; batch/plan expands it into fits.
#pragma once

#include <string>
#include <vector>

namespace perfit::io {

struct ManifestEntry {
  std::string data;                 // store path (the entry's, else the manifest's)
  std::vector<std::string> sets;    // globs over set paths
  std::vector<std::string> models;  // built-in names or YAML paths (empty for a selection)
  // A selection instead of fits (`select:`, a YAML map of select's keys: models, criterion,
  // holdout, folds, negative_exponents); "" for fits. Model paths in it stay as written.
  std::string select_yaml;
  std::string options_yaml;  // the entry's fit options (a YAML map), "" when none
  std::string where;         // "M.yaml fits[2]" for messages
};

struct Manifest {
  std::string path;
  int ranks_per_fit = 1;
  int checkpoint_every = 0;  // generations between checkpoints; 0: the fit's default
  std::string options_yaml;  // options for every entry, under the entry's own
  std::vector<ManifestEntry> fits;
};

// Relative data and model paths are taken relative to the manifest's directory.
// Throws: IoError if unreadable; ConfigError naming the file, the key and what was expected
// (unknown keys, a missing 'sets'/'data', neither or both of 'models' and 'select', empty lists,
// options that are not a map or name a key the batch sets itself: data, set, model, out,
// checkpoint_dir).
Manifest load_manifest(const std::string& path);

}  // namespace perfit::io
