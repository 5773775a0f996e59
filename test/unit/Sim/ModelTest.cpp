//===- ModelTest.cpp - the collective model of the interpreter --*- C++ -*-===//
//
// Expected values here are written out by hand or computed by the simplest
// possible loop over the inputs (concatenations, elementwise sums), never by
// calling back into the geometry code under test.
//
//===----------------------------------------------------------------------===//

#include "collc/Sim/Model.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

using namespace collc::sim;

namespace {

//===----------------------------------------------------------------------===//
// Collectives used throughout, spelled as layouts only.
//===----------------------------------------------------------------------===//

Transform copyT(Layout in, Layout out, Root root = Root::None,
                bool variable = false) {
  return {Consume::Copy, RedOp::Sum, in, out, variable, root};
}
Transform reduceT(Layout in, Layout out, RedOp op = RedOp::Sum,
                  Root root = Root::None, bool variable = false) {
  return {Consume::Reduce, op, in, out, variable, root};
}

const Transform kAllGather = copyT(Layout::Packed, Layout::Scattered);
const Transform kReduceScatter = reduceT(Layout::Scattered, Layout::Packed);
const Transform kAllToAll = copyT(Layout::Scattered, Layout::Transposed);
const Transform kScatter =
    copyT(Layout::Scattered, Layout::Packed, Root::Producer);
const Transform kGather =
    copyT(Layout::Packed, Layout::Scattered, Root::Consumer);

Collective one(Transform t) { return Collective{{t}}; }
Collective two(Transform f, Transform g) { return Collective{{f, g}}; }

using Bits = std::vector<uint32_t>;
using Outputs = std::vector<std::optional<Bits>>;

/// Elements [begin, begin + size) of `v`.
Bits slice(const Bits &v, int64_t begin, int64_t size) {
  return Bits(v.begin() + begin, v.begin() + begin + size);
}
void append(Bits &to, const Bits &from) {
  to.insert(to.end(), from.begin(), from.end());
}

std::vector<Bits> inputsFor(const Collective &coll, ElemType type,
                            const CallArgs &args, uint64_t seed) {
  std::vector<Bits> inputs;
  for (int r = 0; r < args.n; ++r)
    inputs.push_back(randomInput(
        coll, type, inputGeometry(coll, args, 0, r).total, seed, r));
  return inputs;
}

/// Elementwise sum of whole inputs, in double, rounded once.
Bits elementwiseSum(ElemType type, const std::vector<Bits> &inputs) {
  Bits out;
  for (size_t i = 0; i < inputs[0].size(); ++i) {
    double sum = 0;
    for (const Bits &in : inputs)
      sum += toDouble(type, in[i]);
    out.push_back(fromDouble(type, sum));
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Elements
//===----------------------------------------------------------------------===//

TEST(Elements, WidthsAndNames) {
  EXPECT_EQ(elemBits(ElemType::BF16), 16u);
  EXPECT_EQ(elemBits(ElemType::F16), 16u);
  EXPECT_EQ(elemBits(ElemType::F32), 32u);
  EXPECT_EQ(elemBits(ElemType::F8E4M3), 8u);
  EXPECT_EQ(elemBits(ElemType::F8E5M2), 8u);
  EXPECT_STREQ(elemName(ElemType::BF16), "bf16");
  EXPECT_STREQ(elemName(ElemType::F16), "f16");
  EXPECT_STREQ(elemName(ElemType::F32), "f32");
  EXPECT_STREQ(elemName(ElemType::F8E4M3), "f8e4m3");
  EXPECT_STREQ(elemName(ElemType::F8E5M2), "f8e5m2");
}

TEST(Elements, OneRoundTrips) {
  const std::pair<ElemType, uint32_t> ones[] = {{ElemType::BF16, 0x3F80},
                                                {ElemType::F16, 0x3C00},
                                                {ElemType::F32, 0x3F800000},
                                                {ElemType::F8E4M3, 0x38},
                                                {ElemType::F8E5M2, 0x3C}};
  for (auto [type, bits] : ones) {
    EXPECT_EQ(fromDouble(type, 1.0), bits) << elemName(type);
    EXPECT_EQ(toDouble(type, bits), 1.0) << elemName(type);
  }
}

TEST(Elements, NegativeZeroKeepsItsSign) {
  for (ElemType type : kAllElemTypes) {
    uint32_t sign = 1u << (elemBits(type) - 1);
    EXPECT_EQ(fromDouble(type, -0.0), sign) << elemName(type);
    EXPECT_EQ(fromDouble(type, 0.0), 0u) << elemName(type);
    double back = toDouble(type, sign);
    EXPECT_EQ(back, 0.0);
    EXPECT_TRUE(std::signbit(back)) << elemName(type);
  }
}

TEST(Elements, Bf16RoundsToNearestEven) {
  // 1/3 = 0x3EAAAAAB in FP32; the dropped half 0xAAAB is above the midpoint,
  // so RNE rounds up where truncation would give 0x3EAA.
  EXPECT_EQ(fromDouble(ElemType::BF16, 1.0 / 3.0), 0x3EABu);
  // Exact ties go to the even mantissa: 1 + 2^-8 -> 1.0 (down), 1 + 3*2^-8
  // -> 1 + 2^-6 (up).
  EXPECT_EQ(fromDouble(ElemType::BF16, 1.0 + std::ldexp(1.0, -8)), 0x3F80u);
  EXPECT_EQ(fromDouble(ElemType::BF16, 1.0 + 3 * std::ldexp(1.0, -8)), 0x3F82u);
}

TEST(Elements, F8E4M3HasMax448AndNoInfinity) {
  EXPECT_EQ(fromDouble(ElemType::F8E4M3, 448.0), 0x7Eu);
  EXPECT_EQ(toDouble(ElemType::F8E4M3, 0x7E), 448.0);
  EXPECT_EQ(fromDouble(ElemType::F8E4M3, -448.0), 0xFEu);
  // 0x7F is NaN in e4m3fn, not a number above 448.
  EXPECT_TRUE(std::isnan(toDouble(ElemType::F8E4M3, 0x7F)));
  // Just below the rounding boundary stays 448; far above overflows to NaN.
  EXPECT_EQ(fromDouble(ElemType::F8E4M3, 460.0), 0x7Eu);
  EXPECT_TRUE(std::isnan(
      toDouble(ElemType::F8E4M3, fromDouble(ElemType::F8E4M3, 1000.0))));
  // Smallest subnormal: 2^-9.
  EXPECT_EQ(toDouble(ElemType::F8E4M3, 0x01), std::ldexp(1.0, -9));
}

TEST(Elements, F8E5M2IsIeeeLike) {
  EXPECT_EQ(fromDouble(ElemType::F8E5M2, 57344.0), 0x7Bu);
  EXPECT_EQ(toDouble(ElemType::F8E5M2, 0x7B), 57344.0);
  EXPECT_TRUE(std::isinf(toDouble(ElemType::F8E5M2, 0x7C)));
  EXPECT_EQ(fromDouble(ElemType::F8E5M2, 1e6), 0x7Cu);
  EXPECT_EQ(toDouble(ElemType::F8E5M2, 0x01), std::ldexp(1.0, -16));
  // 1.25 = 1.01b is exact; 1.125 is a tie between 1.0 (even) and 1.25.
  EXPECT_EQ(fromDouble(ElemType::F8E5M2, 1.25), 0x3Du);
  EXPECT_EQ(fromDouble(ElemType::F8E5M2, 1.125), 0x3Cu);
}

TEST(Elements, PoisonIsNaNAndDistinctFromComputedNaN) {
  for (ElemType type : kAllElemTypes) {
    uint32_t poison = poisonBits(type);
    EXPECT_TRUE(std::isnan(toDouble(type, poison))) << elemName(type);
    EXPECT_NE(fromDouble(type, std::nan("")), poison) << elemName(type);
    EXPECT_EQ(poison >> (elemBits(type) - 1), 1u) << "fits the type";
  }
}

//===----------------------------------------------------------------------===//
// atomReduce
//===----------------------------------------------------------------------===//

TEST(AtomReduce, OneContributionIsExact) {
  // Every non-NaN pattern of the narrow types survives decode to FP32 and
  // the final rounding unchanged (subnormals and -0.0 included).
  for (ElemType type : kAllElemTypes) {
    if (type == ElemType::F32)
      continue;
    for (uint32_t bits = 0; bits <= poisonBits(type); ++bits) {
      if (std::isnan(toDouble(type, bits)))
        continue;
      ASSERT_EQ(atomReduce(type, RedOp::Sum, {bits}), bits)
          << elemName(type) << " " << bits;
      // (bf16 values near FLT_MAX overflow the FP32 sum, as on the device.)
      if (std::fabs(toDouble(type, bits)) < 0x1p100) {
        ASSERT_EQ(atomReduce(type, RedOp::Avg, {bits, bits}), bits)
            << elemName(type) << " " << bits;
      }
    }
  }
}

TEST(AtomReduce, AccumulatesInFp32NotInE) {
  Bits in = {fromDouble(ElemType::BF16, 256), fromDouble(ElemType::BF16, 1),
             fromDouble(ElemType::BF16, 1)};
  // In bf16, 256 + 1 = 257 ties back to 256 (twice); in FP32 the sum is 258,
  // which bf16 represents.
  uint32_t inE = in[0];
  for (size_t i = 1; i < in.size(); ++i)
    inE = fromDouble(ElemType::BF16, toDouble(ElemType::BF16, inE) +
                                         toDouble(ElemType::BF16, in[i]));
  EXPECT_EQ(toDouble(ElemType::BF16, inE), 256.0);
  EXPECT_EQ(atomReduce(ElemType::BF16, RedOp::Sum, in),
            fromDouble(ElemType::BF16, 258));
}

TEST(AtomReduce, FollowsTheGivenOrder) {
  auto f = [](double x) { return fromDouble(ElemType::F32, x); };
  // FP32 spacing at 1e8 is 8, so 1e8 + 1 rounds back to 1e8.
  EXPECT_EQ(atomReduce(ElemType::F32, RedOp::Sum, {f(1e8), f(1), f(-1e8)}),
            f(0));
  EXPECT_EQ(atomReduce(ElemType::F32, RedOp::Sum, {f(1e8), f(-1e8), f(1)}),
            f(1));
}

TEST(AtomReduce, AvgDividesTheFp32SumOnce) {
  auto b = [](double x) { return fromDouble(ElemType::BF16, x); };
  EXPECT_EQ(atomReduce(ElemType::BF16, RedOp::Avg, {b(1), b(2)}), b(1.5));
  float third = (1.0f + 2.0f + 4.0f) / 3.0f;
  EXPECT_EQ(atomReduce(ElemType::BF16, RedOp::Avg, {b(1), b(2), b(4)}),
            b(double(third)));
  EXPECT_EQ(atomReduce(ElemType::F8E4M3, RedOp::Avg,
                       {fromDouble(ElemType::F8E4M3, 448),
                        fromDouble(ElemType::F8E4M3, 448)}),
            fromDouble(ElemType::F8E4M3, 448))
      << "the FP32 accumulator does not overflow where E would";
}

TEST(AtomReduce, MaxMinZerosAndNaN) {
  auto f = [](double x) { return fromDouble(ElemType::F32, x); };
  uint32_t pz = 0, nz = 0x80000000u, nan = 0x7FC00000u;
  EXPECT_EQ(atomReduce(ElemType::F32, RedOp::Max, {nz, pz}), pz);
  EXPECT_EQ(atomReduce(ElemType::F32, RedOp::Max, {pz, nz}), pz);
  EXPECT_EQ(atomReduce(ElemType::F32, RedOp::Min, {pz, nz}), nz);
  EXPECT_EQ(atomReduce(ElemType::F32, RedOp::Min, {nz, pz}), nz);
  EXPECT_EQ(atomReduce(ElemType::F32, RedOp::Max, {nan, f(-3), f(2)}), f(2));
  EXPECT_EQ(atomReduce(ElemType::F32, RedOp::Min, {f(-3), nan, f(2)}), f(-3));
  EXPECT_EQ(atomReduce(ElemType::F32, RedOp::Max, {f(-7), f(5), f(-1)}), f(5));
  EXPECT_EQ(atomReduce(ElemType::F32, RedOp::Sum, {nz, nz, nz}), nz)
      << "-0.0 is the additive identity";
  EXPECT_EQ(atomReduce(ElemType::F32, RedOp::Sum, {nz, pz}), pz);
  uint32_t e4 = fromDouble(ElemType::F8E4M3, -2.5);
  EXPECT_EQ(atomReduce(ElemType::F8E4M3, RedOp::Sum, {e4}), e4);
}

//===----------------------------------------------------------------------===//
// Partition sizes
//===----------------------------------------------------------------------===//

TEST(PartitionSizes, SumToTotalForEveryShape) {
  for (Shape shape : {Shape::Uniform, Shape::Zipf, Shape::Skew})
    for (int n : {1, 2, 3, 5, 8, 16, 72})
      for (int64_t total : {0, 1, 7, 100, 1000, 8192, 12345, 1 << 20})
        for (uint64_t seed : {0ull, 1ull, 0xDEADBEEFull}) {
          std::vector<int64_t> v = partitionSizes(shape, n, total, seed);
          ASSERT_EQ(v.size(), size_t(n));
          EXPECT_EQ(std::accumulate(v.begin(), v.end(), int64_t(0)), total)
              << "shape " << int(shape) << " n " << n << " total " << total;
          EXPECT_TRUE(std::all_of(v.begin(), v.end(),
                                  [](int64_t x) { return x >= 0; }));
        }
}

TEST(PartitionSizes, UniformIsAsEqualAsPossible) {
  EXPECT_EQ(partitionSizes(Shape::Uniform, 3, 10, 0),
            (std::vector<int64_t>{4, 3, 3}));
  EXPECT_EQ(partitionSizes(Shape::Uniform, 4, 8, 0),
            (std::vector<int64_t>{2, 2, 2, 2}));
}

TEST(PartitionSizes, ZipfMatchesPurlinEquation4) {
  // T = 8192, W = 8: u = 128, 64 units, x_r = 64 (r+1)^-1/8 / sum = 9.41,
  // 8.63, 8.20, 7.91, 7.69, 7.52, 7.38, 7.26; floors take 60 units, the 4
  // largest fractions (ranks 3, 4, 1, 5) get one more.
  std::vector<int64_t> v = partitionSizes(Shape::Zipf, 8, 8192, 0);
  EXPECT_EQ(
      v, (std::vector<int64_t>{1152, 1152, 1024, 1024, 1024, 1024, 896, 896}));
  int64_t largest = *std::max_element(v.begin(), v.end());
  EXPECT_DOUBLE_EQ(double(largest) / (8192.0 / 8), 1.125);
  // Every partition is a multiple of the unit.
  for (int64_t x : v)
    EXPECT_EQ(x % 128, 0);
  // Not a multiple of the unit: the leftover goes to rank 0.
  std::vector<int64_t> odd = partitionSizes(Shape::Zipf, 8, 8192 + 5, 0);
  EXPECT_EQ(odd[0], v[0] + 5);
}

TEST(PartitionSizes, SkewIsExtremeAndSeeded) {
  std::set<int> hotRanks;
  for (uint64_t seed = 0; seed < 32; ++seed) {
    for (int n : {2, 3, 8, 72}) {
      std::vector<int64_t> v = partitionSizes(Shape::Skew, n, 1 << 16, seed);
      EXPECT_EQ(v, partitionSizes(Shape::Skew, n, 1 << 16, seed))
          << "deterministic in the seed";
      EXPECT_NE(std::count(v.begin(), v.end(), 0), 0) << "a zero partition";
      auto hot = std::max_element(v.begin(), v.end());
      EXPECT_GE(*hot, (1 << 16) - (1 << 16) / 8) << "nearly everything";
      int tinyOrZero =
          std::count_if(v.begin(), v.end(), [](int64_t x) { return x <= 3; });
      EXPECT_EQ(tinyOrZero, n - 1);
      if (n == 8)
        hotRanks.insert(int(hot - v.begin()));
    }
  }
  EXPECT_GT(hotRanks.size(), 1u) << "the seed picks the hot rank";
}

//===----------------------------------------------------------------------===//
// Call arguments
//===----------------------------------------------------------------------===//

TEST(MakeCallArgs, FixedSizeFillsCount) {
  CallArgs ag = makeCallArgs(one(kAllGather), 4, 0, Shape::Zipf, 5, 1);
  EXPECT_EQ(ag.n, 4);
  EXPECT_EQ(ag.sizes, std::vector<std::vector<int64_t>>(4, {5}));
  CallArgs rs = makeCallArgs(one(kReduceScatter), 3, 0, Shape::Skew, 7, 1);
  EXPECT_EQ(rs.sizes,
            std::vector<std::vector<int64_t>>(3, std::vector<int64_t>(3, 7)));
  CallArgs sc = makeCallArgs(one(kScatter), 3, 2, Shape::Uniform, 7, 1);
  EXPECT_EQ(sc.root, 2);
}

TEST(MakeCallArgs, PackedVariableIsPerRankContribution) {
  Transform agv = copyT(Layout::Packed, Layout::Scattered, Root::None, true);
  std::vector<int64_t> v = partitionSizes(Shape::Zipf, 5, 100 * 5, 9);
  CallArgs args = makeCallArgs(one(agv), 5, 0, Shape::Zipf, 100, 9);
  for (int p = 0; p < 5; ++p)
    EXPECT_EQ(args.sizes[p], std::vector<int64_t>{v[p]});
}

TEST(MakeCallArgs, ScatteredVariableReduceIsEqualAcrossProducers) {
  Transform rsv =
      reduceT(Layout::Scattered, Layout::Packed, RedOp::Sum, Root::None, true);
  std::vector<int64_t> v = partitionSizes(Shape::Skew, 4, 64 * 4, 3);
  // Keyed on parts[0]: an AllReduceV composition gets ReduceScatterV sizes.
  Transform agv = copyT(Layout::Packed, Layout::Scattered, Root::None, true);
  for (const Collective &coll : {one(rsv), two(rsv, agv)}) {
    CallArgs args = makeCallArgs(coll, 4, 0, Shape::Skew, 64, 3);
    for (int p = 0; p < 4; ++p)
      EXPECT_EQ(args.sizes[p], v);
  }
}

TEST(MakeCallArgs, ScatteredVariableCopyRotatesPerRank) {
  Transform a2av =
      copyT(Layout::Scattered, Layout::Transposed, Root::None, true);
  int n = 5;
  std::vector<int64_t> v = partitionSizes(Shape::Zipf, n, 40 * n, 4);
  CallArgs args = makeCallArgs(one(a2av), n, 0, Shape::Zipf, 40, 4);
  for (int p = 0; p < n; ++p)
    for (int k = 0; k < n; ++k)
      EXPECT_EQ(args.sizes[p][k], v[((k - p - 1) % n + n) % n]);
  // Every rank sends and receives count * n elements.
  for (int r = 0; r < n; ++r) {
    int64_t sent = 0, received = 0;
    for (int k = 0; k < n; ++k) {
      sent += args.sizes[r][k];
      received += args.sizes[k][r];
    }
    EXPECT_EQ(sent, 40 * n);
    EXPECT_EQ(received, 40 * n);
  }
}

//===----------------------------------------------------------------------===//
// Geometry
//===----------------------------------------------------------------------===//

std::vector<std::pair<int64_t, int64_t>> layout(const BufferGeometry &g) {
  std::vector<std::pair<int64_t, int64_t>> v;
  for (const Partition &p : g.parts)
    v.push_back({p.offset, p.size});
  return v;
}
using Pairs = std::vector<std::pair<int64_t, int64_t>>;

TEST(Geometry, AllToAllVAtThreeRanksByHand) {
  Collective a2av =
      one(copyT(Layout::Scattered, Layout::Transposed, Root::None, true));
  CallArgs args{3, 0, {{1, 2, 3}, {4, 0, 6}, {7, 8, 9}}};
  BufferGeometry in1 = inputGeometry(a2av, args, 0, 1);
  EXPECT_EQ(layout(in1), (Pairs{{0, 4}, {4, 0}, {4, 6}}));
  EXPECT_EQ(in1.total, 10);
  // Rank r receives partition r of every source, in source order.
  BufferGeometry out0 = outputGeometry(a2av, args, 0, 0);
  EXPECT_EQ(layout(out0), (Pairs{{0, 1}, {1, 4}, {5, 7}}));
  EXPECT_EQ(out0.total, 12);
  BufferGeometry out1 = outputGeometry(a2av, args, 0, 1);
  EXPECT_EQ(layout(out1), (Pairs{{0, 2}, {2, 0}, {2, 8}}));
  BufferGeometry out2 = outputGeometry(a2av, args, 0, 2);
  EXPECT_EQ(layout(out2), (Pairs{{0, 3}, {3, 6}, {9, 9}}));
  EXPECT_EQ(out2.total, 18);
}

TEST(Geometry, PackedOutputs) {
  CallArgs rsArgs{3, 0, {{2, 5, 1}, {2, 5, 1}, {2, 5, 1}}};
  EXPECT_EQ(layout(outputGeometry(one(kReduceScatter), rsArgs, 0, 1)),
            (Pairs{{0, 5}}));
  CallArgs scArgs{3, 1, {{9, 9, 9}, {3, 4, 6}, {9, 9, 9}}};
  EXPECT_EQ(layout(outputGeometry(one(kScatter), scArgs, 0, 2)),
            (Pairs{{0, 6}}))
      << "the root's partition r";
  Transform bcast1 = copyT(Layout::Packed, Layout::Packed, Root::Producer);
  CallArgs bcArgs{3, 2, {{1}, {1}, {11}}};
  EXPECT_EQ(layout(outputGeometry(one(bcast1), bcArgs, 0, 0)),
            (Pairs{{0, 11}}));
}

TEST(Geometry, CompositionDerivesPartOneFromPartZero) {
  // AllReduceV: ReduceScatterV then AllGatherV.
  Transform rsv =
      reduceT(Layout::Scattered, Layout::Packed, RedOp::Sum, Root::None, true);
  Transform agv = copyT(Layout::Packed, Layout::Scattered, Root::None, true);
  Collective arv = two(rsv, agv);
  CallArgs args{3, 0, {{4, 0, 2}, {4, 0, 2}, {4, 0, 2}}};
  EXPECT_EQ(partSizes(arv, args, 1),
            (std::vector<std::vector<int64_t>>{{4}, {0}, {2}}));
  EXPECT_EQ(layout(inputGeometry(arv, args, 1, 2)), (Pairs{{0, 2}}));
  for (int r = 0; r < 3; ++r)
    EXPECT_EQ(layout(outputGeometry(arv, args, 1, r)),
              (Pairs{{0, 4}, {4, 0}, {4, 2}}));
}

TEST(Geometry, RootedRoles) {
  Collective gather = one(kGather);
  CallArgs args = makeCallArgs(gather, 4, 2, Shape::Uniform, 3, 0);
  for (int r = 0; r < 4; ++r) {
    EXPECT_TRUE(isProducer(gather, args, 0, r));
    EXPECT_EQ(isConsumer(gather, args, 0, r), r == 2);
  }
  Collective scatter = one(kScatter);
  args = makeCallArgs(scatter, 4, 1, Shape::Uniform, 3, 0);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(isProducer(scatter, args, 0, r), r == 1);
    EXPECT_TRUE(isConsumer(scatter, args, 0, r));
  }
}

#if GTEST_HAS_DEATH_TEST && !defined(NDEBUG)
TEST(GeometryDeathTest, InvalidArgumentsAssert) {
  // A reduction needs equal partition sizes from every producer.
  CallArgs unequal{2, 0, {{1, 2}, {1, 3}}};
  EXPECT_DEATH(outputGeometry(one(kReduceScatter), unequal, 0, 1),
               "differ across producers");
  // Several producers cannot copy into one packed region.
  CallArgs args{2, 0, {{1, 1}, {1, 1}}};
  EXPECT_DEATH(
      outputGeometry(one(copyT(Layout::Scattered, Layout::Packed)), args, 0, 0),
      "root producer");
  // A sizes row must match the input layout.
  EXPECT_DEATH(inputGeometry(one(kAllGather), args, 0, 0), "sizes row");
}
#endif

//===----------------------------------------------------------------------===//
// Reference
//===----------------------------------------------------------------------===//

TEST(Reference, AllReduceIsTheElementwiseSumEverywhere) {
  Collective ar = two(kReduceScatter, kAllGather);
  for (ElemType type : kAllElemTypes) {
    CallArgs args = makeCallArgs(ar, 3, 0, Shape::Uniform, 4, 11);
    std::vector<Bits> in = inputsFor(ar, type, args, 11);
    ASSERT_EQ(in[0].size(), 12u);
    Outputs out = reference(ar, args, type, in);
    Bits sum = elementwiseSum(type, in);
    for (int r = 0; r < 3; ++r) {
      ASSERT_TRUE(out[r]) << elemName(type);
      EXPECT_EQ(*out[r], sum) << elemName(type) << " rank " << r;
    }
  }
}

TEST(Reference, OneShotAllReduce) {
  Collective oneShot = one(reduceT(Layout::Packed, Layout::Packed));
  CallArgs args = makeCallArgs(oneShot, 3, 0, Shape::Uniform, 10, 5);
  std::vector<Bits> in = inputsFor(oneShot, ElemType::BF16, args, 5);
  Outputs out = reference(oneShot, args, ElemType::BF16, in);
  Bits sum = elementwiseSum(ElemType::BF16, in);
  for (int r = 0; r < 3; ++r) {
    ASSERT_TRUE(out[r]);
    EXPECT_EQ(*out[r], sum);
  }
}

TEST(Reference, AllGatherConcatenatesInRankOrder) {
  Collective ag = one(kAllGather);
  CallArgs args = makeCallArgs(ag, 3, 0, Shape::Uniform, 4, 2);
  std::vector<Bits> in = inputsFor(ag, ElemType::F16, args, 2);
  Bits expected;
  for (const Bits &b : in)
    append(expected, b);
  Outputs out = reference(ag, args, ElemType::F16, in);
  for (int r = 0; r < 3; ++r) {
    ASSERT_TRUE(out[r]);
    EXPECT_EQ(*out[r], expected);
  }
}

TEST(Reference, AllToAllTransposes) {
  Collective a2a = one(kAllToAll);
  CallArgs args = makeCallArgs(a2a, 3, 0, Shape::Uniform, 2, 3);
  std::vector<Bits> in = inputsFor(a2a, ElemType::F32, args, 3);
  Outputs out = reference(a2a, args, ElemType::F32, in);
  for (int r = 0; r < 3; ++r) {
    Bits expected;
    for (int p = 0; p < 3; ++p)
      append(expected, slice(in[p], 2 * r, 2));
    ASSERT_TRUE(out[r]);
    EXPECT_EQ(*out[r], expected) << "rank " << r;
  }
}

TEST(Reference, AllToAllVWithEmptyPartitions) {
  Collective a2av =
      one(copyT(Layout::Scattered, Layout::Transposed, Root::None, true));
  CallArgs args{3, 0, {{1, 0, 2}, {0, 3, 1}, {2, 2, 0}}};
  std::vector<Bits> in = {{10, 11, 12}, {20, 21, 22, 23}, {30, 31, 32, 33}};
  Outputs out = reference(a2av, args, ElemType::F32, in);
  EXPECT_EQ(*out[0], (Bits{10, 30, 31}));
  EXPECT_EQ(*out[1], (Bits{20, 21, 22, 32, 33}));
  EXPECT_EQ(*out[2], (Bits{11, 12, 23}));
}

TEST(Reference, ScatterFromRootOne) {
  Collective sc = one(kScatter);
  CallArgs args = makeCallArgs(sc, 3, 1, Shape::Uniform, 3, 4);
  std::vector<Bits> in = inputsFor(sc, ElemType::BF16, args, 4);
  Outputs out = reference(sc, args, ElemType::BF16, in);
  for (int r = 0; r < 3; ++r) {
    ASSERT_TRUE(out[r]);
    EXPECT_EQ(*out[r], slice(in[1], 3 * r, 3)) << "rank " << r;
  }
}

TEST(Reference, GatherToRootTwo) {
  Collective ga = one(kGather);
  CallArgs args = makeCallArgs(ga, 3, 2, Shape::Uniform, 3, 6);
  std::vector<Bits> in = inputsFor(ga, ElemType::F8E4M3, args, 6);
  Outputs out = reference(ga, args, ElemType::F8E4M3, in);
  EXPECT_FALSE(out[0]);
  EXPECT_FALSE(out[1]);
  ASSERT_TRUE(out[2]);
  EXPECT_EQ(*out[2], (Bits{in[0][0], in[0][1], in[0][2], in[1][0], in[1][1],
                           in[1][2], in[2][0], in[2][1], in[2][2]}));
}

TEST(Reference, BroadcastIsScatterThenAllGather) {
  Collective bc = two(kScatter, kAllGather);
  for (int root = 0; root < 3; ++root) {
    CallArgs args = makeCallArgs(bc, 3, root, Shape::Uniform, 2, 7);
    std::vector<Bits> in = inputsFor(bc, ElemType::F32, args, 7);
    Outputs out = reference(bc, args, ElemType::F32, in);
    for (int r = 0; r < 3; ++r) {
      ASSERT_TRUE(out[r]);
      EXPECT_EQ(*out[r], in[root]) << "root " << root << " rank " << r;
    }
  }
}

TEST(Reference, OneShotBroadcast) {
  Collective bc = one(copyT(Layout::Packed, Layout::Packed, Root::Producer));
  CallArgs args = makeCallArgs(bc, 4, 3, Shape::Uniform, 5, 8);
  std::vector<Bits> in = inputsFor(bc, ElemType::F16, args, 8);
  Outputs out = reference(bc, args, ElemType::F16, in);
  for (int r = 0; r < 4; ++r)
    EXPECT_EQ(*out[r], in[3]);
}

TEST(Reference, ReduceIsReduceScatterThenGather) {
  Collective red = two(kReduceScatter, kGather);
  CallArgs args = makeCallArgs(red, 3, 1, Shape::Uniform, 3, 9);
  std::vector<Bits> in = inputsFor(red, ElemType::BF16, args, 9);
  Outputs out = reference(red, args, ElemType::BF16, in);
  EXPECT_FALSE(out[0]);
  EXPECT_FALSE(out[2]);
  ASSERT_TRUE(out[1]);
  EXPECT_EQ(*out[1], elementwiseSum(ElemType::BF16, in));
}

TEST(Reference, CopiesPreserveNaNAndNegativeZeroBits) {
  Collective ag = one(kAllGather);
  CallArgs args{3, 0, {{3}, {3}, {3}}};
  std::vector<Bits> f32 = {{0x7FC00001u, 0x80000000u, 0xFF800001u},
                           {0x7F800001u, 0x00000001u, 0xFFBADBADu},
                           {0x80000000u, 0x7FFFFFFEu, 0x3F800000u}};
  Bits all;
  for (const Bits &b : f32)
    append(all, b);
  Outputs out = reference(ag, args, ElemType::F32, f32);
  for (int r = 0; r < 3; ++r)
    EXPECT_EQ(*out[r], all);

  // bf16 through an AllToAll: signalling NaN, negative NaN, -0.0.
  Collective a2a = one(kAllToAll);
  CallArgs a2aArgs{2, 0, {{1, 1}, {1, 1}}};
  std::vector<Bits> bf16 = {{0x7F81u, 0x8000u}, {0xFFC1u, 0x8001u}};
  Outputs out2 = reference(a2a, a2aArgs, ElemType::BF16, bf16);
  EXPECT_EQ(*out2[0], (Bits{0x7F81u, 0xFFC1u}));
  EXPECT_EQ(*out2[1], (Bits{0x8000u, 0x8001u}));
}

TEST(Reference, AgreesWithTheAtomOnGeneratedData) {
  // The double reference and the FP32 Atom compute differently; on
  // randomInput's data they must round the same value, at any rank count.
  for (ElemType type : kAllElemTypes)
    for (RedOp op : {RedOp::Sum, RedOp::Max, RedOp::Min, RedOp::Avg})
      for (int n : {2, 3, 8, 72}) {
        Collective oneShot = one(reduceT(Layout::Packed, Layout::Packed, op));
        CallArgs args = makeCallArgs(oneShot, n, 0, Shape::Uniform, 64, n);
        std::vector<Bits> in = inputsFor(oneShot, type, args, n);
        Outputs out = reference(oneShot, args, type, in);
        for (int64_t i = 0; i < 64; ++i) {
          Bits column;
          for (int p = 0; p < n; ++p)
            column.push_back(in[p][i]);
          ASSERT_EQ((*out[0])[i], atomReduce(type, op, column))
              << elemName(type) << " op " << int(op) << " n " << n
              << " element " << i;
        }
      }
}

TEST(Reference, AvgOfGeneratedDataIsExact) {
  Collective avg = one(reduceT(Layout::Packed, Layout::Packed, RedOp::Avg));
  CallArgs args = makeCallArgs(avg, 3, 0, Shape::Uniform, 32, 1);
  std::vector<Bits> in = inputsFor(avg, ElemType::F8E5M2, args, 1);
  Outputs out = reference(avg, args, ElemType::F8E5M2, in);
  EXPECT_EQ(*out[0], in[0]) << "every rank contributes the mean itself";
}

//===----------------------------------------------------------------------===//
// randomInput
//===----------------------------------------------------------------------===//

TEST(RandomInput, CopiesGetAnyBitsButPoison) {
  Collective ag = one(kAllGather);
  for (ElemType type : kAllElemTypes) {
    Bits a = randomInput(ag, type, 20000, 42, 0);
    EXPECT_EQ(a, randomInput(ag, type, 20000, 42, 0)) << "deterministic";
    EXPECT_NE(a, randomInput(ag, type, 20000, 42, 1)) << "rank-dependent";
    EXPECT_NE(a, randomInput(ag, type, 20000, 43, 0)) << "seed-dependent";
    std::set<uint32_t> seen(a.begin(), a.end());
    EXPECT_FALSE(seen.count(poisonBits(type))) << elemName(type);
    for (uint32_t bits : a)
      ASSERT_EQ(bits & ~poisonBits(type), 0u) << "fits the type";
    bool sawNaN = std::any_of(a.begin(), a.end(), [&](uint32_t b) {
      return std::isnan(toDouble(type, b));
    });
    EXPECT_TRUE(sawNaN) << elemName(type);
    if (elemBits(type) == 8) {
      EXPECT_EQ(seen.size(), 255u) << "all 8-bit patterns but poison";
    }
  }
}

TEST(RandomInput, ReductionsGetSmallIntegers) {
  Collective rs = one(kReduceScatter);
  Bits a = randomInput(rs, ElemType::BF16, 5000, 7, 3);
  bool sawNegativeZero = false;
  std::set<double> values;
  for (uint32_t bits : a) {
    double x = toDouble(ElemType::BF16, bits);
    ASSERT_EQ(x, std::trunc(x));
    ASSERT_LE(std::fabs(x), 8.0);
    sawNegativeZero |= x == 0 && std::signbit(x);
    values.insert(x);
  }
  EXPECT_TRUE(sawNegativeZero);
  EXPECT_EQ(values.size(), 17u);
  EXPECT_NE(a, randomInput(rs, ElemType::BF16, 5000, 7, 4));
  // Avg: the same values at every rank.
  Collective avg = one(reduceT(Layout::Scattered, Layout::Packed, RedOp::Avg));
  EXPECT_EQ(randomInput(avg, ElemType::F16, 100, 7, 0),
            randomInput(avg, ElemType::F16, 100, 7, 5));
}

} // namespace
