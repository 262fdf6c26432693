#include "perfit/select/running_ledger.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "perfit/core/error.hpp"
#include "perfit/data/wire.hpp"
#include "perfit/io/result_file.hpp"
#include "perfit/io/winner_record.hpp"
#include "perfit/select/row_text.hpp"
#include "support/temp_dir.hpp"

namespace perfit::select {

namespace {

// A chunk as select_chunk sends it: units [begin, end), each an ok row and its winner's record.
std::string chunk(std::size_t begin, std::size_t end) {
  data::WireWriter out;
  out.count(end - begin);
  for (std::size_t i = begin; i < end; ++i) {
    const SelectionLedger::Row row = {{"set", "/x/" + std::to_string(i)},
                                      {"status", "ok"},
                                      {"model", "amdahl"},
                                      {"constants", {{"c0", static_cast<double>(i)}}}};
    io::ResultFile r;
    r.model_name = "amdahl";
    r.set = "/x/" + std::to_string(i);
    r.params = {{"c0", static_cast<double>(i), 0, 1e9, false, false}};
    out.count(i);
    out.text(render_row(row));
    out.text(io::winner_record(r));
  }
  return out.take();
}

std::size_t lines_of(const std::string& path) {
  std::ifstream in(path);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

}  // namespace

TEST(RunningLedger, RowsReportedWhileTheFilesAreRewrittenAreAllKept) {
  // Rewrites are due at every flush (every = 0) and run on their own thread: chunks reported
  // meanwhile wait for them, and none is lost or applied twice, whichever way the race goes.
  testing_support::TempDir dir;
  constexpr std::size_t kSets = 6000, kChunk = 250;
  std::vector<std::string> sets;
  for (std::size_t i = 0; i < kSets; ++i) sets.push_back("/x/" + std::to_string(i));
  SelectionLedger ledger(sets, {{"data", "paths.h5"}}, dir.file(""));
  std::size_t applied = 0;
  {
    RunningLedger running(ledger, dir.file(""), RunningLedger::Clock::duration::zero(), kSets,
                          [&](std::size_t n) { applied += n; });
    for (std::size_t begin = 0; begin < kSets; begin += kChunk) {
      running.finished(chunk(begin, begin + kChunk));
      running.flush();
    }
    running.finish();
  }
  EXPECT_EQ(applied, kSets);
  EXPECT_EQ(ledger.count("ok"), kSets);
  EXPECT_EQ(ledger.count("pending"), 0u);
  EXPECT_EQ(lines_of(dir.file("selection.csv")), kSets + 1);
}

TEST(RunningLedger, AChunkNamingNoSetOfTheRunIsRefused) {
  testing_support::TempDir dir;
  SelectionLedger ledger({"/x/0"}, {{"data", "paths.h5"}}, dir.file(""));
  RunningLedger running(ledger, "", RunningLedger::Clock::duration::zero(), 1, {});
  EXPECT_THROW(running.finished(chunk(3, 4)), DataError);
  running.finished(chunk(0, 1));
  EXPECT_EQ(ledger.count("ok"), 1u);
}

}  // namespace perfit::select
