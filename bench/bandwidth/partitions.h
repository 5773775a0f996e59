//===- partitions.h - Purlin's Zipf split of a _v call -----------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// How the measurer splits a _v collective's S bytes among n ranks the way
/// Purlin's variable-length benchmark does (its equation 4, appendix C.4), so
/// that collc and the baselines move the same partitions. No CUDA: the unit
/// tests include it (test/unit/bench).
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_BENCH_PARTITIONS_H
#define COLLC_BENCH_PARTITIONS_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

/// Equation 4's unit for S bytes at n ranks, u = max(128, S / 8n): here 128
/// bytes times the largest power of two with u 8n <= S, so that every S
/// rounds down to whole units of its own unit (zipfSnapBytes).
inline size_t zipfUnitBytes(size_t bytes, int n) {
  size_t u = 128;
  while (2 * u * 8 * size_t(n) <= bytes)
    u *= 2;
  return u;
}

/// S rounded down to whole units, at least one: the unit of the result is
/// the unit of `bytes` (at or above 8 n u the result stays there).
inline size_t zipfSnapBytes(size_t bytes, int n) {
  const size_t u = zipfUnitBytes(bytes, n);
  return std::max(u, bytes / u * u);
}

/// Equation 4 (exponent s = 0.125): x_q = (S / u) (q + 1)^-s / sum_k
/// (k + 1)^-s units; rank q gets floor(x_q) units, and the units left over
/// go one each to the largest fractional parts, ties toward lower ranks.
/// Bytes per rank; S must be whole units (zipfSnapBytes).
inline std::vector<size_t> zipfSplit(size_t bytes, int n) {
  const double s = 0.125;
  const size_t u = zipfUnitBytes(bytes, n), units = bytes / u;
  double norm = 0;
  for (int q = 0; q < n; ++q)
    norm += std::pow(double(q + 1), -s);
  std::vector<double> x(n);
  std::vector<size_t> c(n);
  size_t given = 0;
  for (int q = 0; q < n; ++q) {
    x[q] = double(units) * std::pow(double(q + 1), -s) / norm;
    c[q] = size_t(std::floor(x[q]));
    given += c[q];
  }
  std::vector<int> order(n);
  for (int q = 0; q < n; ++q)
    order[q] = q;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return x[a] - std::floor(x[a]) > x[b] - std::floor(x[b]);
  });
  for (int i = 0; given < units; ++i, ++given)
    ++c[order[i % n]];
  for (size_t &e : c)
    e *= u;
  return c;
}

#endif // COLLC_BENCH_PARTITIONS_H
