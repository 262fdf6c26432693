#include "perfit/mpi/agreement.hpp"

#include <gtest/gtest.h>

#include <string>

#include "perfit/core/error.hpp"
#include "support/mpi_world.hpp"

namespace perfit::mpi {

using test::world_rank;
using test::world_size;

TEST(Agreement, NothingHappensWhenEveryRankSucceeds) {
  int ran = 0;
  EXPECT_NO_THROW(all_or_none(MPI_COMM_WORLD, [&] { ran = 1; }));
  EXPECT_EQ(ran, 1);
}

TEST(Agreement, OneRanksErrorStopsEveryRankWithItsCodeAndMessage) {
  const int last = world_size() - 1;  // rank 0 alone when serial
  try {
    all_or_none(MPI_COMM_WORLD, [&] {
      if (world_rank() == last)
        throw DataError("column 'p' is missing on rank " + std::to_string(last));
    });
    FAIL() << "rank " << world_rank() << " went on although rank " << last << " failed";
  } catch (const AgreedError& e) {
    EXPECT_EQ(e.exit_code(), DataError("x").exit_code());
    EXPECT_EQ(std::string(e.what()), "column 'p' is missing on rank " + std::to_string(last));
    EXPECT_EQ(e.print(), world_rank() == last);  // printed once, by the failing rank
  }
}

TEST(Agreement, TheLowestFailingRankSpeaksForAll) {
  // Every rank but 0 fails, each with its own message and class: rank 1's (or 0's, serially) wins.
  const int first = world_size() > 1 ? 1 : 0;
  try {
    all_or_none(MPI_COMM_WORLD, [&] {
      const int r = world_rank();
      if (r == 0 && first == 1) return;
      if (r % 2) throw ConfigError("config of rank " + std::to_string(r));
      throw IoError("file of rank " + std::to_string(r));
    });
    FAIL() << "no error agreed";
  } catch (const AgreedError& e) {
    const bool odd = first % 2 == 1;
    EXPECT_EQ(e.exit_code(), odd ? ConfigError("x").exit_code() : IoError("x").exit_code());
    EXPECT_EQ(std::string(e.what()),
              (odd ? "config of rank " : "file of rank ") + std::to_string(first));
    EXPECT_EQ(e.print(), world_rank() == first);
  }
}

TEST(Agreement, ASecondAgreementAfterAFailureStillWorks) {
  try {
    all_or_none(MPI_COMM_WORLD, [] { throw DataError("first"); });
  } catch (const AgreedError&) {
  }
  EXPECT_NO_THROW(all_or_none(MPI_COMM_WORLD, [] {}));
}

}  // namespace perfit::mpi
