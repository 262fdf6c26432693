#include "perfit/select/ledger.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <limits>
#include <vector>

#include "perfit/core/cpu_affinity.hpp"
#include "perfit/core/error.hpp"
#include "perfit/io/atomic_output.hpp"
#include "perfit/io/output_guard.hpp"
#include "perfit/io/selection_store.hpp"
#include "perfit/io/winner_record.hpp"
#include "perfit/select/row_text.hpp"
#include "perfit/select/selection_json.hpp"

namespace perfit::select {

namespace {

namespace fs = std::filesystem;
using Row = SelectionLedger::Row;

// selection.csv: each constant in its own column (`constants`: the union over the winners).
class CsvRows {
 public:
  CsvRows(std::ostream& out, std::vector<std::string> constants, bool result_files,
          bool extrap_origin)
      : out_(out), constants_(std::move(constants)) {
    for (std::size_t k = 0; k < std::size(kCsvFixed); ++k) {
      const std::string_view f = kCsvFixed[k];
      if ((f == "callpath" || f == "metric") ? extrap_origin
          : f == "result_file"               ? result_files
                                             : true)
        fixed_.push_back(k);
    }
    for (const std::size_t k : fixed_) out_ << kCsvFixed[k] << ",";
    for (const char* m : kCsvMetrics) out_ << m << ",";
    for (const auto& k : constants_) out_ << csv_field(Row(k)) << ",";
    out_ << "message\n";
  }
  void add(const RowText& r) {
    std::string line;
    for (const std::size_t k : fixed_) line.append(r.fixed[k]).push_back(',');
    for (const std::string_view m : r.metrics) line.append(m).push_back(',');
    for (const auto& k : constants_) {
      const auto it = std::find_if(r.constants.begin(), r.constants.end(),
                                   [&](const auto& c) { return c.first == k; });
      if (it != r.constants.end()) line.append(it->second);
      line.push_back(',');
    }
    line.append(r.message).push_back('\n');
    out_ << line;
  }

 private:
  std::ostream& out_;
  std::vector<std::string> constants_;
  std::vector<std::size_t> fixed_;  // the columns of kCsvFixed written
};

}  // namespace

SelectionLedger::SelectionLedger(std::vector<std::string> sets, Row about, const std::string& dir,
                                 bool journal)
    : sets_(std::move(sets)), journal_(dir, journal), about_(std::move(about)) {
  // A pending row is no bytes (row_at makes it): 10^6 of them as CBOR, each from a JSON
  // object, and an ordered index were a second of a selection's start; an index of the names
  // (only a resume looks sets up by name) 0.4 s more.
  rows_.resize(sets_.size());
  winners_.resize(sets_.size());
  status_.assign(sets_.size(), kPending);
  counts_.assign(statuses_.size(), 0);
  counts_[kPending] = rows_.size();
}

const std::unordered_map<std::string, std::size_t>& SelectionLedger::index() {
  if (index_.empty()) {
    index_.reserve(sets_.size());
    for (std::size_t i = 0; i < sets_.size(); ++i) index_.emplace(sets_[i], i);
  }
  return index_;
}

void SelectionLedger::note(std::size_t i, const RowText& t, io::RecordSpill::Where row) {
  --counts_[status_.at(i)];
  status_[i] = status_id(t.status);
  ++counts_[status_[i]];
  rows_[i] = row;
  result_files_ = result_files_ || t.result_file;
  extrap_origin_ = extrap_origin_ || t.callpath;
  std::size_t at = 0;
  for (const auto& [k, v] : t.constants) {
    const auto [it, added] = constant_first_.try_emplace(std::string(k), i, at);
    if (!added) it->second = std::min(it->second, std::make_pair(i, at));
    ++at;
  }
}

std::uint8_t SelectionLedger::status_id(std::string_view status) {
  const auto it = std::find(statuses_.begin(), statuses_.end(), status);
  if (it != statuses_.end()) return static_cast<std::uint8_t>(it - statuses_.begin());
  if (statuses_.size() > std::numeric_limits<std::uint8_t>::max())
    throw DataError("a selection row's status '" + std::string(status) +
                    "' is one of more than 255 (the rows are not the ones perfit writes)");
  statuses_.emplace_back(status);
  counts_.push_back(0);
  return static_cast<std::uint8_t>(statuses_.size() - 1);
}

std::string SelectionLedger::text_of(std::size_t i) const {
  const io::RecordSpill::Where w = rows_.at(i);
  return w.size > 0 ? journal_.read(w) : render_row(Row{{"set", sets_[i]}, {"status", "pending"}});
}

std::vector<std::string> SelectionLedger::constants() const {
  std::vector<std::pair<std::pair<std::size_t, std::size_t>, std::string>> by_first;
  for (const auto& [k, first] : constant_first_) by_first.emplace_back(first, k);
  std::sort(by_first.begin(), by_first.end());
  std::vector<std::string> out;
  for (auto& x : by_first) out.push_back(std::move(x.second));
  return out;
}

Row SelectionLedger::row(std::size_t i) const { return Row::parse(read_row_text(text_of(i)).json); }

std::vector<Row> SelectionLedger::rows() const {
  std::vector<Row> out;
  out.reserve(rows_.size());
  for (std::size_t i = 0; i < rows_.size(); ++i) out.push_back(row(i));
  return out;
}

void SelectionLedger::set(std::size_t i, std::string_view row_text, std::string_view record,
                          Carried& carried) {
  const std::string& set = sets_.at(i);
  const RowText t = read_row_text(row_text);  // refused before the journal holds it
  if (record.empty()) {
    note(i, t, journal_.append(set, row_text, {}).row);
    winners_[i] = {};
    return;
  }
  const io::RecordConfig c = io::widen_to_record(record, &widths_);
  std::size_t n = 0;  // the journal's number of its configuration
  bool first = false;
  if (c.text) {
    const std::size_t before = configs_.entries().size();
    n = configs_.add(*c.text, c.set);
    first = configs_.entries().size() > before;
    if (std::find(carried.begin(), carried.end(), n) == carried.end()) carried.push_back(n);
  } else if (static_cast<std::size_t>(c.named) < carried.size()) {
    n = carried[static_cast<std::size_t>(c.named)];
  } else {
    throw DataError("the winner of set '" + set + "' names run configuration " +
                    std::to_string(c.named) + " of the " + std::to_string(carried.size()) +
                    " its chunk carried before it");
  }
  const io::SelectionJournal::Entry e =
      first ? journal_.append(set, row_text, {record})
            : journal_.append(
                  set, row_text,
                  {record.substr(0, c.begin), io::config_number(n), record.substr(c.end)});
  winners_[i] = e.record;
  note(i, t, e.row);
}

std::size_t SelectionLedger::count(const std::string& status) const {
  const auto it = std::find(statuses_.begin(), statuses_.end(), status);
  return it == statuses_.end() ? 0 : counts_[static_cast<std::size_t>(it - statuses_.begin())];
}

void SelectionLedger::write_json(std::ostream& out, const Row& extra) const {
  Row about = about_;
  for (const auto& [k, v] : extra.items()) about[k] = v;
  JsonRowsWriter json(out, about);
  for (std::size_t i = 0; i < rows_.size(); ++i) json.add_text(read_row_text(text_of(i)).json);
  json.end();
}

void SelectionLedger::learn_config(std::string_view record, const std::string& journal) {
  const io::RecordConfig c = io::record_config(record);
  if (c.text) {
    configs_.add(*c.text, c.set);
  } else if (static_cast<std::size_t>(c.named) >= configs_.entries().size()) {
    throw DataError("'" + journal + "': the winner of set '" + std::string(c.set) +
                    "' names run configuration " + std::to_string(c.named) + " of the " +
                    std::to_string(configs_.entries().size()) +
                    " carried before it; remove the journal to select every set again");
  }
}

std::size_t SelectionLedger::load(const std::string& dir) {
  // A journal is left by a run that ended before it wrote the files (a kill -9, a node lost):
  // it holds every set that run selected and every one it took from the files before.
  std::size_t taken = 0;
  const auto& by_name = index();
  const std::string journal = io::SelectionJournal::path_in(dir);
  const auto replayed = io::SelectionJournal::replay(
      journal, [&](std::string_view name, std::string_view row, std::string_view record,
                   io::SelectionJournal::Entry at) {
        if (record.empty()) return;
        learn_config(record, journal);  // taken or not: numbered
        const auto it = by_name.find(std::string(name));
        if (it == by_name.end()) return;
        const RowText t = read_row_text(row);
        if (t.status != "ok") return;
        if (!ok(it->second)) ++taken;
        io::widen_to_record(record, &widths_);
        winners_[it->second] = at.record;
        note(it->second, t, at.row);
      });
  if (replayed) {  // its entries stay where they are; new ones follow them
    journal_.continue_in(dir, *replayed);
    return taken;
  }
  const std::string json_path = (fs::path(dir) / "selection.json").string(),
                    h5 = (fs::path(dir) / "selection.h5").string();
  std::error_code ec;
  if (!fs::exists(json_path, ec) || !fs::exists(h5, ec)) return 0;
  // The winners wait in a spill as they are read, then the rows come one at a time: 10^6 of
  // each held at once as objects were 7 GB and most of a minute and a half.
  io::RecordSpill stored_records(dir);
  std::unordered_map<std::string, io::RecordSpill::Where> stored;
  io::for_each_selection_winner(h5, [&](io::ResultFile&& w) {
    if (by_name.count(w.set)) stored.emplace(w.set, stored_records.append(io::winner_record(w)));
  });
  std::ifstream in(json_path);
  const bool parsed = read_json_rows(in, [&](Row&& r) {
    const auto it = by_name.find(r.value("set", ""));
    if (it == by_name.end() || r.value("status", "") != "ok") return;
    const auto w = stored.find(it->first);
    if (w == stored.end()) return;
    set(it->second, render_row(r), stored_records.read(w->second));
    ++taken;
  });
  if (!parsed) {
    throw DataError("'" + json_path +
                    "' is not the JSON perfit select writes; remove it, or use another --out");
  }
  return taken;
}

void SelectionLedger::write(const std::string& dir) {
  // The store's winners in the order of their sets' names: the rows' order but when several
  // entries of a batch select sets.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < winners_.size(); ++i) {
    if (winners_[i].size > 0) order.push_back(i);
  }
  const auto by_name = [&](std::size_t a, std::size_t b) { return sets_[a] < sets_[b]; };
  if (!std::is_sorted(order.begin(), order.end(), by_name))
    std::sort(order.begin(), order.end(), by_name);
  std::vector<io::RecordSpill::Where> records;
  records.reserve(order.size());
  for (const std::size_t i : order) records.push_back(winners_[i]);
  data::Attributes about;
  for (const auto& [k, v] : about_.items()) {
    if (v.is_string()) about[k] = v.get<std::string>();
  }
  // The text files beside the store, on a thread of their own: the last write of 10^5 sets is
  // the one part of a run that the other ranks wait for (both only read the ledger). Unbound:
  // left on the core mpiexec bound this rank to, it and the store's writer ran at half speed
  // each while the waiting ranks' cores idled. They replace the old ones only once the store
  // has: killed in between, the text never names a winner the store lacks.
  // Read back by the text's thread and the store's at once from here on, each through windows
  // of its own.
  const io::ReadWindow journal = journal_.reader();
  std::promise<void> stored;
  std::shared_future<void> store_done = stored.get_future().share();
  std::future<void> text = std::async(std::launch::async, [&] {
    unbind_this_thread();
    io::AtomicOutput csv_out((fs::path(dir) / "selection.csv").string());
    io::AtomicOutput json_out((fs::path(dir) / "selection.json").string());
    csv_out.write([&](const std::string& csv_path) {
      json_out.write([&](const std::string& json_path) {
        // 1 MiB at a time: with the stream's 8 KiB the writes of ~900 MB of text at 10^6 sets
        // were 13% of the end's CPU time (perf), with 1 MiB 3%.
        std::vector<char> csv_buffer(std::size_t{1} << 20), json_buffer(std::size_t{1} << 20);
        std::ofstream csv_file, json_file;
        csv_file.rdbuf()->pubsetbuf(csv_buffer.data(),
                                    static_cast<std::streamsize>(csv_buffer.size()));
        json_file.rdbuf()->pubsetbuf(json_buffer.data(),
                                     static_cast<std::streamsize>(json_buffer.size()));
        csv_file.open(csv_path);
        json_file.open(json_path);
        {  // one pass: each row's text read once for both files
          CsvRows csv(csv_file, constants(), result_files_, extrap_origin_);
          JsonRowsWriter json(json_file, about_);
          std::string pending, window;  // a pending row's text, made now
          for (std::size_t i = 0; i < rows_.size(); ++i) {
            const io::RecordSpill::Where w = rows_[i];
            if (w.size == 0) pending = text_of(i);
            const RowText r =
                read_row_text(w.size > 0 ? journal.view(w.offset, w.size, window) : pending);
            csv.add(r);
            json.add_text(r.json);
          }
          json.end();
        }
        csv_file.close();
        json_file.close();
        if (!csv_file || !json_file)
          throw IoError("cannot write '" + csv_path + "' or '" + json_path + "' (disk full?)");
      });
    });
    store_done.get();  // rethrows the store's error: the old text files stay
    csv_out.commit();
    json_out.commit();
  });
  try {
    io::write_selection_store((fs::path(dir) / "selection.h5").string(), records.size(),
                              [&](std::size_t i, std::string& window) {
                                return journal.view(records[i].offset, records[i].size, window);
                              },
                              about, widths_, &configs_.entries());
  } catch (...) {
    stored.set_exception(std::current_exception());
    try {
      text.get();
    } catch (...) {  // the store's error is the one to report
    }
    throw;
  }
  stored.set_value();
  text.get();
  journal_.remove();  // the files hold every set it held
}

void check_selection_outputs(const std::string& dir, const std::string& data, bool replace) {
  for (const char* name : {"selection.csv", "selection.json"}) {
    io::check_output(
        {(fs::path(dir) / name).string(), "--out", io::FileKind::other, {data}, replace});
  }
  io::check_output({(fs::path(dir) / "selection.h5").string(),
                    "--out",
                    io::FileKind::selection,
                    {data},
                    replace});
}

}  // namespace perfit::select
