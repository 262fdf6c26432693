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

TEST(SelectionJson, RowsWrittenOneAtATimeReadBackEqualAndAsDumpPrintsThem) {
  const JsonRow doc = some_rows();
  JsonRow about = doc;
  about.erase("rows");
  std::ostringstream text;
  JsonRowsWriter w(text, about);
  for (const auto& r : doc["rows"]) w.add(r);
  w.end();
  EXPECT_EQ(text.str(), doc.dump(2) + "\n");
  bool parsed = false;
  const std::vector<JsonRow> back = rows_of(text.str(), &parsed);
  EXPECT_TRUE(parsed);
  ASSERT_EQ(back.size(), 3u);
  for (std::size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(back[i], doc["rows"][i]) << i;
    EXPECT_EQ(back[i].dump(), doc["rows"][i].dump()) << i;  // key order kept
  }
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
