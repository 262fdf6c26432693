#include "perfit/job/groups.hpp"

#include <algorithm>
#include <cstdlib>
#include <regex>
#include <set>

#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/model/grouped_model.hpp"

namespace perfit::job {

namespace {

void require_columns(const data::MeasurementTable& t, const std::vector<std::string>& by,
                     const std::string& where, bool config) {
  for (const auto& c : by) {
    if (t.find(c)) continue;
    const std::string msg = where + " has no column '" + c +
                            "' to split the groups by; columns: " + join(t.column_names());
    if (config) throw ConfigError(msg);
    throw DataError(msg);
  }
}

std::string lines(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : "\n") + x;
  return s;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t b = 0;
  while (!text.empty() && b <= text.size()) {
    const std::size_t e = std::min(text.find('\n', b), text.size());
    out.push_back(text.substr(b, e - b));
    b = e + 1;
  }
  return out;
}

}  // namespace

std::size_t Groups::index(const std::string& label) const {
  const auto it = std::find(labels.begin(), labels.end(), label);
  return it == labels.end() ? 0 : static_cast<std::size_t>(it - labels.begin()) + 1;
}

std::string group_label(const data::MeasurementTable& t, const std::vector<std::string>& by,
                        std::size_t i) {
  std::string s;
  for (std::size_t k = 0; k < by.size(); ++k) s += (k ? " / " : "") + t.column(by[k]).value_text(i);
  return s;
}

std::vector<std::string> group_values(const Groups& g, const std::string& label) {
  if (g.by.size() == 1) return {label};
  std::vector<std::string> v;
  for (std::size_t at = 0;;) {
    const std::size_t next = label.find(" / ", at);
    v.push_back(label.substr(at, next == std::string::npos ? std::string::npos : next - at));
    if (next == std::string::npos) break;
    at = next + 3;
  }
  if (v.size() != g.by.size()) {
    throw ConfigError("group '" + label + "' does not split into one value per column of --by " +
                      join(g.by) + " (a value holds ' / '): name the group's columns in --at");
  }
  return v;
}

Groups find_groups(const data::MeasurementTable& t, const std::vector<std::string>& by,
                   const std::string& where) {
  require_columns(t, by, where, false);
  std::set<std::string> seen;
  for (std::size_t i = 0; i < t.rows(); ++i) seen.insert(group_label(t, by, i));
  if (seen.size() < 2) {
    throw DataError(where + ": --by " + join(by) + " gives " + std::to_string(seen.size()) +
                    " group" + (seen.size() == 1 ? " ('" + *seen.begin() + "')" : "s") +
                    "; a joint fit needs rows of two or more groups (fit one set without --by)");
  }
  Groups g;
  g.by = by;
  g.labels.assign(seen.begin(), seen.end());
  return g;
}

void add_group_columns(data::MeasurementTable& t, const Groups& g, const std::string& where) {
  require_columns(t, g.by, where, true);
  std::vector<std::vector<double>> ind(g.labels.size(), std::vector<double>(t.rows(), 0.0));
  for (std::size_t i = 0; i < t.rows(); ++i) {
    const std::string label = group_label(t, g.by, i);
    const std::size_t k = g.index(label);
    if (k == 0) {
      throw ConfigError(where + " row " + std::to_string(i + 1) + ": " + join(g.by) + " '" + label +
                        "' is no group of this joint fit; its groups: " + join_some(g.labels));
    }
    ind[k - 1][i] = 1.0;
  }
  for (std::size_t k = 0; k < ind.size(); ++k) {
    t.add_column(data::Column(model::group_indicator(k + 1), std::move(ind[k])));
  }
}

std::pair<std::string, std::string> param_group(const Groups& g, const std::string& param) {
  const auto [constant, k] = model::split_group_param(param);
  if (k == 0 || k > g.labels.size()) return {param, ""};
  return {constant, g.labels[k - 1]};
}

std::vector<std::string> group_warnings(const Groups& g, const std::vector<std::string>& warnings,
                                        const std::vector<io::ResultParam>& params) {
  // The model's words first: each group's copy of a constant by its group's name.
  static const std::regex copy(R"(\b([A-Za-z_][A-Za-z0-9_]*?)__([0-9]+)\b)");
  std::vector<std::string> out;
  for (const auto& w : warnings) {
    std::string named;
    auto at = w.cbegin();
    for (std::sregex_iterator m(w.begin(), w.end(), copy), end; m != end; ++m) {
      const std::size_t k = std::stoul((*m)[2].str());
      named.append(at, (*m)[0].first);
      named += k >= 1 && k <= g.labels.size() ? (*m)[1].str() + " (group '" + g.labels[k - 1] + "')"
                                              : (*m)[0].str();
      at = (*m)[0].second;
    }
    out.push_back(named.append(at, w.cend()));
  }
  // Then, per group whose own runs leave constants undetermined, what it got instead.
  auto in = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  for (std::size_t k = 1; k <= g.labels.size(); ++k) {
    std::vector<std::string> borrowed, guessed;
    for (const auto& p : params) {
      const auto [constant, group] = model::split_group_param(p.name);
      if (group != k || p.identifiable) continue;
      (in(g.pooled, constant) ? borrowed : guessed).push_back(constant);
    }
    if (borrowed.empty() && guessed.empty()) continue;
    std::vector<std::string> all = borrowed;
    all.insert(all.end(), guessed.begin(), guessed.end());
    std::string w =
        "group '" + g.labels[k - 1] + "': its own runs do not determine " + join(all) + ";";
    if (!borrowed.empty())
      w += " pooled, " + join(borrowed) +
           " take the other groups' values (drawn toward their common value);";
    if (!guessed.empty()) {
      w += " fitted per group, " + join(guessed) +
           (guessed.size() > 1 ? " are guesses" : " is a guess") + ": pool " +
           (guessed.size() > 1 ? "them" : "it") +
           " (--pooled) or measure the group at more configurations;";
    }
    w.pop_back();
    out.push_back(w);
  }
  return out;
}

Groups groups_of(const io::ResultFile& r) {
  if (r.group_by.empty()) return {};
  Groups g{split_list(r.group_by),
           split_lines(r.group_labels),
           split_list(r.group_per_group),
           split_list(r.group_pooled),
           {},
           r.pool_how};
  for (const auto& v : split_list(r.pool_strengths))
    g.pool_strengths.push_back(std::strtod(v.c_str(), nullptr));
  std::erase_if(g.per_group, [&](const std::string& c) {
    return std::find(g.pooled.begin(), g.pooled.end(), c) != g.pooled.end();
  });
  return g;
}

void set_groups(io::ResultFile& r, const Groups& g) {
  std::string by, per;
  for (const auto& c : g.by) by += (by.empty() ? "" : ",") + c;
  for (const auto* list : {&g.per_group, &g.pooled}) {
    for (const auto& c : *list) per += (per.empty() ? "" : ",") + c;
  }
  r.group_by = by;
  r.group_labels = lines(g.labels);
  r.group_per_group = per;
  std::string pooled;
  for (const auto& c : g.pooled) pooled += (pooled.empty() ? "" : ",") + c;
  r.group_pooled = pooled;
  std::string strengths;
  for (const double v : g.pool_strengths)
    strengths += (strengths.empty() ? "" : ",") + format_g(v, 17);
  r.pool_strengths = strengths;
  r.pool_how = g.pool_how;
}

}  // namespace perfit::job
