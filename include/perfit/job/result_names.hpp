// The names a fitted result answers to in predict, explain and recommend. Its fit's --factors
// binding is saved with it (config_yaml), so a factor bound to a column may be named either way
// (p or gpus), and a factor the fit fixed to a value (d=1281167, epochs=1) may be given again:
// its values then replace the fixed one (predict 90 epochs from a fit of one).
#pragma once

#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/io/result_file.hpp"
#include "perfit/model/factor_binding.hpp"
#include "perfit/model/model.hpp"

namespace perfit::job {

class ResultNames {
 public:
  // `path` names the result in messages. Throws: ConfigError for a damaged config_yaml.
  ResultNames(const io::ResultFile& r, const std::string& path);

  // The model's column for `name` (p -> gpus); `name` itself when it is no bound factor.
  std::string column(const std::string& name) const;
  // The table in the model's column names. A column of a fixed factor stays, and `spec` reads
  // it instead of the fixed value. A factor `spec` reads that `t` lacks and the fit measured at
  // one value only (samples = 1281167 in every row) is held at that value: the note saying so
  // goes to `note`, or to stderr when `note` is null. `where` names the option in messages.
  // Throws: ConfigError for a name given twice (p and gpus).
  data::MeasurementTable bind(const data::MeasurementTable& t, model::ModelSpec& spec,
                              const std::string& where, std::string* note = nullptr) const;

 private:
  // The fixed value's factor, if `name` is one (d, epochs), else nullptr.
  const model::FactorBinding* fixed(const std::string& name) const;
  std::vector<model::FactorBinding> bindings_;
  std::vector<io::MeasuredRange> ranges_;
};

}  // namespace perfit::job
