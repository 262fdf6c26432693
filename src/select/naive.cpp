#include "perfit/select/naive.hpp"

#include <limits>

#include "perfit/core/error.hpp"
#include "perfit/model/evaluator.hpp"
#include "perfit/model/metrics.hpp"

namespace perfit::select {

model::ModelSpec naive_spec_of(model::NaiveKind kind, const std::string& column,
                               const data::MeasurementTable& rows) {
  return model::naive_spec(kind, column, rows.column(column).to_double(),
                           rows.column(rows.target()).to_double());
}

std::vector<fit::FoldFit> naive_folds(model::NaiveKind kind, const std::string& column,
                                      const data::MeasurementTable& rows,
                                      const std::vector<data::Fold>& folds,
                                      model::Residual residual) {
  std::vector<fit::FoldFit> out;
  const std::size_t n = std::max<std::size_t>(folds.size(), 1);
  for (std::size_t k = 0; k < n; ++k) {
    const data::Fold* f = folds.empty() ? nullptr : &folds[k];
    const data::MeasurementTable train = f ? data::select_rows(rows, f->train) : rows;
    const data::MeasurementTable test = f ? data::select_rows(rows, f->test) : rows;
    fit::FoldFit r;
    r.fold = f ? f->name : "all rows";
    r.train_rows = train.rows();
    r.test_rows = test.rows();
    r.params = Eigen::VectorXd(0);
    try {
      const model::Model m(naive_spec_of(kind, column, train), {column, rows.target()});
      const model::Evaluator ev(m, test);
      r.measured = ev.measured();
      r.predicted = ev.predict(r.params);
      r.test = model::compute_metrics(r.predicted, r.measured);
      r.test_cost = fit::mean_residual(residual, r.predicted, r.measured);
      r.train_cost = 0.0;
    } catch (const DataError&) {
      r.failed = true;
      const std::vector<double> y = test.column(test.target()).to_double();
      r.measured = Eigen::Map<const Eigen::VectorXd>(y.data(), static_cast<Eigen::Index>(y.size()));
      r.predicted = Eigen::VectorXd::Zero(r.measured.size());
      r.train_cost = r.test_cost = std::numeric_limits<double>::infinity();
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace perfit::select
