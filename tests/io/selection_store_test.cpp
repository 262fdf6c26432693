#include "perfit/io/selection_store.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <map>

#include "perfit/core/error.hpp"
#include "perfit/data/wire.hpp"
#include "perfit/io/output_guard.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/io/store_writer.hpp"
#include "perfit/io/winner_record.hpp"
#include "support/temp_dir.hpp"

namespace perfit::io {

namespace {

ResultFile winner(const std::string& set, std::size_t params, double scale) {
  ResultFile r;
  r.model_name = "pmnf_search";
  r.model_yaml = "name: pmnf_search\n";
  r.config_yaml = "seed: 1\n";
  r.data_file = "calls.h5";
  r.set = set;
  r.data_checksum = "fnv1a64:00";
  r.target = "time";
  r.unit = "s";
  r.rows = 25;
  r.seed = 0xFFFFFFFFFFFFFFFFull;  // all 64 bits survive
  for (std::size_t k = 0; k < params; ++k)
    r.params.push_back({"c" + std::to_string(k), scale * double(k + 1), -1e9, 1e9});
  r.ranges = {{"p", 2.0, 32.0 * scale}};
  r.history = std::vector<double>(params + 1, scale);
  r.metrics = {1.0 * scale, 2.0, 0.99, 0.5, 3.0};
  r.noise_log_sd = std::nan("");
  r.choice_log_sd = 0.02 * scale;
  r.warnings = {"first", "second"};
  r.stop_reason = "converged";
  return r;
}

// Writes n winners made one at a time, as the batch's end does: widened first, then streamed.
template <class Make>
void write_made(const std::string& path, std::size_t n, const Make& make) {
  std::map<std::string, std::size_t> widths;
  for (std::size_t i = 0; i < n; ++i) widen_to_record(winner_record(make(i)), &widths);
  write_selection_store(
      path, n,
      [&](std::size_t i, std::string& scratch) -> std::string_view {
        return scratch = winner_record(make(i));
      },
      {}, widths);
}

}  // namespace

TEST(SelectionStore, EachSetReadsBackAsItsResult) {
  testing_support::TempDir dir;
  const std::string path = dir.file("selection.h5");
  // Out of order and of different shapes: rows are found by set name.
  const ResultFile b2 = winner("/s/b/time", 3, 2.0), a1 = winner("/s/a/time", 1, 1.0),
                   c3 = winner("/t/c/time", 2, 3.0);
  write_selection_store(
      path, {&b2, &a1, &c3},
      {{"data_file", std::string("calls.h5")}, {"criterion", std::string("extrapolation")}});
  EXPECT_EQ(detect_file_kind(path), FileKind::selection);
  EXPECT_THAT(selection_sets(path), testing::ElementsAre("/s/a/time", "/s/b/time", "/t/c/time"));
  const ResultFile b = read_selection_result(path, "/s/b/time");
  const ResultFile want = winner("/s/b/time", 3, 2.0);
  EXPECT_EQ(b.set, "/s/b/time");
  ASSERT_EQ(b.params.size(), 3u);
  EXPECT_EQ(b.params[2].name, "c2");
  EXPECT_EQ(b.params[2].value, 6.0);
  EXPECT_EQ(b.history, want.history);
  ASSERT_EQ(b.ranges.size(), 1u);
  EXPECT_EQ(b.ranges[0].hi, 64.0);
  EXPECT_EQ(b.metrics.mape, 2.0);
  EXPECT_EQ(b.seed, want.seed);
  EXPECT_TRUE(std::isnan(b.noise_log_sd));
  EXPECT_EQ(b.choice_log_sd, 0.04);
  EXPECT_EQ(b.warnings, want.warnings);
  EXPECT_EQ(read_result(path, "/t/c/time").params.size(), 2u);
}

TEST(SelectionStore, RefusesWhatItDoesNotHold) {
  testing_support::TempDir dir;
  const std::string path = dir.file("selection.h5");
  const ResultFile a = winner("/s/a/time", 1, 1.0), b = winner("/a/b", 1, 1.0);
  write_selection_store(path, {&a}, {});
  EXPECT_THAT(
      [&] { read_selection_result(path, "/s/x/time"); },
      testing::ThrowsMessage<DataError>(testing::HasSubstr("holds no winner for set '/s/x/time'")));
  EXPECT_THAT([&] { read_result(path, ""); },
              testing::ThrowsMessage<DataError>(
                  testing::HasSubstr("pass --set NAME to read one (e.g. --set /s/a/time)")));
  EXPECT_THROW(write_selection_store(dir.file("two.h5"), {&b, &b}, {}), ConfigError);
  // No winner at all: a valid, empty store.
  write_selection_store(dir.file("none.h5"), {}, {});
  EXPECT_TRUE(selection_sets(dir.file("none.h5")).empty());
}

TEST(SelectionStore, ManyWinnersAskedForOneAtATimeAreWrittenInBlocks) {
  testing_support::TempDir dir;
  const std::string path = dir.file("selection.h5");
  // Past one block of /winners (8,192) and the fixed-length text layout; each winner's record
  // made when asked for, as a ledger reads them back from its spill.
  const std::size_t n = 9000;
  const auto name = [](std::size_t i) {
    std::string digits = std::to_string(i);
    return "/s/r" + std::string(5 - digits.size(), '0') + digits + "/time";
  };
  const auto make = [&](std::size_t i) {
    ResultFile r = winner(name(i), 1 + i % 3, 1.0 + double(i));
    r.model_yaml = std::string(1 + i % 50, 'x');  // widths differ row to row
    return winner_record(r);
  };
  std::map<std::string, std::size_t> widths;
  for (std::size_t i = 0; i < n; ++i) widen_to_record(make(i), &widths);
  EXPECT_EQ(widths.at("model_yaml"), 50u);
  std::atomic<std::size_t> asked = 0;  // from several threads at once
  write_selection_store(
      path, n,
      [&](std::size_t i, std::string& scratch) -> std::string_view {
        ++asked;
        return scratch = make(i);
      },
      {}, widths);
  EXPECT_EQ(asked, n);
  for (const std::size_t i : {std::size_t{0}, std::size_t{8191}, std::size_t{8192}, n - 1}) {
    const ResultFile r = read_selection_result(path, name(i));
    const ResultFile want = winner(name(i), 1 + i % 3, 1.0 + double(i));
    EXPECT_EQ(r.params.size(), want.params.size()) << i;
    EXPECT_EQ(r.params.back().value, want.params.back().value) << i;
    EXPECT_EQ(r.history, want.history) << i;
    EXPECT_EQ(r.model_yaml, std::string(1 + i % 50, 'x')) << i;
    EXPECT_EQ(r.metrics.mape, want.metrics.mape) << i;
    EXPECT_EQ(r.seed, want.seed) << i;
    EXPECT_EQ(r.warnings, want.warnings) << i;
  }
  EXPECT_EQ(selection_sets(path).size(), n);
  // A text wider than the widths say is refused, not cut.
  widths["model_yaml"] = 10;
  EXPECT_THAT(
      [&] {
        write_selection_store(
            dir.file("narrow.h5"), n,
            [&](std::size_t i, std::string& scratch) -> std::string_view {
              return scratch = make(i);
            },
            {}, widths);
      },
      testing::ThrowsMessage<Error>(testing::HasSubstr("a text of 11 bytes in a column 10 wide")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("narrow.h5")));
  // Not in set order: refused, nothing written.
  const std::string other = dir.file("other.h5");
  EXPECT_THAT(
      [&] {
        write_selection_store(
            other, 2,
            [&](std::size_t i, std::string& scratch) -> std::string_view {
              return scratch = make(1 - i);
            },
            {}, widths);
      },
      testing::ThrowsMessage<ConfigError>(testing::HasSubstr("out of set order")));
  EXPECT_FALSE(std::filesystem::exists(other));
}

TEST(SelectionStore, EveryWinnerStreamsBackInSetOrderPastOneReadBlock) {
  testing_support::TempDir dir;
  const std::string path = dir.file("selection.h5");
  // Past one block read at a time (65,536 rows: a numeric chunk of /winners), with each
  // winner's /params, /ranges and /history rows at offsets that do not line up with blocks.
  const std::size_t n = 65536 + 37;
  const auto name = [](std::size_t i) {
    std::string digits = std::to_string(i);
    return "/s/r" + std::string(6 - digits.size(), '0') + digits;
  };
  const auto make = [&](std::size_t i) {
    ResultFile r = winner(name(i), 1 + i % 3, 1.0 + double(i));
    r.ranges.push_back({"b", double(i % 5), 64.0});
    r.ranges.resize(1 + i % 2);
    return r;
  };
  write_made(path, n, make);
  std::size_t i = 0;
  for_each_selection_winner(path, [&](ResultFile&& r) {
    if (i < n) {
      const ResultFile want = make(i);
      EXPECT_EQ(r.set, want.set);
      ASSERT_EQ(r.params.size(), want.params.size()) << i;
      for (std::size_t k = 0; k < r.params.size(); ++k) {
        EXPECT_EQ(r.params[k].name, want.params[k].name) << i;
        EXPECT_EQ(r.params[k].value, want.params[k].value) << i;
      }
      ASSERT_EQ(r.ranges.size(), want.ranges.size()) << i;
      EXPECT_EQ(r.ranges.back().lo, want.ranges.back().lo) << i;
      EXPECT_EQ(r.history, want.history) << i;
      EXPECT_EQ(r.metrics.mape, want.metrics.mape) << i;
    }
    ++i;
  });
  EXPECT_EQ(i, n);
  // No winner at all: nothing to read.
  write_selection_store(dir.file("none.h5"), {}, {});
  for_each_selection_winner(dir.file("none.h5"), [&](ResultFile&&) { ADD_FAILURE(); });
}

// Winner i of 9,000 (past one block: 8,192 rows, decoded on several threads): one
// configuration but for the set, every 1,000th with another seed, and one set whose text the
// configuration escapes.
ResultFile configured(std::size_t i) {
  std::string digits = std::to_string(i);
  ResultFile r = winner("/s/r" + std::string(5 - digits.size(), '0') + digits, 1, 1.0);
  if (i == 4321) r.set += "\"q";
  std::string quoted = r.set;
  if (i == 4321) quoted.insert(quoted.size() - 2, "\\");
  r.config_yaml = "data: \"calls.h5\"\nset: \"" + quoted +
                  "\"\nseed: " + (i % 1000 == 7 ? "2" : "1") + "\nout: \"sel/selection.h5\"\n";
  return r;
}

TEST(SelectionStore, EachRunConfigurationIsKeptOnceAndReadBackWithItsSet) {
  testing_support::TempDir dir;
  const std::string path = dir.file("selection.h5");
  const std::size_t n = 9000;
  const auto make = configured;
  write_made(path, n, make);
  const StoreReader rd(path);
  const data::MeasurementTable configs = rd.read_group("/configs");
  ASSERT_EQ(configs.rows(), 3u);  // in the order first seen: seed 1, seed 2, the escaped one
  EXPECT_EQ(configs.column("config_yaml").str()[0],
            "data: \"calls.h5\"\nset: \"\"\nseed: 1\nout: \"sel/selection.h5\"\n");
  EXPECT_THAT(configs.column("set_at").i64(), testing::ElementsAre(23, 23, -1));
  const data::MeasurementTable w = rd.read_group("/winners", {4320, 4322});
  EXPECT_EQ(w.find("config_yaml"), nullptr);
  EXPECT_THAT(w.column("config_index").i64(), testing::ElementsAre(0, 2));
  std::size_t i = 0;
  for_each_selection_winner(path, [&](ResultFile&& r) {
    EXPECT_EQ(r.config_yaml, make(i).config_yaml) << i;
    ++i;
  });
  EXPECT_EQ(i, n);
  EXPECT_EQ(read_selection_result(path, make(4321).set).config_yaml, make(4321).config_yaml);
}

// A selection's journal carries each configuration once and the other records name it by its
// number there (io/winner_record.hpp RecordConfig): the store is the one records carrying
// every configuration write, though the journal numbered them in another order.
TEST(SelectionStore, RecordsNamingTheirConfigurationWriteTheSameStore) {
  testing_support::TempDir dir;
  const std::size_t n = 9000;
  write_made(dir.file("carried.h5"), n, configured);
  WinnerConfigs journal;  // numbered from the last winner back: not the store's order
  std::vector<std::string> records(n);
  std::map<std::string, std::size_t> widths;
  for (std::size_t i = n; i-- > 0;) {
    const std::string r = winner_record(configured(i));
    const RecordConfig c = widen_to_record(r, &widths);
    ASSERT_TRUE(c.text.has_value());
    records[i] =
        r.substr(0, c.begin) + config_number(journal.add(*c.text, c.set)) + r.substr(c.end);
  }
  ASSERT_EQ(journal.entries().size(), 3u);
  const auto write = [&](const std::string& path, const std::vector<WinnerConfigs::Entry>& named) {
    write_selection_store(
        path, n, [&](std::size_t i, std::string&) { return std::string_view(records[i]); }, {},
        widths, &named);
  };
  write(dir.file("named.h5"), journal.entries());
  const StoreReader a(dir.file("carried.h5")), b(dir.file("named.h5"));
  EXPECT_EQ(a.read_group("/configs").column("config_yaml").str(),
            b.read_group("/configs").column("config_yaml").str());
  EXPECT_EQ(a.read_group("/configs").column("set_at").i64(),
            b.read_group("/configs").column("set_at").i64());
  EXPECT_EQ(a.read_group("/winners").column("config_index").i64(),
            b.read_group("/winners").column("config_index").i64());
  std::size_t i = 0;
  for_each_selection_winner(dir.file("named.h5"), [&](ResultFile&& r) {
    EXPECT_EQ(r.config_yaml, configured(i).config_yaml) << i;
    ++i;
  });
  EXPECT_EQ(i, n);
  // A number past what the journal carried: refused, no store.
  const std::vector<WinnerConfigs::Entry> fewer(journal.entries().begin(),
                                                journal.entries().begin() + 1);
  EXPECT_THAT([&] { write(dir.file("short.h5"), fewer); },
              testing::ThrowsMessage<DataError>(testing::HasSubstr("run configuration")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("short.h5")));
}

TEST(SelectionStore, AStoreWithAConfigurationPerWinnerIsStillRead) {
  // perfit-selection-1 (before 2026-12-07): /winners' config_yaml, no /configs.
  testing_support::TempDir dir;
  const std::string path = dir.file("selection.h5");
  const ResultFile a = winner("/s/a/time", 2, 1.0);
  {
    StoreWriter w(path, Seal::yes);
    w.write_root_attribute("perfit_selection", std::string(kSelectionFormatPerWinnerConfig));
    w.write_root_attribute("winners", std::int64_t{1});
    data::MeasurementTable index, winners, history;
    index.add_column(data::Column("set", std::vector<std::string>{a.set}));
    for (const auto& field : result_attributes(a)) {  // clang 14: no binding in a lambda
      const std::string& key = field.first;
      std::visit([&](const auto& x) { winners.add_column(data::Column(key, std::vector{x})); },
                 field.second);
    }
    const double metrics[] = {a.metrics.mape, a.metrics.rmse, a.metrics.r2, a.metrics.gmae,
                              a.metrics.max_rel_err};
    for (std::size_t m = 0; m < std::size(kWinnerMetrics); ++m)
      winners.add_column(data::Column(kWinnerMetrics[m], std::vector{metrics[m]}));
    const std::int64_t counts[] = {2, 1, static_cast<std::int64_t>(a.history.size())};
    for (std::size_t k = 0; k < 3; ++k) {
      const std::string part = k == 0 ? "params" : k == 1 ? "ranges" : "history";
      winners.add_column(data::Column(part + "_first", std::vector<std::int64_t>{0}));
      winners.add_column(data::Column(part + "_count", std::vector{counts[k]}));
    }
    history.add_column(data::Column("best_cost", a.history));
    w.write_group("/index", index);
    w.write_group("/winners", winners);
    w.write_group("/params", params_table(a.params, true));
    w.write_group("/ranges", ranges_table(a.ranges));
    w.write_group("/history", history);
    w.close();
  }
  const ResultFile r = read_selection_result(path, "/s/a/time");
  EXPECT_EQ(r.config_yaml, a.config_yaml);
  EXPECT_EQ(r.params.size(), 2u);
  EXPECT_EQ(r.metrics.mape, a.metrics.mape);
}

TEST(SelectionStore, RecordsThatAreNotWinnersAreRefused) {
  testing_support::TempDir dir;
  const std::string good = winner_record(winner("/s/a", 2, 1.0));
  std::map<std::string, std::size_t> widths;
  widen_to_record(good, &widths);
  const auto write = [&](std::vector<std::string> records) {
    write_selection_store(
        dir.file("bad.h5"), records.size(),
        [&](std::size_t i, std::string&) { return std::string_view(records[i]); }, {}, widths);
  };
  // Cut short, or with bytes after its metrics: a malformed record, named as one.
  EXPECT_THAT(
      [&] { write({good.substr(0, good.size() / 2)}); },
      testing::ThrowsMessage<DataError>(testing::HasSubstr("a winner's record is truncated")));
  EXPECT_THAT([&] { write({good + "x"}); },
              testing::ThrowsMessage<DataError>(testing::HasSubstr("bytes after its metrics")));
  // A second winner whose fields are not the first's: its first field (an integer, after the
  // version and the count) said to be a number.
  std::string record = winner_record(winner("/s/b", 2, 1.0));
  ASSERT_EQ(record[16], static_cast<char>(data::WireTag::integer));
  record[16] = static_cast<char>(data::WireTag::number);
  EXPECT_THAT(
      [&] {
        write({good, record});
      },
      testing::ThrowsMessage<ConfigError>(testing::HasSubstr("field of the first winner's type")));
  // A first winner whose set is a number (its text, tag and length, made an 8-byte number):
  // no set to order the store by.
  std::string numbered = good;
  const std::size_t at = numbered.find("/s/a");
  ASSERT_NE(at, std::string::npos);
  ASSERT_EQ(numbered[at - 9], static_cast<char>(data::WireTag::text));
  numbered.replace(at - 9, 9 + 4,
                   std::string(1, static_cast<char>(data::WireTag::number)) + std::string(8, '\0'));
  EXPECT_THAT(
      [&] { write({numbered}); },
      testing::ThrowsMessage<DataError>(testing::HasSubstr("a winner's record without a set")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("bad.h5")));
}

}  // namespace perfit::io
