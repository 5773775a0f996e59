//===- CheckedTest.cpp - Overflow-checked arithmetic on counts --*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// The helper every count computation of the runtime goes through
// (runtime/src/checked.h), at the edges of size_t and long long. The
// expected values are written out by hand, not computed the same way.
//
//===----------------------------------------------------------------------===//

#include "checked.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <vector>

namespace {

using collc::checkedAdd;
using collc::checkedMul;
using collc::checkedSum;

TEST(CheckedTest, ProductsThatFit) {
  long long out = -1;
  EXPECT_TRUE(checkedMul(size_t(0), 4, out));
  EXPECT_EQ(out, 0);
  EXPECT_TRUE(checkedMul(size_t(1) << 40, 8, out));
  EXPECT_EQ(out, 8796093022208ll);
  // The largest product that fits: 2^63 - 1 = 153092023 * 60247241209
  // (7^2 * 73 * 127 * 337 times 92737 * 649657).
  EXPECT_TRUE(checkedMul(size_t(153092023), 60247241209ll, out));
  EXPECT_EQ(out, LLONG_MAX);
}

TEST(CheckedTest, ProductsThatWrapAreRefused) {
  long long out = 0;
  // SIZE_MAX as a long long would be -1: the helper sees the real value.
  EXPECT_FALSE(checkedMul(SIZE_MAX, 1, out));
  EXPECT_FALSE(checkedMul(SIZE_MAX / 4, 4, out));
  EXPECT_FALSE(checkedMul(size_t(1) << 63, 1, out));
  // 2^62 * 4 wraps to 0 in 64 bits; 2^61 * 4 = 2^63 is one past LLONG_MAX.
  EXPECT_FALSE(checkedMul(size_t(1) << 62, 4, out));
  EXPECT_FALSE(checkedMul(size_t(1) << 61, 4, out));
  EXPECT_FALSE(checkedMul(size_t(1) << 40, 1 << 23, out));
  EXPECT_TRUE(checkedMul(size_t(1) << 40, (1 << 23) - 1, out));
  EXPECT_EQ(out, 9223370937343148032ll);
}

TEST(CheckedTest, SumsThatWrapAreRefused) {
  long long out = 0;
  EXPECT_TRUE(checkedAdd(LLONG_MAX - 1, size_t(1), out));
  EXPECT_EQ(out, LLONG_MAX);
  EXPECT_FALSE(checkedAdd(LLONG_MAX, size_t(1), out));
  EXPECT_FALSE(checkedAdd(0ll, SIZE_MAX, out));
  // 2^63 - 1 + 2^63 + 2 would wrap to 1 in 64 bits.
  EXPECT_FALSE(checkedAdd(LLONG_MAX, (size_t(1) << 63) + 2, out));
}

TEST(CheckedTest, CountSums) {
  long long sum = -1;
  EXPECT_TRUE(checkedSum(nullptr, 0, sum));
  EXPECT_EQ(sum, 0);
  const size_t some[] = {0, 1, size_t(1) << 40, 7};
  EXPECT_TRUE(checkedSum(some, 4, sum));
  EXPECT_EQ(sum, 1099511627784ll);
  // Two halves of 2^64: 0 after wrapping.
  const size_t wraps[] = {size_t(1) << 63, size_t(1) << 63};
  EXPECT_FALSE(checkedSum(wraps, 2, sum));
  const size_t max[] = {SIZE_MAX, 1};
  EXPECT_FALSE(checkedSum(max, 2, sum));
  // 2^23 partitions at the 2^40 limit: 2^63, one past LLONG_MAX.
  std::vector<size_t> many(size_t(1) << 23, collc::kMaxPartitionElems);
  EXPECT_FALSE(checkedSum(many.data(), (int)many.size(), sum));
  many.pop_back();
  EXPECT_TRUE(checkedSum(many.data(), (int)many.size(), sum));
  EXPECT_EQ(sum, 9223370937343148032ll);
}

} // namespace
