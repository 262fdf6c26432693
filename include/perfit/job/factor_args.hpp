// Factor values and ranges on the command line, shared by predict, explain and recommend:
// "p=64,b=256" (values), "p=1..1024" (a range), "p=1..512,b=32..1024" (ranges).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace perfit::job {

struct FactorRange {
  std::string name;
  double lo = 0.0, hi = 0.0;
};

// Throws: ConfigError naming the flag and the item, with an example.
std::vector<std::pair<std::string, double>> parse_values(const std::string& text,
                                                         const std::string& flag);
std::vector<FactorRange> parse_ranges(const std::string& text, const std::string& flag);

// Throws: ConfigError listing the missing and the unknown factors and what the model uses.
void check_factors(const std::vector<std::string>& needed, const std::vector<std::string>& given,
                   const std::string& model, const std::string& where);

}  // namespace perfit::job
