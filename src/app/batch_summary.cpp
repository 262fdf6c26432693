#include "batch_summary.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>

#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/io/atomic_output.hpp"

namespace perfit::app {

namespace {

constexpr const char* kMetrics[] = {"mape", "rmse", "r2", "gmae", "max_rel_err"};

Row base_row(const batch::FitTask& t, const std::string& status) {
  return Row{{"set", t.set},           {"model", t.model_name},    {"status", status},
             {"cost", nullptr},        {"metrics", Row::object()}, {"params", Row::object()},
             {"generations", nullptr}, {"evaluations", nullptr},   {"seconds", nullptr},
             {"message", ""},          {"result", t.cfg.out}};
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string number(const Row& v) {
  if (v.is_null()) return "";
  if (v.is_number_float()) return format_g(v.get<double>(), 17);
  return v.dump();
}

}  // namespace

Row pending_row(const batch::FitTask& t) { return base_row(t, "pending"); }

Row ok_row(const batch::FitTask& t, const io::ResultFile& r) {
  Row row = base_row(t, "ok");
  row["cost"] = r.cost;
  row["metrics"] = {{"mape", r.metrics.mape},
                    {"rmse", r.metrics.rmse},
                    {"r2", r.metrics.r2},
                    {"gmae", r.metrics.gmae},
                    {"max_rel_err", r.metrics.max_rel_err}};
  for (const auto& p : r.params) row["params"][p.name] = p.value;
  row["generations"] = r.generations;
  row["evaluations"] = r.evaluations;
  row["seconds"] = r.seconds;
  row["message"] = r.stop_reason + ": " + r.stop_message;
  return row;
}

Row failed_row(const batch::FitTask& t, const std::string& status, const std::string& message,
               double seconds) {
  Row row = base_row(t, status);
  row["seconds"] = seconds;
  row["message"] = message;
  return row;
}

BatchSummary::BatchSummary(std::string dir, std::string manifest,
                           const std::vector<batch::FitTask>& tasks)
    : dir_(std::move(dir)), manifest_(std::move(manifest)) {
  for (const auto& t : tasks) rows_.push_back(pending_row(t));
}

std::size_t BatchSummary::count(const std::string& status) const {
  std::size_t n = 0;
  for (const auto& r : rows_) n += r["status"] == status ? 1 : 0;
  return n;
}

void BatchSummary::write() const {
  std::string csv = "set,model,status,cost";
  for (const char* m : kMetrics) csv += std::string(",") + m;
  csv += ",params,generations,evaluations,seconds,result,message\n";
  for (const auto& r : rows_) {
    std::string params;
    for (const auto& [k, v] : r["params"].items())
      params += (params.empty() ? "" : ";") + k + "=" + number(v);
    csv += csv_field(r["set"]) + "," + csv_field(r["model"]) + "," +
           r["status"].get<std::string>() + "," + number(r["cost"]);
    for (const char* m : kMetrics)
      csv += "," + (r["metrics"].contains(m) ? number(r["metrics"][m]) : "");
    csv += "," + csv_field(params) + "," + number(r["generations"]) + "," +
           number(r["evaluations"]) + "," + number(r["seconds"]) + "," + csv_field(r["result"]) +
           "," + csv_field(r["message"]) + "\n";
  }
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  Row j = {{"manifest", manifest_},
           {"fits", rows_.size()},
           {"ok", count("ok")},
           {"error", count("error")},
           {"interrupted", count("interrupted")},
           {"pending", count("pending")},
           {"elapsed_seconds", elapsed},
           {"rows", rows_}};
  namespace fs = std::filesystem;
  io::write_text_file((fs::path(dir_) / "summary.csv").string(), csv);
  io::write_text_file((fs::path(dir_) / "summary.json").string(), j.dump(2) + "\n");
}

}  // namespace perfit::app
