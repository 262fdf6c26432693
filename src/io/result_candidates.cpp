// A result's /candidates group: one row per candidate of a selection.
#include "result_candidates.hpp"

#include "perfit/core/error.hpp"
#include "perfit/core/option_table.hpp"
#include "perfit/core/text.hpp"

namespace perfit::io::detail {

using data::Column;
using data::ColumnType;

namespace {

// A damaged group is a DataError naming the file, never a crash (the readers are fuzzed).
const data::Column& typed(const data::MeasurementTable& t, const char* name, data::ColumnType type,
                          const std::string& path) {
  const data::Column* c = t.find(name);
  if (!c || c->type() != type) {
    throw DataError(
        "'" + path + "' group /candidates: column '" + name + "' is " +
        (c ? std::string("of type ") + data::to_string(c->type()) : std::string("missing")) +
        ", expected " + data::to_string(type));
  }
  return *c;
}

}  // namespace

data::MeasurementTable candidates_table(const std::vector<CandidateFit>& cands) {
  std::vector<std::int64_t> rank;
  std::vector<std::string> model, source, yaml, params;
  std::vector<double> score, mape;
  for (const auto& c : cands) {
    rank.push_back(static_cast<std::int64_t>(c.rank));
    model.push_back(c.model);
    source.push_back(c.source);
    score.push_back(c.score);
    mape.push_back(c.mape);
    yaml.push_back(c.model_yaml);
    std::string text;
    for (const double v : c.params) text += (text.empty() ? "" : ";") + format_real(v);
    params.push_back(text);
  }
  data::MeasurementTable t;
  t.add_column(Column("rank", rank));
  t.add_column(Column("model", model));
  t.add_column(Column("source", source));
  t.add_column(Column("score", score));
  t.add_column(Column("held_out_mape", mape));
  t.add_column(Column("model_yaml", yaml));
  t.add_column(Column("params", params));
  return t;
}

std::vector<CandidateFit> candidates_from_table(const data::MeasurementTable& t,
                                                const std::string& path) {
  using data::Column;
  using data::ColumnType;
  const auto& rank = typed(t, "rank", ColumnType::int64, path).i64();
  const auto& model = typed(t, "model", ColumnType::string, path).str();
  const auto& source = typed(t, "source", ColumnType::string, path).str();
  const auto& score = typed(t, "score", ColumnType::float64, path).f64();
  const auto& mape = typed(t, "held_out_mape", ColumnType::float64, path).f64();
  const auto& yaml = typed(t, "model_yaml", ColumnType::string, path).str();
  const auto& params = typed(t, "params", ColumnType::string, path).str();
  std::vector<CandidateFit> out;
  for (std::size_t i = 0; i < t.rows(); ++i) {
    CandidateFit c{static_cast<std::size_t>(std::max<std::int64_t>(rank[i], 0)),
                   model[i],
                   source[i],
                   score[i],
                   mape[i],
                   yaml[i],
                   {}};
    for (const auto& v : split_list(params[i], ';')) {
      try {
        c.params.push_back(parse_real(v, -std::numeric_limits<double>::infinity(),
                                      std::numeric_limits<double>::infinity(), "a number"));
      } catch (const ConfigError& e) {
        throw DataError("'" + path + "' group /candidates, candidate '" + c.model +
                        "' params: " + e.what());
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace perfit::io::detail
