// `select --models pmnf-search[:COLUMN]`: Extra-P's hypothesis search as a candidate. It is a
// procedure, not a fixed model: each fold searches on its own training rows, and the winner
// written with --out is the hypothesis found on every row, its coefficients then fitted by the
// engine like any model (model/hypothesis_search.hpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "perfit/data/splits.hpp"
#include "perfit/fit/validation.hpp"
#include "perfit/model/hypothesis_search.hpp"

namespace perfit::app {

inline constexpr const char* kSearchWord = "pmnf-search";

// "pmnf-search" or "pmnf-search:COLUMN" -> COLUMN ("" for the default); false: another word.
bool is_search_word(const std::string& word, std::string& column);

// A stand-in model over `column` (c0 + c1*column, 2 constants) that names the candidate and
// the columns it reads; never fitted.
std::shared_ptr<const model::Model> search_placeholder(const std::string& column, const std::vector<std::string>& set_columns);

// The search's FoldFits: per fold on its training rows (folds empty: in-sample on every row).
std::vector<fit::FoldFit> search_folds(const std::string& column, const data::MeasurementTable& rows,
                                       const std::vector<data::Fold>& folds, model::Residual residual);

// The hypothesis found on every row as a model spec with bounds around the data (negative
// coefficients allowed, as in Extra-P).
model::ModelSpec searched_spec(const std::string& column, const data::MeasurementTable& rows,
                               model::PmnfHypothesis& found);

}  // namespace perfit::app
