// The toolchain stores constant vectors as written. Debian 12's GCC 12.2 with -march=native on an
// AVX-512 host filled every lane of a 512-bit constant whose second half is zeros with its first
// element (cmake/Flags.cmake keeps GCC's own vectors at 256 bits there); this test fails if a
// build brings that back.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace perfit {

TEST(ConstantVectors, HoldTheValuesWritten) {
  const std::vector<double> half{1, 1, 1, 1, 0, 0, 0, 0};
  const std::vector<double> most{2, 2, 2, 2, 2, 2, 0, 0};
  const std::vector<float> floats{1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0};
  const std::vector<std::int64_t> ints{3, 3, 3, 3, 0, 0, 0, 0};
  EXPECT_EQ(half[4], 0.0);
  EXPECT_EQ(half[7], 0.0);
  EXPECT_EQ(most[7], 0.0);
  EXPECT_EQ(floats[15], 0.0F);
  EXPECT_EQ(ints[7], 0);
  EXPECT_EQ(half[3], 1.0);
}

}  // namespace perfit
