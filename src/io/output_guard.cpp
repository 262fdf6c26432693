#include "perfit/io/output_guard.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "h5_handle.hpp"
#include "perfit/core/error.hpp"
#include "perfit/io/file_seal.hpp"
#include "perfit/io/result_file.hpp"
#include "perfit/io/store_format.hpp"

namespace perfit::io {

namespace fs = std::filesystem;

const char* describe(FileKind k) {
  switch (k) {
    case FileKind::none:
      return "no file";
    case FileKind::store:
      return "a perfit measurement store";
    case FileKind::synthetic_store:
      return "a perfit store of synthetic sets";
    case FileKind::result:
      return "a perfit result file";
    case FileKind::selection:
      return "a perfit selection store";
    case FileKind::predictions:
      return "a perfit predictions CSV";
    case FileKind::checkpoint:
      return "a perfit checkpoint";
    case FileKind::hdf5:
      return "an HDF5 file that is not a perfit result or store";
    case FileKind::damaged:
      return "a damaged perfit file (truncated or its checksum does not match)";
    case FileKind::other:
      return "a file that perfit did not write";
  }
  return "?";
}

namespace {

struct SetScan {
  int sets = 0, synthetic = 0;
};

herr_t scan_sets(hid_t root, const char* name, const H5L_info_t* info, void* data) {
  if (info->type != H5L_TYPE_HARD) return 0;
  const hid_t obj = H5Oopen(root, name, H5P_DEFAULT);
  if (obj < 0) return 0;
  auto* s = static_cast<SetScan*>(data);
  if (H5Iget_type(obj) == H5I_GROUP && H5Aexists(obj, kFormatAttribute) > 0) {
    ++s->sets;
    if (H5Aexists(obj, "truth_model") > 0) ++s->synthetic;
  } else if (H5Iget_type(obj) == H5I_GROUP && H5Aexists(obj, kPackAttribute) > 0) {
    ++s->sets;  // many small sets packed together (import --set-by): a store too
  }
  H5Oclose(obj);
  return 0;
}

FileKind hdf5_kind(const std::string& path) {
  silence_hdf5_errors();
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) {
    hdf5_error_stack();
    return FileKind::hdf5;
  }
  H5File file(f);
  if (H5Aexists(f, "perfit_result") > 0) return FileKind::result;
  if (H5Aexists(f, "perfit_selection") > 0) return FileKind::selection;
  if (H5Aexists(f, "perfit_checkpoint") > 0) return FileKind::checkpoint;
  SetScan s;
  if (H5Lvisit(f, H5_INDEX_NAME, H5_ITER_INC, scan_sets, &s) < 0) hdf5_error_stack();
  if (s.sets == 0) return FileKind::hdf5;
  return s.synthetic == s.sets ? FileKind::synthetic_store : FileKind::store;
}

}  // namespace

FileKind detect_file_kind(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return FileKind::none;
  if (!fs::is_regular_file(path, ec)) return FileKind::other;
  try {
    verify_seal(path, "file");  // before HDF5 parses it: a damaged file can crash libhdf5
  } catch (const DataError&) {
    return FileKind::damaged;
  }
  silence_hdf5_errors();
  const htri_t h = H5Fis_hdf5(path.c_str());
  if (h > 0) return hdf5_kind(path);
  hdf5_error_stack();
  std::ifstream in(path);
  std::string header;
  std::getline(in, header);
  return header.find("predicted_") != std::string::npos ? FileKind::predictions : FileKind::other;
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) {
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  }
  std::error_code ec1, ec2;
  return fs::weakly_canonical(a, ec1) == fs::weakly_canonical(b, ec2);
}

void check_output(const OutputCheck& c) {
  const std::string what = c.flag + " '" + c.path + "'";
  for (const auto& in : c.inputs) {
    if (!in.empty() && same_file(c.path, in)) {
      throw ConfigError(what + " is the input '" + in +
                        "'; a command never writes over its "
                        "input. Choose another output file");
    }
  }
  const FileKind found = detect_file_kind(c.path);
  if (found != FileKind::none) {
    const auto is_store = [](FileKind k) {
      return k == FileKind::store || k == FileKind::synthetic_store;
    };
    const bool same_kind = found == c.writes || (c.merge && is_store(found) && is_store(c.writes));
    if (c.merge && same_kind) {
      // updated in place through a temporary copy: nothing to refuse
    } else if (!same_kind) {
      throw ConfigError(what + " exists and is " + describe(found) + "; this command writes " +
                        describe(c.writes) +
                        " and never replaces another kind of file. "
                        "Choose another output file");
    } else if (!c.force) {
      throw ConfigError(what + " exists (" + describe(found) + "); pass " + c.force_hint +
                        " to replace it");
    }
  }
  const fs::path t(c.path);
  const fs::path dir = t.has_parent_path() ? t.parent_path() : fs::path(".");
  std::error_code ec;
  if (fs::is_directory(t, ec)) {
    throw IoError("cannot write " + what + ": it is a directory, expected a file name");
  }
  if (!fs::is_directory(dir, ec)) {
    throw IoError("cannot write " + what + ": directory '" + dir.string() +
                  "' does not exist. Create it first");
  }
  // The real test: create (and remove) a file beside the target, as the write will.
  const std::string probe =
      (dir / ("." + t.filename().string() + ".probe-" + std::to_string(::getpid()))).string();
  const int fd = ::open(probe.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644);
  if (fd < 0) {
    throw IoError("cannot write " + what + ": cannot create a file in directory '" + dir.string() +
                  "' (" + std::strerror(errno) + ")");
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace perfit::io
