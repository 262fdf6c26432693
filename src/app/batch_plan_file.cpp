#include "batch_plan_file.hpp"

#include <filesystem>
#include <fstream>
#include <string_view>

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

std::string without_places(const std::string& yaml) {
  std::string out;
  std::size_t at = 0;
  while (at < yaml.size()) {
    std::size_t end = yaml.find('\n', at);
    end = end == std::string::npos ? yaml.size() : end + 1;
    const std::string_view line(yaml.data() + at, end - at);
    if (line.starts_with("out: ") || line.starts_with("checkpoint_dir: ")) {
      out.append(line.substr(0, line.find(':') + 1)).append("\n");
    } else {
      out.append(line);
    }
    at = end;
  }
  return out;
}

namespace {

nlohmann::ordered_json entries_without_places(nlohmann::ordered_json entries) {
  for (auto& e : entries) {
    if (e.is_array() && e.size() > 1 && e[1].is_string())
      e[1] = without_places(e[1].get<std::string>());
  }
  return entries;
}

}  // namespace

bool same_selections(const nlohmann::ordered_json& then, const nlohmann::ordered_json& now) {
  if (!then.contains("selections")) return now["selections"]["sets"]["count"] == 0;
  nlohmann::ordered_json earlier = then["selections"], later = now["selections"];
  if (!earlier.is_object()) return false;
  earlier["entries"] = entries_without_places(earlier.value("entries", nlohmann::ordered_json()));
  later["entries"] = entries_without_places(later["entries"]);
  if (earlier.contains("sets") && earlier["sets"].is_array()) {  // a plan of every set's row
    try {
      earlier["sets"] = select::sets_fingerprint(earlier["sets"]);
    } catch (const nlohmann::json::exception&) {
      return false;
    }
  }
  return earlier == later;
}

std::string plan_difference(const nlohmann::ordered_json& then, const nlohmann::ordered_json& now) {
  for (const auto& [name, fit] : now["fits"].items()) {
    if (!then["fits"].contains(name)) return "fit '" + name + "' is new";
    if (then["fits"][name]["model"] != fit["model"])
      return "the model of fit '" + name + "' changed";
    if (!then["fits"][name]["config"].is_string() ||
        without_places(then["fits"][name]["config"].get<std::string>()) !=
            without_places(fit["config"].get<std::string>()))
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
