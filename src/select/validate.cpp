#include "perfit/select/validate.hpp"

#include "perfit/core/error.hpp"
#include "perfit/model/factor_binding.hpp"

namespace perfit::select {

namespace {

nlohmann::ordered_json metrics_json(const model::FitMetrics& m) {
  return {{"mape", m.mape}, {"gmae", m.gmae}, {"rmse", m.rmse}, {"r2", m.r2}, {"max_rel_err", m.max_rel_err}};
}

}  // namespace

Validation run_validation(const fit::RunConfig& c, const std::string& split_text,
                          const std::function<void(const std::function<void()>&)>& agreed, MPI_Comm comm,
                          const job::SetSource& source) {
  Validation v;
  std::vector<data::Fold> folds;
  agreed([&] {
    v.split = data::parse_split(split_text);
    v.split.column = model::column_of(model::parse_factor_bindings(c.factors), v.split.column);  // scale:p
    v.model = job::bind_model(c.model, c, job::set_columns(c, source), true, source);
    std::vector<std::string> columns = v.model->columns_used();
    for (const auto& extra : {v.split.column, c.scale}) {
      if (!extra.empty()) columns.push_back(extra);
    }
    v.set = job::load_analysis_set(c, columns, source);
    folds = data::make_folds(v.split, *v.set.rows, v.model->columns_used(), c.de.seed);
  });
  std::vector<fit::FoldJob> jobs;
  for (const auto& f : folds) {
    jobs.push_back({{v.model, v.set.rows, c.cost, {}, c.threads, c.compress, true, c.separable, c.scale}, &f});
  }
  v.fits = fit::fit_folds(jobs, c.search(), comm);
  v.pooled = fit::pool(v.fits, c.cost.residual);
  for (const auto& f : v.fits) {
    if (f.failed) {
      throw DataError("validate: the fit of model '" + v.model->spec().name + "' on the training rows of " + f.fold +
                      " failed (the warning above says why)");
    }
  }
  return v;
}

nlohmann::ordered_json validation_json(const Validation& v, const fit::RunConfig& c) {
  const model::Model& m = *v.model;
  nlohmann::ordered_json j = {{"model", m.spec().name}, {"data", c.data}, {"set", c.set},
                              {"split", v.split.text()}, {"rows", v.set.rows->rows()}};
  j["folds"] = nlohmann::ordered_json::array();
  for (const auto& f : v.fits) {
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
    for (std::size_t k = 0; k < m.n_params(); ++k) params[m.param_names()[k]] = f.params(static_cast<Eigen::Index>(k));
    j["folds"].push_back({{"fold", f.fold}, {"train_rows", f.train_rows}, {"test_rows", f.test_rows},
                          {"train_cost", f.train_cost}, {"held_out_cost", f.test_cost},
                          {"metrics", metrics_json(f.test)}, {"params", params}});
  }
  j["summary"] = {{"test_rows", v.pooled.rows}, {"held_out_cost", v.pooled.cost}, {"metrics", metrics_json(v.pooled.metrics)}};
  return j;
}

}  // namespace perfit::select
