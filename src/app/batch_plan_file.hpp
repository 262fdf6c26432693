// The plan a batch records in its results directory (.batch-plan.json): what identifies each
// fit and each select: entry's sets, compared when the batch runs again (docs/batch.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace perfit::app {

std::string plan_path(const std::string& dir);
// The recorded plan. Throws: DataError naming the file when it is not a plan perfit wrote.
nlohmann::ordered_json read_plan(const std::string& dir);
// Through a temporary name and a rename. Throws: IoError naming the file.
void write_plan(const std::string& dir, const nlohmann::ordered_json& plan);
// Whether the recorded plan's select: entries are this one's (a plan written before batches
// had them had none).
bool same_selections(const nlohmann::ordered_json& then, const nlohmann::ordered_json& now);
// A config as YAML (fit::run_config_to_yaml) without the values that say where its files go
// (out, checkpoint_dir): they follow --out, which names the same directory however it is
// spelled (sel, ./sel/, /abs/sel): compared without them.
std::string without_places(const std::string& config_yaml);
// The first difference between the recorded plan and this one, or "".
std::string plan_difference(const nlohmann::ordered_json& then, const nlohmann::ordered_json& now);

}  // namespace perfit::app
