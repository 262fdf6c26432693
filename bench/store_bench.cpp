// Store throughput: write N synthetic rows (generate + shuffle/deflate + HDF5) and load them
// back, then the peak memory of the load against the raw bytes of the loaded columns
// (goal <= 1.3: the loader must not hold copies). usage: perfit_bench_store [ROWS] [DIR]
#include <cstdio>
#include <filesystem>
#include <string>

#include "bench_util.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/io/synth_store.hpp"

int main(int argc, char** argv) {
  using namespace perfit;
  const std::size_t rows = argc > 1 ? static_cast<std::size_t>(std::stod(argv[1])) : 10000000;
  const std::string dir = argc > 2 ? argv[2] : std::filesystem::temp_directory_path().string();
  const std::string path = dir + "/perfit_bench_store.h5";
  const std::string set = "/pytorch/resnet50";

  data::SynthOptions o;
  o.rows = rows;
  double t0 = bench::now_s();
  io::write_synthetic_store(path, o, {set});
  const double write_s = bench::now_s() - t0;
  const double file_bytes = static_cast<double>(std::filesystem::file_size(path));

  const bool peak_ok = bench::reset_peak_rss();
  const double rss_before = bench::proc_status_bytes("VmRSS");
  t0 = bench::now_s();
  double raw_bytes = 0;
  {
    io::StoreReader r(path);
    const data::MeasurementTable t = r.read(set);
    const double load_s = bench::now_s() - t0;
    for (const auto& c : t.columns()) raw_bytes += 8.0 * static_cast<double>(c.size());
    const double peak = bench::proc_status_bytes("VmHWM") - rss_before;
    std::printf("rows=%zu columns=%zu raw_bytes=%.0f file_bytes=%.0f (%.2fx compression)\n", rows,
                t.cols(), raw_bytes, file_bytes, raw_bytes / file_bytes);
    std::printf("write: %.2f s, %.3g rows/s\n", write_s, rows / write_s);
    std::printf("load:  %.2f s, %.3g rows/s\n", load_s, rows / load_s);
    std::printf("load_peak_rss_over_raw=%.3f%s\n", peak / raw_bytes,
                peak_ok ? "" : " (peak reset unavailable: includes the write)");
  }
  std::filesystem::remove(path);
  return 0;
}
