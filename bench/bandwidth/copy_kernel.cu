//===- copy_kernel.cu - a plain vectorized device-to-device copy ----------===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// The bandwidth bench's baseline (issue 11): the register copy of
// bench/atom/atom_throughput.cu's kind, without the Atom. Every thread moves
// 16-byte vectors, kCopyUnroll loads issued before the first store (8 x 16
// bytes in flight per thread, 64 KiB per 512-thread CTA), the CTAs striding
// over tiles of threads x kCopyUnroll vectors; loads of one unrolled step
// are coalesced across the CTA (vector u of a tile at u x threads + thread).
//
//===----------------------------------------------------------------------===//

#include "copy_kernel.h"

namespace collc::bench {
namespace {

__global__ void __launch_bounds__(1024)
    copyKernel(uint4 *__restrict__ dst, const uint4 *__restrict__ src,
               size_t n16) {
  const size_t threads = blockDim.x;
  const size_t tile = threads * kCopyUnroll;
  for (size_t base = (size_t)blockIdx.x * tile; base < n16;
       base += (size_t)gridDim.x * tile) {
    uint4 v[kCopyUnroll];
    const size_t at = base + threadIdx.x;
    if (base + tile <= n16) {
#pragma unroll
      for (int u = 0; u < kCopyUnroll; ++u)
        v[u] = src[at + u * threads];
#pragma unroll
      for (int u = 0; u < kCopyUnroll; ++u)
        dst[at + u * threads] = v[u];
    } else { // the last, partial tile
#pragma unroll
      for (int u = 0; u < kCopyUnroll; ++u)
        if (at + u * threads < n16)
          v[u] = src[at + u * threads];
#pragma unroll
      for (int u = 0; u < kCopyUnroll; ++u)
        if (at + u * threads < n16)
          dst[at + u * threads] = v[u];
    }
  }
}

__global__ void fillKernel(uint32_t *dst, size_t words, uint32_t seed) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words;
       i += (size_t)gridDim.x * blockDim.x)
    dst[i] = copyPattern(i, seed);
}

} // namespace

cudaError_t launchCopy(void *dst, const void *src, size_t bytes, int ctas,
                       int threads, cudaStream_t stream) {
  copyKernel<<<ctas, threads, 0, stream>>>(
      static_cast<uint4 *>(dst), static_cast<const uint4 *>(src), bytes / 16);
  return cudaGetLastError();
}

cudaError_t launchFill(uint32_t *dst, size_t words, uint32_t seed,
                       cudaStream_t stream) {
  fillKernel<<<1024, 256, 0, stream>>>(dst, words, seed);
  return cudaGetLastError();
}

} // namespace collc::bench
