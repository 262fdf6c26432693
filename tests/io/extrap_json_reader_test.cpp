#include "perfit/io/extrap_json_reader.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "perfit/core/error.hpp"
#include "support/temp_dir.hpp"

namespace perfit::io {

namespace {

// The same measurements as the text file "PARAMETER p n / POINTS (2 10) (4 10) / REGION main /
// METRIC time / DATA 1 1.5 / DATA 2 ; METRIC bytes / DATA 7 / DATA 9", in each JSON format.
const char* kCurrent = R"({"parameters": ["p", "n"], "measurements": {"main": {
  "time": [{"point": [2, 10], "values": [1, 1.5]}, {"point": [4, 10], "values": [2]}],
  "bytes": [{"point": [2, 10], "values": [7]}, {"point": [4, 10], "values": [9]}]}}})";
const char* kOlder = R"({
  "parameters": [{"id": 1, "name": "p"}, {"id": 2, "name": "n"}],
  "callpaths": [{"id": 5, "name": "main"}],
  "metrics": [{"id": 1, "name": "time"}, {"id": 2, "name": "bytes"}],
  "coordinates": [{"id": 1, "parameter_value_pairs": [{"parameter_id": 2, "parameter_value": 10},
                                                       {"parameter_id": 1, "parameter_value": 2}]},
                  {"id": 2, "parameter_value_pairs": [{"parameter_id": 1, "parameter_value": 4},
                                                       {"parameter_id": 2, "parameter_value": 10}]}],
  "measurements": [{"id": 1, "callpath_id": 5, "coordinate_id": 1, "metric_id": 1, "value": 1},
                   {"id": 2, "callpath_id": 5, "coordinate_id": 1, "metric_id": 1, "value": 1.5},
                   {"id": 3, "callpath_id": 5, "coordinate_id": 2, "metric_id": 1, "value": 2},
                   {"id": 4, "callpath_id": 5, "coordinate_id": 1, "metric_id": 2, "value": 7},
                   {"id": 5, "callpath_id": 5, "coordinate_id": 2, "metric_id": 2, "value": 9}]})";
const char* kLines =
    "{\"params\": {\"p\": 2, \"n\": 10}, \"value\": [1, 1.5], \"callpath\": \"main\", \"metric\": "
    "\"time\"}\n"
    "{\"params\": {\"n\": 10, \"p\": 4}, \"value\": 2, \"callpath\": \"main\", \"metric\": "
    "\"time\"}\n"
    "\n"
    "{\"params\": {\"p\": 2, \"n\": 10}, \"value\": 7, \"callpath\": \"main\", \"metric\": "
    "\"bytes\"}\n"
    "{\"params\": {\"p\": 4, \"n\": 10}, \"value\": [9], \"callpath\": \"main\", \"metric\": "
    "\"bytes\"}\n";

void expect_the_two_sets(const std::vector<ExtrapSet>& sets) {
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0].region, "main");
  EXPECT_EQ(sets[0].metric, "time");
  EXPECT_EQ(sets[0].table.column_names(), (std::vector<std::string>{"p", "n", "value"}));
  EXPECT_EQ(sets[0].table.column("p").f64(), (std::vector<double>{2, 2, 4}));
  EXPECT_EQ(sets[0].table.column("n").f64(), (std::vector<double>{10, 10, 10}));
  EXPECT_EQ(sets[0].table.column("value").f64(), (std::vector<double>{1, 1.5, 2}));
  EXPECT_EQ(sets[1].metric, "bytes");
  EXPECT_EQ(sets[1].table.column("p").f64(), (std::vector<double>{2, 4}));
  EXPECT_EQ(sets[1].table.column("value").f64(), (std::vector<double>{7, 9}));
}
}  // namespace

TEST(ExtrapJsonReader, BothJsonFormatsAndJsonLinesGiveTheSameSets) {
  testing_support::TempDir dir;
  expect_the_two_sets(read_extrap_json(dir.write("current.json", kCurrent)));
  expect_the_two_sets(read_extrap_json(dir.write("older.json", kOlder)));
  expect_the_two_sets(read_extrap_jsonl(dir.write("lines.jsonl", kLines)));
  // By extension, as `perfit import --format extrap` reads them.
  for (const char* name : {"older.json", "lines.jsonl"}) {
    std::vector<ExtrapSet> sets;
    for_each_extrap_set(dir.file(name), [&](ExtrapSet&& s) { sets.push_back(std::move(s)); });
    expect_the_two_sets(sets);
  }
}

TEST(ExtrapJsonReader, JsonLinesWithoutCallpathOrMetricMakeOneSet) {
  testing_support::TempDir dir;
  const auto sets = read_extrap_jsonl(dir.write("a.jsonl",
                                                "{\"params\": {\"p\": 1}, \"value\": 3}\n"
                                                "{\"params\": {\"p\": 2}, \"value\": 2}\n"));
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_EQ(sets[0].region, "");
  EXPECT_EQ(sets[0].metric, "");
  EXPECT_EQ(sets[0].table.column("p").f64(), (std::vector<double>{1, 2}));
}

TEST(ExtrapJsonReader, EveryErrorNamesTheFileAndThePositionOfTheBadItem) {
  testing_support::TempDir dir;
  using testing::HasSubstr;
  auto fails = [&](const std::string& name, const std::string& text, const std::string& want) {
    const std::string path = dir.write(name, text);
    try {
      for_each_extrap_set(path, [](ExtrapSet&&) {});
      ADD_FAILURE() << "no error for " << name;
    } catch (const DataError& e) {
      EXPECT_THAT(e.what(), HasSubstr("'" + path + "'")) << name;
      EXPECT_THAT(e.what(), HasSubstr(want)) << name;
    }
  };
  fails("truncated.json", std::string(kCurrent).substr(0, 60), "not JSON (at byte");
  fails(
      "text.json",
      R"({"parameters": ["p"], "measurements": {"main": {"time": [{"point": [2], "values": [1, "x"]}]}}})",
      R"(measurements["main"]["time"][0].values[1]: found "x", expected a number)");
  fails(
      "arity.json",
      R"({"parameters": ["p", "n"], "measurements": {"m": {"t": [{"point": [2], "values": [1]}]}}})",
      "found 1 coordinate(s), expected 2 (one per parameter)");
  fails("empty.json", R"({"parameters": ["p"], "measurements": {}})",
        "no measurements; nothing to import");
  fails("noparams.json", R"({"measurements": {}})", "(top level): no \"parameters\"");
  fails("badref.json",
        std::string(kOlder).replace(std::string(kOlder).find("\"coordinate_id\": 2"), 18,
                                    "\"coordinate_id\": 9"),
        "measurements[2].coordinate_id: no coordinate with id 9");
  fails("truncated.jsonl", "{\"params\": {\"p\": 1}, \"value\": 3}\n{\"params\": {\"p\": 2}, \"val",
        "line 2: not JSON");
  fails("other.jsonl",
        "{\"params\": {\"p\": 1}, \"value\": 3}\n{\"params\": {\"q\": 2}, \"value\": 3}\n",
        "line 2 params: found {\"q\":2}, expected the parameters of the first record (p)");
  fails("novalue.jsonl", "{\"params\": {\"p\": 1}}\n", "line 1: no \"value\"");
  fails("none.jsonl", "\n\n", "no records; nothing to import");
}

TEST(ExtrapJsonReader, AMissingFileIsAnIoError) {
  EXPECT_THROW((void)read_extrap_json("/nonexistent/x.json"), IoError);
  EXPECT_THROW((void)read_extrap_jsonl("/nonexistent/x.jsonl"), IoError);
}

}  // namespace perfit::io
