//===- Shapes.cpp - partition sizes and call arguments --------------------===//
//
// Size shapes for the *_v collectives and the mapping from a shape to the
// sizes matrix of one call. The mapping looks at layouts and the consume op
// only, so a new collective gets sizes without touching this file.
//
//===----------------------------------------------------------------------===//

#include "ModelInternal.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>

using namespace collc::sim;
using namespace collc::sim::detail;

/// As equal as possible; the lowest ranks take the remainder.
static std::vector<int64_t> uniformSizes(int n, int64_t total) {
  std::vector<int64_t> sizes(n, total / n);
  for (int64_t r = 0; r < total % n; ++r)
    ++sizes[r];
  return sizes;
}

/// Purlin equation (4): a Zipf split in units of u elements.
static std::vector<int64_t> zipfSizes(int n, int64_t total) {
  constexpr double s = 0.125;
  // Purlin uses u = max(128 bytes, T/(8W)); in elements the floor is 1 so
  // that small totals still split (and stay exact).
  int64_t unit = std::max<int64_t>(1, total / (8 * int64_t(n)));
  int64_t units = total / unit;

  std::vector<double> weights(n);
  for (int r = 0; r < n; ++r)
    weights[r] = std::pow(double(r + 1), -s);
  // Sum in rank order so the result is the same on every run.
  double weightSum = std::accumulate(weights.begin(), weights.end(), 0.0);

  std::vector<int64_t> whole(n);
  std::vector<double> fraction(n);
  int64_t assigned = 0;
  for (int r = 0; r < n; ++r) {
    double x = double(units) * weights[r] / weightSum;
    whole[r] = static_cast<int64_t>(std::floor(x));
    fraction[r] = x - double(whole[r]);
    assigned += whole[r];
  }
  assert(assigned <= units && "floors exceed the units");

  // delta_r: the remaining units by descending fractional part, ties to the
  // lower rank (stable sort keeps rank order among equal fractions).
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return fraction[a] > fraction[b]; });
  for (int64_t i = 0; i < units - assigned; ++i)
    ++whole[order[i % n]];

  std::vector<int64_t> sizes(n);
  for (int r = 0; r < n; ++r)
    sizes[r] = whole[r] * unit;
  // Fewer than `unit` elements are left when unit does not divide total;
  // rank 0 already has the largest partition, so the shape is unchanged.
  sizes[0] += total - units * unit;
  return sizes;
}

/// Extreme imbalance: a hot rank with nearly everything, a cold rank with
/// nothing, the rest 0..3 elements each within a budget of total/8.
static std::vector<int64_t> skewSizes(int n, int64_t total, uint64_t seed) {
  std::vector<int64_t> sizes(n, 0);
  if (n == 1) {
    sizes[0] = total;
    return sizes;
  }
  SplitMix64 rng(mixSeed(seed, /*stream=*/0x5E3));
  int hot = static_cast<int>(rng.below(n));
  int cold = static_cast<int>((hot + 1 + rng.below(n - 1)) % n);
  int64_t budget = total / 8;
  for (int r = 0; r < n; ++r) {
    if (r == hot || r == cold)
      continue;
    int64_t tiny =
        std::min<int64_t>(static_cast<int64_t>(rng.below(4)), budget);
    sizes[r] = tiny;
    budget -= tiny;
  }
  int64_t rest = total;
  for (int64_t size : sizes)
    rest -= size;
  sizes[hot] = rest;
  return sizes;
}

std::vector<int64_t> collc::sim::partitionSizes(Shape shape, int n,
                                                int64_t total, uint64_t seed) {
  assert(n >= 1 && "need at least one rank");
  assert(total >= 0 && "negative total");
  switch (shape) {
  case Shape::Uniform:
    return uniformSizes(n, total);
  case Shape::Zipf:
    return zipfSizes(n, total);
  case Shape::Skew:
    return skewSizes(n, total, seed);
  }
  assert(false && "unknown shape");
  return {};
}

CallArgs collc::sim::makeCallArgs(const Collective &coll, int n, int root,
                                  Shape shape, int64_t count, uint64_t seed) {
  checkCollective(coll);
  assert(n >= 1 && "need at least one rank");
  assert(count >= 0 && "negative count");
  const Transform &first = coll.parts[0];
  int width = numPartitions(first.in, n);

  CallArgs args;
  args.n = n;
  args.root = root;
  args.sizes.assign(n, std::vector<int64_t>(width, count));
  if (!first.variable)
    return args;

  std::vector<int64_t> v = partitionSizes(shape, n, count * n, seed);
  for (int p = 0; p < n; ++p) {
    for (int k = 0; k < width; ++k) {
      if (first.in == Layout::Packed)
        args.sizes[p][k] = v[p]; // Rank p contributes v[p] (AllGatherV).
      else if (first.consume == Consume::Reduce)
        args.sizes[p][k] = v[k]; // Every producer's partition k is v[k].
      else
        // Rotated right by p + 1 (Purlin C.4).
        args.sizes[p][k] = v[((k - p - 1) % n + n) % n];
    }
  }
  return args;
}
