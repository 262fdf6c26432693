#include "perfit/io/checkpoint_file.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "perfit/core/error.hpp"
#include "perfit/core/test_hooks.hpp"
#include "perfit/io/atomic_output.hpp"
#include "perfit/io/file_seal.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/io/store_writer.hpp"

namespace perfit::io {

namespace {

std::vector<std::int64_t> as_int64(const std::vector<std::uint64_t>& w) {
  std::vector<std::int64_t> out(w.size());
  std::memcpy(out.data(), w.data(), w.size() * sizeof(std::uint64_t));
  return out;
}

std::vector<std::uint64_t> as_uint64(const std::vector<std::int64_t>& w) {
  std::vector<std::uint64_t> out(w.size());
  std::memcpy(out.data(), w.data(), w.size() * sizeof(std::int64_t));
  return out;
}

std::string text(const data::Attributes& a, const std::string& key, const std::string& path) {
  const auto it = a.find(key);
  if (it == a.end())
    throw DataError("checkpoint '" + path + "' is incomplete: attribute '" + key + "' is missing");
  return data::attribute_text(it->second);
}

double number(const data::Attributes& a, const std::string& key, const std::string& path) {
  const auto it = a.find(key);
  if (it != a.end()) {
    if (const auto* d = std::get_if<double>(&it->second)) return *d;
    if (const auto* i = std::get_if<std::int64_t>(&it->second)) return static_cast<double>(*i);
  }
  throw DataError("checkpoint '" + path + "' is incomplete: number '" + key + "' is missing");
}

}  // namespace

std::string checkpoint_path(const std::string& dir) {
  return (std::filesystem::path(dir) / "checkpoint.h5").string();
}

void write_checkpoint(const std::string& path, const Checkpoint& c) {
  AtomicOutput out(path);
  out.write_and_commit([&](const std::string& temp) {
    StoreWriter w(temp, Seal::yes);
    const data::Attributes root = {
        {"perfit_checkpoint", std::string(kCheckpointFormat)},
        {"config_yaml", c.config_yaml},
        {"model_yaml", c.model_yaml},
        {"data_file", c.data_file},
        {"set", c.set},
        {"data_checksum", c.data_checksum},
        {"ranks", static_cast<std::int64_t>(c.ranks)},
        {"islands", static_cast<std::int64_t>(c.islands.size())},
        {"epochs_done", static_cast<std::int64_t>(c.job.epochs_done)},
        {"seconds", c.job.seconds},
        {"perfit_version", c.perfit_version},
        {"created_utc", c.created_utc},
    };
    for (const auto& [k, v] : root) w.write_root_attribute(k, v);
    data::MeasurementTable history;
    history.add_column(data::Column("best_cost", c.job.history));
    w.write_group("/history", history);
    for (std::size_t i = 0; i < c.islands.size(); ++i) {
      data::MeasurementTable words;
      words.add_column(data::Column("words", as_int64(c.islands[i])));
      w.write_group("/island_" + std::to_string(i), words);
    }
    w.close();
    // A checkpoint write that lasts long enough to be killed in.
    if (const double ms = test_hook(kCheckpointDelayMs); ms > 0) {
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
    }
  });
}

Checkpoint read_checkpoint(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw IoError("checkpoint '" + path + "' does not exist");
  verify_seal(path, "checkpoint");
  StoreReader rd(path);
  const data::Attributes a = rd.root_attributes();
  if (!a.count("perfit_checkpoint") || text(a, "perfit_checkpoint", path) != kCheckpointFormat) {
    throw DataError("'" + path + "' is not a " + kCheckpointFormat + " file");
  }
  Checkpoint c;
  c.config_yaml = text(a, "config_yaml", path);
  c.model_yaml = text(a, "model_yaml", path);
  c.data_file = text(a, "data_file", path);
  c.set = text(a, "set", path);
  c.data_checksum = text(a, "data_checksum", path);
  c.ranks = static_cast<int>(number(a, "ranks", path));
  c.perfit_version = text(a, "perfit_version", path);
  c.created_utc = text(a, "created_utc", path);
  c.job.epochs_done = static_cast<std::size_t>(number(a, "epochs_done", path));
  c.job.seconds = number(a, "seconds", path);
  c.job.history = rd.read_group("/history").column("best_cost").f64();
  const auto n = static_cast<std::size_t>(number(a, "islands", path));
  for (std::size_t i = 0; i < n; ++i) {
    c.islands.push_back(
        as_uint64(rd.read_group("/island_" + std::to_string(i)).column("words").i64()));
  }
  return c;
}

}  // namespace perfit::io
