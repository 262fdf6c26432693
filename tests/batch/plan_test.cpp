#include "perfit/batch/plan.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "perfit/core/error.hpp"
#include "perfit/io/dir_lock.hpp"
#include "perfit/io/set_glob.hpp"
#include "perfit/io/synth_store.hpp"
#include "support/temp_dir.hpp"

namespace perfit::batch {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace {

struct Fixture {
  testing_support::TempDir dir;
  std::string store = dir.file("s.h5");
  Fixture() {
    data::SynthOptions o;
    o.rows = 50;
    io::write_synthetic_store(store, o, {"/mxnet/resnet50", "/mxnet/bert", "/pytorch/resnet50"});
  }
  std::vector<FitTask> plan(const std::string& yaml) const {
    return plan_batch(io::load_manifest(dir.write("m.yaml", yaml)), dir.file("out"));
  }
};

}  // namespace

TEST(BatchManifest, RefusesUnknownKeysAndBatchOwnedOptionsByName) {
  testing_support::TempDir dir;
  const auto load = [&](const std::string& text) {
    return io::load_manifest(dir.write("m.yaml", text));
  };
  EXPECT_THAT(
      [&] { load("data: s.h5\nranks_per_fits: 2\nfits: [{sets: [a], models: [amdahl]}]\n"); },
      ThrowsMessage<ConfigError>(HasSubstr("unknown key 'ranks_per_fits'")));
  EXPECT_THAT([&] { load("data: s.h5\nfits: [{sets: [a], model: [amdahl]}]\n"); },
              ThrowsMessage<ConfigError>(HasSubstr("fits[0]: unknown key 'model'")));
  EXPECT_THAT(
      [&] { load("data: s.h5\nfits: [{sets: [a], models: [amdahl], options: {out: x.h5}}]\n"); },
      ThrowsMessage<ConfigError>(HasSubstr("key 'out' is set by the batch")));
  EXPECT_THAT(
      [&] { load("data: s.h5\nranks_per_fit: 0\nfits: [{sets: [a], models: [amdahl]}]\n"); },
      ThrowsMessage<ConfigError>(HasSubstr("expected a whole number >= 1")));
  EXPECT_THAT([&] { load("fits: [{sets: [a], models: [amdahl]}]\n"); },
              ThrowsMessage<ConfigError>(HasSubstr("no 'data' store")));
  EXPECT_THAT([&] { load("data: s.h5\nfits: [{sets: [], models: [amdahl]}]\n"); },
              ThrowsMessage<ConfigError>(HasSubstr("key 'sets': found an empty list")));
}

TEST(BatchManifest, PathsAreRelativeToTheManifest) {
  testing_support::TempDir dir;
  const io::Manifest m = io::load_manifest(dir.write(
      "m.yaml",
      "data: s.h5\nranks_per_fit: 2\nfits:\n  - sets: ['/a/*']\n    models: [amdahl, my.yaml]\n"));
  EXPECT_EQ(m.ranks_per_fit, 2);
  ASSERT_EQ(m.fits.size(), 1u);
  EXPECT_EQ(m.fits[0].data, dir.file("s.h5"));
  EXPECT_THAT(m.fits[0].models, ElementsAre("amdahl", dir.file("my.yaml")));
}

TEST(BatchPlan, ExpandsGlobsTimesModelsOnceEachLongestFirst) {
  Fixture f;
  const auto tasks = f.plan(
      "data: s.h5\nfits:\n  - sets: ['/*/resnet50', '/mxnet/*']\n    models: [amdahl, generic]\n"
      "    options: {de: {max_generations: 7}}\n");
  ASSERT_EQ(tasks.size(), 6u);  // /mxnet/resnet50 matched by both globs: once
  EXPECT_EQ(tasks[0].set, "/mxnet/bert");
  EXPECT_EQ(tasks[0].name, "mxnet__bert__amdahl");
  EXPECT_EQ(tasks[0].cfg.de.max_generations, 7u);
  EXPECT_EQ(tasks[0].cfg.out, f.dir.file("out") + "/mxnet__bert__amdahl.h5");
  EXPECT_FALSE(tasks[0].data_checksum.empty());
  const auto order = longest_first(tasks);
  EXPECT_EQ(tasks[order[0]].model_name, "generic");  // 6 params before amdahl's 2
  EXPECT_EQ(tasks[order.back()].model_name, "amdahl");
}

TEST(BatchPlan, AnEmptyGlobNamesItAndTheSetsThere) {
  Fixture f;
  EXPECT_THAT([&] { f.plan("data: s.h5\nfits:\n  - sets: ['/caffe/*']\n    models: [amdahl]\n"); },
              ThrowsMessage<ConfigError>(
                  AllOf(HasSubstr("'/caffe/*' matches no set"),
                        HasSubstr("/mxnet/bert, /mxnet/resnet50, /pytorch/resnet50"))));
}

TEST(BatchPlan, OnePairTwiceWithOtherOptionsIsRefused) {
  Fixture f;
  EXPECT_THAT(
      [&] {
        f.plan(
            "data: s.h5\nfits:\n  - sets: ['/mxnet/bert']\n    models: [amdahl]\n"
            "  - sets: ['/mxnet/*']\n    models: [amdahl]\n    options: {seed: 3}\n");
      },
      ThrowsMessage<ConfigError>(HasSubstr("both would write 'mxnet__bert__amdahl.h5'")));
  EXPECT_EQ(f.plan("data: s.h5\nfits:\n  - sets: ['/mxnet/bert']\n    models: [amdahl]\n"
                   "  - sets: ['/mxnet/*']\n    models: [amdahl]\n")
                .size(),
            2u);
}

// select: entries: each set once in set order, several globs of one entry matching a set once;
// a set that a later entry selects again is refused naming both entries.
TEST(BatchPlan, SelectionsTakeEachSetOnceAndRefuseASetTwoEntriesSelect) {
  Fixture f;
  const auto plan = plan_selections(
      io::load_manifest(f.dir.write("m.yaml",
                                    "data: s.h5\nfits:\n  - sets: ['/pytorch/*', '/*/resnet50']\n  "
                                    "  select: {models: [amdahl]}\n"
                                    "  - sets: ['/mxnet/bert']\n    select: {models: [amdahl]}\n")),
      f.dir.file("out"));
  ASSERT_EQ(plan.tasks.size(), 3u);
  EXPECT_EQ(plan.tasks[0].set, "/mxnet/resnet50");
  EXPECT_EQ(plan.tasks[1].set, "/pytorch/resnet50");
  EXPECT_EQ(plan.tasks[2].set, "/mxnet/bert");
  EXPECT_EQ(plan.tasks[2].entry, 1u);
  EXPECT_THAT(
      [&] {
        plan_selections(
            io::load_manifest(f.dir.write(
                "m.yaml",
                "data: s.h5\nfits:\n  - sets: ['/mxnet/*']\n    select: {models: [amdahl]}\n"
                "  - sets: ['/pytorch/*']\n    select: {models: [amdahl]}\n"
                "  - sets: ['/*/bert']\n    select: {models: [amdahl]}\n")),
            f.dir.file("out"));
      },
      ThrowsMessage<ConfigError>(
          AllOf(HasSubstr("set '/mxnet/bert' is selected in"), HasSubstr("Select each set once"))));
}

TEST(BatchPlan, BadOptionsNameTheEntry) {
  Fixture f;
  EXPECT_THAT(
      [&] {
        f.plan(
            "data: s.h5\nfits:\n  - sets: ['/mxnet/bert']\n    models: [amdahl]\n"
            "    options: {de: {strategy: best9bin}}\n");
      },
      ThrowsMessage<ConfigError>(AllOf(HasSubstr("fits[0]"), HasSubstr("best9bin"))));
}

TEST(BatchPlan, GlobsStayWithinOneLevelAndStemsAreFileNames) {
  EXPECT_TRUE(io::set_matches("/*/resnet50", "/mxnet/resnet50"));
  EXPECT_FALSE(io::set_matches("/*", "/mxnet/resnet50"));
  EXPECT_TRUE(io::set_matches("/mxnet/res*", "/mxnet/resnet50"));
  EXPECT_EQ(result_stem("/mxnet/resnet50", "my model"), "mxnet__resnet50__my_model");
}

TEST(DirLock, RefusesALiveHolderAndTakesOverADeadOne) {
  testing_support::TempDir dir;
  {
    io::DirLock lock(dir.file(""), "perfit batch");
    EXPECT_THAT([&] { io::DirLock again(dir.file(""), "perfit batch"); },
                ThrowsMessage<ConfigError>(HasSubstr("pid " + std::to_string(::getpid()))));
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file(".lock")));
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  dir.write(".lock", std::string("host ") + host + "\npid 4194000\nsince then\n");
  EXPECT_NO_THROW(io::DirLock taken(dir.file(""), "perfit batch"));
  dir.write(".lock", "host elsewhere\npid 1\nsince then\n");
  EXPECT_THAT([&] { io::DirLock other(dir.file(""), "perfit batch"); },
              ThrowsMessage<ConfigError>(HasSubstr("on host elsewhere")));
}

}  // namespace perfit::batch
