//===- ModelInternal.h - helpers shared by the Sim model files --*- C++ -*-===//
//
// Not installed: the checks and the generator that Geometry.cpp, Shapes.cpp
// and Reference.cpp share.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_LIB_SIM_MODELINTERNAL_H
#define COLLC_LIB_SIM_MODELINTERNAL_H

#include "collc/Sim/Model.h"

#include <cmath>
#include <cstdint>

namespace collc::sim::detail {

/// Partitions of a buffer in `layout` among n ranks: 1 for packed, n for the
/// rank-indexed layouts.
inline int numPartitions(Layout layout, int n) {
  return layout == Layout::Packed ? 1 : n;
}

/// Whether `x` replaces the accumulator `acc` of a max (min): the
/// maximumNumber (minimumNumber) order, in which a NaN loses to any number
/// and -0.0 < +0.0, so the result does not depend on the order of
/// contributions. Shared by the FP32 Atom and the double reference.
template <typename FloatT>
bool beats(RedOp op, FloatT x, FloatT acc) {
  if (std::isnan(x))
    return false;
  if (std::isnan(acc))
    return true;
  if (x == acc) // Equal numbers, or zeros of either sign.
    return std::signbit(x) != std::signbit(acc) &&
           std::signbit(x) == (op == RedOp::Min);
  return op == RedOp::Max ? x > acc : x < acc;
}

/// Asserts that `coll` is one supported transform or a well-formed
/// composition of two (see Transform's documentation).
void checkCollective(const Collective &coll);

/// Asserts that `args` fits `coll`: n >= 1, sizes is n rows of
/// numPartitions(parts[0].in, n) non-negative entries, and the root is a rank
/// when some part is rooted.
void checkArgs(const Collective &coll, const CallArgs &args);

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast and fully specified, so
/// the generated sizes and data are the same with every standard library
/// (std::uniform_int_distribution is not).
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, bound) up to a bias of bound / 2^64, irrelevant here.
  uint64_t below(uint64_t bound) { return next() % bound; }

private:
  uint64_t state;
};

/// Derives an independent stream's seed from (seed, stream).
inline uint64_t mixSeed(uint64_t seed, uint64_t stream) {
  SplitMix64 rng(seed ^ (stream * 0xD1B54A32D192ED03ull));
  return rng.next();
}

} // namespace collc::sim::detail

#endif // COLLC_LIB_SIM_MODELINTERNAL_H
