#include "perfit/io/synth_store.hpp"

#include <algorithm>

#include "perfit/core/error.hpp"
#include "perfit/io/atomic_output.hpp"
#include "perfit/io/store_writer.hpp"

namespace perfit::io {

SynthStoreSummary write_synthetic_store(const std::string& path, const data::SynthOptions& options,
                                        const std::vector<std::string>& only) {
  options.validate();
  const auto catalogue = data::synth_catalogue();
  for (const auto& want : only) {
    if (std::none_of(catalogue.begin(), catalogue.end(),
                     [&](const data::SynthSetSpec& s) { return s.path() == want; })) {
      std::string names;
      for (const auto& s : catalogue) names += (names.empty() ? "" : ", ") + s.path();
      throw ConfigError("--set '" + want + "' is not a synthetic set; choose from: " + names);
    }
  }
  constexpr std::size_t kRowsPerChunk = 1 << 16;
  SynthStoreSummary summary;
  AtomicOutput out(path);
  out.write_and_commit([&](const std::string& temp) {
    StoreWriter w(temp, Seal::yes);
    for (std::size_t i = 0; i < catalogue.size(); ++i) {
      const auto& spec = catalogue[i];
      if (!only.empty() && std::find(only.begin(), only.end(), spec.path()) == only.end()) {
        continue;
      }
      data::SynthGenerator gen(spec, options, i);
      std::vector<ColumnInfo> cols;
      std::size_t offset = 0;
      data::MeasurementTable chunk = gen.next_chunk(kRowsPerChunk);
      for (const auto& c : chunk.columns()) cols.push_back({c.name(), c.type()});
      SetWriter sw = w.create_set(spec.path(), cols, options.rows, gen.attributes());
      while (chunk.rows() > 0) {
        sw.write(offset, chunk);
        offset += chunk.rows();
        chunk = gen.next_chunk(kRowsPerChunk);
      }
      sw.finish();
      summary.sets.push_back(spec.path());
      summary.rows += offset;
    }
    w.close();
  });
  return summary;
}

}  // namespace perfit::io
