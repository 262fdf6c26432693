#include "perfit/select/running_ledger.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "perfit/core/error.hpp"
#include "perfit/data/wire.hpp"
#include "perfit/io/result_file.hpp"
#include "perfit/io/selection_store.hpp"
#include "perfit/io/winner_record.hpp"
#include "perfit/select/row_text.hpp"
#include "support/temp_dir.hpp"

namespace perfit::select {

namespace {

// Set i's run configuration, with its set: one of two (every third set another seed).
std::string config_of(std::size_t i) {
  return "data: \"paths.h5\"\nset: \"/x/" + std::to_string(i) +
         "\"\nseed: " + (i % 3 == 0 ? "7" : "8") + "\n";
}

// A chunk as select_chunk sends it: units [begin, end), each an ok row and its winner's record,
// which carries its configuration when it is the chunk's first of it, else names it.
std::string chunk(std::size_t begin, std::size_t end) {
  data::WireWriter out;
  out.count(end - begin);
  io::WinnerConfigs carried;
  for (std::size_t i = begin; i < end; ++i) {
    const SelectionLedger::Row row = {{"set", "/x/" + std::to_string(i)},
                                      {"status", "ok"},
                                      {"model", "amdahl"},
                                      {"constants", {{"c0", static_cast<double>(i)}}}};
    io::ResultFile r;
    r.model_name = "amdahl";
    r.set = "/x/" + std::to_string(i);
    r.params = {{"c0", static_cast<double>(i), 0, 1e9, false, false}};
    r.config_yaml = config_of(i);
    out.count(i);
    out.text(render_row(row));
    io::put_record(out, io::winner_record(r), carried);
  }
  return out.take();
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::size_t lines_of(const std::string& path) {
  std::ifstream in(path);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

}  // namespace

TEST(RunningLedger, RowsGoToTheJournalAsTheyComeAndToTheFilesAtTheEnd) {
  // A checkpoint is due at every flush (every = 0): it writes the journal's new bytes, never
  // the files, which appear once, at the end, when the journal is removed.
  testing_support::TempDir dir;
  constexpr std::size_t kSets = 6000, kChunk = 250;
  std::vector<std::string> sets;
  for (std::size_t i = 0; i < kSets; ++i) sets.push_back("/x/" + std::to_string(i));
  SelectionLedger ledger(sets, {{"data", "paths.h5"}}, dir.file(""), true);
  ledger.commit_journal();
  const std::string journal = io::SelectionJournal::path_in(dir.file(""));
  std::size_t applied = 0;
  {
    RunningLedger running(ledger, dir.file(""), RunningLedger::Clock::duration::zero(), kSets,
                          [&](std::size_t n) { applied += n; });
    std::uintmax_t last = 0;
    for (std::size_t begin = 0; begin < kSets; begin += kChunk) {
      running.finished(chunk(begin, begin + kChunk));
      running.flush();
      const std::uintmax_t now = std::filesystem::file_size(journal);
      EXPECT_GT(now, last) << "a checkpoint after set " << begin + kChunk;
      last = now;
      EXPECT_FALSE(std::filesystem::exists(dir.file("selection.csv")));
    }
    // Each configuration carried once in the journal (each chunk's first winner of it carried
    // it to rank 0), the other winners naming it.
    const std::string bytes = bytes_of(journal);
    EXPECT_EQ(count_of(bytes, "seed: 7"), 1u);
    EXPECT_EQ(count_of(bytes, "seed: 8"), 1u);
    // A set selected again, now without a winner: the store no longer holds one for it.
    ledger.set(7, render_row({{"set", "/x/7"}, {"status", "error"}, {"message", "no fit"}}), "");
    running.finish();
  }
  EXPECT_EQ(applied, kSets);
  EXPECT_EQ(ledger.count("ok"), kSets - 1);
  EXPECT_EQ(ledger.count("pending"), 0u);
  EXPECT_EQ(lines_of(dir.file("selection.csv")), kSets + 1);
  EXPECT_FALSE(std::filesystem::exists(journal));
  // The store's winners in the order of their names (/x/10 before /x/2), not the rows'.
  const std::string store = dir.file("selection.h5");
  std::vector<std::string> want;
  for (const auto& s : sets) {
    if (s != "/x/7") want.push_back(s);
  }
  std::sort(want.begin(), want.end());
  EXPECT_EQ(io::selection_sets(store), want);
  std::size_t k = 0;
  io::for_each_selection_winner(store, [&](io::ResultFile&& r) {
    ASSERT_LT(k, want.size());
    EXPECT_EQ(r.set, want[k]);
    EXPECT_EQ(r.params.at(0).value, std::stod(want[k].substr(3))) << r.set;
    EXPECT_EQ(r.config_yaml, config_of(std::stoul(want[k].substr(3))));
    ++k;
  });
  EXPECT_EQ(k, want.size());
}

// A run killed before its files were written leaves its journal; a resumed run takes every
// ok set from it and writes the files an uninterrupted run writes, byte for byte.
TEST(RunningLedger, AResumedRunTakesTheJournalOfOneThatDied) {
  constexpr std::size_t kSets = 900;
  std::vector<std::string> sets;
  for (std::size_t i = 0; i < kSets; ++i) sets.push_back("/x/" + std::to_string(i));
  const auto run = [&](const std::string& dir, std::size_t from, std::size_t to, bool resume,
                       bool write) {
    SelectionLedger ledger(sets, {{"data", "paths.h5"}}, dir, true);
    const std::size_t taken = resume ? ledger.load(dir) : 0;
    ledger.commit_journal();
    RunningLedger running(ledger, dir, RunningLedger::Clock::duration::zero(), kSets, {});
    for (std::size_t begin = from; begin < to; begin += 100) {
      running.finished(chunk(begin, std::min(begin + 100, to)));
      running.flush();
    }
    if (write) running.finish();
    return taken;
  };
  testing_support::TempDir dir;
  const std::string whole = dir.file("whole"), killed = dir.file("killed");
  std::filesystem::create_directories(whole);
  std::filesystem::create_directories(killed);
  const auto in = [](const std::string& d, const char* f) { return d + "/" + f; };
  run(whole, 0, kSets, false, true);
  run(killed, 0, 500, false, false);  // "killed": no files, the journal left
  ASSERT_FALSE(std::filesystem::exists(in(killed, "selection.csv")));
  {  // a torn last entry, as a kill in the middle of a write leaves it
    std::ofstream j(io::SelectionJournal::path_in(killed), std::ios::app);
    j << "PFJE" << std::string(20, '\x7f');
  }
  EXPECT_EQ(run(killed, 300, 700, true, false), 500u);  // killed again
  EXPECT_EQ(run(killed, 700, kSets, true, true), 700u);
  for (const char* f : {"selection.csv", "selection.json"}) {
    std::ifstream a(in(whole, f)), b(in(killed, f));
    const std::string ta((std::istreambuf_iterator<char>(a)), {}),
        tb((std::istreambuf_iterator<char>(b)), {});
    EXPECT_FALSE(ta.empty());
    EXPECT_EQ(ta, tb) << f;
  }
  EXPECT_FALSE(std::filesystem::exists(io::SelectionJournal::path_in(killed)));
  // The winners too, each with its own configuration, though the resumed runs' journal named
  // configurations the killed run's had carried.
  std::vector<io::ResultFile> a, b;
  io::for_each_selection_winner(in(whole, "selection.h5"),
                                [&](io::ResultFile&& r) { a.push_back(std::move(r)); });
  io::for_each_selection_winner(in(killed, "selection.h5"),
                                [&](io::ResultFile&& r) { b.push_back(std::move(r)); });
  ASSERT_EQ(a.size(), kSets);
  ASSERT_EQ(b.size(), kSets);
  for (std::size_t i = 0; i < kSets; ++i) {
    EXPECT_EQ(b[i].set, a[i].set);
    EXPECT_EQ(b[i].config_yaml, a[i].config_yaml);
    EXPECT_EQ(b[i].config_yaml, config_of(std::stoul(a[i].set.substr(3))));
    EXPECT_EQ(b[i].params.at(0).value, a[i].params.at(0).value);
  }
}

// A record naming a configuration its chunk did not carry, or a journal naming one it did not
// hold: refused with the set (and the journal), nothing taken from it.
TEST(RunningLedger, ANumberNamingNoConfigurationCarriedIsRefused) {
  testing_support::TempDir dir;
  io::ResultFile r;
  r.model_name = "amdahl";
  r.set = "/x/1";
  r.config_yaml = config_of(1);
  const std::string record = io::winner_record(r);
  const io::RecordConfig c = io::record_config(record);
  ASSERT_TRUE(c.text.has_value());
  EXPECT_EQ(*c.text, config_of(1));
  EXPECT_EQ(c.set, "/x/1");
  const std::string named = record.substr(0, c.begin) + io::config_number(0) + record.substr(c.end);
  EXPECT_FALSE(io::record_config(named).text.has_value());
  EXPECT_EQ(io::record_config(named).named, 0);
  const std::string row = render_row({{"set", "/x/1"}, {"status", "ok"}, {"model", "amdahl"}});
  {
    SelectionLedger ledger({"/x/0", "/x/1"}, {{"data", "paths.h5"}}, dir.file(""), true);
    ledger.commit_journal();
    EXPECT_THAT([&] { ledger.set(1, row, named); },
                testing::ThrowsMessage<DataError>(testing::HasSubstr("'/x/1'")));
    EXPECT_EQ(ledger.count("ok"), 0u);
    ledger.flush_journal();
  }
  {  // the journal of a run killed there: a record that names a configuration, none before it
    io::SelectionJournal j(dir.file(""), true);
    j.append("/x/1", row, {named});
    j.commit();
    j.flush();
  }
  SelectionLedger again({"/x/0", "/x/1"}, {{"data", "paths.h5"}}, dir.file(""), true);
  EXPECT_THAT([&] { again.load(dir.file("")); },
              testing::ThrowsMessage<DataError>(
                  testing::AllOf(testing::HasSubstr(io::SelectionJournal::path_in(dir.file(""))),
                                 testing::HasSubstr("'/x/1'"))));
}

TEST(RunningLedger, AChunkNamingNoSetOfTheRunIsRefused) {
  testing_support::TempDir dir;
  SelectionLedger ledger({"/x/0"}, {{"data", "paths.h5"}}, dir.file(""), false);
  RunningLedger running(ledger, "", RunningLedger::Clock::duration::zero(), 1, {});
  EXPECT_THROW(running.finished(chunk(3, 4)), DataError);
  running.finished(chunk(0, 1));
  EXPECT_EQ(ledger.count("ok"), 1u);
}

}  // namespace perfit::select
