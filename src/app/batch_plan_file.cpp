#include "batch_plan_file.hpp"

#include <filesystem>
#include <fstream>

#include "perfit/core/error.hpp"
#include "perfit/io/atomic_output.hpp"
#include "perfit/select/batch_entries.hpp"

namespace perfit::app {

namespace fs = std::filesystem;

std::string plan_path(const std::string& dir) {
  return (fs::path(dir) / ".batch-plan.json").string();
}

nlohmann::ordered_json read_plan(const std::string& dir) {
  const std::string path = plan_path(dir);
  std::ifstream in(path);
  try {
    return nlohmann::ordered_json::parse(in);
  } catch (const nlohmann::json::exception&) {
    throw DataError("'" + path +
                    "' is not the JSON plan perfit batch writes; remove it, or use another --out");
  }
}

void write_plan(const std::string& dir, const nlohmann::ordered_json& plan) {
  io::AtomicOutput out(plan_path(dir));
  out.write_and_commit([&](const std::string& tmp) {
    std::ofstream f(tmp);
    f << plan.dump(2) << "\n";
    f.close();
    if (!f) throw IoError("cannot write '" + tmp + "' (disk full or no permission)");
  });
}

bool same_selections(const nlohmann::ordered_json& then, const nlohmann::ordered_json& now) {
  if (!then.contains("selections")) return now["selections"]["sets"]["count"] == 0;
  nlohmann::ordered_json earlier = then["selections"];
  if (earlier.contains("sets") && earlier["sets"].is_array()) {  // a plan of every set's row
    try {
      earlier["sets"] = select::sets_fingerprint(earlier["sets"]);
    } catch (const nlohmann::json::exception&) {
      return false;
    }
  }
  return earlier == now["selections"];
}

std::string plan_difference(const nlohmann::ordered_json& then, const nlohmann::ordered_json& now) {
  for (const auto& [name, fit] : now["fits"].items()) {
    if (!then["fits"].contains(name)) return "fit '" + name + "' is new";
    if (then["fits"][name]["model"] != fit["model"])
      return "the model of fit '" + name + "' changed";
    if (then["fits"][name]["config"] != fit["config"])
      return "the options of fit '" + name + "' changed";
  }
  for (const auto& [name, fit] : then["fits"].items()) {
    if (!now["fits"].contains(name)) return "fit '" + name + "' is gone";
  }
  if (!same_selections(then, now)) {
    return "the sets of its select: entries, their options or their data changed";
  }
  return "";
}

}  // namespace perfit::app
