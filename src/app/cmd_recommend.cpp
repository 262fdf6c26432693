// perfit recommend: the best configurations of a space by a fitted model's prediction.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>

#include "commands.hpp"
#include "common_flags.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/core/time_unit.hpp"
#include "perfit/fit/bootstrap.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/io/selection_store.hpp"
#include "perfit/job/factor_args.hpp"
#include "perfit/job/groups.hpp"
#include "perfit/job/measured_range.hpp"
#include "perfit/job/prediction.hpp"
#include "perfit/job/result_names.hpp"
#include "perfit/model/evaluator.hpp"
#include "perfit/model/grouped_model.hpp"
#include "perfit/model/sweep.hpp"

namespace perfit::app {

namespace {

struct RecommendArgs {
  std::string set;  // --set: a selection store's winner
  std::string result, space, at, constraint, objective = "time", workers = "p";
  std::size_t top = 10;
  double interval =
      0.0;  // --interval LEVEL: a prediction interval for a run (0: the bootstrap's, if any)
  bool json = false, allow_extrapolation = false;
};

inline constexpr std::size_t kMaxPoints = 10'000'000;

// "p<=256" or "time<3600": a factor (or the predicted time) against a number.
struct Constraint {
  std::string name, op;
  double value = 0.0;
  bool holds(double v) const {
    if (op == "<=") return v <= value;
    if (op == "<") return v < value;
    if (op == ">=") return v >= value;
    if (op == ">") return v > value;
    return v == value;
  }
};

std::vector<Constraint> parse_constraints(const std::string& text) {
  std::vector<Constraint> out;
  std::size_t b = 0;
  while (!text.empty() && b <= text.size()) {
    std::size_t e = text.find(',', b);
    if (e == std::string::npos) e = text.size();
    const std::string item = text.substr(b, e - b);
    const auto k = item.find_first_of("<>=");
    Constraint c;
    if (k != std::string::npos && k > 0) {
      c.name = item.substr(0, k);
      c.op = item.substr(k, item.size() > k + 1 && item[k + 1] == '=' ? 2 : 1);
      const std::string num = item.substr(k + c.op.size());
      const auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), c.value);
      if (c.op != "=" && !num.empty() && ec == std::errc() && p == num.data() + num.size()) {
        out.push_back(c);
        b = e + 1;
        continue;
      }
    }
    throw ConfigError("--constraint item '" + item +
                      "' is not NAME OP NUMBER with OP one of <=, <, >=, >, == "
                      "(e.g. --constraint p<=256,time<=3600)");
  }
  return out;
}

// Every combination of the doubling sweeps of the space, with the --at factors fixed; for a
// joint fit whose group --at does not name, that space once per group ("which framework and
// configuration is fastest").
data::MeasurementTable space_rows(const std::vector<job::FactorRange>& space, const std::string& at,
                                  const io::ResultFile& result) {
  std::vector<std::vector<double>> axes;
  std::size_t n = 1;
  for (const auto& r : space) {
    axes.push_back(model::doubling_sweep(r.lo, r.hi));
    n *= axes.back().size();
    if (n > kMaxPoints) throw ConfigError("--space has more than 1e7 configurations; narrow it");
  }
  std::vector<std::vector<double>> cols(space.size(), std::vector<double>(n));
  for (std::size_t i = 0, stride = n; i < space.size(); ++i) {
    stride /= axes[i].size();
    for (std::size_t row = 0; row < n; ++row)
      cols[i][row] = axes[i][(row / stride) % axes[i].size()];
  }
  data::MeasurementTable t;
  for (std::size_t i = 0; i < space.size(); ++i) t.add_column(data::Column(space[i].name, cols[i]));
  if (!at.empty()) {
    const data::MeasurementTable one = job::at_row(at, result);
    for (const auto& c : one.columns()) {
      if (t.find(c.name())) throw ConfigError("--at sets '" + c.name() + "', which --space varies");
      t.add_column(c.is_numeric()
                       ? data::Column(c.name(), std::vector<double>(n, c.f64()[0]))
                       : data::Column(c.name(), std::vector<std::string>(n, c.str()[0])));
    }
  }
  const job::Groups g = job::groups_of(result);
  if (g.empty() || std::any_of(g.by.begin(), g.by.end(),
                               [&](const std::string& c) { return t.find(c) != nullptr; })) {
    return t;
  }
  if (n * g.labels.size() > kMaxPoints)
    throw ConfigError("--space over every group has more than 1e7 configurations; narrow it");
  data::MeasurementTable out;
  for (const auto& c : t.columns()) {
    std::vector<double> v;
    for (std::size_t k = 0; k < g.labels.size(); ++k)
      v.insert(v.end(), c.f64().begin(), c.f64().end());
    out.add_column(data::Column(c.name(), std::move(v)));
  }
  for (std::size_t b = 0; b < g.by.size(); ++b) {
    std::vector<std::string> v;
    for (const auto& label : g.labels) v.insert(v.end(), n, job::group_values(g, label)[b]);
    out.add_column(data::Column(g.by[b], std::move(v)));
  }
  return out;
}

// What a ranking shows of row i's column: a number, or a group's name.
nlohmann::ordered_json cell_json(const data::Column& c, std::size_t i) {
  return c.is_numeric() ? nlohmann::ordered_json(c.f64()[i]) : nlohmann::ordered_json(c.str()[i]);
}

// The space to search: each --space factor within its measured range unless extrapolation is
// allowed (the fit knows nothing beyond it). Says on stderr what it narrowed.
// Throws: ConfigError for a range that lies wholly outside the measured one.
std::vector<job::FactorRange> searched_space(std::vector<job::FactorRange> space,
                                             const job::ResultNames& names,
                                             const job::RangeGuard& guard, bool allow) {
  for (auto& f : space) {
    const std::string column = names.column(f.name);
    const auto m = std::find_if(guard.ranges().begin(), guard.ranges().end(),
                                [&](const io::MeasuredRange& x) { return x.name == column; });
    if (allow || m == guard.ranges().end() || (f.lo >= m->lo && f.hi <= m->hi)) continue;
    const double lo = std::max(f.lo, m->lo), hi = std::min(f.hi, m->hi);
    const std::string measured = format_g(m->lo) + ".." + format_g(m->hi);
    if (lo > hi) {
      throw ConfigError("--space " + f.name + "=" + format_g(f.lo) + ".." + format_g(f.hi) +
                        " lies outside the measured " + column + " " + measured +
                        "; pass --allow-extrapolation to search it anyway");
    }
    std::fprintf(
        stderr,
        "perfit recommend: searching %s in %s..%s, inside the measured %s (--space asked %s..%s; "
        "--allow-extrapolation searches beyond)\n",
        f.name.c_str(), format_g(lo).c_str(), format_g(hi).c_str(), measured.c_str(),
        format_g(f.lo).c_str(), format_g(f.hi).c_str());
    f.lo = lo;
    f.hi = hi;
  }
  return space;
}

// The factors of the space whose best value is an end of what was searched: a better
// configuration may lie beyond it.
std::vector<std::string> on_edge(const std::vector<job::FactorRange>& space,
                                 const job::ResultNames& names, const data::MeasurementTable& t,
                                 std::size_t best) {
  std::vector<std::string> out;
  for (const auto& f : space) {
    const std::vector<double> sweep = model::doubling_sweep(f.lo, f.hi);
    if (sweep.size() < 2) continue;
    const double v = t.column(names.column(f.name)).f64()[best];
    if (v == sweep.front() || v == sweep.back()) {
      out.push_back(names.column(f.name) + "=" + format_g(v) +
                    (v == sweep.back() ? " (largest searched)" : " (smallest searched)"));
    }
  }
  return out;
}

void print_ranking(const RecommendArgs& a, const std::string& model, const std::string& unit,
                   const data::MeasurementTable& t, const Eigen::VectorXd& pred,
                   const std::vector<double>& score, const std::vector<std::size_t>& keep,
                   const job::Interval& interval, const job::RangeGuard& guard,
                   const std::vector<std::string>& edge) {
  const bool gpu = a.objective == "gpu-hours";
  auto names = t.column_names();
  std::erase_if(names, [](const std::string& n) { return model::is_group_indicator(n); });
  const std::optional<fit::PredictionInterval>& iv = interval.bounds;
  const double ci = interval.level;
  if (a.json) {
    nlohmann::ordered_json j = {
        {"result", a.result}, {"objective", a.objective}, {"unit", unit}, {"evaluated", t.rows()}};
    j["ranking"] = nlohmann::ordered_json::array();
    for (const std::size_t i : keep) {
      nlohmann::ordered_json row;
      for (const auto& n : names) row[n] = cell_json(t.column(n), i);
      row["time"] = pred(static_cast<Eigen::Index>(i));
      if (iv) {
        const auto k = static_cast<Eigen::Index>(j["ranking"].size());
        row["time_interval"] = {iv->lo(k), iv->hi(k)};
      }
      if (gpu) row["gpu_hours"] = score[i];
      row["extrapolated"] = job::outside_json(guard.check(t, i));
      j["ranking"].push_back(row);
    }
    if (iv) {
      j["ci"] = ci;
      j["interval_contains"] = interval.contains;
    }
    j["range_known"] = guard.known();
    j["best_on_edge"] = edge;
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::printf("model '%s' (%s): %zu configurations, best %zu by %s\n", model.c_str(),
              a.result.c_str(), t.rows(), keep.size(), a.objective.c_str());
  std::printf("%4s", "rank");
  for (const auto& n : names) std::printf(" %12s", n.c_str());
  std::printf(" %14s", ("time " + unit).c_str());
  if (iv) std::printf(" %27s", (format_g(100.0 * ci, 3) + "% interval").c_str());
  std::printf("%s  extrapolated\n", gpu ? "      gpu-hours" : "");
  for (std::size_t k = 0; k < keep.size(); ++k) {
    std::printf("%4zu", k + 1);
    for (const auto& n : names) {
      const data::Column& c = t.column(n);
      if (c.is_numeric()) {
        std::printf(" %12.6g", c.f64()[keep[k]]);
      } else {
        std::printf(" %12s", c.str()[keep[k]].c_str());
      }
    }
    std::printf(" %14.6g", pred(static_cast<Eigen::Index>(keep[k])));
    if (iv)
      std::printf(" %13.6g..%-12.6g", iv->lo(static_cast<Eigen::Index>(k)),
                  iv->hi(static_cast<Eigen::Index>(k)));
    if (gpu) std::printf(" %14.6g", score[keep[k]]);
    std::printf("  %s\n", guard.known() ? job::RangeGuard::cell(guard.check(t, keep[k])).c_str()
                                        : "range unknown");
  }
  if (iv) std::printf("the interval holds %s\n", interval.contains.c_str());
  if (!edge.empty()) {
    std::printf(
        "note: the best lies on the edge of the searched space (%s): a better configuration may "
        "lie "
        "beyond it\n",
        join(edge).c_str());
  }
}

// The interval of each listed configuration (in rank order), when asked for or when the result
// has bootstrap refits; only for those listed: refits x rows predictions.
job::Interval listed_interval(const RecommendArgs& a, const io::ResultFile& r,
                              const data::MeasurementTable& given,
                              const std::vector<std::size_t>& keep) {
  if (!(a.interval > 0.0 || r.has_bootstrap())) return {};
  data::MeasurementTable listed;
  for (const auto& c : given.columns()) {
    if (c.is_numeric()) {
      std::vector<double> v;
      for (const std::size_t i : keep) v.push_back(c.f64()[i]);
      listed.add_column(data::Column(c.name(), std::move(v)));
    } else {
      std::vector<std::string> v;
      for (const std::size_t i : keep) v.push_back(c.str()[i]);
      listed.add_column(data::Column(c.name(), std::move(v)));
    }
  }
  job::Interval interval =
      job::predict_rows(r, a.result, listed, "--space and --at", false, a.interval).interval;
  if (interval.asked_but_unavailable)
    std::fprintf(stderr, "perfit recommend: %s\n", interval.contains.c_str());
  return interval;
}

int run_recommend(const RecommendArgs& a) {
  std::vector<Constraint> cons = parse_constraints(a.constraint);
  const io::ResultFile r = io::read_result(a.result, a.set);
  model::ModelSpec spec = io::parse_model_yaml(r.model_yaml, a.result + " model_yaml");
  // Factors by the fit's names or the columns they were bound to (p or gpus).
  const job::ResultNames names(r, a.result);
  const job::RangeGuard guard(r, model::Model::factors(spec));
  const std::vector<job::FactorRange> space =
      searched_space(job::parse_ranges(a.space, "--space"), names, guard, a.allow_extrapolation);
  const data::MeasurementTable given = space_rows(space, a.at, r);
  const data::MeasurementTable t =
      job::bind_rows(r, a.result, given, "--space and --at", true, spec, nullptr);
  const bool gpu = a.objective == "gpu-hours";
  const std::string workers = names.column(a.workers);
  if (gpu && !t.find(workers)) {
    throw ConfigError("--objective gpu-hours multiplies the time by --workers '" + a.workers +
                      "', which is not a factor of the space or --at");
  }
  if (gpu)
    check_time_unit(r.unit,
                    "--objective gpu-hours: '" + a.result + "' measures " + r.target + " in");
  const double hours_per_unit = seconds_per_unit(r.unit) / 3600.0;
  for (auto& c : cons) {
    if (c.name != "time") c.name = names.column(c.name);
  }
  for (const auto& c : cons) {
    if (c.name != "time" && !t.find(c.name)) {
      throw ConfigError("--constraint on '" + c.name +
                        "': neither 'time' nor a factor of --space/--at");
    }
  }
  const model::Model m(spec, t.column_names());
  const model::Evaluator ev(m, t);
  Eigen::VectorXd params(static_cast<Eigen::Index>(r.params.size()));
  for (std::size_t k = 0; k < r.params.size(); ++k)
    params(static_cast<Eigen::Index>(k)) = r.params[k].value;
  const Eigen::VectorXd pred = ev.predict(params);
  std::vector<double> score(t.rows());
  std::vector<std::size_t> keep;
  for (std::size_t i = 0; i < t.rows(); ++i) {
    const double time = pred(static_cast<Eigen::Index>(i));
    if (!(std::isfinite(time) && time > 0.0)) continue;  // outside the model's range
    bool ok = true;
    for (const auto& c : cons)
      ok = ok && c.holds(c.name == "time" ? time : t.column(c.name).f64()[i]);
    if (!ok) continue;
    score[i] = gpu ? time * t.column(workers).f64()[i] * hours_per_unit : time;
    keep.push_back(i);
  }
  if (keep.empty()) throw DataError("no configuration of the space meets the constraints");
  const std::size_t top = std::min(a.top, keep.size());
  std::partial_sort(keep.begin(), keep.begin() + static_cast<std::ptrdiff_t>(top), keep.end(),
                    [&](std::size_t x, std::size_t y) {
                      return score[x] < score[y] || (score[x] == score[y] && x < y);
                    });
  keep.resize(top);
  const job::Interval interval = listed_interval(a, r, given, keep);
  std::vector<std::vector<job::Outside>> outside;
  for (const std::size_t i : keep) outside.push_back(guard.check(t, i));
  guard.warn(outside, "recommend");
  print_ranking(a, spec.name, r.unit, t, pred, score, keep, interval, guard,
                on_edge(space, names, t, keep.front()));
  return 0;
}

const OptionTable<RecommendArgs>& recommend_options() {
  using A = RecommendArgs;
  static const OptionTable<A> t = {
      required(text_option<A>("result", &A::result, "a result file",
                              "result file written by perfit fit")),
      winner_set_option<A>(&A::set),
      required(text_option<A>("space", &A::space, "NAME=LO..HI,...",
                              "factors and ranges, e.g. p=1..512,b=32..1024")),
      text_option<A>("at", &A::at, "NAME=VALUE,...",
                     "the model's other factors, e.g. d=1.28e6,epochs=90"),
      choice_option<A>("objective", &A::objective, {"time", "gpu-hours"},
                       "what to minimise: the predicted time, or time x workers in hours (from the "
                       "stored unit)"),
      text_option<A>("workers", &A::workers, "a factor name",
                     "the factor that counts GPUs for gpu-hours"),
      text_option<A>("constraint", &A::constraint, "NAME<=VALUE,...",
                     "e.g. p<=256,time<=3600 (a factor or the predicted time)"),
      whole_option<A>("top", &A::top, 1, kMaxPoints, "how many to list"),
      interval_option<A>(&A::interval),
      bool_option<A>(
          "allow_extrapolation", &A::allow_extrapolation,
          "search --space beyond the measured range of its factors (flagged in the output)"),
      json_option<A>(&A::json, "JSON"),
  };
  return t;
}

}  // namespace

void add_recommend_command(CLI::App& app, Action& action) {
  add_command(app, action, "recommend",
              "The best configurations of a space by a fitted model's predicted time (or\n"
              "GPU-hours): every combination of the --space factors, each doubling from LO\n"
              "to HI, with the other factors fixed by --at.",
              std::make_shared<RecommendArgs>(), recommend_options(), run_recommend);
}

}  // namespace perfit::app
