#include "perfit/data/splits.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "perfit/core/assert.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/option_table.hpp"
#include "perfit/core/rng.hpp"

namespace perfit::data {

namespace {

constexpr const char* kExpected =
    "expected kfold:K, group:COLUMN[:K], scale:COLUMN[:K] or forward:COLUMN";

std::vector<std::string> split_colons(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == ':') {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

std::size_t parse_count(const std::string& split, const std::string& text, std::uint64_t lo) {
  try {
    return static_cast<std::size_t>(
        parse_whole(text, lo, 1000000, "a whole number >= " + std::to_string(lo)));
  } catch (const ConfigError& e) {
    throw ConfigError("split '" + split + "': " + e.what());
  }
}

Fold make_fold(std::string name, std::vector<bool> test) {
  Fold f;
  f.name = std::move(name);
  f.test = std::move(test);
  f.train.resize(f.test.size());
  for (std::size_t i = 0; i < f.test.size(); ++i) {
    f.train[i] = !f.test[i];
    f.test_rows += f.test[i] ? 1 : 0;
  }
  f.train_rows = f.test.size() - f.test_rows;
  return f;
}

const Column& numeric_column(const MeasurementTable& t, const std::string& name,
                             const std::string& split) {
  const Column& c = t.column(name);
  if (!c.is_numeric()) {
    throw DataError("split '" + split + "': column '" + name +
                    "' holds text; scale:COLUMN needs a "
                    "numeric column (group:" +
                    name + " holds out one value at a time)");
  }
  return c;
}

std::vector<Fold> kfold(const SplitSpec& spec, const MeasurementTable& t,
                        const std::vector<std::string>& config_columns, std::uint64_t seed) {
  for (const auto& name : config_columns) numeric_column(t, name, spec.text());
  std::size_t configs = 0;
  const std::vector<std::size_t> row_config = configuration_ids(t, config_columns, configs);
  if (configs < spec.k) {
    throw DataError("split '" + spec.text() + "' needs at least " + std::to_string(spec.k) +
                    " distinct configurations, the set has " + std::to_string(configs) +
                    "; use fewer folds");
  }
  // A seeded shuffle of the configurations dealt round-robin: folds differ in size by at most one
  // configuration, and the same seed gives the same folds.
  std::vector<std::size_t> order(configs);
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  Rng rng = Rng::derive(seed, 0x5B1D);
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  std::vector<std::size_t> fold_of(configs);
  for (std::size_t i = 0; i < order.size(); ++i) fold_of[order[i]] = i % spec.k;
  std::vector<Fold> folds;
  for (std::size_t f = 0; f < spec.k; ++f) {
    std::vector<bool> test(t.rows());
    for (std::size_t i = 0; i < t.rows(); ++i) test[i] = fold_of[row_config[i]] == f;
    folds.push_back(
        make_fold("fold " + std::to_string(f + 1) + "/" + std::to_string(spec.k), std::move(test)));
  }
  return folds;
}

// Row -> its value of `column` as text (a number as written by format_real), and the distinct
// values in order (numbers ascending).
std::vector<std::string> group_values(const Column& c, std::vector<std::string>& distinct) {
  std::vector<std::string> values(c.size());
  std::vector<double> numbers;
  if (c.is_numeric()) numbers = c.to_double();
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = c.is_numeric() ? format_real(numbers[i]) : c.str()[i];
  if (c.is_numeric()) {
    for (double v : distinct_values(c)) distinct.push_back(format_real(v));
  } else {
    distinct = values;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  }
  return values;
}

std::vector<Fold> group(const SplitSpec& spec, const MeasurementTable& t) {
  std::vector<std::string> distinct;
  const std::vector<std::string> values = group_values(t.column(spec.column), distinct);
  if (distinct.size() < 2) {
    throw DataError("split '" + spec.text() + "': column '" + spec.column + "' has " +
                    std::to_string(distinct.size()) +
                    " distinct value(s); leaving one group out "
                    "needs at least 2");
  }
  std::vector<double> scale;
  if (spec.given > 0) scale = numeric_column(t, spec.scale, spec.text()).to_double();
  std::vector<Fold> folds;
  for (const auto& v : distinct) {
    std::vector<bool> test(t.rows());
    for (std::size_t i = 0; i < t.rows(); ++i) test[i] = values[i] == v;
    std::string name = spec.column + "=" + v;
    if (spec.given > 0) {  // its K smallest scales train
      std::vector<double> own;
      for (std::size_t i = 0; i < t.rows(); ++i) {
        if (test[i]) own.push_back(scale[i]);
      }
      std::sort(own.begin(), own.end());
      own.erase(std::unique(own.begin(), own.end()), own.end());
      if (own.size() <= spec.given) continue;  // nothing left to predict
      const double cut = own[spec.given - 1];
      for (std::size_t i = 0; i < t.rows(); ++i) test[i] = test[i] && scale[i] > cut;
      name += " given " + spec.scale + "<=" + format_real(cut);
    }
    folds.push_back(make_fold(std::move(name), std::move(test)));
  }
  if (folds.empty()) {
    throw DataError("split '" + spec.text() + "': no value of '" + spec.column +
                    "' is measured at more than " + std::to_string(spec.given) + " values of '" +
                    spec.scale + "', so nothing is left to predict");
  }
  return folds;
}

std::vector<Fold> scale(const SplitSpec& spec, const MeasurementTable& t) {
  const Column& c = numeric_column(t, spec.column, spec.text());
  const std::vector<double> distinct = distinct_values(c);
  if (distinct.size() < spec.k + 2) {
    throw DataError("split '" + spec.text() + "': column '" + spec.column + "' has " +
                    std::to_string(distinct.size()) + " distinct values; holding out the " +
                    std::to_string(spec.k) + " largest needs at least " +
                    std::to_string(spec.k + 2) + " (2 left to train on)");
  }
  const double cut = distinct[distinct.size() - spec.k];
  const std::vector<double> v = c.to_double();
  std::vector<bool> test(t.rows());
  for (std::size_t i = 0; i < t.rows(); ++i) test[i] = v[i] >= cut;
  return {make_fold(spec.column + ">=" + format_real(cut), std::move(test))};
}

// Rolling origin: for each value from the third smallest up, train below it and predict it.
std::vector<Fold> forward(const SplitSpec& spec, const MeasurementTable& t) {
  const Column& c = numeric_column(t, spec.column, spec.text());
  const std::vector<double> distinct = distinct_values(c);
  if (distinct.size() < 3) {
    throw DataError("split '" + spec.text() + "': column '" + spec.column + "' has " +
                    std::to_string(distinct.size()) +
                    " distinct values; predicting each from the smaller "
                    "ones needs at least 3");
  }
  const std::vector<double> v = c.to_double();
  std::vector<Fold> folds;
  for (std::size_t k = 2; k < distinct.size(); ++k) {
    Fold f;
    f.name = spec.column + "=" + format_real(distinct[k]);
    f.test.resize(t.rows());
    f.train.resize(t.rows());
    for (std::size_t i = 0; i < t.rows(); ++i) {
      f.test[i] = v[i] == distinct[k];
      f.train[i] = v[i] < distinct[k];
      f.test_rows += f.test[i] ? 1 : 0;
      f.train_rows += f.train[i] ? 1 : 0;
    }
    folds.push_back(std::move(f));
  }
  return folds;
}

}  // namespace

std::string SplitSpec::text() const {
  switch (kind) {
    case SplitKind::kfold:
      return "kfold:" + std::to_string(k);
    case SplitKind::group:
      return "group:" + column + (given == 0 ? "" : ":" + std::to_string(given));
    case SplitKind::scale:
      return "scale:" + column + (k == 1 ? "" : ":" + std::to_string(k));
    case SplitKind::forward:
      return "forward:" + column;
  }
  return "";
}

SplitSpec parse_split(const std::string& text) {
  const std::vector<std::string> parts = split_colons(text);
  SplitSpec s;
  const std::string& kind = parts[0];
  if (kind == "kfold" && parts.size() <= 2) {
    s.kind = SplitKind::kfold;
    s.k = parts.size() == 2 ? parse_count(text, parts[1], 2) : 5;
    return s;
  }
  if (kind == "forward" && parts.size() == 2 && !parts[1].empty()) {
    s.kind = SplitKind::forward;
    s.column = parts[1];
    return s;
  }
  if ((kind == "group" || kind == "scale") && (parts.size() == 2 || parts.size() == 3)) {
    if (parts[1].empty()) throw ConfigError("split '" + text + "': no column name; " + kExpected);
    s.kind = kind == "group" ? SplitKind::group : SplitKind::scale;
    s.column = parts[1];
    const std::size_t n = parts.size() == 3 ? parse_count(text, parts[2], 1) : 0;
    if (s.kind == SplitKind::group)
      s.given = n;
    else
      s.k = n > 0 ? n : 1;
    return s;
  }
  throw ConfigError("split '" + text + "': " + kExpected);
}

std::vector<Fold> make_folds(const SplitSpec& spec, const MeasurementTable& table,
                             const std::vector<std::string>& config_columns, std::uint64_t seed) {
  switch (spec.kind) {
    case SplitKind::kfold:
      return kfold(spec, table, config_columns, seed);
    case SplitKind::group:
      return group(spec, table);
    case SplitKind::scale:
      return scale(spec, table);
    case SplitKind::forward:
      return forward(spec, table);
  }
  return {};
}

std::vector<std::size_t> configuration_ids(const MeasurementTable& t,
                                           const std::vector<std::string>& columns,
                                           std::size_t& count) {
  std::vector<std::vector<double>> cols;
  for (const auto& name : columns) cols.push_back(t.column(name).to_double());
  std::map<std::vector<double>, std::size_t> ids;
  std::vector<std::size_t> of(t.rows());
  std::vector<double> key(cols.size());
  for (std::size_t i = 0; i < t.rows(); ++i) {
    for (std::size_t j = 0; j < cols.size(); ++j) key[j] = cols[j][i];
    of[i] = ids.emplace(key, ids.size()).first->second;
  }
  count = ids.size();
  return of;
}

MeasurementTable select_rows(const MeasurementTable& table, const std::vector<bool>& keep) {
  // Only the kept rows are copied: a joint fit's folds keep one group's rows of a table with
  // a column per group, and copying the whole table first was most of fitting each group alone.
  PERFIT_ASSERT(keep.size() == table.rows(), "mask length differs from the table's rows");
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < keep.size(); ++i) {
    if (keep[i]) rows.push_back(i);
  }
  return table.take_rows(rows);
}

std::vector<double> distinct_values(const Column& column) {
  std::vector<double> v = column.to_double();
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace perfit::data
