// How a measurement set is split into training and held-out rows to measure how well a fitted
// model predicts rows it has not seen: k-fold over configurations, leave-one-group-out, and
// extrapolation (train below the K largest values of a column, predict those). Rows of one
// configuration stay on one side, so repeated runs never leak into their own test.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"

namespace perfit::data {

enum class SplitKind {
  kfold,   // kfold:K      configurations shuffled (seeded) and dealt to K folds
  group,   // group:COL[:K] one fold per distinct value of COL (string or numeric); with K, that
           //              value's rows at its K smallest values of the scale column train too
           //              (a group predicted from a few small runs of its own)
  scale,   // scale:COL[:K] one fold: test = rows with the K largest values of COL (default 1)
  forward  // forward:COL  rolling origin: each value from the third up, trained on the smaller ones
};

struct SplitSpec {
  SplitKind kind = SplitKind::kfold;
  std::string column;        // group, scale
  std::size_t k = 5;         // kfold: folds; scale: largest values held out
  std::size_t given = 0;     // group: the held-out group's smallest scales that train
  std::string scale;         // group with given: the column of scale (set by the caller)
  std::string text() const;  // parses back to the same spec
};

// Throws: ConfigError "split 'X': ..., expected kfold:K, group:COLUMN[:K], scale:COLUMN[:K] or
// forward:COLUMN".
SplitSpec parse_split(const std::string& text);

struct Fold {
  std::string name;         // "fold 2/5", "framework=MXNet", "n_accelerators>=256"
  std::vector<bool> train;  // per row of the table
  std::vector<bool> test;
  std::size_t train_rows = 0, test_rows = 0;
};

// config_columns: the columns that identify a configuration (the model's factors).
// Throws: DataError naming the column (missing, or string where a number is needed) and what
// the split needs (e.g. "kfold:5 needs at least 5 configurations, the set has 3"). A group
// measured at no more than K scales holds nothing out under group:COL:K and has no fold.
std::vector<Fold> make_folds(const SplitSpec& spec, const MeasurementTable& table,
                             const std::vector<std::string>& config_columns, std::uint64_t seed);

// Row -> configuration (0, 1, ... by first appearance of the values of `columns`, numeric);
// count receives how many there are. Throws: DataError for a missing or text column.
std::vector<std::size_t> configuration_ids(const MeasurementTable& t,
                                           const std::vector<std::string>& columns,
                                           std::size_t& count);

// Rows kept by a mask, as a new table with the same attributes.
MeasurementTable select_rows(const MeasurementTable& table, const std::vector<bool>& keep);

// The distinct values of a numeric column, ascending. Throws: DataError for a string column.
std::vector<double> distinct_values(const Column& column);

}  // namespace perfit::data
