// Extra-P's multi-parameter modeler for two parameters (extra-p/extrap,
// modelers/multi_parameter/multi_parameter_modeler.py, default options).
#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "hypothesis_search_detail.hpp"
#include "perfit/core/error.hpp"

namespace perfit::model {

namespace {

using detail::Points;

std::vector<double> others(const std::vector<double>& x, std::size_t param) {
  std::vector<double> o = x;
  o.erase(o.begin() + static_cast<std::ptrdiff_t>(param));
  return o;
}

// Extra-P's "auto" point selection (find_best_measurement_points): the lines of points along
// `param` (equal other coordinates) that are longest, merged per value of `param` by the mean,
// keeping only lines that cover the same range as the first.
Points line_points(const Points& pts, std::size_t param) {
  std::vector<std::pair<std::vector<double>, std::vector<std::size_t>>>
      lines;  // first-appearance order
  for (std::size_t i = 0; i < pts.y.size(); ++i) {
    const std::vector<double> o = others(pts.x[i], param);
    auto it = std::find_if(lines.begin(), lines.end(), [&](const auto& l) { return l.first == o; });
    if (it == lines.end()) {
      lines.push_back({o, {}});
      it = std::prev(lines.end());
    }
    it->second.push_back(i);
  }
  std::size_t longest = 0;
  for (const auto& l : lines) longest = std::max(longest, l.second.size());
  std::vector<std::pair<double, std::vector<std::size_t>>> by_value;  // value of param -> points
  for (const auto& l : lines) {
    if (l.second.size() != longest) continue;
    for (const std::size_t i : l.second) {
      const double v = pts.x[i][param];
      auto it = std::find_if(by_value.begin(), by_value.end(),
                             [&](const auto& g) { return g.first == v; });
      if (it == by_value.end()) {
        by_value.push_back({v, {}});
        it = std::prev(by_value.end());
      }
      it->second.push_back(i);
    }
  }
  if (by_value.empty()) return {};
  std::set<std::vector<double>> common;
  for (const std::size_t i : by_value.front().second) common.insert(others(pts.x[i], param));
  std::map<double, double> merged;
  for (auto& [v, idx] : by_value) {
    double sum = 0.0;
    std::size_t n = 0;
    for (const std::size_t i : idx) {
      if (!common.count(others(pts.x[i], param))) continue;
      sum += pts.y[i];
      ++n;
    }
    if (n > 0) merged[v] = sum / static_cast<double>(n);
  }
  Points out;
  for (const auto& [v, m] : merged) {
    out.x.push_back({v});
    out.y.push_back(m);
  }
  return out;
}

double in_sample_smape(const PmnfHypothesis& h, const Points& pts) {
  double s = 0.0;
  for (std::size_t i = 0; i < pts.y.size(); ++i)
    s += detail::smape_term(h.eval(pts.x[i]), pts.y[i]);
  return s / static_cast<double>(pts.y.size()) * 100.0;
}

PmnfHypothesis scored(PmnfHypothesis h, const Points& pts) {
  detail::fit_coefficients(h, pts, -1);
  h.smape = in_sample_smape(h, pts);
  h.leave_one_out = false;
  return h;
}

bool terms_contribute(const PmnfHypothesis& h, const Points& pts) {
  return std::all_of(h.terms.begin(), h.terms.end(), [&](const PmnfTerm& t) {
    return t.coefficient != 0.0 && detail::max_contribution(t, pts) >= detail::kMinContribution;
  });
}

// One parameter's term kept: its single-parameter coefficients or new ones from every point,
// whichever has the lower SMAPE over every point.
PmnfHypothesis one_term(const PmnfHypothesis& single, const Points& pts) {
  PmnfHypothesis reused = single;
  reused.smape = in_sample_smape(reused, pts);
  reused.leave_one_out = false;
  PmnfHypothesis fresh = single;
  fresh = scored(fresh, pts);
  return fresh.smape < reused.smape ? fresh : reused;
}

}  // namespace

PmnfHypothesis search_hypothesis(const std::vector<std::vector<double>>& x,
                                 const std::vector<double>& y, const SearchOptions& opt) {
  if (x.size() == 1) return search_single_parameter(x.front(), y, opt);
  if (x.size() != 2) {
    throw ConfigError("pmnf-search models one or two parameters, got " + std::to_string(x.size()));
  }
  const Points pts = detail::mean_per_point(x, y);
  if (pts.y.size() < 3) {
    throw DataError("pmnf-search needs at least 3 distinct points, found " +
                    std::to_string(pts.y.size()));
  }
  std::vector<PmnfHypothesis> singles;
  for (std::size_t p = 0; p < x.size(); ++p) {
    const Points line = line_points(pts, p);
    if (line.y.size() < 3) {
      throw DataError(
          "pmnf-search needs at least 3 values of each parameter along a line of the others; "
          "parameter " +
          std::to_string(p + 1) + " has " + std::to_string(line.y.size()));
    }
    PmnfHypothesis s = detail::single_parameter(line, 0, opt);
    for (PmnfTerm& t : s.terms) {
      for (PmnfFactor& f : t.factors) f.param = p;
    }
    singles.push_back(std::move(s));
  }
  std::vector<PmnfTerm> kept;  // each non-constant parameter's term, coefficient reset
  std::size_t only = 0;
  for (std::size_t p = 0; p < singles.size(); ++p) {
    if (singles[p].constant()) continue;
    kept.push_back(PmnfTerm{singles[p].terms.front().factors, 0.0});
    only = p;
  }
  if (kept.empty()) {
    PmnfHypothesis c = detail::constant_model(pts);
    c.leave_one_out = false;
    return c;
  }
  if (kept.size() == 1) return one_term(singles[only], pts);
  PmnfTerm mult{kept[0].factors, 0.0};
  mult.factors.insert(mult.factors.end(), kept[1].factors.begin(), kept[1].factors.end());
  const std::vector<std::vector<PmnfTerm>> shapes = {
      {mult}, {kept[0], kept[1]}, {kept[0], mult}, {kept[1], mult}};
  PmnfHypothesis best;
  best.terms = shapes.front();
  best = scored(best, pts);  // Extra-P starts from the product even if a term is too small
  for (const auto& shape : shapes) {
    PmnfHypothesis h;
    h.terms = shape;
    h = scored(h, pts);
    if (detail::finite(h) && terms_contribute(h, pts) && h.smape < best.smape) best = h;
  }
  return best;
}

}  // namespace perfit::model
