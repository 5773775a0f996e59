//===- SizeVectorTest.cpp - the by-value size vector (abi.h) ----*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// A kernel gets its rank's row and column of the size matrix by value
// (collcSizeVectorWords) and reads entries through collcSizeAt. Checked here
// against the whole matrix, an independent reference, for every shape the
// runtime builds: packed inputs, uniform rows (reductions, fixed counts),
// and a transposing copy's rows and columns (all-to-all-v), at every rank.
//
//===----------------------------------------------------------------------===//

#include "collc/device/snac/abi.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace {

/// The vector as the runtime builds it (launch.cpp), through abi.h.
std::vector<long long> vectorOf(const std::vector<long long> &m, int n,
                                int parts, int rank) {
  std::vector<long long> v(collcSizeVectorWords(n));
  collcFillSizeVector(m.data(), n, parts, rank, v.data());
  return v;
}

TEST(SizeVectorTest, PackedInputsReadEveryRanksSize) {
  std::mt19937_64 rng(1);
  for (int n : {1, 2, 3, 8, 72}) {
    std::vector<long long> m(n);
    for (long long &x : m)
      x = (long long)(rng() % 100000);
    for (int r = 0; r < n; ++r) {
      std::vector<long long> v = vectorOf(m, n, 1, r);
      for (int p = 0; p < n; ++p)
        EXPECT_EQ(collcSizeAt(v.data(), n, 1, r, p, 0), m[p]) << n << r << p;
    }
  }
}

TEST(SizeVectorTest, UniformRowsReadEveryEntry) {
  std::mt19937_64 rng(2);
  for (int n : {1, 2, 5, 8, 64}) {
    std::vector<long long> row(n), m((size_t)n * n);
    for (long long &x : row)
      x = (long long)(rng() % 100000);
    for (int p = 0; p < n; ++p)
      for (int k = 0; k < n; ++k)
        m[(size_t)p * n + k] = row[k];
    for (int r = 0; r < n; ++r) {
      std::vector<long long> v = vectorOf(m, n, n, r);
      for (int p = 0; p < n; ++p)
        for (int k = 0; k < n; ++k)
          ASSERT_EQ(collcSizeAt(v.data(), n, 0, r, p, k),
                    m[(size_t)p * n + k]);
    }
  }
}

TEST(SizeVectorTest, ATransposingCopyReadsItsRowAndColumn) {
  // Every entry random: a rank's own row (what it sends) and column (what
  // it receives) must come back exactly, including the diagonal.
  std::mt19937_64 rng(3);
  for (int n : {2, 3, 8, 250}) {
    std::vector<long long> m((size_t)n * n);
    for (long long &x : m)
      x = (long long)(rng() % (1ull << 40));
    for (int r = 0; r < n; ++r) {
      std::vector<long long> v = vectorOf(m, n, n, r);
      for (int i = 0; i < n; ++i) {
        ASSERT_EQ(collcSizeAt(v.data(), n, 0, r, r, i), m[(size_t)r * n + i]);
        ASSERT_EQ(collcSizeAt(v.data(), n, 0, r, i, r), m[(size_t)i * n + r]);
      }
    }
  }
}

TEST(SizeVectorTest, TheVectorFitsTheParameterLimitUpTo250Ranks) {
  // The kernel's first parameter plus the vector (EmitCuda refuses more).
  EXPECT_LE(sizeof(collcKernelParams) + 8u * collcSizeVectorWords(250),
            (size_t)COLLC_KERNEL_PARAM_LIMIT);
  EXPECT_GT(sizeof(collcKernelParams) + 8u * collcSizeVectorWords(251),
            (size_t)COLLC_KERNEL_PARAM_LIMIT);
}

TEST(SizeVectorTest, TheArrivalWordIsTheLastEventWord) {
  EXPECT_EQ(collcEventWords(2, 2, 8, 4), (2ull * 64 + 2ull * 8) * 4 + 1);
  EXPECT_EQ(collcArrivalWord(2, 2, 8, 4), (2ull * 64 + 2ull * 8) * 4);
  EXPECT_EQ(collcStateWords(2, 8, 4), 3ull + 2 * 8 * 4);
}

} // namespace
