#include "perfit/select/ladder.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <map>

#include "perfit/core/text.hpp"
#include "perfit/data/splits.hpp"
#include "perfit/fit/predictive.hpp"
#include "perfit/model/bounded_lsq.hpp"

namespace perfit::select {

namespace {

// Measured (bench/extrapolation_bench.py, docs/selection.md): 1.2 / 0.85 / 5 against 0.9-1.5,
// 0.7-1.0 and 2-8; the others traded the ideal family against the saturating one, or Amdahl's
// data against MLPerf's.
constexpr double kIdealGuard = 1.2;
constexpr double kDisplace = 0.85;
constexpr double kMisfit = 5.0;

bool usable(const Candidate& m) {
  return std::isfinite(m.score) && m.determined && !m.pooled.failed;
}
bool is_fitted(const Candidate& m, const char* name) { return !m.procedure() && m.word == name; }
bool is_ideal_fit(const Candidate& m) { return m.naive == model::NaiveKind::ideal_fit; }
bool nested(const Candidate& m) {
  return is_fitted(m, "amdahl") || is_fitted(m, "usl") || is_ideal_fit(m);
}

// Every candidate reads `column` alone: the ladder is about scaling along it.
bool one_column(const std::vector<Candidate>& ranked, const std::string& column) {
  return std::all_of(ranked.begin(), ranked.end(), [&](const Candidate& m) {
    const std::vector<std::string>& cols =
        m.procedure() ? m.search_columns : m.model->columns_used();
    return std::all_of(cols.begin(), cols.end(), [&](const std::string& c) { return c == column; });
  });
}

std::vector<Candidate>::iterator lowest(std::vector<Candidate>& ranked,
                                        bool (*which)(const Candidate&)) {
  auto best = ranked.end();
  for (auto it = ranked.begin(); it != ranked.end(); ++it) {
    if (usable(*it) && which(*it) && (best == ranked.end() || it->score < best->score)) best = it;
  }
  return best;
}

std::string serial_words(const SerialPartTest& t) {
  return "Amdahl's serial part is within the noise (F = " + format_g(t.f, 3) + " on 1 and " +
         std::to_string(t.dof) + " dof, below its 95% quantile)";
}

void put_first(std::vector<Candidate>& ranked, std::vector<Candidate>::iterator it,
               std::string why) {
  it->why = std::move(why);
  std::rotate(ranked.begin(), it, it + 1);
}

}  // namespace

SerialPartTest serial_part_test(const data::MeasurementTable& rows, const std::string& column) {
  const std::vector<double> x = rows.column(column).to_double(),
                            t = rows.column(rows.target()).to_double();
  // a * v + b * u ~ 1 with v = 1/t, u = 1/(x t): the relative residuals of t = a + b / x.
  double vv = 0.0, uu = 0.0, uv = 0.0, sv = 0.0, su = 0.0;
  std::size_t n = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!(x[i] > 0.0) || !(t[i] > 0.0)) continue;
    const double v = 1.0 / t[i], u = v / x[i];
    vv += v * v, uu += u * u, uv += u * v, sv += v, su += u;
    ++n;
  }
  SerialPartTest out;
  if (n <= 2 || !(uu > 0.0)) return out;
  // rss(a, b) = n - 2 (a sv + b su) + a^2 vv + 2 a b uv + b^2 uu: the bounded normal equations
  const Eigen::Matrix2d h{{vv, uv}, {uv, uu}};
  const Eigen::Vector2d g(sv, su);
  const auto rss = [&](const Eigen::Vector2d& c) {
    return std::max(0.0, static_cast<double>(n) - 2 * g.dot(c) + c.dot(h * c));
  };
  const double ideal = rss(Eigen::Vector2d(0.0, su / uu));
  const Eigen::Vector2d ab =
      model::bounded_least_squares(h, g, Eigen::Vector2d::Zero(), Eigen::Vector2d::Constant(1e200));
  const double a = ab(0), b = ab(1);
  const double amdahl = std::min(rss(ab), ideal);
  out.a = a, out.b = b, out.c = su / uu;
  out.tested = true;
  out.dof = n - 2;
  out.amdahl_residual_sd = std::sqrt(amdahl / static_cast<double>(out.dof));
  out.f = amdahl > 0.0 ? (ideal - amdahl) / (amdahl / static_cast<double>(out.dof))
                       : (ideal > 0.0 ? HUGE_VAL : 0.0);
  const double q = fit::t_quantile(0.975, static_cast<double>(out.dof));
  out.significant = out.f > q * q;
  return out;
}

bool coherency_significant(const data::MeasurementTable& rows, const std::string& column) {
  const std::vector<double> x = rows.column(column).to_double(),
                            t = rows.column(rows.target()).to_double();
  Eigen::Matrix3d ata = Eigen::Matrix3d::Zero();
  Eigen::Vector3d atb = Eigen::Vector3d::Zero();
  std::size_t n = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!(x[i] > 0.0) || !(t[i] > 0.0)) continue;
    const Eigen::Vector3d r(1.0 / (x[i] * t[i]), 1.0 / t[i], x[i] / t[i]);
    ata += r * r.transpose();
    atb += r;
    ++n;
  }
  if (n <= 3) return false;
  // rss(beta) = n - 2 beta.atb + beta' ata beta, minimal at ata beta = atb: n - beta.atb
  const Eigen::Vector3d full = ata.ldlt().solve(atb);
  const Eigen::Vector2d two = ata.topLeftCorner<2, 2>().ldlt().solve(atb.head<2>());
  if (!full.allFinite() || !two.allFinite() || !(full(2) > 0.0)) return false;
  const double rss3 = std::max(0.0, static_cast<double>(n) - full.dot(atb));
  const double rss2 = std::max(rss3, static_cast<double>(n) - two.dot(atb.head<2>()));
  const auto dof = static_cast<double>(n - 3);
  if (rss3 <= 0.0) return rss2 > 0.0;
  const double q = fit::t_quantile(0.995, dof);
  return (rss2 - rss3) / (rss3 / dof) > q * q;
}

double within_scale_log_sd(const data::MeasurementTable& rows, const std::string& column) {
  const std::vector<double> x = rows.column(column).to_double(),
                            y = rows.column(rows.target()).to_double();
  std::map<double, std::vector<double>> by;
  for (std::size_t i = 0; i < x.size(); ++i) by[x[i]].push_back(std::log(y[i]));
  double ss = 0.0;
  std::size_t dof = 0;
  for (const auto& [v, logs] : by) {
    if (logs.size() < 2) continue;
    double mean = 0.0;
    for (const double l : logs) mean += l / static_cast<double>(logs.size());
    for (const double l : logs) ss += (l - mean) * (l - mean);
    dof += logs.size() - 1;
  }
  return dof > 0 ? std::sqrt(ss / static_cast<double>(dof))
                 : std::numeric_limits<double>::quiet_NaN();
}

void prefer_prior(std::vector<Candidate>& ranked, const data::MeasurementTable& rows,
                  const std::string& column) {
  const SerialPartTest t = serial_part_test(rows, column);
  const auto find = [&](auto pred) {
    return std::find_if(ranked.begin(), ranked.end(),
                        [&](const Candidate& m) { return !m.pooled.failed && pred(m); });
  };
  auto it = ranked.end();
  if (t.tested && !t.significant) {
    it = find(is_ideal_fit);
    if (it != ranked.end()) return put_first(ranked, it, "ideal scaling: " + serial_words(t));
  }
  it = find([](const Candidate& m) { return is_fitted(m, "amdahl"); });
  if (it != ranked.end())
    return put_first(ranked, it, "the prior for two scales: Amdahl's law through them");
  it = find([](const Candidate& m) { return m.naive == model::NaiveKind::loglog; });
  if (it != ranked.end())
    put_first(ranked, it, "the prior for two scales: the log-log line through them");
}

void prefer_simplest_adequate(std::vector<Candidate>& ranked, const data::MeasurementTable& rows,
                              const std::string& column) {
  const auto amdahl = lowest(ranked, [](const Candidate& m) { return is_fitted(m, "amdahl"); });
  if (amdahl == ranked.end() || !one_column(ranked, column)) return;
  const SerialPartTest t = serial_part_test(rows, column);
  const auto ideal = lowest(ranked, is_ideal_fit);
  auto first = amdahl;
  std::string why;
  if (ideal != ranked.end() && t.tested && !t.significant &&
      ideal->score <= kIdealGuard * amdahl->score) {
    first = ideal;
    const std::vector<double> x = data::distinct_values(rows.column(column));
    const double next = x.size() > 1 ? x.back() * x.back() / x[x.size() - 2] : x.back();
    ideal->choice_gap = std::log((t.a + t.b / next) / (t.c / next));
    why = "ideal scaling: " + serial_words(t) + " and its held-out MAPE is within " +
          format_g(kIdealGuard, 3) + "x Amdahl's";
  } else {
    const auto usl = lowest(ranked, [](const Candidate& m) { return is_fitted(m, "usl"); });
    if (usl != ranked.end() && coherency_significant(rows, column)) {
      first = usl;
      why = "the USL: its coherency term (time rising with " + column +
            ") is significant at 99% on every row";
    } else {
      why = std::string("Amdahl's law: ") +
            (t.significant ? "its serial part is significant (F = " + format_g(t.f, 3) + ")"
             : ideal == ranked.end() ? std::string("ideal-fit is not a candidate")
                                     : "ideal scaling misses the held-out scales by more than " +
                                           format_g(kIdealGuard, 3) + "x it") +
            ", and the USL's coherency term is not significant";
    }
  }
  const auto other = lowest(ranked, [](const Candidate& m) { return !nested(m); });
  if (other != ranked.end() && other->score < kDisplace * first->score) {
    double noise = within_scale_log_sd(rows, column);
    if (!std::isfinite(noise)) noise = t.amdahl_residual_sd;
    const double miss = held_out_log_rms(*first);
    if (std::isfinite(noise) && miss > kMisfit * noise) {
      first = other;
      why = "the nested models miss the held-out scales by " + format_g(miss / noise, 3) +
            "x the run-to-run noise "
            "(more than " +
            format_g(kMisfit, 3) + "x) and this one predicts them better by more than " +
            format_g(100 * (1 - kDisplace), 3) + "%";
    } else {
      why += "; " + other->model->spec().name +
             " predicts them better, but the nested models miss them by " +
             (std::isfinite(noise) ? "only " + format_g(miss / noise, 3) + "x the run-to-run noise"
                                   : "an unknown noise") +
             " (it must be over " + format_g(kMisfit, 3) + "x)";
    }
  }
  put_first(ranked, first, why);
}

}  // namespace perfit::select
