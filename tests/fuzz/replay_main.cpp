// Without libFuzzer (the GCC build): runs a fuzz target over files and directories of inputs,
// the checked-in seed corpus and every regression input, so each finding stays fixed in the
// normal test run too. Prints how many inputs it ran; a crash ends the process as it would
// under libFuzzer.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

void run_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  const std::vector<char> bytes{std::istreambuf_iterator<char>(in),
                                std::istreambuf_iterator<char>()};
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t n = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    if (std::filesystem::is_directory(arg)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(arg)) {
        if (!e.is_regular_file()) continue;
        run_file(e.path());
        ++n;
      }
    } else if (std::filesystem::is_regular_file(arg)) {
      run_file(arg);
      ++n;
    } else {
      std::fprintf(stderr, "replay: '%s' is neither a file nor a directory\n", argv[i]);
      return 2;
    }
  }
  std::printf("replayed %zu inputs without a crash\n", n);
  return n == 0 ? 1 : 0;
}
