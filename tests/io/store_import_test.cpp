#include "perfit/io/store_import.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "perfit/core/error.hpp"
#include "perfit/io/store_reader.hpp"
#include "support/temp_dir.hpp"

namespace perfit::io {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;
using testing_support::read_bytes;
using testing_support::TempDir;

class StoreImport : public ::testing::Test {
 protected:
  ImportOptions options(const std::string& csv_text, const std::string& set = "/pt/resnet") {
    ImportOptions o;
    o.csv = dir.write("in" + std::to_string(n++) + ".csv", csv_text);
    o.store = dir.file("store.h5");
    o.set = set;
    o.target = "time_s";
    return o;
  }
  // Runs an import expected to fail and checks the store's bytes did not change.
  template <class E>
  void expect_rejected(const ImportOptions& o, const std::string& message) {
    const bool existed = std::filesystem::exists(o.store);
    const std::string before = existed ? read_bytes(o.store) : "";
    EXPECT_THAT([&] { import_csv(o); }, ThrowsMessage<E>(HasSubstr(message)));
    EXPECT_EQ(std::filesystem::exists(o.store), existed);
    if (existed) {
      EXPECT_EQ(read_bytes(o.store), before) << "store changed by a failed import";
    }
    for (const auto& e : std::filesystem::directory_iterator(dir.file(""))) {
      EXPECT_EQ(e.path().filename().string().find(".store.h5.tmp"), std::string::npos)
          << "temporary file left behind: " << e.path();
    }
  }

  TempDir dir;
  int n = 0;
  static constexpr const char* kGood = "p,b,time_s\n1,32,10.0\n2,32,5.5\n4,64,3.0\n";
};

TEST_F(StoreImport, CsvToStoreToTableRoundTripIsExact) {
  const auto s = import_csv(options("p,b,time_s,fw\n1,32,10.125,tf\n2,64,0.1,pt\n"));
  EXPECT_TRUE(s.created_store);
  EXPECT_EQ(s.rows_in_set, 2u);
  const auto t = StoreReader(dir.file("store.h5")).read("/pt/resnet");
  EXPECT_EQ(t.column("p").i64(), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(t.column("time_s").f64(), (std::vector<double>{10.125, 0.1}));
  EXPECT_EQ(t.column("fw").str(), (std::vector<std::string>{"tf", "pt"}));
  EXPECT_EQ(t.target(), "time_s");
  EXPECT_EQ(t.attribute_string("framework"), "pt");
  EXPECT_EQ(t.attribute_string("model"), "resnet");
  EXPECT_EQ(t.attribute_string("unit"), "s");
}

TEST_F(StoreImport, ExistingSetNeedsAppendOrReplaceAndOtherSetsSurvive) {
  import_csv(options(kGood));
  import_csv(options(kGood, "/tf/vgg"));
  expect_rejected<DataError>(options(kGood), "already has set '/pt/resnet'. Pass --append");
  auto o = options("p,b,time_s\n8,16,1.0\n");
  o.append = true;
  EXPECT_EQ(import_csv(o).rows_in_set, 4u);
  o = options("p,b,time_s\n8,16,1.0\n");
  o.replace = true;
  EXPECT_EQ(import_csv(o).rows_in_set, 1u);
  StoreReader r(dir.file("store.h5"));
  EXPECT_EQ(r.sets(), (std::vector<std::string>{"/pt/resnet", "/tf/vgg"}));
  EXPECT_EQ(r.read("/tf/vgg").rows(), 3u);
}

TEST_F(StoreImport, AppendWithOtherColumnsIsRejected) {
  import_csv(options(kGood));
  auto o = options("p,nodes,time_s\n8,1,1.0\n");
  o.append = true;
  expect_rejected<DataError>(o, "column 'nodes' which the existing set lacks");
}

TEST_F(StoreImport, MissingTargetListsTheHeader) {
  auto o = options(kGood);
  o.target = "seconds";
  expect_rejected<DataError>(o, "has no target column 'seconds'; header columns: p, b, time_s");
}

TEST_F(StoreImport, InvalidTargetsNameTheLineOrAreDroppedAndCounted) {
  const std::string bad = "p,b,time_s\n1,32,10.0\n2,32,-1\n4,64,0\n8,64,inf\n16,64,nan\n32,8,\n";
  expect_rejected<DataError>(options(bad), "line 3, target column 'time_s': found -1");
  expect_rejected<DataError>(options(bad), "(5 such rows in all)");
  auto o = options(bad);
  o.drop_invalid = true;
  const auto s = import_csv(o);
  EXPECT_EQ(s.rows_dropped, 5u);
  EXPECT_EQ(s.rows_in_set, 1u);
}

TEST_F(StoreImport, TextTargetIsRejected) {
  auto o = options("p,time_s\n1,fast\n");
  expect_rejected<DataError>(o, "target column 'time_s' holds text");
}

TEST_F(StoreImport, BadCsvLeavesTheExistingStoreUntouched) {
  import_csv(options(kGood));
  expect_rejected<DataError>(options("p,b,time_s\n1,2\n"), "found 2 fields, expected 3");
  expect_rejected<DataError>(options(""), "is empty");
  expect_rejected<DataError>(options("p,b,time_s\n1,x,3\n1,2,3\n"), "");
  expect_rejected<DataError>(options("p,b,time_s\n1,2,3\n1,x,3\n"),
                             "line 3, column 'b': found 'x', expected a number");
}

TEST_F(StoreImport, StoreThatIsNotHdf5IsNeverOverwritten) {
  auto o = options(kGood);
  o.store = dir.write("notes.h5", "my precious notes\n");
  expect_rejected<DataError>(o, "is not an HDF5 file");
}

TEST_F(StoreImport, OptionsAreValidated) {
  auto o = options(kGood, "resnet");
  expect_rejected<ConfigError>(o, "set path 'resnet' is not of the form");
  o = options(kGood);
  o.append = o.replace = true;
  expect_rejected<ConfigError>(o, "--append and --force exclude each other");
}

TEST_F(StoreImport, ThroughputBecomesTheTimeForAFixedAmountOfWork) {
  ImportOptions o = options("gpus,samples_per_s\n1,\"1,000\"\n8,7500.5\n");
  o.throughput = "samples_per_s";
  o.work = 1.5e6;
  import_csv(o);
  const data::MeasurementTable t = StoreReader(o.store).read(o.set);
  EXPECT_EQ(t.column("time_s").f64(), (std::vector<double>{1.5e6 / 1000.0, 1.5e6 / 7500.5}));
  EXPECT_EQ(t.column("samples_per_s").f64(), (std::vector<double>{1000.0, 7500.5}));
  EXPECT_EQ(t.target(), "time_s");
  EXPECT_EQ(data::attribute_text(t.attributes().at("throughput_column")), "samples_per_s");
}

TEST_F(StoreImport, ThroughputOptionsAndValuesAreChecked) {
  ImportOptions o = options("gpus,samples_per_s\n1,100\n2,0\n4,300\n");
  o.throughput = "samples_per_s";
  expect_rejected<ConfigError>(o, "--throughput samples_per_s needs --work SAMPLES");
  o.work = 1000;
  expect_rejected<DataError>(
      o,
      "line 3, throughput column 'samples_per_s': found 0, expected a finite "
      "throughput > 0");
  o.drop_invalid = true;
  EXPECT_EQ(import_csv(o).rows_dropped, 1u);
  ImportOptions clash = options("gpus,samples_per_s,time_s\n1,100,3\n");
  clash.throughput = "samples_per_s";
  clash.work = 10;
  clash.set = "/pt/other";
  expect_rejected<DataError>(clash, "already has a column 'time_s'");
  ImportOptions missing = options(kGood);
  missing.throughput = "rate";
  missing.work = 10;
  missing.set = "/pt/third";
  expect_rejected<DataError>(missing,
                             "has no throughput column 'rate'; header columns: p, b, time_s");
  ImportOptions work_only = options(kGood);
  work_only.work = 10;
  expect_rejected<ConfigError>(work_only, "give --throughput COLUMN too");
}

}  // namespace perfit::io
