#include "perfit/job/measured_range.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "perfit/core/text.hpp"
#include "perfit/job/groups.hpp"
#include "perfit/model/factor_binding.hpp"
#include "perfit/model/grouped_model.hpp"
#include "perfit/mpi/communicator.hpp"

namespace perfit::job {

std::vector<io::MeasuredRange> measured_ranges(const model::Model& m,
                                               const data::MeasurementTable& rows,
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
    mpi::check(MPI_Allreduce(MPI_IN_PLACE, lo.data(), n, MPI_DOUBLE, MPI_MIN, comm),
               "MPI_Allreduce (ranges)");
    mpi::check(MPI_Allreduce(MPI_IN_PLACE, hi.data(), n, MPI_DOUBLE, MPI_MAX, comm),
               "MPI_Allreduce (ranges)");
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

std::vector<io::MeasuredRange> group_ranges(const model::Model& m,
                                            const data::MeasurementTable& rows,
                                            const std::vector<io::MeasuredRange>& ranges,
                                            const std::vector<std::string>& labels, MPI_Comm comm) {
  std::vector<io::MeasuredRange> out;
  for (std::size_t g = 0; g < labels.size(); ++g) {
    const auto& ind = rows.column(model::group_indicator(g + 1)).f64();
    std::vector<bool> mine(ind.size());
    for (std::size_t i = 0; i < ind.size(); ++i) mine[i] = ind[i] == 1.0;
    data::MeasurementTable sub = rows;
    sub.filter_rows(mine);
    for (const auto& r : measured_ranges(m, sub, "", comm)) {
      const bool measured =
          std::any_of(ranges.begin(), ranges.end(), [&](const io::MeasuredRange& x) {
            return x.name == r.name && x.lo < x.hi;  // a column that varies over all rows
          });
      if (measured && !model::is_group_indicator(r.name))
        out.push_back({r.name + "@" + labels[g], r.lo, r.hi});
    }
  }
  return out;
}

RangeGuard::RangeGuard(const io::ResultFile& r, const std::vector<std::string>& factors)
    : ranges_(r.ranges), known_(!r.ranges.empty() || factors.empty()), by_(groups_of(r).by) {}

namespace {

// "4x", or "0.09%" for a point just past an end (4x would round it to "1x").
std::string how_far(double ratio) {
  if (!std::isfinite(ratio)) return "far";
  return ratio < 1.1 ? format_g(100.0 * (ratio - 1.0), 2) + "%" : format_g(ratio, 3) + "x";
}

}  // namespace

std::string Outside::text() const {
  return factor + "=" + format_g(value) + " " + how_far(ratio) + " " + (above ? "above" : "below") +
         " " + (group.empty() ? "the" : group + "'s") + " measured " + format_g(lo) +
         (lo == hi ? "" : ".." + format_g(hi));
}

nlohmann::ordered_json outside_json(const std::vector<Outside>& o) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const auto& x : o) {
    j.push_back({{"factor", x.factor},
                 {"value", x.value},
                 {"side", x.above ? "above" : "below"},
                 {"ratio", std::isfinite(x.ratio) ? nlohmann::ordered_json(x.ratio)
                                                  : nlohmann::ordered_json(nullptr)},
                 {"measured", {x.lo, x.hi}}});
    if (!x.group.empty()) j.back()["group"] = x.group;
  }
  return j;
}

std::vector<Outside> RangeGuard::check(const data::MeasurementTable& t, std::size_t row) const {
  std::vector<Outside> out;
  // A row of a joint fit's group: its group's own ranges, and every row's for the rest.
  std::string label;
  const bool grouped = !by_.empty() && std::all_of(by_.begin(), by_.end(),
                                                   [&](const std::string& b) { return t.find(b); });
  if (grouped) label = group_label(t, by_, row);
  // Only a joint result names a group's own range factor@label (a factor is an identifier).
  const auto split = [&](const io::MeasuredRange& m) {
    return by_.empty() ? std::string::npos : m.name.find('@');
  };
  std::vector<std::string> own;
  for (const auto& m : ranges_) {
    const auto at = split(m);
    if (grouped && at != std::string::npos &&
        m.name.compare(at + 1, std::string::npos, label) == 0) {
      own.push_back(m.name.substr(0, at));
    }
  }
  for (const auto& m : ranges_) {
    const auto at = split(m);
    const std::string name = m.name.substr(0, at);
    const bool mine =
        at != std::string::npos && grouped && m.name.compare(at + 1, std::string::npos, label) == 0;
    if (at != std::string::npos && !mine) continue;
    if (at == std::string::npos && std::find(own.begin(), own.end(), name) != own.end()) continue;
    const data::Column* c = t.find(name);
    if (!c || !c->is_numeric()) continue;
    // One value, not the column converted (that would make a grid's check O(rows^2)).
    const double v =
        c->type() == data::ColumnType::int64 ? static_cast<double>(c->i64()[row]) : c->f64()[row];
    // A whisker of rounding (a grid written with 10 digits) is not an extrapolation.
    const double slack = 1e-9 * std::max(std::abs(m.lo), std::abs(m.hi));
    const std::string group = mine ? label : "";
    if (v > m.hi + slack) {
      out.push_back({name, v, m.lo, m.hi, true,
                     m.hi > 0 ? v / m.hi : std::numeric_limits<double>::infinity(), group});
    } else if (v < m.lo - slack) {
      out.push_back({name, v, m.lo, m.hi, false,
                     v > 0 ? m.lo / v : std::numeric_limits<double>::infinity(), group});
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

std::string RangeGuard::warning(const std::vector<std::vector<Outside>>& per_point,
                                const std::string& command) const {
  if (!known()) {
    return "perfit " + command +
           ": warning: measured range unknown (the result was written before perfit kept "
           "ranges; refit to get them): points are not checked for extrapolation";
  }
  std::size_t n = 0;
  std::vector<Outside> worst;  // per factor and side, the farthest
  for (const auto& p : per_point) {
    n += p.empty() ? 0 : 1;
    for (const auto& o : p) {
      auto it = std::find_if(worst.begin(), worst.end(), [&](const Outside& w) {
        return w.factor == o.factor && w.above == o.above;
      });
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
  return "perfit " + command + ": warning: " + std::to_string(n) + " of " +
         std::to_string(per_point.size()) +
         " point(s) extrapolate beyond the measured range (farthest: " + farthest + ")";
}

void RangeGuard::warn(const std::vector<std::vector<Outside>>& per_point,
                      const std::string& command) const {
  const std::string line = warning(per_point, command);
  if (!line.empty()) std::fprintf(stderr, "%s\n", line.c_str());
}

}  // namespace perfit::job
