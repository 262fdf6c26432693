// What a command may write over. Checked before any long work (loading data, the DE): the
// input is never the output, a file of another kind is never replaced (a result never
// overwrites a measurement store), a file of the same kind only with --force, and the output
// directory must exist and take a new file. Paths are compared after resolving symlinks and
// hard links, so ./s.h5, s.h5 and a link to it are one file.
#pragma once

#include <string>
#include <vector>

namespace perfit::io {

enum class FileKind {
  none,             // does not exist
  store,            // HDF5 with measured (imported) sets
  synthetic_store,  // HDF5 whose sets all come from perfit synth
  result,           // perfit result (HDF5)
  selection,        // perfit selection store: the winners of many sets (HDF5)
  predictions,      // CSV written by perfit predict --grid
  checkpoint,       // perfit fit checkpoint (HDF5)
  hdf5,             // another or an unreadable HDF5 file
  damaged,          // a file perfit sealed whose checksum no longer matches (io/file_seal)
  other             // anything else
};
const char* describe(FileKind k);  // "a perfit measurement store", ...

// What kind of file `path` is (reads only headers and attributes). Never throws.
FileKind detect_file_kind(const std::string& path);

struct OutputCheck {
  std::string path;
  std::string flag = "--out";          // how the user named it, for messages
  FileKind writes = FileKind::result;  // the kind this command produces
  std::vector<std::string> inputs;     // files the command reads: never the output
  bool force = false;
  bool merge = false;                  // the output is updated in place (import into a store)
  std::string force_hint = "--force";  // how the user says "replace it" (Python: force=True)
};

// Throws: ConfigError (exit 2) for an input as output, another kind of file, or the same kind
// without --force; IoError (exit 6) for a missing or unwritable directory.
void check_output(const OutputCheck& c);

// True when a and b name the same existing file (or the same path once resolved).
bool same_file(const std::string& a, const std::string& b);

}  // namespace perfit::io
