// Differential evolution on the unit cube, minimising a batch objective (one call evaluates a
// whole population, which is what the population-batched evaluator is built for).
//
// Classic strategies (Storn & Price, J. Global Optim. 11, 1997): rand/1/bin, best/1/bin,
// current-to-best/1/bin, rand/2/bin. current-to-pbest/1 with an external archive (JADE:
// Zhang & Sanderson, IEEE TEVC 13(5), 2009). Self-adaptive: SHADE (success-history memories of
// F and CR; Tanabe & Fukunaga, CEC 2013), L-SHADE (SHADE + linear population size reduction;
// Tanabe & Fukunaga, CEC 2014), jSO (L-SHADE with weighted mutation, a shrinking p and CR/F
// limits by stage; Brest, Maucec & Boskovic, CEC 2017).
//
// Everything the run depends on, the RNG included, is in DeState: the same seed and options
// give a bit-identical run, and a state saved and restored continues it exactly.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <string>
#include <vector>

#include "perfit/core/rng.hpp"
#include "perfit/de/de_options.hpp"

namespace perfit::de {

// Fills costs(j) for each column j of pop (points in [0,1]^D). +inf marks infeasible points.
using BatchObjective = std::function<void(const Eigen::MatrixXd& pop, Eigen::VectorXd& costs)>;

// In order of significance: when islands stop for different reasons, the job reports the
// largest (a target met on one island beats a spent budget, an interrupt beats everything).
enum class StopReason {
  none,
  converged,
  max_generations,
  max_evaluations,
  time_limit,
  target_cost,
  interrupted  // SIGTERM/SIGINT/SIGUSR1: resumable from a checkpoint
};
const char* to_string(StopReason r);
inline int significance(StopReason r) { return static_cast<int>(r); }

struct DeState {
  Eigen::MatrixXd pop;   // D x NP
  Eigen::VectorXd cost;  // NP
  Eigen::MatrixXd archive;
  std::size_t archive_used = 0;
  std::vector<double> mem_f, mem_cr;  // success-history memories (SHADE family)
  std::size_t mem_pos = 0;
  std::size_t np_init = 0;
  std::size_t generation = 0;
  std::size_t evaluations = 0;
  Rng::State rng{};
  std::vector<double> history;  // best cost after each generation (index 0: initial)
};

struct DeSummary {
  StopReason reason = StopReason::none;
  std::string message;
  Eigen::VectorXd best;  // unit cube
  double best_cost = 0.0;
  std::size_t generations = 0;
  std::size_t evaluations = 0;
  double seconds = 0.0;
};

// Called every progress_every generations: (state, seconds since start).
using ProgressFn = std::function<void(const DeState&, double seconds)>;

class DeOptimizer {
 public:
  // Throws: ConfigError from options.validate(dim).
  DeOptimizer(std::size_t dim, DeOptions options, BatchObjective objective);

  // Draws and evaluates the initial population.
  void initialize();
  // One generation: mutation, crossover, one batch evaluation, selection, adaptation.
  void step();
  // The termination test (in the order: target, evaluations, generations, flat, time).
  StopReason should_stop() const;
  // initialize() (unless a state was set) and step() until should_stop().
  DeSummary run(const ProgressFn& progress = {}, std::size_t progress_every = 0);

  const DeState& state() const { return state_; }
  // Replace the state (restart from a checkpoint, or accept migrants). Precondition: shapes
  // match the dimension.
  void set_state(DeState s);
  // The wall-clock time already spent (a resumed run continues its max_seconds budget).
  void set_elapsed(double seconds);
  double elapsed() const;
  std::size_t best_index() const;
  DeSummary summary(StopReason reason) const;
  const DeOptions& options() const { return options_; }
  std::size_t dim() const { return dim_; }

 private:
  static constexpr double kTerminalCr = -1.0;  // L-SHADE's terminal value: CR = 0 from then on

  bool adaptive() const;
  std::size_t max_nfe() const;
  void mutate(std::size_t i, double F, double p_frac, const std::vector<std::size_t>& order,
              Eigen::Ref<Eigen::VectorXd> v);
  void repair(const Eigen::VectorXd& parent, Eigen::Ref<Eigen::VectorXd> v);
  void update_memories(const std::vector<double>& sf, const std::vector<double>& scr,
                       const std::vector<double>& df);
  void reduce_population();
  void archive_push(const Eigen::VectorXd& x);

  std::size_t dim_;
  DeOptions options_;
  BatchObjective objective_;
  DeState state_;
  Rng rng_;
  double start_time_ = 0.0;
  bool initialized_ = false;
};

}  // namespace perfit::de
