#include "perfit/job/factor_args.hpp"

#include <algorithm>
#include <charconv>

#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"

namespace perfit::job {

namespace {

std::vector<std::string> items(const std::string& text) {
  std::vector<std::string> out;
  std::size_t b = 0;
  while (b <= text.size()) {
    std::size_t e = text.find(',', b);
    if (e == std::string::npos) e = text.size();
    out.push_back(text.substr(b, e - b));
    b = e + 1;
  }
  return out;
}

bool to_number(const std::string& s, double& v) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return !s.empty() && ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

std::vector<std::pair<std::string, double>> parse_values(const std::string& text,
                                                         const std::string& flag) {
  std::vector<std::pair<std::string, double>> out;
  for (const std::string& item : items(text)) {
    const auto eq = item.find('=');
    double v = 0;
    if (eq == std::string::npos || eq == 0 || !to_number(item.substr(eq + 1), v)) {
      throw ConfigError(flag + " item '" + item + "' is not NAME=NUMBER (e.g. " + flag +
                        " p=64,b=256,d=1.28e6)");
    }
    out.emplace_back(item.substr(0, eq), v);
  }
  return out;
}

std::vector<FactorRange> parse_ranges(const std::string& text, const std::string& flag) {
  std::vector<FactorRange> out;
  for (const std::string& item : items(text)) {
    const auto eq = item.find('='), dots = item.find("..");
    FactorRange r;
    if (eq == std::string::npos || eq == 0 || dots == std::string::npos || dots < eq ||
        !to_number(item.substr(eq + 1, dots - eq - 1), r.lo) ||
        !to_number(item.substr(dots + 2), r.hi)) {
      throw ConfigError(flag + " item '" + item + "' is not NAME=LO..HI (e.g. " + flag +
                        " p=1..1024)");
    }
    r.name = item.substr(0, eq);
    out.push_back(r);
  }
  return out;
}

void check_factors(const std::vector<std::string>& needed, const std::vector<std::string>& given,
                   const std::string& model, const std::string& where) {
  std::vector<std::string> missing, unknown;
  for (const auto& f : needed) {
    if (std::find(given.begin(), given.end(), f) == given.end()) missing.push_back(f);
  }
  for (const auto& c : given) {
    if (std::find(needed.begin(), needed.end(), c) == needed.end()) unknown.push_back(c);
  }
  if (missing.empty() && unknown.empty()) return;
  std::string msg = where + ": ";
  if (!missing.empty()) msg += "missing factor(s) " + join(missing);
  if (!unknown.empty())
    msg += std::string(missing.empty() ? "" : "; ") + "unknown factor(s) " + join(unknown);
  throw ConfigError(msg + ". Model '" + model + "' uses: " + join(needed));
}

}  // namespace perfit::job
