// A model's factors bound to a set's own column names or to fixed numbers, so that built-in
// models (written over p, b, d, epochs) fit tables with other names (MLPerf's n_accelerators)
// or without a factor (d=1 where the work is fixed). The binding rewrites the spec, so the
// result file keeps a self-contained model that predict and explain read as is.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "perfit/model/model.hpp"

namespace perfit::model {

struct FactorBinding {
  std::string factor;  // the model's name
  std::string column;  // the set's column; empty: a fixed value
  double value = 0.0;
};

// "p=n_accelerators,d=1" -> bindings ("" -> none).
// Throws: ConfigError "factors 'X': ..." for an entry that is not NAME=COLUMN or NAME=NUMBER.
std::vector<FactorBinding> parse_factor_bindings(const std::string& text);

// The bindings of factors the spec reads (select binds one list to models with different factors).
std::vector<FactorBinding> bindings_for(const ModelSpec& spec,
                                        const std::vector<FactorBinding>& bindings);
// The column a name stands for: the column `name` is bound to (p -> n_accelerators), else
// `name` itself (already a column, or bound to a value).
std::string column_of(const std::vector<FactorBinding>& bindings, const std::string& name);
// Back to "p=n_accelerators,d=1".
std::string to_text(const std::vector<FactorBinding>& bindings);

// The column that measures a model's scale (workers): p, or the column p is bound to; "" if
// the model reads neither.
std::string scale_column(const Model& m);

// The spec with each bound factor read from its column (a term NAME = COLUMN) or fixed (a
// constant); its `factors:` list names the columns.
// Throws: ConfigError naming a factor the model does not read (and listing those it reads).
ModelSpec bind_factors(ModelSpec spec, const std::vector<FactorBinding>& bindings);

}  // namespace perfit::model
