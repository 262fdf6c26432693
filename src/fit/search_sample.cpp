#include "search_sample.hpp"

#include <algorithm>

namespace perfit::fit::detail {

namespace {

std::vector<double> every(const double* v, std::size_t n, std::size_t stride) {
  std::vector<double> out;
  out.reserve(n / stride + 1);
  for (std::size_t i = 0; i < n; i += stride) out.push_back(v[i]);
  return out;
}

}  // namespace

SearchSample SearchSample::take(const model::Evaluator& full, const data::MeasurementTable& rows,
                                std::size_t max_rows) {
  const std::size_t n = full.rows();
  SearchSample s;
  s.stride_ = (n + max_rows - 1) / max_rows;
  // The columns as the evaluator converted them, the target, and the weights in effect (the
  // weight column times the row weights) as row weights: the sample's rows weigh what they did.
  s.table_ = std::make_unique<data::MeasurementTable>();
  const auto& used = full.model().columns_used();
  for (std::size_t i = 0; i < used.size(); ++i) {
    s.table_->add_column(data::Column(used[i], every(full.column_values(i).data(), n, s.stride_)));
  }
  const std::string target = rows.target();
  if (std::find(used.begin(), used.end(), target) == used.end()) {
    s.table_->add_column(data::Column(target, every(full.measured().data(), n, s.stride_)));
  }
  s.table_->attributes() = rows.attributes();
  model::CostOptions cost = full.cost_options();
  cost.weight_column.clear();
  model::EvaluatorOptions o = full.options();
  o.row_weights = Eigen::VectorXd();
  if (full.weights().size() > 0) {
    const std::vector<double> w = every(full.weights().data(), n, s.stride_);
    o.row_weights =
        Eigen::Map<const Eigen::VectorXd>(w.data(), static_cast<Eigen::Index>(w.size()));
  }
  s.ev_ = std::make_unique<model::Evaluator>(full.model(), *s.table_, cost, o);
  return s;
}

}  // namespace perfit::fit::detail
