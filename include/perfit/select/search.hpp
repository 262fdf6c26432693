// `select --models pmnf-search[:COLUMN[+COLUMN]]`: Extra-P's hypothesis search as a candidate. It
// is a procedure, not a fixed model: each fold searches on its own training rows, and the winner
// written with --out is the hypothesis found on every row, its coefficients then fitted by the
// engine like any model (model/hypothesis_search.hpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "perfit/data/splits.hpp"
#include "perfit/fit/validation.hpp"
#include "perfit/model/hypothesis_search.hpp"

namespace perfit::select {

inline constexpr const char* kSearchWord = "pmnf-search";

// "pmnf-search" -> {} (the default column), "pmnf-search:p" -> {p}, "pmnf-search:p+d" -> {p, d};
// false: another word. Throws: ConfigError for more than two columns or an empty one.
bool is_search_word(const std::string& word, std::vector<std::string>& columns);

// A stand-in model over the columns (c0 + c1*x1 [+ c2*x2]: the most constants a search over
// them returns) named `name` (the word as the user wrote it) that names the candidate and the
// columns it reads; never fitted.
std::shared_ptr<const model::Model> search_placeholder(const std::string& name,
                                                       const std::vector<std::string>& columns,
                                                       const std::vector<std::string>& set_columns);

// The search's FoldFits: per fold on its training rows (folds empty: in-sample on every row).
std::vector<fit::FoldFit> search_folds(const std::vector<std::string>& columns,
                                       const data::MeasurementTable& rows,
                                       const std::vector<data::Fold>& folds,
                                       model::Residual residual, const model::SearchOptions& opt);

// The hypothesis found on every row as a model spec with bounds around the data (negative
// coefficients allowed, as in Extra-P).
model::ModelSpec searched_spec(const std::vector<std::string>& columns,
                               const data::MeasurementTable& rows, const model::SearchOptions& opt,
                               model::PmnfHypothesis& found);

// "pmnf-search:p+d" for messages and the JSON.
std::string search_label(const std::vector<std::string>& columns);

}  // namespace perfit::select
