//===- residual_allreduce.cu - A residual add fused with all-reduce -*- C++ -*-//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A fused residual-add + all-reduce through the collc device API
/// (docs/device-api.md), the tensor-parallel layer's epilogue: rank r adds
/// its residual to its partial h_r (bf16), writes the sum into its
/// registered window, and every CTA then reduces its element range over all
/// ranks' windows (one-shot: each rank reads every peer's, in rank order,
/// FP32 fold rounded once, so every rank gets the same bits) into the
/// output, with a barrier before the reads (the peers' sums are there) and
/// one after (no rank overwrites its window while a peer still reads it).
/// Out = sum over r of bf16(h_r + residual_r). Checked bit for bit against
/// the host's reference on fresh inputs each iteration, with the output
/// poisoned before; eager launches, then a CUDA graph replayed.
///
///   residual_allreduce [--module M.collcmod] [--devices 0,0] [--iterations 3]
///     [--stall RANK]: RANK never launches; the others must time out
///
//===----------------------------------------------------------------------===//

#include "collc/device/api.cuh"

#include <cuda_bf16.h>

namespace {
constexpr int kCtas = 16, kThreads = 512;
/// Slots: the first barrier of CTA b on b, the second on kCtas + b.
static_assert(2 * kCtas <= COLLC_DEVICE_SIGNAL_SLOTS, "two slots per CTA");
} // namespace

/// `elems` bf16 (a multiple of 8, so every CTA's range stays 16-byte
/// aligned) of h and residual; the window holds this rank's sums.
extern "C" __global__ void __launch_bounds__(kThreads)
    residual_allreduce(collcDeviceComm comm, const __nv_bfloat16 *h,
                       const __nv_bfloat16 *residual, __nv_bfloat16 *out,
                       size_t elems) {
  namespace dev = collc::dev;
  // This CTA's range, in whole 8-element (16-byte) groups.
  const size_t groups = elems / 8, per = (groups + kCtas - 1) / kCtas;
  const size_t lo = min(groups, per * blockIdx.x) * 8,
               hi = min(groups, per * (blockIdx.x + 1)) * 8;
  __nv_bfloat16 *mine = dev::peer_ptr<__nv_bfloat16>(comm, comm.rank, 0);
  for (size_t i = lo + threadIdx.x; i < hi; i += blockDim.x)
    mine[i] = __float2bfloat16(__bfloat162float(h[i]) +
                               __bfloat162float(residual[i]));
  if (!dev::barrier_cta(comm, blockIdx.x))
    return; // timed out: collcCommGetAsyncError says who and where
  dev::reduce_peers_cta<__nv_bfloat16>(out + lo, comm,
                                       lo * sizeof(__nv_bfloat16), hi - lo);
  dev::barrier_cta(comm, kCtas + blockIdx.x);
}

#if !defined(__CUDACC_RTC__)
#include "example.h"

#include <cstdint>

namespace {
float bf16ToFloat(uint16_t b) {
  uint32_t w = (uint32_t)b << 16;
  float f;
  std::memcpy(&f, &w, 4);
  return f;
}
/// Round to nearest even (the inputs are finite).
uint16_t floatToBf16(float f) {
  uint32_t w;
  std::memcpy(&w, &f, 4);
  w += 0x7FFF + ((w >> 16) & 1);
  return (uint16_t)(w >> 16);
}
} // namespace

int main(int argc, char **argv) {
  const char *usage = "usage: residual_allreduce [--module M.collcmod] "
                      "[--devices 0,0] [--iterations 3] [--stall RANK]\n";
  example::Options o = example::parse(argc, argv, usage);
  const int n = (int)o.devices.size();
  const size_t elems = 1 << 20, bytes = elems * 2; // 2 MiB of bf16 per rank
  example::Ranks ranks(o, bytes);
  std::vector<__nv_bfloat16 *> dH(n), dRes(n), dOut(n);
  for (int r = 0; r < n; ++r) {
    CUDA_OK(cudaSetDevice(o.devices[r]));
    for (auto *p : {&dH[r], &dRes[r], &dOut[r]})
      CUDA_OK(cudaMalloc(p, bytes));
  }
  std::vector<std::vector<uint16_t>> hH(n, std::vector<uint16_t>(elems)),
      hRes(n, std::vector<uint16_t>(elems));
  std::vector<uint16_t> want(elems), got(elems);
  int failures = 0, checks = 0;

  auto prepare = [&](int it) {
    for (int r = 0; r < n; ++r) {
      example::Random rng(31 * (r + 1) + it);
      for (size_t i = 0; i < elems; ++i) {
        hH[r][i] = floatToBf16((float)rng.next(-8, 8));
        hRes[r][i] = floatToBf16((float)rng.next(-8, 8));
      }
      CUDA_OK(cudaSetDevice(o.devices[r]));
      CUDA_OK(cudaMemcpy(dH[r], hH[r].data(), bytes, cudaMemcpyHostToDevice));
      CUDA_OK(cudaMemcpy(dRes[r], hRes[r].data(), bytes, cudaMemcpyHostToDevice));
      CUDA_OK(cudaMemset(dOut[r], 0xFF, bytes)); // NaN: an unwritten element fails
    }
    // The definition: the ranks' rounded sums added in rank order in FP32,
    // rounded once.
    for (size_t i = 0; i < elems; ++i) {
      float acc = 0.f;
      for (int r = 0; r < n; ++r) {
        const float y = bf16ToFloat(floatToBf16(bf16ToFloat(hH[r][i]) +
                                                bf16ToFloat(hRes[r][i])));
        acc = r == 0 ? y : acc + y;
      }
      want[i] = floatToBf16(acc);
    }
  };
  auto check = [&](const char *how, int it) {
    for (int r = 0; r < n; ++r) {
      CUDA_OK(cudaSetDevice(o.devices[r]));
      CUDA_OK(cudaMemcpy(got.data(), dOut[r], bytes, cudaMemcpyDeviceToHost));
      size_t wrong = 0, first = 0;
      for (size_t i = 0; i < elems; ++i)
        if (got[i] != want[i] && wrong++ == 0)
          first = i;
      ++checks;
      if (wrong) {
        ++failures;
        std::printf("FAIL %s iteration %d rank %d: %zu of %zu elements wrong "
                    "(first at %zu: %g, expected %g)\n", how, it, r, wrong,
                    elems, first, bf16ToFloat(got[first]),
                    bf16ToFloat(want[first]));
      }
    }
  };
  auto launch = [&](int r) {
    residual_allreduce<<<kCtas, kThreads, 0, ranks.streams[r]>>>(
        ranks.dev[r], dH[r], dRes[r], dOut[r], elems);
    CUDA_OK(cudaGetLastError());
  };

  if (o.stall >= 0) {
    prepare(0);
    return ranks.stall(o.stall, launch);
  }
  ranks.rounds(o.iterations, prepare, launch, check);
  // Timing (information, not a claim): 20 eager calls back to back per rank.
  std::vector<cudaEvent_t> t0(n), t1(n);
  for (int r = 0; r < n; ++r) {
    CUDA_OK(cudaSetDevice(o.devices[r]));
    CUDA_OK(cudaEventCreate(&t0[r]));
    CUDA_OK(cudaEventCreate(&t1[r]));
    CUDA_OK(cudaEventRecord(t0[r], ranks.streams[r]));
  }
  for (int k = 0; k < 20; ++k)
    ranks.launchAll(launch);
  for (int r = 0; r < n; ++r) {
    CUDA_OK(cudaSetDevice(o.devices[r]));
    CUDA_OK(cudaEventRecord(t1[r], ranks.streams[r]));
  }
  ranks.finish();
  float slowest = 0.f;
  for (int r = 0; r < n; ++r) {
    float ms = 0.f;
    CUDA_OK(cudaEventElapsedTime(&ms, t0[r], t1[r]));
    slowest = ms > slowest ? ms : slowest;
    CUDA_OK(cudaEventDestroy(t0[r]));
    CUDA_OK(cudaEventDestroy(t1[r]));
  }
  for (int r = 0; r < n; ++r) {
    CUDA_OK(cudaSetDevice(o.devices[r]));
    for (auto *p : {dH[r], dRes[r], dOut[r]})
      CUDA_OK(cudaFree(p));
  }
  std::printf("residual_allreduce: %s", ranks.layout().c_str());
  std::printf(", %zu bf16 per rank: %d of %d rank results right (eager and "
              "CUDA graph, %d iterations each); %.2f us a call (20 eager "
              "calls, the slowest rank)\n",
              elems, checks - failures, checks, o.iterations,
              slowest * 1000.f / 20);
  return failures ? 1 : 0;
}
#endif
