//===- PartitionsTest.cpp - Purlin's Zipf split ---------------------------===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// bench/bandwidth/partitions.h against what Purlin says of its equation 4
// (appendix C.4): the total and 128-byte alignment kept, uniform splits at 1
// and 2 KiB on 8 ranks, the largest partition 1.125x the mean from 8 KiB,
// and a direct evaluation of the formula.
//
//===----------------------------------------------------------------------===//

#include "partitions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace {

size_t sum(const std::vector<size_t> &v) {
  return std::accumulate(v.begin(), v.end(), size_t(0));
}

TEST(ZipfSplit, KeepsTheTotalAndWholeUnits) {
  for (int n : {2, 3, 4, 5, 8, 16})
    for (size_t bytes : {size_t(128), size_t(1000), size_t(3000),
                         size_t(100000), size_t(3000000), size_t(1) << 20,
                         size_t(1) << 30}) {
      const size_t s = zipfSnapBytes(bytes, n);
      EXPECT_LE(s, std::max<size_t>(bytes, 128)) << bytes << " n" << n;
      // Snapping is idempotent: its unit is the unit of the result.
      EXPECT_EQ(zipfSnapBytes(s, n), s) << bytes << " n" << n;
      const std::vector<size_t> c = zipfSplit(s, n);
      ASSERT_EQ(c.size(), size_t(n));
      EXPECT_EQ(sum(c), s) << bytes << " n" << n;
      for (size_t x : c)
        EXPECT_EQ(x % 128, 0u) << bytes << " n" << n;
    }
}

TEST(ZipfSplit, UniformAtOneAndTwoKiBOnEightRanks) {
  EXPECT_EQ(zipfSplit(1024, 8), std::vector<size_t>(8, 128));
  EXPECT_EQ(zipfSplit(2048, 8), std::vector<size_t>(8, 256));
}

TEST(ZipfSplit, LargestIsNineEighthsOfTheMeanFromEightKiB) {
  for (size_t bytes = 8192; bytes <= (size_t(1) << 30); bytes *= 4) {
    const std::vector<size_t> c = zipfSplit(bytes, 8);
    EXPECT_EQ(*std::max_element(c.begin(), c.end()) * 8, bytes / 8 * 9)
        << bytes;
    // Non-increasing in the rank: the exponent favours low ranks.
    for (int q = 1; q < 8; ++q)
      EXPECT_LE(c[q], c[q - 1]) << bytes;
  }
}

TEST(ZipfSplit, IsEquationFour) {
  // 1 MiB on 8 ranks: u = 1 MiB / 64 = 16 KiB, 64 units; x_q = 64 (q+1)^-s
  // / sum, floors 8 8 8 8 8 7 7 7 ... evaluated here independently.
  const size_t bytes = size_t(1) << 20, u = bytes / 64;
  double norm = 0, x[8];
  for (int k = 0; k < 8; ++k)
    norm += 1 / std::pow(k + 1.0, 0.125);
  size_t floors = 0;
  for (int q = 0; q < 8; ++q) {
    x[q] = 64 / std::pow(q + 1.0, 0.125) / norm;
    floors += size_t(x[q]);
  }
  const std::vector<size_t> c = zipfSplit(bytes, 8);
  size_t extra = 0;
  for (int q = 0; q < 8; ++q) {
    const size_t units = c[q] / u;
    EXPECT_TRUE(units == size_t(x[q]) || units == size_t(x[q]) + 1) << q;
    extra += units - size_t(x[q]);
  }
  EXPECT_EQ(floors + extra, 64u);
  // The leftover units go to the largest fractional parts.
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b)
      if (c[a] / u == size_t(x[a]) && c[b] / u > size_t(x[b])) {
        EXPECT_GE(x[b] - std::floor(x[b]), x[a] - std::floor(x[a]));
      }
}

} // namespace
