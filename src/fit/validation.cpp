#include "perfit/fit/validation.hpp"

#include <spdlog/spdlog.h>

#include <cmath>
#include <limits>

#include "perfit/core/error.hpp"
#include "perfit/fit/spread.hpp"

namespace perfit::fit {

namespace {

std::size_t test_rows(const FoldJob& j) {
  return j.fold ? j.fold->test_rows : j.problem.rows->rows();
}

// What a fold's fit sends to the other ranks: params, cost, generations, failed, test predictions.
constexpr std::size_t kHeader = 3;
std::size_t packed_size(const FoldJob& j) {
  return j.problem.model->n_params() + kHeader + test_rows(j);
}

Eigen::VectorXd measured_of(const FoldJob& j) {
  const data::MeasurementTable& t = *j.problem.rows;
  const std::vector<double> all = t.column(t.target()).to_double();
  Eigen::VectorXd out(static_cast<Eigen::Index>(test_rows(j)));
  Eigen::Index k = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!j.fold || j.fold->test[i]) out(k++) = all[i];
  }
  return out;
}

void run_one(const FoldJob& job, const de::FitOptions& options, double* out, bool progress) {
  FitProblem p = job.problem;
  p.weights = {};
  p.bootstrap = 0;  // a fold measures prediction, not the constants' spread
  p.forward_check = false;
  p.diagnose = false;  // a fold's fit predicts its held-out rows, nothing more
  p.quiet = true;
  std::shared_ptr<const data::MeasurementTable> test = p.rows;
  if (job.fold) {
    p.rows = std::make_shared<const data::MeasurementTable>(
        data::select_rows(*job.problem.rows, job.fold->train));
    test = std::make_shared<const data::MeasurementTable>(
        data::select_rows(*job.problem.rows, job.fold->test));
  }
  FitReport r;
  const std::size_t n = p.model->n_params();
  const std::string where =
      "model " + p.model->spec().name + " " + (job.fold ? job.fold->name : "all rows");
  try {
    if (job.prepare) job.prepare(p);
    r = fit(p, options, {}, island::serial_layout());
    if (!std::isfinite(r.cost)) {
      throw DataError(
          "no finite cost: every candidate predicted NaN, inf or a negative time on some row");
    }
  } catch (const Error& e) {
    // A model that cannot fit some rows is an answer (select ranks it last), not an abort.
    spdlog::warn("{}: the fit failed: {}", where, e.what());
    out[n + 2] = 1.0;
    return;
  }
  for (std::size_t k = 0; k < n; ++k) out[k] = r.params(static_cast<Eigen::Index>(k));
  out[n] = r.cost;
  out[n + 1] = static_cast<double>(r.generations);
  model::CostOptions plain;
  plain.residual = p.cost.residual;
  Eigen::VectorXd pred;  // a fold that holds nothing out (a group fitted alone) predicts nothing
  if (test->rows() > 0) pred = model::Evaluator(*p.model, *test, plain).predict(r.params);
  for (Eigen::Index i = 0; i < pred.size(); ++i)
    out[n + kHeader + static_cast<std::size_t>(i)] = pred(i);
  spdlog::log(progress ? spdlog::level::info : spdlog::level::debug,
              "{}: trained on {} rows (cost {:.4g}, {:.2f} s), predicts {} held-out rows", where,
              p.rows->rows(), r.cost, r.seconds, pred.size());
}

}  // namespace

double mean_residual(model::Residual kind, const Eigen::VectorXd& predicted,
                     const Eigen::VectorXd& measured) {
  if (predicted.size() == 0) return 0.0;
  double sum = 0.0;
  for (Eigen::Index i = 0; i < predicted.size(); ++i)
    sum += model::residual(kind, predicted(i), measured(i));
  return sum / static_cast<double>(predicted.size());
}

std::vector<FoldFit> fit_folds(const std::vector<FoldJob>& jobs, const de::FitOptions& options,
                               MPI_Comm comm, bool progress) {
  de::FitOptions quiet = options;
  quiet.progress_every = 0;
  std::vector<std::size_t> widths;
  for (const auto& j : jobs) widths.push_back(packed_size(j));
  const std::vector<double> packed = spread(
      comm, widths, [&](std::size_t j, double* out) { run_one(jobs[j], quiet, out, progress); });
  std::vector<FoldFit> out;
  const double* v = packed.data();
  for (std::size_t j = 0; j < jobs.size(); v += widths[j], ++j) {
    const FoldJob& job = jobs[j];
    const auto n = static_cast<Eigen::Index>(job.problem.model->n_params());
    FoldFit f;
    f.fold = job.fold ? job.fold->name : "all rows";
    f.train_rows = job.fold ? job.fold->train_rows : job.problem.rows->rows();
    f.test_rows = test_rows(job);
    f.params = Eigen::Map<const Eigen::VectorXd>(v, n);
    f.train_cost = v[n];
    f.generations = static_cast<std::size_t>(v[n + 1]);
    f.failed = v[n + 2] != 0.0;
    f.predicted =
        Eigen::Map<const Eigen::VectorXd>(v + n + kHeader, static_cast<Eigen::Index>(f.test_rows));
    f.measured = measured_of(job);
    if (f.failed) {
      f.params.setConstant(std::numeric_limits<double>::quiet_NaN());
      f.train_cost = f.test_cost = std::numeric_limits<double>::infinity();
    } else {
      f.test = model::compute_metrics(f.predicted, f.measured);
      f.test_cost = mean_residual(job.problem.cost.residual, f.predicted, f.measured);
    }
    out.push_back(std::move(f));
  }
  return out;
}

Pooled pool(const std::vector<FoldFit>& folds, model::Residual kind) {
  Pooled p;
  for (const auto& f : folds) {
    if (f.failed) {
      p.failed = true;
      p.cost = std::numeric_limits<double>::infinity();
      p.metrics.mape = p.metrics.gmae = p.metrics.rmse = p.metrics.max_rel_err = p.cost;
      p.metrics.r2 = -p.cost;
      return p;
    }
  }
  for (const auto& f : folds) p.rows += f.test_rows;
  Eigen::VectorXd pred(static_cast<Eigen::Index>(p.rows)), meas(static_cast<Eigen::Index>(p.rows));
  Eigen::Index k = 0;
  for (const auto& f : folds) {
    pred.segment(k, f.predicted.size()) = f.predicted;
    meas.segment(k, f.measured.size()) = f.measured;
    k += f.predicted.size();
  }
  p.metrics = model::compute_metrics(pred, meas);
  p.cost = mean_residual(kind, pred, meas);
  return p;
}

}  // namespace perfit::fit
