// `select`'s candidates: who competes (the built-ins the set can feed, the naive references,
// what --models names), which are left out and why, and the prior when nothing can be
// validated. Ranking and output stay in cmd_select.cpp.
#pragma once

#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/fit/run_config.hpp"
#include "perfit/fit/validation.hpp"
#include "perfit/job/analysis_set.hpp"
#include "perfit/job/joint_fit.hpp"
#include "perfit/model/hypothesis_search.hpp"
#include "perfit/model/model.hpp"
#include "perfit/model/naive_scaling.hpp"

namespace perfit::select {

struct Candidate {
  std::string word;  // as the user (or the built-in list) named it
  std::shared_ptr<const model::Model> model;
  std::vector<fit::FoldFit> fits;
  fit::Pooled pooled;
  double score = 0.0;
  // Every fold's training rows hold at least as many distinct configurations (of the factors
  // the model reads) as the model has constants. An underdetermined model can pass through
  // its training points and still look good one step out; it ranks after every determined one.
  bool determined = true;
  std::vector<std::string> search_columns{};     // pmnf-search: Extra-P's search over these columns
  model::PmnfHypothesis found{};                 // pmnf-search: the hypothesis on every row
  std::optional<model::ModelSpec> found_spec{};  // pmnf-search: that hypothesis as a model
  std::optional<model::NaiveKind>
      naive{};  // naive-ideal / naive-loglog / ideal-fit over search_columns[0]
  bool searched() const { return !search_columns.empty() && !naive; }
  bool procedure() const { return !search_columns.empty(); }  // computed per fold, not fitted
  std::string why{};  // why it was put first (ladder.hpp), "" when its score did
  // ln(the model it was chosen over / it) one step beyond the largest scale: a part of the
  // choice's uncertainty its held-out errors cannot show (ladder.hpp); NaN: none
  double choice_gap = std::numeric_limits<double>::quiet_NaN();
  // select --by: the model over the groups (`model`), fitted per fold as a joint fit with these
  // kinds of constant, and which they are in words ("pooled", "shared", "per group").
  std::optional<job::JointFit> joint{};
  std::string kinds{};
  // The model's name, and a joint candidate's kinds: "generic, pooled".
  std::string label() const { return model->spec().name + (kinds.empty() ? "" : ", " + kinds); }
};

// --scale COLUMN, or the column bound to p, or a column named p ("" when none).
std::string scale_of(const fit::RunConfig& c, const std::vector<std::string>& columns);

// --models as named (each must bind), else every built-in whose factors the set has, plus the
// naive references when the criterion is extrapolation. Throws: ConfigError (a binding no
// candidate reads, a naive candidate without a scale column), DataError (no built-in fits).
std::vector<Candidate> candidates(const std::string& models, bool extrapolation,
                                  const fit::RunConfig& c, const std::vector<std::string>& columns,
                                  const job::SetSource& source = {});

// Leaves out the built-ins whose constants the set cannot determine, with the reason.
void drop_undeterminable(std::vector<Candidate>& cands, const data::MeasurementTable& rows);

// rms ln(predicted / measured) over a candidate's held-out folds (failed ones skipped; NaN
// without any).
double held_out_log_rms(const Candidate& m);

using fit::ChoiceSpread;  // fit/choice_spread.hpp

// With two scales, nothing held out: how far the other candidates (fitted in-sample, each
// determined by the rows) disagree with the first one step beyond the largest value of
// `column` (at its ratio to the one below, the other columns as measured there): rms of the
// mean ln(their prediction / its prediction), one dof per candidate.
ChoiceSpread disagreement_spread(const std::vector<Candidate>& ranked,
                                 const data::MeasurementTable& rows, const std::string& column);

}  // namespace perfit::select
