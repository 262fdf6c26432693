#include "perfit/select/selection_json.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <vector>

namespace perfit::select {

namespace {

std::vector<JsonRow> rows_of(const std::string& text, bool* parsed = nullptr) {
  std::istringstream in(text);
  std::vector<JsonRow> out;
  const bool ok = read_json_rows(in, [&](JsonRow&& r) { out.push_back(std::move(r)); });
  if (parsed) *parsed = ok;
  return out;
}

JsonRow some_rows() {
  JsonRow doc = {{"data", "paths.h5"}, {"sets", {"/x/*", "/y/*"}}, {"criterion", "extrapolation"}};
  doc["rows"] = JsonRow::array();
  doc["rows"].push_back({{"set", "/x/a"},
                         {"status", "ok"},
                         {"score", 0.25},
                         {"runs", 3},
                         {"offset", -2},
                         {"constants", {{"c1", 1e-300}, {"c0", 2.5}}},
                         {"metrics", {{"mape", nullptr}, {"r2", 0.99}}},
                         {"hypothesis", "c0 + c1*p^(1/2)"},
                         {"warnings", {"first", JsonRow::array(), {{"deep", {1, 2, {3}}}}}},
                         {"polished", true}});
  doc["rows"].push_back({{"set", "/y/b"}, {"status", "error"}, {"message", "no rows\n\"quoted\""}});
  doc["rows"].push_back({{"set", "/y/c"}, {"status", "pending"}});
  return doc;
}

}  // namespace

// The document as JsonRowsWriter lays it out: `about` as dump(2) prints it, each row on a line.
std::string laid_out(const JsonRow& doc) {
  std::string text = "{";
  for (const auto& [k, v] : doc.items()) {
    if (k == "rows") continue;
    std::string value = v.dump(2);
    for (std::size_t at = value.find('\n'); at != std::string::npos; at = value.find('\n', at + 3))
      value.insert(at + 1, "  ");
    text += "\n  " + JsonRow(k).dump() + ": " + value + ",";
  }
  text += "\n  \"rows\": [";
  const auto& rows = doc["rows"];
  for (std::size_t i = 0; i < rows.size(); ++i)
    text += std::string(i ? "," : "") + "\n    " + rows[i].dump();
  return text + (rows.empty() ? "]" : "\n  ]") + "\n}\n";
}

TEST(SelectionJson, RowsWrittenOneAtATimeReadBackEqualEachOnItsLine) {
  const JsonRow doc = some_rows();
  JsonRow about = doc;
  about.erase("rows");
  std::ostringstream text;
  JsonRowsWriter w(text, about);
  for (const auto& r : doc["rows"]) w.add(r);
  w.end();
  EXPECT_EQ(JsonRow::parse(text.str()), doc);  // the same document, whatever the spacing
  EXPECT_EQ(text.str(), laid_out(doc));
  // One line per row: grep finds a set's row whole (the error row's newline is escaped).
  std::istringstream lines(text.str());
  std::vector<std::string> row_lines;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("    {", 0) == 0) row_lines.push_back(line);
  }
  ASSERT_EQ(row_lines.size(), 3u);
  EXPECT_EQ(row_lines[1], "    " + doc["rows"][1].dump() + ",");
  EXPECT_EQ(row_lines[2], "    " + doc["rows"][2].dump());
  bool parsed = false;
  const std::vector<JsonRow> back = rows_of(text.str(), &parsed);
  EXPECT_TRUE(parsed);
  ASSERT_EQ(back.size(), 3u);
  for (std::size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(back[i], doc["rows"][i]) << i;
    EXPECT_EQ(back[i].dump(), doc["rows"][i].dump()) << i;  // key order kept
  }
  // A file of the layout before (every row as dump(2) prints it) reads the same: a --resume
  // after an update.
  EXPECT_EQ(rows_of(doc.dump(2)), back);
  // No rows at all.
  std::ostringstream empty;
  JsonRowsWriter e(empty, about);
  e.end();
  JsonRow no_rows = about;
  no_rows["rows"] = JsonRow::array();
  EXPECT_EQ(empty.str(), no_rows.dump(2) + "\n");
  EXPECT_TRUE(rows_of(empty.str()).empty());
}

TEST(SelectionJson, OnlyTheTopRowsArraysObjectsAreRows) {
  // Another field's arrays and objects, nested "rows" keys and rows that are not objects are
  // no rows; "rows" may come first.
  const std::string text =
      R"({"rows": [{"set": "/a", "rows": [{"set": "/inner"}]}, 7, [{"set": "/b"}],
    null, {"set": "/c"}], "sets": [{"set": "/d"}], "about": {"rows": [{"set": "/e"}]}})";
  const std::vector<JsonRow> rows = rows_of(text);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["set"], "/a");
  EXPECT_EQ(rows[0]["rows"][0]["set"], "/inner");
  EXPECT_EQ(rows[1], JsonRow({{"set", "/c"}}));
  EXPECT_TRUE(rows_of(R"({"rows": {"set": "/a"}})").empty());
  EXPECT_TRUE(rows_of(R"([{"rows": [{"set": "/a"}]}])").empty());
}

TEST(SelectionJson, NotJsonStopsAtTheFirstBadByte) {
  bool parsed = true;
  const std::vector<JsonRow> rows =
      rows_of(R"({"rows": [{"set": "/a"}, {"set": "/b"}, {"set": )", &parsed);
  EXPECT_FALSE(parsed);
  ASSERT_EQ(rows.size(), 2u);  // the rows before it were whole
  EXPECT_EQ(rows[1]["set"], "/b");
  rows_of("", &parsed);
  EXPECT_FALSE(parsed);
  rows_of(R"({"rows": [{"set": "/a"}]} trailing)", &parsed);
  EXPECT_FALSE(parsed);
}

}  // namespace perfit::select
