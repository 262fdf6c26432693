// One set's selection in `perfit select`: every candidate scored on one split of the set's
// rows and ranked. run_select (cmd_select.cpp) runs it for one set with the folds spread over
// the ranks; run_select_many (many_sets.cpp) for every set a glob matches, one set per rank
// at a time.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "perfit/core/option_table.hpp"
#include "perfit/data/splits.hpp"
#include "perfit/job/analysis_set.hpp"
#include "perfit/select/candidates.hpp"

namespace perfit::select {

enum class Criterion { extrapolation, kfold, aic, bic };

const char* to_string(Criterion c);
// Throws: ConfigError naming the criteria.
Criterion parse_criterion(const std::string& s);
extern const std::vector<Criterion> kCriteria;

// A selection: where it runs and what it chooses among, how and what it keeps. The fits'
// options are the fit::RunConfig beside it.
struct SelectArgs : job::Ranks {
  job::SetSource source;  // the set's rows: cfg's store, or given in memory
  std::string config;  // the YAML file the fits' options came from ("": none), recorded as an input
  bool json = false;   // over many sets: the summary as JSON
  std::string models;
  Criterion criterion = Criterion::extrapolation;
  std::size_t folds = 5, holdout = 0;
  model::SearchOptions search{};
  bool result_files = false;  // over many sets: each winner also as its own result file
  bool force = false;
};

struct Selection {
  std::vector<Candidate> ranked;  // the winner first
  job::AnalysisSet set;
  std::vector<data::Fold> folds;  // empty: in-sample (aic, bic) or too few scales
  data::SplitSpec split;
  bool few_scales = false;  // too few values of the scale column to validate: the prior first
  std::string how;          // how the ranking was made, in words
};

// How a set is selected (models, criterion, holdout, folds, negative_exponents) and, over many
// sets, what is kept (result_files), declared once: `perfit select`'s flags and a batch
// manifest's `select:` map.
const OptionTable<SelectArgs>& select_choice_options();
// A manifest's `select:` map (YAML text) onto a. Throws: ConfigError naming where and the key.
void apply_select_yaml(const std::string& yaml, const std::string& where, SelectArgs& a);
// The choice as text ("key=value" lines): what a batch records to recognise its selections.
std::string select_choice_text(const SelectArgs& a);

// Runs fn so that every rank that must agree does (one set on all ranks: job::Ranks::agreed),
// or just runs it (a rank's own set).
using Guard = std::function<void(const std::function<void()>&)>;

// The selection for c.set. comm: where the candidates' folds are spread (MPI_COMM_NULL: this
// rank alone). Throws: ConfigError, DataError for bad options or data, and DataError naming the
// set when every candidate fails.
Selection select_set(const SelectArgs& a, const fit::RunConfig& c, const Guard& guard,
                     MPI_Comm comm);

// The ranking as `select --json` prints it: per candidate its model, score, metrics, hypothesis.
nlohmann::ordered_json ranking_json(const std::vector<Candidate>& ranked, Criterion crit);

// {"expression", "c0", "c1"..., "loo_smape" | "smape"}: the hypothesis found on every row.
nlohmann::ordered_json hypothesis_json(const Candidate& m);

}  // namespace perfit::select
