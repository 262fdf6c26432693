// The summary of a batch: one row per fit (set, model, status, cost, metrics, params,
// generations, evaluations, seconds, message, result), written as RESULTS_DIR/summary.csv and
// summary.json after every finished fit, each through a temporary file and a rename so that a
// reader always sees a complete file.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "perfit/batch/plan.hpp"
#include "perfit/io/result_file.hpp"

namespace perfit::app {

using Row = nlohmann::ordered_json;

// Statuses: pending (not run yet), ok, error (message says why), interrupted (checkpointed).
Row pending_row(const batch::FitTask& t);
Row ok_row(const batch::FitTask& t, const io::ResultFile& r);
Row failed_row(const batch::FitTask& t, const std::string& status, const std::string& message,
               double seconds);

class BatchSummary {
 public:
  BatchSummary(std::string dir, std::string manifest, const std::vector<batch::FitTask>& tasks);
  void set(std::size_t task, Row row) { rows_.at(task) = std::move(row); }
  const Row& row(std::size_t task) const { return rows_.at(task); }
  std::size_t count(const std::string& status) const;
  std::size_t size() const { return rows_.size(); }
  // summary.json also says how long the batch has run (elapsed_seconds, on world rank 0).
  // Throws: IoError naming the file.
  void write() const;

 private:
  std::string dir_, manifest_;
  std::vector<Row> rows_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace perfit::app
