//===- copy_kernel.h - the copy baseline of the bandwidth bench -*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// The reference of issue 11's "at least 60% of a plain vectorized
// device-to-device copy with the same number of CTAs" (copy_kernel.cu), and
// the pattern its source is filled with, so the host can check the copy.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_BENCH_BANDWIDTH_COPY_KERNEL_H
#define COLLC_BENCH_BANDWIDTH_COPY_KERNEL_H

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#ifdef __CUDACC__
#define COLLC_BW_HD __host__ __device__
#else
#define COLLC_BW_HD
#endif

namespace collc::bench {

/// The fill pattern: 32-bit word i of a copy source (a mix of i and seed).
COLLC_BW_HD inline uint32_t copyPattern(uint64_t i, uint32_t seed) {
  uint64_t x = i * 0x9E3779B97F4A7C15ull + seed;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return static_cast<uint32_t>(x);
}

/// Launches the copy of `bytes` (a multiple of 16, 16-byte aligned
/// buffers) from `src` to `dst` on `stream`: `ctas` CTAs of `threads`
/// threads, each thread 16-byte vectors, kCopyUnroll loads in flight.
cudaError_t launchCopy(void *dst, const void *src, size_t bytes, int ctas,
                       int threads, cudaStream_t stream);

/// Fills `words` 32-bit words at `dst` with copyPattern(i, seed).
cudaError_t launchFill(uint32_t *dst, size_t words, uint32_t seed,
                       cudaStream_t stream);

/// Loads in flight per thread of the copy (16 bytes each).
constexpr int kCopyUnroll = 8;

} // namespace collc::bench

#endif // COLLC_BENCH_BANDWIDTH_COPY_KERNEL_H
