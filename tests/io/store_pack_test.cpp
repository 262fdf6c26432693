// Packed sets: many small sets in shared tables read back exactly like sets written alone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <filesystem>

#include "perfit/core/error.hpp"
#include "perfit/data/checksum.hpp"
#include "perfit/io/store_format.hpp"
#include "perfit/io/store_import.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/io/store_writer.hpp"
#include "support/hooks_env.hpp"
#include "support/temp_dir.hpp"

namespace perfit::io {

using data::Column;
using data::MeasurementTable;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;
using testing_support::TempDir;

namespace {

// Set k: 3 + k % 5 rows of (p, kind, value); `model` and `scale` differ per set.
MeasurementTable small_set(std::size_t k) {
  MeasurementTable t;
  const std::size_t n = 3 + k % 5;
  std::vector<std::int64_t> p;
  std::vector<double> v;
  std::vector<std::string> kind;
  for (std::size_t i = 0; i < n; ++i) {
    p.push_back(std::int64_t{1} << i);
    v.push_back(0.1 * static_cast<double>(k) + 1.0 / static_cast<double>(i + 1));
    kind.push_back(i % 2 ? "mpi" : "comp\xC3\xA9");
  }
  t.add_column(Column("p", std::move(p)));
  t.add_column(Column("kind", std::move(kind)));
  t.add_column(Column("value", std::move(v)));
  t.attributes() = {{"target", std::string("value")},
                    {"unit", std::string("s")},
                    {"model", "m" + std::to_string(k)},
                    {"scale", 0.5 * static_cast<double>(k)},
                    {"repeat", std::int64_t{5}}};
  return t;
}

std::string set_name(std::size_t k) { return "/app/m" + std::to_string(k) + "/time"; }

// Writes `n` small sets through write_sets, and `alone` sets of another shape.
void write_many(const std::string& path, std::size_t n, std::vector<MeasurementTable>& keep) {
  keep.clear();
  for (std::size_t k = 0; k < n; ++k) keep.push_back(small_set(k));
  MeasurementTable other = small_set(0);
  other.attributes()["extra"] = std::string("yes");
  keep.push_back(other);
  std::vector<std::pair<std::string, const MeasurementTable*>> sets;
  for (std::size_t k = 0; k < n; ++k) sets.emplace_back(set_name(k), &keep[k]);
  sets.emplace_back("/app/other", &keep.back());
  StoreWriter w(path);
  w.write_sets(sets);
  w.close();
}

void expect_same(const MeasurementTable& a, const MeasurementTable& b) {
  ASSERT_EQ(a.column_names(), b.column_names());
  EXPECT_EQ(a.column("p").i64(), b.column("p").i64());
  EXPECT_EQ(a.column("kind").str(), b.column("kind").str());
  EXPECT_EQ(a.column("value").f64(), b.column("value").f64());
}

// Sets `/@packs/0/index/<name>[0]` of an unsealed store to v.
void poke_index(const std::string& path, const char* name, std::int64_t v) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const hid_t d = H5Dopen2(f, (std::string(kPackRoot) + "/0/index/" + name).c_str(), H5P_DEFAULT);
  ASSERT_GE(d, 0);
  const hid_t fs = H5Dget_space(d);
  const hsize_t start = 0, count = 1;
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, nullptr, &count, nullptr);
  const hid_t ms = H5Screate_simple(1, &count, nullptr);
  EXPECT_GE(H5Dwrite(d, H5T_NATIVE_INT64, ms, fs, H5P_DEFAULT, &v), 0);
  H5Sclose(ms);
  H5Sclose(fs);
  H5Dclose(d);
  H5Fclose(f);
}

// `perfit import --format extrap` of `text` into the store `name` under /x.
ImportOptions extrap_options(const TempDir& dir, const std::string& text, const std::string& name) {
  ImportOptions o;
  o.csv = dir.write("x.txt", text);
  o.format = "extrap";
  o.store = dir.file(name);
  o.set = "/x";
  return o;
}

}  // namespace

TEST(StorePack, ManySetsOfOneShapeShareOnePackAndReadBackExactly) {
  TempDir dir;
  std::vector<MeasurementTable> tables;
  write_many(dir.file("s.h5"), 100, tables);
  const StoreReader r(dir.file("s.h5"));
  ASSERT_EQ(r.packs().size(), 1u);
  EXPECT_EQ(r.packs()[0].sets.size(), 100u);
  const auto sets = r.sets();
  ASSERT_EQ(sets.size(), 101u);
  EXPECT_TRUE(std::is_sorted(sets.begin(), sets.end()));
  for (std::size_t k = 0; k < 100; ++k) {
    const std::string set = set_name(k);
    ASSERT_TRUE(r.has_set(set)) << set;
    const MeasurementTable t = r.read(set);
    expect_same(t, tables[k]);
    EXPECT_EQ(r.rows(set), tables[k].rows());
    EXPECT_EQ(t.attribute_string("model"), "m" + std::to_string(k));
    EXPECT_EQ(std::get<double>(t.attributes().at("scale")), 0.5 * static_cast<double>(k));
    EXPECT_EQ(std::get<std::int64_t>(t.attributes().at("repeat")), 5);
    EXPECT_EQ(t.target(), "value");
    // The same checksum as the set written alone: results name the data, however it is stored.
    EXPECT_EQ(r.set_attribute(set, "checksum"), data::table_checksum(tables[k]));
    EXPECT_EQ(r.set_attribute(set, "unit"), "s");
  }
  expect_same(r.read("/app/other"), tables.back());
  const MeasurementTable part = r.read(set_name(7), {"value", "p"}, {1, 3});
  EXPECT_EQ(part.column_names(), (std::vector<std::string>{"value", "p"}));
  EXPECT_EQ(part.column("p").i64(), (std::vector<std::int64_t>{2, 4}));
  EXPECT_FALSE(r.has_set("/app/m100/time"));
  EXPECT_THAT([&] { r.info("/app/nope"); }, ThrowsMessage<DataError>(HasSubstr("... and 93 more")));
}

// The attribute of many sets at once (a plan's checksums) is each set's own, in the order asked,
// across packs and sets stored alone, whatever its type; "" where a set has none.
TEST(StorePack, AnAttributeOfManySetsAtOnceIsEachSetsOwn) {
  TempDir dir;
  std::vector<MeasurementTable> tables;
  write_many(dir.file("s.h5"), 100, tables);
  const StoreReader r(dir.file("s.h5"));
  ASSERT_EQ(r.packs().size(), 1u);
  // In the store's order (each the one after the last in its pack), then backwards
  // ("/app/other", stored alone, between), then one asked a third time.
  const std::vector<std::string> sets = r.sets();
  std::vector<std::string> asked = sets;
  asked.insert(asked.end(), sets.rbegin(), sets.rend());
  asked.push_back(set_name(3));
  for (const char* name : {"checksum", "scale", "repeat", "unit", "model", "no_such"}) {
    const auto all = r.set_attributes(asked, name);
    ASSERT_EQ(all.size(), asked.size());
    for (std::size_t k = 0; k < asked.size(); ++k)
      EXPECT_EQ(all[k], r.set_attribute(asked[k], name)) << asked[k] << " " << name;
  }
  EXPECT_EQ(r.set_attributes({set_name(7)}, "scale").front(), "3.5");
  EXPECT_EQ(r.set_attributes({set_name(7)}, "no_such").front(), "");
  EXPECT_THAT(
      [&] {
        r.set_attributes({set_name(1), "/app/nope"}, "checksum");
      },
      ThrowsMessage<DataError>(HasSubstr("has no set '/app/nope'")));
}

TEST(StorePack, FewSetsStayGroupsOfTheirOwn) {
  TempDir dir;
  std::vector<MeasurementTable> tables;
  write_many(dir.file("s.h5"), kPackMinSets - 1, tables);
  const StoreReader r(dir.file("s.h5"));
  EXPECT_TRUE(r.packs().empty());
  EXPECT_EQ(r.sets().size(), kPackMinSets);
  expect_same(r.read(set_name(3)), tables[3]);
}

TEST(StorePack, ImportAroundAPackCopiesItWholeOrRepacksWhatItKeeps) {
  TempDir dir;
  std::string text = "PARAMETER p\nPOINTS 1 2 4\n";
  for (int k = 0; k < 70; ++k) {
    text += "REGION r" + std::to_string(k) + "\nDATA 1 1.5\nDATA 2 2.5\nDATA " +
            std::to_string(3 + k) + "\n";
  }
  const ImportOptions o = extrap_options(dir, text, "s.h5");
  import_extrap(o);
  const MeasurementTable r5 = StoreReader(o.store).read("/x/r5");
  ASSERT_EQ(StoreReader(o.store).packs().size(), 1u);

  ImportOptions c;
  c.csv = dir.write("a.csv", "p,time_s\n1,2.5\n2,1.5\n");
  c.store = o.store;
  c.set = "/pt/resnet";
  c.target = "time_s";
  import_csv(c);  // another set: the pack is copied as it is
  {
    const StoreReader r(o.store);
    ASSERT_EQ(r.packs().size(), 1u);
    EXPECT_EQ(r.sets().size(), 71u);
    EXPECT_EQ(r.read("/x/r5").column("value").f64(), r5.column("value").f64());
  }
  c.set = "/x/r9";
  c.replace = true;
  import_csv(c);  // a set of the pack replaced: the other 69 are packed again
  const StoreReader r(o.store);
  ASSERT_EQ(r.packs().size(), 1u);
  EXPECT_EQ(r.packs()[0].sets.size(), 69u);
  EXPECT_EQ(r.read("/x/r9").column("time_s").f64(), (std::vector<double>{2.5, 1.5}));
  EXPECT_EQ(r.read("/x/r5").column("value").f64(), r5.column("value").f64());
  EXPECT_EQ(r.set_attribute("/x/r5", "checksum"), r5.attribute_string("checksum"));
}

// An Extra-P import writes its sets a block at a time, each block its own pack; the store reads
// as one: the same sets, rows, attributes and checksums as an import in one block, and --append
// and a replaced set work across the packs.
TEST(StorePack, AnImportInBlocksWritesSeveralPacksThatReadAsOne) {
  TempDir dir;
  std::string text = "PARAMETER p\nPOINTS 1 2 4\n";
  for (int k = 0; k < 300; ++k) {
    text += "REGION r" + std::to_string(k) + "\nMETRIC time\nDATA 1 1.5\nDATA 2\nDATA " +
            std::to_string(3 + k) + "\nMETRIC bytes\nDATA 7\nDATA 8\nDATA 9 " +
            std::to_string(10 + k) + "\n";
  }
  const ImportOptions o = extrap_options(dir, text, "one.h5");
  import_extrap(o);
  ImportOptions b = o;
  b.store = dir.file("blocks.h5");
  {
    testing_support::HooksEnv hooks("import_block_sets=128");
    const ImportSummary s = import_extrap(b);
    EXPECT_EQ(s.sets.size(), 600u);
    EXPECT_EQ(s.rows_in_set, 300u * 8u);
  }
  const StoreReader one(o.store), blocks(b.store);
  ASSERT_EQ(one.packs().size(), 1u);
  ASSERT_EQ(blocks.packs().size(), 5u);  // 128, 128, 128, 128, 88 sets
  const auto sets = blocks.sets();
  ASSERT_EQ(sets, one.sets());
  ASSERT_EQ(sets.size(), 600u);
  EXPECT_TRUE(std::is_sorted(sets.begin(), sets.end()));
  for (const auto& set : sets) {
    ASSERT_TRUE(blocks.has_set(set)) << set;
    EXPECT_EQ(blocks.read(set).column("value").f64(), one.read(set).column("value").f64()) << set;
    EXPECT_EQ(blocks.read(set).column("p").f64(), one.read(set).column("p").f64()) << set;
    EXPECT_EQ(blocks.set_attribute(set, "checksum"), one.set_attribute(set, "checksum")) << set;
    EXPECT_EQ(blocks.set_attribute(set, "extrap_region"), one.set_attribute(set, "extrap_region"));
  }
  EXPECT_EQ(blocks.set_attributes(sets, "checksum"), one.set_attributes(sets, "checksum"));
  // Across packs in the store's order (the set after the last tried first), backwards, and a
  // set asked again after its text went to the first ask: each its own.
  std::vector<std::string> asked = sets;
  asked.insert(asked.end(), sets.rbegin(), sets.rend());
  asked.push_back(sets[1]);
  const auto regions = blocks.set_attributes(asked, "extrap_region");
  ASSERT_EQ(regions.size(), asked.size());
  for (std::size_t k = 0; k < asked.size(); ++k)
    EXPECT_EQ(regions[k], one.set_attribute(asked[k], "extrap_region")) << asked[k];
  EXPECT_FALSE(blocks.has_set("/x/r300/time"));
  EXPECT_FALSE(blocks.has_set("/x/r1"));
  EXPECT_THAT([&] { blocks.info("/x/nope"); },
              ThrowsMessage<DataError>(HasSubstr("has no set '/x/nope'")));

  b.append = true;  // every set gains its rows again, across the packs
  {
    testing_support::HooksEnv hooks("import_block_sets=128");
    import_extrap(b);
  }
  {
    const StoreReader r(b.store);
    EXPECT_EQ(r.sets().size(), 600u);
    EXPECT_EQ(r.rows("/x/r299/bytes"), 8u);
    EXPECT_EQ(r.read("/x/r0/time").column("value").f64(),
              (std::vector<double>{1, 1.5, 2, 3, 1, 1.5, 2, 3}));
  }
  ImportOptions c;
  c.csv = dir.write("a.csv", "p,time_s\n1,2.5\n2,1.5\n");
  c.store = b.store;
  c.set = "/x/r200/time";
  c.target = "time_s";
  c.replace = true;
  import_csv(c);  // one set of one pack replaced: the other packs copied whole
  const StoreReader r(b.store);
  EXPECT_EQ(r.sets().size(), 600u);
  EXPECT_EQ(r.read("/x/r200/time").column("time_s").f64(), (std::vector<double>{2.5, 1.5}));
  EXPECT_EQ(r.rows("/x/r201/time"), 8u);
  EXPECT_EQ(r.rows("/x/r99/bytes"), 8u);
}

// Blocks are written on a thread while the next is read: an error read after some blocks went
// out names its region, and leaves no store and no temporary file.
TEST(StorePack, AnErrorReadWhileABlockIsWrittenLeavesNothing) {
  TempDir dir;
  std::string text = "PARAMETER p\nPOINTS 1 2 4\n";
  for (int k = 0; k < 300; ++k) {
    text += "REGION r" + std::to_string(k) + "\nMETRIC time\nDATA 1 1.5\nDATA 2\nDATA " +
            (k == 290 ? std::string("-3") : std::to_string(3 + k)) + "\n";
  }
  const ImportOptions o = extrap_options(dir, text, "bad.h5");
  testing_support::HooksEnv hooks("import_block_sets=16");
  EXPECT_THAT([&] { import_extrap(o); },
              ThrowsMessage<DataError>(HasSubstr("region 'r290' metric 'time'")));
  EXPECT_FALSE(std::filesystem::exists(o.store));
  for (const auto& e : std::filesystem::directory_iterator(dir.file("")))
    EXPECT_EQ(e.path().extension(), ".txt") << e.path();  // only the Extra-P text
}

TEST(StorePack, AnIndexThatPointsOutsideThePackIsRefusedByName) {
  TempDir dir;
  std::vector<MeasurementTable> tables;
  write_many(dir.file("s.h5"), 80, tables);
  poke_index(dir.file("s.h5"), "rows", 1000000);
  EXPECT_THAT([&] { StoreReader r(dir.file("s.h5")); },
              ThrowsMessage<DataError>(HasSubstr(
                  "pack '/@packs/0' set '/app/m0/time': rows [0, +1000000) are outside")));
  write_many(dir.file("t.h5"), 80, tables);
  poke_index(dir.file("t.h5"), "first", -4);
  EXPECT_THAT([&] { StoreReader r(dir.file("t.h5")); },
              ThrowsMessage<DataError>(HasSubstr("outside the pack's")));
}

}  // namespace perfit::io
