//===- checked.h - Overflow-checked arithmetic on counts --------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The argument limits of a call and the one place where arithmetic on
/// user counts is done. Counts arrive as size_t, but the kernel ABI carries
/// sizes as signed 64-bit (abi.h), so every product and sum is computed
/// exactly (mixed signed and unsigned operands included) and refused when
/// it does not fit a long long: a count near 2^64 must never wrap into a
/// small or negative size. Header-only, so the unit tests call it directly.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_RUNTIME_SRC_CHECKED_H
#define COLLC_RUNTIME_SRC_CHECKED_H

#include <cstddef>

namespace collc {

/// The most elements one partition of a call may hold (docs/runtime.md,
/// "Argument limits"): NCCL's count, sendcount and recvcount, and every
/// entry of a V call's counts.
constexpr unsigned long long kMaxPartitionElems = 1ull << 40;
constexpr const char *kMaxPartitionText = "2^40 = 1099511627776";

/// out = a + b and out = a * b, false when the exact result is not a long
/// long (out is then unspecified).
template <typename A, typename B>
bool checkedAdd(A a, B b, long long &out) {
  return !__builtin_add_overflow(a, b, &out);
}
template <typename A, typename B>
bool checkedMul(A a, B b, long long &out) {
  return !__builtin_mul_overflow(a, b, &out);
}

/// out = the sum of counts[0, n), false when it does not fit.
inline bool checkedSum(const size_t *counts, int n, long long &out) {
  out = 0;
  for (int i = 0; i < n; ++i)
    if (!checkedAdd(out, counts[i], out))
      return false;
  return true;
}

} // namespace collc

#endif // COLLC_RUNTIME_SRC_CHECKED_H
