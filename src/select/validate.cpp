#include "perfit/select/validate.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/model/factor_binding.hpp"
#include "perfit/select/joint.hpp"

namespace perfit::select {

namespace {

nlohmann::ordered_json metrics_json(const model::FitMetrics& m) {
  return {{"mape", m.mape},
          {"gmae", m.gmae},
          {"rmse", m.rmse},
          {"r2", m.r2},
          {"max_rel_err", m.max_rel_err}};
}

// The groups over the whole set, the rows marked with them, the model over them.
void plan_groups(Validation& v, const fit::RunConfig& c) {
  JointModel jm = plan_joint(c, *v.model, v.set);
  v.joint = std::move(jm.joint);
  v.model = std::move(jm.model);
  const auto& by = v.joint.groups.by;
  if (v.split.kind == data::SplitKind::group && v.split.given == 0 &&
      std::find(by.begin(), by.end(), v.split.column) != by.end()) {
    throw ConfigError("split '" + v.split.text() +
                      "': a joint fit predicts a group from runs of its own; say how "
                      "many of its smallest scales (" +
                      v.split.scale + ") train, e.g. group:" + v.split.column + ":2");
  }
  mark_groups(v.set, v.joint.groups, c);
}

// group:COL:K leaves a value measured at no more than K scales without a fold: say which.
void note_without_fold(const data::SplitSpec& split, const data::MeasurementTable& t,
                       const std::vector<data::Fold>& folds) {
  if (split.kind != data::SplitKind::group || split.given == 0) return;
  const data::Column& c = t.column(split.column);
  std::set<std::string> values;
  if (c.is_numeric()) {
    for (const double x : data::distinct_values(c)) values.insert(format_real(x));
  } else {
    values.insert(c.str().begin(), c.str().end());
  }
  for (const auto& f : folds)
    values.erase(
        f.name.substr(split.column.size() + 1, f.name.find(" given ") - split.column.size() - 1));
  if (values.empty()) return;
  spdlog::info(
      "split {}: {} value(s) of '{}' measured at {} or fewer values of '{}' leave nothing to "
      "predict, no fold: {}",
      split.text(), values.size(), split.column, split.given, split.scale,
      join(std::vector<std::string>(values.begin(), values.end())));
}

}  // namespace

Validation run_validation(const fit::RunConfig& c, const std::string& split_text,
                          const std::function<void(const std::function<void()>&)>& agreed,
                          MPI_Comm comm, const job::SetSource& source) {
  Validation v;
  std::vector<data::Fold> folds;
  agreed([&] {
    v.split = data::parse_split(split_text);
    v.split.column =
        model::column_of(model::parse_factor_bindings(c.factors), v.split.column);  // scale:p
    const std::vector<std::string> set_columns = job::set_columns(c, source);
    v.model = job::bind_model(c.model, c, set_columns, true, source);
    v.split.scale = c.scale.empty() ? model::scale_column(*v.model) : c.scale;
    std::vector<std::string> columns = v.model->columns_used();
    for (const auto& extra :
         {v.split.column, c.scale, v.split.given > 0 ? v.split.scale : std::string()}) {
      if (!extra.empty()) columns.push_back(extra);
    }
    for (const auto& col : split_list(c.by)) {  // a missing one is named by plan_groups
      if (std::find(set_columns.begin(), set_columns.end(), col) != set_columns.end())
        columns.push_back(col);
    }
    v.set = job::load_analysis_set(c, columns, source);
    if (!c.by.empty()) plan_groups(v, c);
    folds = data::make_folds(v.split, *v.set.rows, v.model->columns_used(), c.de.seed);
  });
  note_without_fold(v.split, *v.set.rows, folds);
  std::vector<fit::FoldJob> jobs;
  for (const auto& f : folds) {
    jobs.push_back(
        {{v.model, v.set.rows, c.cost, {}, c.threads, c.compress, true, c.separable, c.scale}, &f});
    if (!v.joint.empty()) jobs.back().prepare = job::fold_recipe(v.joint, c);
  }
  v.fits = fit::fit_folds(jobs, c.search(), comm);
  v.pooled = fit::pool(v.fits, c.cost.residual);
  for (const auto& f : v.fits) {
    if (f.failed) {
      throw DataError("validate: the fit of model '" + v.model->spec().name +
                      "' on the training rows of " + f.fold +
                      " failed (the warning above says why)");
    }
  }
  return v;
}

nlohmann::ordered_json validation_json(const Validation& v, const fit::RunConfig& c) {
  const model::Model& m = *v.model;
  nlohmann::ordered_json j = {{"model", m.spec().name},
                              {"data", c.data},
                              {"set", c.set},
                              {"split", v.split.text()},
                              {"rows", v.set.rows->rows()}};
  if (!v.joint.empty()) {  // params c1__k are group k's c1
    j["groups"] = {{"by", v.joint.groups.by},
                   {"labels", v.joint.groups.labels},
                   {"per_group", v.joint.groups.per_group},
                   {"pooled", v.joint.groups.pooled}};
  }
  j["folds"] = nlohmann::ordered_json::array();
  for (const auto& f : v.fits) {
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
    for (std::size_t k = 0; k < m.n_params(); ++k)
      params[m.param_names()[k]] = f.params(static_cast<Eigen::Index>(k));
    j["folds"].push_back({{"fold", f.fold},
                          {"train_rows", f.train_rows},
                          {"test_rows", f.test_rows},
                          {"train_cost", f.train_cost},
                          {"held_out_cost", f.test_cost},
                          {"metrics", metrics_json(f.test)},
                          {"params", params}});
  }
  j["summary"] = {{"test_rows", v.pooled.rows},
                  {"held_out_cost", v.pooled.cost},
                  {"metrics", metrics_json(v.pooled.metrics)}};
  return j;
}

}  // namespace perfit::select
