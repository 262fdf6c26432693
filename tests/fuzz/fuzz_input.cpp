#include "fuzz_input.hpp"

#include <hdf5.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "perfit/core/error.hpp"
#include "perfit/io/h5_id.hpp"
#include "perfit/io/store_reader.hpp"

namespace perfit::fuzz {

namespace {

struct TempDir {
  std::string path;
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "perfit-fuzz-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      std::perror("perfit fuzz: mkdtemp");
      std::abort();
    }
    path = pattern;
    io::silence_hdf5_errors();  // HDF5 would print its error stack for every refused input
    // libhdf5 gives each open file a metadata cache of ~0.5 MB, above its free lists' default
    // limits, so every open took fresh pages from the sanitizer's allocator: page faults were
    // 60% of h5_store's time (84 inputs/s). On unlimited free lists the same blocks serve every
    // input.
    H5set_free_list_limits(-1, -1, -1, -1, -1, -1);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

}  // namespace

std::string write_input(const std::string& name, const std::uint8_t* data, std::size_t size) {
  static TempDir dir;
  const std::string path = dir.path + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) {
    std::perror(("perfit fuzz: cannot write " + path).c_str());
    std::abort();
  }
  return path;
}

void read_every_set(const std::string& path) {
  try {
    const io::StoreReader rd(path);
    for (const auto& set : rd.sets()) {
      try {
        (void)rd.info(set);
        (void)rd.read(set);
      } catch (const Error&) {
      }
    }
  } catch (const Error&) {
  }
}

}  // namespace perfit::fuzz
