#include "perfit/io/batch_manifest.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "perfit/core/error.hpp"

namespace perfit::io {

namespace {

namespace fs = std::filesystem;

// Keys every fit of a batch gets from the batch itself.
constexpr const char* kBatchKeys[] = {"data", "set", "model", "out", "checkpoint_dir"};

void refuse_unknown(const YAML::Node& map, const std::vector<std::string>& known,
                    const std::string& where) {
  for (const auto& kv : map) {
    const std::string key = kv.first.Scalar();
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw ConfigError(where + ": unknown key '" + key + "' (expected one of: " + list + ")");
    }
  }
}

std::vector<std::string> string_list(const YAML::Node& n, const std::string& where) {
  std::vector<std::string> out;
  if (n.IsScalar()) {
    out.push_back(n.Scalar());
  } else if (n.IsSequence()) {
    for (const auto& x : n) {
      if (!x.IsScalar() || x.Scalar().empty()) {
        throw ConfigError(where +
                          ": found a list entry that is not a name, expected a list of names");
      }
      out.push_back(x.Scalar());
    }
  }
  if (out.empty()) throw ConfigError(where + ": found an empty list, expected at least one name");
  return out;
}

std::string options_text(const YAML::Node& n, const std::string& where) {
  if (!n || n.IsNull()) return "";
  if (!n.IsMap())
    throw ConfigError(where + ": found a " + (n.IsSequence() ? "list" : "value") +
                      ", expected a map of fit config keys (configs/fit.yaml)");
  for (const char* key : kBatchKeys) {
    if (n[key]) {
      throw ConfigError(
          where + ": key '" + key +
          "' is set by the batch for each fit; give "
          "data at the manifest's or the entry's top level, sets and models as lists");
    }
  }
  YAML::Emitter e;
  e << n;
  return e.c_str();
}

// A level's options with its `factors` key (the manifest's or an entry's, as for
// `perfit fit --factors`: "p=gpus,d=1" or a map {p: gpus, d: 1}) folded in, so that one
// binding serves every model of that level.
std::string level_options(const YAML::Node& level, const std::string& where) {
  const YAML::Node f = level["factors"];
  if (!f) return options_text(level["options"], where + " key 'options'");
  std::string text;
  if (f.IsScalar()) {
    text = f.Scalar();
  } else if (f.IsMap()) {
    for (const auto& kv : f) {
      if (!kv.second.IsScalar()) {
        throw ConfigError(where + " key 'factors': factor '" + kv.first.Scalar() +
                          "' found no value, expected a "
                          "column name or a number");
      }
      text += (text.empty() ? "" : ",") + kv.first.Scalar() + "=" + kv.second.Scalar();
    }
  } else {
    throw ConfigError(
        where + " key 'factors': found a list, expected NAME=COLUMN,... or a map {NAME: COLUMN}");
  }
  YAML::Node options =
      level["options"] ? YAML::Clone(level["options"]) : YAML::Node(YAML::NodeType::Map);
  if (options.IsMap() && options["factors"]) {
    throw ConfigError(where +
                      ": 'factors' is given twice, at this level and under 'options'; keep one");
  }
  if (options.IsMap()) options["factors"] = text;
  return options_text(options, where + " key 'options'");
}

std::string relative_to(const fs::path& dir, const std::string& p) {
  if (p.empty() || fs::path(p).is_absolute()) return p;
  return (dir / p).lexically_normal().string();
}

bool is_model_path(const std::string& m) {
  const auto ends = [&](const std::string& s) {
    return m.size() >= s.size() && m.compare(m.size() - s.size(), s.size(), s) == 0;
  };
  return m.find('/') != std::string::npos || ends(".yaml") || ends(".yml");
}

std::string path_text(const YAML::Node& n, const std::string& where) {
  if (!n.IsScalar() || n.Scalar().empty()) {
    throw ConfigError(where + ": found " +
                      (n.IsMap()        ? "a map"
                       : n.IsSequence() ? "a list"
                                        : "nothing") +
                      ", expected the path of an HDF5 store");
  }
  return n.Scalar();
}

int positive_int(const YAML::Node& n, const std::string& where, int lo) {
  try {
    const int v = n.as<int>();
    if (v >= lo) return v;
  } catch (const YAML::Exception&) {
  }
  throw ConfigError(where + ": found '" + (n.IsScalar() ? n.Scalar() : std::string("a non-value")) +
                    "', expected a whole number >= " + std::to_string(lo));
}

// A `select:` map as YAML text, its model paths taken relative to the manifest's directory.
std::string select_text(const YAML::Node& n, const fs::path& dir, const std::string& where) {
  if (n.IsNull()) return "{}";  // select: with every default
  if (!n.IsMap()) {
    throw ConfigError(where + ": found a " + (n.IsSequence() ? "list" : "value") +
                      ", expected a map of select's keys (models, criterion, holdout, folds, "
                      "negative_exponents)");
  }
  YAML::Node copy = YAML::Clone(n);
  if (copy["models"]) {
    std::string joined;
    for (auto& model : string_list(copy["models"], where + " key 'models'")) {
      joined +=
          (joined.empty() ? "" : ",") + (is_model_path(model) ? relative_to(dir, model) : model);
    }
    copy["models"] = joined;
  }
  YAML::Emitter e;
  e << copy;
  return e.c_str();
}

Manifest read_manifest(const YAML::Node& root, const std::string& path, const std::string& where);

}  // namespace

Manifest load_manifest(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw IoError("cannot read manifest '" + path + "' (missing or no permission)");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string where = "manifest '" + path + "'";
  YAML::Node root;
  try {
    root = YAML::Load(ss.str());
  } catch (const YAML::Exception& e) {
    throw ConfigError(where + ": YAML error at line " + std::to_string(e.mark.line + 1) + ": " +
                      e.msg);
  }
  try {
    return read_manifest(root, path, where);
  } catch (const YAML::Exception& e) {  // a conversion the checks above did not foresee
    throw ConfigError(where + ": line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

namespace {

Manifest read_manifest(const YAML::Node& root, const std::string& path, const std::string& where) {
  if (!root.IsMap())
    throw ConfigError(where + ": found no YAML map, expected keys data, ranks_per_fit, fits");
  refuse_unknown(root, {"data", "ranks_per_fit", "checkpoint_every", "factors", "options", "fits"},
                 where);
  const fs::path dir = fs::path(path).parent_path();
  Manifest m;
  m.path = path;
  const std::string data =
      root["data"] ? relative_to(dir, path_text(root["data"], where + " key 'data'")) : "";
  if (root["ranks_per_fit"])
    m.ranks_per_fit = positive_int(root["ranks_per_fit"], where + " key 'ranks_per_fit'", 1);
  if (root["checkpoint_every"]) {
    m.checkpoint_every =
        positive_int(root["checkpoint_every"], where + " key 'checkpoint_every'", 1);
  }
  m.options_yaml = level_options(root, where);
  const YAML::Node fits = root["fits"];
  if (!fits || !fits.IsSequence() || fits.size() == 0) {
    throw ConfigError(where +
                      ": key 'fits' must be a non-empty list of entries with sets and models");
  }
  for (std::size_t i = 0; i < fits.size(); ++i) {
    const YAML::Node f = fits[i];
    ManifestEntry e;
    e.where = where + " fits[" + std::to_string(i) + "]";
    if (!f.IsMap())
      throw ConfigError(e.where + ": found no map, expected keys sets, models, options");
    refuse_unknown(f, {"data", "sets", "models", "select", "factors", "options"}, e.where);
    e.data = f["data"] ? relative_to(dir, path_text(f["data"], e.where + " key 'data'")) : data;
    if (e.data.empty()) {
      throw ConfigError(e.where + ": no 'data' store, give data: STORE.h5 here or at the top");
    }
    if (!f["sets"])
      throw ConfigError(e.where + ": key 'sets' is missing (a list of set paths or globs)");
    if (!f["models"] == !f["select"]) {
      throw ConfigError(
          e.where +
          (f["models"]
               ? ": both 'models' and 'select' are given; an entry fits the models it "
                 "names or selects among candidates, not both"
               : ": key 'models' (built-in names or YAML files) or 'select' (a map: models, "
                 "criterion, ...) is missing"));
    }
    e.sets = string_list(f["sets"], e.where + " key 'sets'");
    if (f["select"]) {
      e.select_yaml = select_text(f["select"], dir, e.where + " key 'select'");
    } else {
      for (auto& model : string_list(f["models"], e.where + " key 'models'")) {
        e.models.push_back(is_model_path(model) ? relative_to(dir, model) : model);
      }
    }
    e.options_yaml = level_options(f, e.where);
    m.fits.push_back(std::move(e));
  }
  return m;
}

}  // namespace

}  // namespace perfit::io
