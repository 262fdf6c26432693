#include "perfit/job/measured_range.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "perfit/core/text.hpp"
#include "perfit/model/factor_binding.hpp"
#include "perfit/mpi/communicator.hpp"

namespace perfit::job {

std::vector<io::MeasuredRange> measured_ranges(const model::Model& m, const data::MeasurementTable& rows,
                                               const std::string& factors, MPI_Comm comm) {
  std::vector<io::MeasuredRange> out;
  std::vector<double> lo, hi;
  for (const auto& name : m.factors()) {  // a constant model's too
    const data::Column* c = rows.find(name);
    if (!c || !c->is_numeric()) continue;
    double a = std::numeric_limits<double>::infinity(), b = -a;
    for (const double v : c->to_double()) {
      a = std::min(a, v);
      b = std::max(b, v);
    }
    out.push_back({name, a, b});
    lo.push_back(a);
    hi.push_back(b);
  }
  if (comm != MPI_COMM_NULL && !out.empty()) {
    const int n = static_cast<int>(out.size());
    mpi::check(MPI_Allreduce(MPI_IN_PLACE, lo.data(), n, MPI_DOUBLE, MPI_MIN, comm), "MPI_Allreduce (ranges)");
    mpi::check(MPI_Allreduce(MPI_IN_PLACE, hi.data(), n, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce (ranges)");
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = {out[i].name, lo[i], hi[i]};
  }
  for (const auto& b : model::parse_factor_bindings(factors)) {
    if (b.column.empty() && m.spec().constants.end() !=
                                std::find_if(m.spec().constants.begin(), m.spec().constants.end(),
                                             [&](const auto& k) { return k.first == b.factor; })) {
      out.push_back({b.factor, b.value, b.value});
    }
  }
  return out;
}

namespace {

// "4x", or "0.09%" for a point just past an end (4x would round it to "1x").
std::string how_far(double ratio) {
  if (!std::isfinite(ratio)) return "far";
  return ratio < 1.1 ? format_g(100.0 * (ratio - 1.0), 2) + "%" : format_g(ratio, 3) + "x";
}

}  // namespace

std::string Outside::text() const {
  return factor + "=" + format_g(value) + " " + how_far(ratio) + " " +
         (above ? "above" : "below") + " the measured " + format_g(lo) + (lo == hi ? "" : ".." + format_g(hi));
}

nlohmann::ordered_json outside_json(const std::vector<Outside>& o) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const auto& x : o) {
    j.push_back({{"factor", x.factor}, {"value", x.value}, {"side", x.above ? "above" : "below"},
                 {"ratio", std::isfinite(x.ratio) ? nlohmann::ordered_json(x.ratio) : nlohmann::ordered_json(nullptr)},
                 {"measured", {x.lo, x.hi}}});
  }
  return j;
}

std::vector<Outside> RangeGuard::check(const data::MeasurementTable& t, std::size_t row) const {
  std::vector<Outside> out;
  for (const auto& m : ranges_) {
    const data::Column* c = t.find(m.name);
    if (!c || !c->is_numeric()) continue;
    // One value, not the column converted (that would make a grid's check O(rows^2)).
    const double v = c->type() == data::ColumnType::int64 ? static_cast<double>(c->i64()[row]) : c->f64()[row];
    // A whisker of rounding (a grid written with 10 digits) is not an extrapolation.
    const double slack = 1e-9 * std::max(std::abs(m.lo), std::abs(m.hi));
    if (v > m.hi + slack) {
      out.push_back({m.name, v, m.lo, m.hi, true, m.hi > 0 ? v / m.hi : std::numeric_limits<double>::infinity()});
    } else if (v < m.lo - slack) {
      out.push_back({m.name, v, m.lo, m.hi, false, v > 0 ? m.lo / v : std::numeric_limits<double>::infinity()});
    }
  }
  return out;
}

std::string RangeGuard::cell(const std::vector<Outside>& o) {
  std::string s;
  for (const auto& x : o) {
    s += (s.empty() ? "" : ";") + x.factor + (x.above ? ">" : "<") + how_far(x.ratio);
  }
  return s;
}

std::string RangeGuard::warning(const std::vector<std::vector<Outside>>& per_point, const std::string& command) const {
  if (!known()) {
    return "perfit " + command + ": warning: measured range unknown (the result was written before perfit kept "
           "ranges; refit to get them): points are not checked for extrapolation";
  }
  std::size_t n = 0;
  std::vector<Outside> worst;  // per factor and side, the farthest
  for (const auto& p : per_point) {
    n += p.empty() ? 0 : 1;
    for (const auto& o : p) {
      auto it = std::find_if(worst.begin(), worst.end(),
                             [&](const Outside& w) { return w.factor == o.factor && w.above == o.above; });
      if (it == worst.end()) {
        worst.push_back(o);
      } else if (o.ratio > it->ratio) {
        *it = o;
      }
    }
  }
  if (n == 0) return "";
  std::string farthest;
  for (const auto& w : worst) farthest += (farthest.empty() ? "" : "; ") + w.text();
  return "perfit " + command + ": warning: " + std::to_string(n) + " of " + std::to_string(per_point.size()) +
         " point(s) extrapolate beyond the measured range (farthest: " + farthest + ")";
}

void RangeGuard::warn(const std::vector<std::vector<Outside>>& per_point, const std::string& command) const {
  const std::string line = warning(per_point, command);
  if (!line.empty()) std::fprintf(stderr, "%s\n", line.c_str());
}

}  // namespace perfit::job
