// One prediction from a fitted result: the rows named either way (factor or bound column), the
// model's prediction and each term, the interval the result supports, and the extrapolation
// guard's verdict per row. `perfit predict` and the Python package's Fit.predict share it.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/fit/bootstrap.hpp"
#include "perfit/fit/predictive.hpp"
#include "perfit/io/result_file.hpp"
#include "perfit/job/measured_range.hpp"
#include "perfit/model/model.hpp"

namespace perfit::job {

// The interval of a prediction: with level > 0 the prediction interval for what a run will
// measure, else (a result with bootstrap refits) the constants' percentile interval;
// `contains` says which in words.
struct Interval {
  std::optional<fit::PredictionInterval> bounds;
  double level = 0.0;
  std::string contains;
  bool asked_but_unavailable = false;
};

struct Prediction {
  data::MeasurementTable rows;  // as given, in the model's column names
  Eigen::VectorXd values;
  Eigen::MatrixXd terms;  // one column per named term
  std::vector<std::string> term_names;
  Interval interval;
  std::vector<std::vector<Outside>> outside;  // per row, the factors beyond the measured range
  RangeGuard guard;
  std::string note;  // factors held at their one measured value (ResultNames::bind), or ""
};

// `result` names the result in messages, `where` the rows ("--at", "'grid.csv'", "the
// DataFrame"). With only_factors, `rows` must hold exactly the model's factors; otherwise
// other columns are kept. interval: 0 or a level in (0, 1).
// Throws: ConfigError for a missing or doubly named factor; DataError for a damaged model.
// "p=64,b=256,d=1.28e6" -> a one-row table; a joint fit's group columns take text
// (framework=TensorFlow). Throws: ConfigError naming a value that is no number.
data::MeasurementTable at_row(const std::string& text, const io::ResultFile& r);

// `rows` in the model's names, ready for an evaluator of `spec` (the result's model, parsed
// here): a joint fit's group columns checked and its indicators added (the group columns kept,
// for the range guard). only_factors: the rows may hold nothing but the model's factors.
// `note`: what binding renamed, if anything. Throws: ConfigError naming a missing factor or
// group column (listing the groups).
data::MeasurementTable bind_rows(const io::ResultFile& r, const std::string& result,
                                 const data::MeasurementTable& rows, const std::string& where,
                                 bool only_factors, model::ModelSpec& spec, std::string* note);

Prediction predict_rows(const io::ResultFile& r, const std::string& result,
                        const data::MeasurementTable& rows, const std::string& where,
                        bool only_factors, double interval);

}  // namespace perfit::job
