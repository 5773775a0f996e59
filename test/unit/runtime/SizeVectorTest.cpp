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
#include "collc/vocab.h"

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

//===----------------------------------------------------------------------===//
// A program's size vector (vocab::programSizeVector): the call's size
// matrix as the program's input needs it, checked through collcSizeAt
// against the matrices docs/snac.md ("Rooted programs") defines, written
// out here on their own.
//===----------------------------------------------------------------------===//

namespace {

/// Rank r's vector of a program, read back as the program's whole matrix.
std::vector<long long> programMatrix(collc::vocab::Root shape, int root,
                                     const std::vector<long long> &s,
                                     int sParts, bool packed, int n, int r) {
  std::vector<long long> v(collcSizeVectorWords(n));
  collc::vocab::programSizeVector(shape, root, s.data(), sParts, packed, n, r,
                                  v.data());
  const int parts = packed ? 1 : n;
  std::vector<long long> m((size_t)n * parts);
  for (int p = 0; p < n; ++p)
    for (int k = 0; k < parts; ++k)
      // A rank reads its own row and column (and for a uniform reduction,
      // any row equals its own): compare those entries only.
      if (packed || p == r || k == r)
        m[(size_t)p * parts + k] = collcSizeAt(v.data(), n, packed, r, p, k);
  return m;
}

std::vector<long long> randomSizes(std::mt19937_64 &rng, int n, int parts,
                                   bool uniformRows) {
  std::vector<long long> s((size_t)n * parts);
  for (long long &x : s)
    x = (long long)(rng() % 1000);
  if (uniformRows)
    for (int p = 1; p < n; ++p)
      for (int k = 0; k < parts; ++k)
        s[(size_t)p * parts + k] = s[k];
  return s;
}

long long rowSum(const std::vector<long long> &s, int parts, int p) {
  long long sum = 0;
  for (int k = 0; k < parts; ++k)
    sum += s[(size_t)p * parts + k];
  return sum;
}

using collc::vocab::Root;

} // namespace

TEST(ProgramSizeVectorTest, RootedCallsAreShapedByTheRoot) {
  std::mt19937_64 rng(5);
  for (int n : {2, 3, 5, 8, 72})
    for (int root : {0, n / 2, n - 1})
      for (int r = 0; r < n; ++r) {
        // Scatter: AllToAll_v, only the root's row.
        std::vector<long long> s = randomSizes(rng, n, n, true);
        std::vector<long long> m =
            programMatrix(Root::Producer, root, s, n, false, n, r);
        for (int p = 0; p < n; ++p)
          for (int k = 0; k < n; ++k)
            if (p == r || k == r)
              ASSERT_EQ(m[(size_t)p * n + k],
                        p == root ? s[(size_t)p * n + k] : 0)
                  << "scatter n=" << n << " root=" << root << " r=" << r;
        // Gather: AllToAll_v, each rank's packed input into partition root.
        s = randomSizes(rng, n, 1, true);
        m = programMatrix(Root::Consumer, root, s, 1, false, n, r);
        for (int p = 0; p < n; ++p)
          for (int k = 0; k < n; ++k)
            if (p == r || k == r)
              ASSERT_EQ(m[(size_t)p * n + k], k == root ? s[p] : 0)
                  << "gather n=" << n << " root=" << root << " r=" << r;
        // Broadcast (Scatter then AllGather): AllGather_v, the root's
        // whole buffer.
        s = randomSizes(rng, n, n, true);
        m = programMatrix(Root::Producer, root, s, n, true, n, r);
        for (int p = 0; p < n; ++p)
          ASSERT_EQ(m[p], p == root ? rowSum(s, n, p) : 0)
              << "broadcast n=" << n << " root=" << root << " r=" << r;
        // Reduce (ReduceScatter then Gather): ReduceScatter_v whose
        // partition root is the whole input.
        m = programMatrix(Root::Consumer, root, s, n, false, n, r);
        for (int p = 0; p < n; ++p)
          for (int k = 0; k < n; ++k)
            if (p == r || k == r)
              ASSERT_EQ(m[(size_t)p * n + k], k == root ? rowSum(s, n, p) : 0)
                  << "reduce n=" << n << " root=" << root << " r=" << r;
      }
}

TEST(ProgramSizeVectorTest, UnrootedCallsKeepTheirSizes) {
  std::mt19937_64 rng(6);
  for (int n : {2, 3, 8, 72})
    for (int r = 0; r < n; ++r) {
      // AllToAll_v: the call's matrix as it is.
      std::vector<long long> s = randomSizes(rng, n, n, false);
      std::vector<long long> m =
          programMatrix(Root::None, 0, s, n, false, n, r);
      for (int p = 0; p < n; ++p)
        for (int k = 0; k < n; ++k)
          if (p == r || k == r)
            ASSERT_EQ(m[(size_t)p * n + k], s[(size_t)p * n + k]);
      // The one-shot AllReduce of a scattered collective: each rank's
      // whole row as its packed size.
      m = programMatrix(Root::None, 0, s, n, true, n, r);
      for (int p = 0; p < n; ++p)
        ASSERT_EQ(m[p], rowSum(s, n, p));
    }
}
