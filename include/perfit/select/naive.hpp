// `select`'s naive candidates, naive-ideal and naive-loglog (model/naive_scaling.hpp): like
// pmnf-search they are procedures, computed per fold from its training rows (microseconds, on
// every rank); the one written with --out is computed from every row.
#pragma once

#include <string>
#include <vector>

#include "perfit/data/splits.hpp"
#include "perfit/fit/validation.hpp"
#include "perfit/model/naive_scaling.hpp"

namespace perfit::select {

// The predictor's FoldFits: per fold from its training rows (folds empty: on every row).
std::vector<fit::FoldFit> naive_folds(model::NaiveKind kind, const std::string& column,
                                      const data::MeasurementTable& rows,
                                      const std::vector<data::Fold>& folds,
                                      model::Residual residual);

// The predictor from every row.
model::ModelSpec naive_spec_of(model::NaiveKind kind, const std::string& column,
                               const data::MeasurementTable& rows);

}  // namespace perfit::select
