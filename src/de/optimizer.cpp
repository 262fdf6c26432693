#include "perfit/de/optimizer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "perfit/core/assert.hpp"
#include "perfit/de/initialization.hpp"

namespace perfit::de {

namespace {
double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

const char* to_string(StopReason r) {
  switch (r) {
    case StopReason::none:
      return "none";
    case StopReason::max_generations:
      return "max_generations";
    case StopReason::max_evaluations:
      return "max_evaluations";
    case StopReason::target_cost:
      return "target_cost";
    case StopReason::converged:
      return "converged";
    case StopReason::time_limit:
      return "time_limit";
    case StopReason::interrupted:
      return "interrupted";
  }
  return "?";
}

DeOptimizer::DeOptimizer(std::size_t dim, DeOptions options, BatchObjective objective)
    : dim_(dim),
      options_(std::move(options)),
      objective_(std::move(objective)),
      rng_(options_.seed) {
  options_.validate(dim_);
}

bool DeOptimizer::adaptive() const {
  return options_.strategy == Strategy::shade || options_.strategy == Strategy::lshade ||
         options_.strategy == Strategy::jso;
}

std::size_t DeOptimizer::max_nfe() const {
  if (options_.max_evaluations > 0) return options_.max_evaluations;
  return options_.max_generations * state_.np_init;
}

void DeOptimizer::initialize() {
  const std::size_t np = options_.population_for(dim_);
  state_ = DeState{};
  state_.np_init = np;
  state_.pop = initial_population(dim_, np, options_.init, options_.x0, rng_);
  state_.cost.resize(static_cast<Eigen::Index>(np));
  objective_(state_.pop, state_.cost);
  state_.evaluations = np;
  double rate = options_.archive_rate;
  if (options_.strategy == Strategy::lshade && rate == 1.0) rate = 2.6;  // L-SHADE's |A| = 2.6 NP
  state_.archive.resize(static_cast<Eigen::Index>(dim_),
                        static_cast<Eigen::Index>(std::lround(rate * static_cast<double>(np))));
  const double f0 = options_.strategy == Strategy::jso ? 0.3 : 0.5;
  const double cr0 = options_.strategy == Strategy::jso ? 0.8 : 0.5;
  state_.mem_f.assign(options_.memory_size, f0);
  state_.mem_cr.assign(options_.memory_size, cr0);
  if (options_.strategy == Strategy::jso) {  // jSO keeps one memory slot at 0.9 for good
    state_.mem_f.back() = 0.9;
    state_.mem_cr.back() = 0.9;
  }
  state_.history.push_back(state_.cost.minCoeff());
  state_.rng = rng_.state();
  start_time_ = now_s();
  initialized_ = true;
}

void DeOptimizer::set_state(DeState s) {
  PERFIT_ASSERT(static_cast<std::size_t>(s.pop.rows()) == dim_, "state dimension mismatch");
  state_ = std::move(s);
  rng_.set_state(state_.rng);
  if (!initialized_) start_time_ = now_s();
  initialized_ = true;
}

void DeOptimizer::set_elapsed(double seconds) { start_time_ = now_s() - seconds; }
double DeOptimizer::elapsed() const { return now_s() - start_time_; }

std::size_t DeOptimizer::best_index() const {
  Eigen::Index b = 0;
  state_.cost.minCoeff(&b);
  return static_cast<std::size_t>(b);
}

void DeOptimizer::archive_push(const Eigen::VectorXd& x) {
  const auto cap = static_cast<std::size_t>(state_.archive.cols());
  if (cap == 0) return;
  if (state_.archive_used < cap) {
    state_.archive.col(static_cast<Eigen::Index>(state_.archive_used++)) = x;
  } else {
    state_.archive.col(static_cast<Eigen::Index>(rng_.below(cap))) = x;
  }
}

void DeOptimizer::mutate(std::size_t i, double F, double p_frac,
                         const std::vector<std::size_t>& order, Eigen::Ref<Eigen::VectorXd> v) {
  const std::size_t np = static_cast<std::size_t>(state_.pop.cols());
  auto X = [&](std::size_t k) { return state_.pop.col(static_cast<Eigen::Index>(k)); };
  // Distinct indices, all different from i and from each other.
  std::size_t r[5];
  auto draw = [&](std::size_t k) {
    for (;;) {
      const std::size_t c = rng_.below(np);
      bool clash = c == i;
      for (std::size_t q = 0; q < k; ++q) clash |= c == r[q];
      if (!clash) return c;
    }
  };
  const std::size_t best = order.front();
  switch (options_.strategy) {
    case Strategy::rand1bin:
      r[0] = draw(0), r[1] = draw(1), r[2] = draw(2);
      v = X(r[0]) + F * (X(r[1]) - X(r[2]));
      return;
    case Strategy::best1bin:
      r[0] = draw(0), r[1] = draw(1);
      v = X(best) + F * (X(r[0]) - X(r[1]));
      return;
    case Strategy::current_to_best1bin:
      r[0] = draw(0), r[1] = draw(1);
      v = X(i) + F * (X(best) - X(i)) + F * (X(r[0]) - X(r[1]));
      return;
    case Strategy::rand2bin:
      for (std::size_t k = 0; k < 5; ++k) r[k] = draw(k);
      v = X(r[0]) + F * (X(r[1]) - X(r[2])) + F * (X(r[3]) - X(r[4]));
      return;
    default:
      break;
  }
  // current-to-pbest/1 with archive (JADE, SHADE, L-SHADE), weighted for jSO.
  const std::size_t top = std::max<std::size_t>(
      2, static_cast<std::size_t>(std::lround(p_frac * static_cast<double>(np))));
  const std::size_t pbest = order[rng_.below(std::min(top, np))];
  r[0] = draw(0);
  // r2 from population + archive, distinct from i and r1.
  Eigen::VectorXd x2;
  for (;;) {
    const std::size_t c = rng_.below(np + state_.archive_used);
    if (c < np) {
      if (c == i || c == r[0]) continue;
      x2 = X(c);
    } else {
      x2 = state_.archive.col(static_cast<Eigen::Index>(c - np));
    }
    break;
  }
  double Fw = F;
  if (options_.strategy == Strategy::jso) {
    const double prog = static_cast<double>(state_.evaluations) / static_cast<double>(max_nfe());
    Fw = prog < 0.2 ? 0.7 * F : (prog < 0.4 ? 0.8 * F : 1.2 * F);
  }
  v = X(i) + Fw * (X(pbest) - X(i)) + F * (X(r[0]) - x2);
}

void DeOptimizer::repair(const Eigen::VectorXd& parent, Eigen::Ref<Eigen::VectorXd> v) {
  for (Eigen::Index j = 0; j < v.size(); ++j) {
    double x = v(j);
    if (x >= 0.0 && x <= 1.0) continue;
    switch (options_.bounds) {
      case BoundHandling::midpoint:  // L-SHADE: halfway between the parent and the bound
        x = x < 0.0 ? 0.5 * parent(j) : 0.5 * (1.0 + parent(j));
        break;
      case BoundHandling::reflect:  // fold back in, repeatedly for far-out points
        while (x < 0.0 || x > 1.0) x = x < 0.0 ? -x : 2.0 - x;
        break;
      case BoundHandling::resample:
        x = rng_.uniform();
        break;
    }
    v(j) = x;
  }
}

void DeOptimizer::step() {
  if (!initialized_) initialize();
  rng_.set_state(state_.rng);
  const std::size_t np = static_cast<std::size_t>(state_.pop.cols());
  const auto d = static_cast<Eigen::Index>(dim_);
  std::vector<std::size_t> order(np);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return state_.cost(a) < state_.cost(b); });
  const double prog = std::min(1.0, static_cast<double>(state_.evaluations) /
                                        static_cast<double>(std::max<std::size_t>(1, max_nfe())));
  const double p_frac = options_.strategy == Strategy::jso ? 0.25 - 0.125 * prog : options_.p_best;

  double F_gen = options_.F;
  if (options_.F_max > options_.F) F_gen = rng_.uniform(options_.F, options_.F_max);
  std::vector<double> Fi(np, F_gen), CRi(np, options_.CR);
  if (adaptive()) {
    const std::size_t H = state_.mem_f.size();
    for (std::size_t i = 0; i < np; ++i) {
      const std::size_t r = rng_.below(H);
      const double mcr = state_.mem_cr[r];
      double cr = mcr == kTerminalCr ? 0.0 : std::clamp(mcr + 0.1 * rng_.normal(), 0.0, 1.0);
      double f;
      do {
        f = state_.mem_f[r] + 0.1 * std::tan(M_PI * (rng_.uniform() - 0.5));
      } while (f <= 0.0);
      f = std::min(f, 1.0);
      if (options_.strategy == Strategy::jso) {
        if (prog < 0.25)
          cr = std::max(cr, 0.7);
        else if (prog < 0.5)
          cr = std::max(cr, 0.6);
        if (prog < 0.6) f = std::min(f, 0.7);
      }
      Fi[i] = f;
      CRi[i] = cr;
    }
  }

  Eigen::MatrixXd trial(d, static_cast<Eigen::Index>(np));
  Eigen::VectorXd v(d);
  for (std::size_t i = 0; i < np; ++i) {
    mutate(i, Fi[i], p_frac, order, v);
    const Eigen::VectorXd parent = state_.pop.col(static_cast<Eigen::Index>(i));
    const auto jr = static_cast<Eigen::Index>(rng_.below(dim_));
    for (Eigen::Index j = 0; j < d; ++j) {
      if (!(j == jr || rng_.uniform() < CRi[i])) v(j) = parent(j);
    }
    repair(parent, v);
    trial.col(static_cast<Eigen::Index>(i)) = v;
  }
  Eigen::VectorXd tcost(static_cast<Eigen::Index>(np));
  objective_(trial, tcost);
  state_.evaluations += np;

  std::vector<double> sf, scr, df;
  for (std::size_t i = 0; i < np; ++i) {
    const auto k = static_cast<Eigen::Index>(i);
    if (!(tcost(k) <= state_.cost(k))) continue;
    if (tcost(k) < state_.cost(k) && adaptive()) {
      sf.push_back(Fi[i]);
      scr.push_back(CRi[i]);
      df.push_back(std::isfinite(state_.cost(k)) ? state_.cost(k) - tcost(k) : 1.0);
    }
    if (tcost(k) < state_.cost(k) && options_.strategy >= Strategy::current_to_pbest1) {
      archive_push(state_.pop.col(k));
    }
    state_.pop.col(k) = trial.col(k);
    state_.cost(k) = tcost(k);
  }
  if (adaptive()) update_memories(sf, scr, df);
  if (options_.strategy == Strategy::lshade || options_.strategy == Strategy::jso) {
    reduce_population();
  }
  ++state_.generation;
  state_.history.push_back(state_.cost.minCoeff());
  state_.rng = rng_.state();
}

StopReason DeOptimizer::should_stop() const {
  const double best = state_.cost.minCoeff();
  if (best <= options_.target_cost) return StopReason::target_cost;
  if (options_.max_evaluations > 0 && state_.evaluations >= options_.max_evaluations) {
    return StopReason::max_evaluations;
  }
  if (state_.generation >= options_.max_generations) return StopReason::max_generations;
  if (state_.cost.allFinite()) {
    const double mean = state_.cost.mean();
    const double sd = std::sqrt((state_.cost.array() - mean).square().mean());
    if (sd <= options_.atol + options_.tol * std::fabs(mean)) return StopReason::converged;
  }
  if (options_.max_seconds > 0 && now_s() - start_time_ >= options_.max_seconds) {
    return StopReason::time_limit;
  }
  return StopReason::none;
}

DeSummary DeOptimizer::summary(StopReason reason) const {
  DeSummary s;
  s.reason = reason;
  const std::size_t b = best_index();
  s.best = state_.pop.col(static_cast<Eigen::Index>(b));
  s.best_cost = state_.cost(static_cast<Eigen::Index>(b));
  s.generations = state_.generation;
  s.evaluations = state_.evaluations;
  s.seconds = now_s() - start_time_;
  // Each reason with the numbers that triggered it.
  const auto g = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return std::string(buf);
  };
  const double mean = state_.cost.mean();
  const double sd = std::sqrt((state_.cost.array() - mean).square().mean());
  switch (reason) {
    case StopReason::target_cost:
      s.message = "reached the target cost: best " + g(s.best_cost) + " <= target " +
                  g(options_.target_cost);
      break;
    case StopReason::max_evaluations:
      s.message = "used the evaluation budget: " + std::to_string(state_.evaluations) + " of " +
                  std::to_string(options_.max_evaluations) + " evaluations";
      break;
    case StopReason::max_generations:
      s.message = "reached max_generations " + std::to_string(options_.max_generations);
      break;
    case StopReason::converged:
      s.message = "population converged: cost std " + g(sd) +
                  " <= atol + tol*|mean| = " + g(options_.atol + options_.tol * std::fabs(mean));
      break;
    case StopReason::time_limit:
      s.message = "reached the wall-clock limit of " + g(options_.max_seconds) + " s";
      break;
    case StopReason::interrupted:
      s.message = "interrupted by a signal";
      break;
    case StopReason::none:
      s.message = "still running";
      break;
  }
  return s;
}

DeSummary DeOptimizer::run(const ProgressFn& progress, std::size_t progress_every) {
  if (!initialized_) initialize();
  StopReason reason;
  while ((reason = should_stop()) == StopReason::none) {
    step();
    if (progress && progress_every > 0 && state_.generation % progress_every == 0) {
      progress(state_, now_s() - start_time_);
    }
  }
  return summary(reason);
}

}  // namespace perfit::de
