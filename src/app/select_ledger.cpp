#include "select_ledger.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>

#include "perfit/core/error.hpp"
#include "perfit/io/atomic_output.hpp"
#include "perfit/io/output_guard.hpp"
#include "perfit/io/selection_store.hpp"
#include "result_record.hpp"

namespace perfit::app {

namespace {

namespace fs = std::filesystem;
using Row = SelectionLedger::Row;

std::string csv_field(const Row& v) {
  if (v.is_null()) return "";
  if (v.is_number()) return v.dump();
  const std::string s = v.get<std::string>();
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (const char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

// Each constant in its own column: the union over the winners, in order of first appearance.
// Streamed: 10^5 rows as one string would be another copy of them.
using Rows = std::vector<std::vector<std::uint8_t>>;

Row parsed(const std::vector<std::uint8_t>& cbor) { return Row::from_cbor(cbor); }

void write_csv(std::ostream& csv, const Rows& rows) {
  std::vector<const char*> kFixed = {"set", "status", "model", "hypothesis", "score", "runner_up", "runner_up_score"};
  static const char* kMetrics[] = {"mape", "rmse", "r2", "max_rel_err"};
  std::vector<std::string> constants;
  bool result_files = false;
  for (const auto& cbor : rows) {
    const Row r = parsed(cbor);
    result_files = result_files || r.contains("result_file");
    if (!r.contains("constants")) continue;
    for (const auto& [k, v] : r["constants"].items()) {
      if (std::find(constants.begin(), constants.end(), k) == constants.end()) constants.push_back(k);
    }
  }
  if (result_files) kFixed.push_back("result_file");
  for (const char* f : kFixed) csv << f << ",";
  for (const char* m : kMetrics) csv << m << ",";
  for (const auto& k : constants) csv << csv_field(Row(k)) << ",";
  csv << "message\n";
  for (const auto& cbor : rows) {
    const Row r = parsed(cbor);
    for (const char* f : kFixed) csv << (r.contains(f) ? csv_field(r[f]) : "") << ",";
    for (const char* m : kMetrics) csv << (r.contains("metrics") ? csv_field(r["metrics"][m]) : "") << ",";
    for (const auto& k : constants) csv << (r.contains("constants") && r["constants"].contains(k) ? csv_field(r["constants"][k]) : "") << ",";
    csv << (r.contains("message") ? csv_field(r["message"]) : "") << "\n";
  }
}

// text with every line after the first indented by n spaces: a value dumped at depth n / 2.
std::string indented(const std::string& text, std::size_t n) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    out += ch;
    if (ch == '\n') out.append(n, ' ');
  }
  return out;
}

// json().dump(2), row by row instead of a copy of every row.
void write_json(std::ostream& out, const Row& about, const Rows& rows) {
  out << "{";
  for (const auto& [k, v] : about.items()) out << "\n  " << Row(k).dump() << ": " << indented(v.dump(2), 2) << ",";
  out << "\n  \"rows\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) out << (i ? "," : "") << "\n    " << indented(parsed(rows[i]).dump(2), 4);
  out << (rows.empty() ? "]" : "\n  ]") << "\n}\n";
}

}  // namespace

SelectionLedger::SelectionLedger(const std::vector<std::string>& sets, Row about, const std::string& spill_dir)
    : spill_(spill_dir), about_(std::move(about)) {
  for (const auto& s : sets) {
    index_[s] = rows_.size();
    rows_.push_back(Row::to_cbor(Row{{"set", s}, {"status", "pending"}}));
    sets_.push_back(s);
    status_.push_back("pending");
  }
  counts_["pending"] = rows_.size();
}

void SelectionLedger::replace(std::size_t i, const Row& row) {
  --counts_[status_.at(i)];
  status_[i] = row.value("status", "");
  ++counts_[status_[i]];
  rows_[i] = Row::to_cbor(row);
}

Row SelectionLedger::row(std::size_t i) const { return parsed(rows_.at(i)); }

std::vector<Row> SelectionLedger::rows() const {
  std::vector<Row> out;
  out.reserve(rows_.size());
  for (const auto& cbor : rows_) out.push_back(parsed(cbor));
  return out;
}

void SelectionLedger::set(std::size_t i, Row row) {
  const std::string& set = sets_.at(i);
  if (row.contains("result")) {
    const auto& binary = row["result"].get_binary();
    const std::string bytes(binary.begin(), binary.end());
    widen_to_record(bytes, widths_);
    winners_[set] = spill_.append(bytes);
    row.erase("result");
  } else {
    winners_.erase(set);
  }
  replace(i, row);
}

std::size_t SelectionLedger::count(const std::string& status) const {
  const auto it = counts_.find(status);
  return it == counts_.end() ? 0 : it->second;
}

Row SelectionLedger::json() const {
  Row j = about_;
  j["rows"] = rows();
  return j;
}

std::size_t SelectionLedger::load(const std::string& dir) {
  const std::string json_path = (fs::path(dir) / "selection.json").string(), h5 = (fs::path(dir) / "selection.h5").string();
  std::error_code ec;
  if (!fs::exists(json_path, ec) || !fs::exists(h5, ec)) return 0;
  Row earlier;
  try {
    std::ifstream in(json_path);
    earlier = Row::parse(in);
  } catch (const nlohmann::json::exception&) {
    throw DataError("'" + json_path + "' is not the JSON perfit select writes; remove it, or use another --out");
  }
  std::map<std::string, io::ResultFile> have;  // read at once: one winner at a time reads the index each time
  for (auto& w : io::read_selection_winners(h5)) {
    std::string set = w.set;
    have.emplace(std::move(set), std::move(w));
  }
  std::size_t taken = 0;
  for (const auto& r : earlier.value("rows", Row::array())) {
    const auto it = index_.find(r.value("set", ""));
    if (it == index_.end() || r.value("status", "") != "ok") continue;
    const auto w = have.find(it->first);
    if (w == have.end()) continue;
    replace(it->second, r);
    const std::string bytes = result_record(w->second);
    widen_to_record(bytes, widths_);
    winners_[it->first] = spill_.append(bytes);
    ++taken;
  }
  return taken;
}

void SelectionLedger::write(const std::string& dir) const {
  std::vector<io::RecordSpill::Where> records;  // in set order: the map's
  records.reserve(winners_.size());
  for (const auto& [set, w] : winners_) records.push_back(w);
  data::Attributes about;
  for (const auto& [k, v] : about_.items()) {
    if (v.is_string()) about[k] = v.get<std::string>();
  }
  // The text files beside the store, on a thread of their own: the last write of 10^5 sets is
  // the one part of a run that the other ranks wait for (both only read the ledger).
  std::future<void> text = std::async(std::launch::async, [&] {
    io::write_text_file((fs::path(dir) / "selection.csv").string(), [&](std::ostream& f) { write_csv(f, rows_); });
    io::write_text_file((fs::path(dir) / "selection.json").string(), [&](std::ostream& f) { write_json(f, about_, rows_); });
  });
  io::write_selection_store((fs::path(dir) / "selection.h5").string(), records.size(),
                            [&](std::size_t i) { return record_parts(spill_.read(records[i])); }, about, &widths_);
  text.get();
}

void check_selection_outputs(const std::string& dir, const std::string& data, bool replace) {
  for (const char* name : {"selection.csv", "selection.json"}) {
    io::check_output({(fs::path(dir) / name).string(), "--out", io::FileKind::other, {data}, replace});
  }
  io::check_output({(fs::path(dir) / "selection.h5").string(), "--out", io::FileKind::selection, {data}, replace});
}

}  // namespace perfit::app
