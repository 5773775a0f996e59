//===- matmul_allgather.cu - A matmul whose tiles go to every rank -*- C++ -*-//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A fused matmul + all-gather through the collc device API
/// (docs/device-api.md): rank r holds the row block A_r (M x K) and B
/// (K x N); each CTA computes one 32 x 32 tile of C_r = A_r B and stores it
/// straight into every rank's registered C (nranks*M x N, rows of rank r at
/// r*M), then signals every peer on its tile's slot and waits for theirs.
/// When the kernel ends, every rank holds C = [A_0; ...; A_{n-1}] B: no
/// separate all-gather, no staging copy, the tile leaves the SMs once per
/// peer. Checked exactly against the host product (small integers, so float
/// sums are exact) on fresh inputs each iteration, with C poisoned before;
/// eager launches, then a CUDA graph replayed.
///
///   matmul_allgather [--module M.collcmod] [--devices 0,0] [--iterations 3]
///     [--stall RANK]: RANK never launches; the others must time out
///
/// Readiness: slot = the tile's CTA index (at most COLLC_DEVICE_SIGNAL_SLOTS
/// tiles: M/32 * N/32 <= 64); the counted signals make a relaunch (and a
/// graph replay) pair up with the next signals, no epoch from the host.
///
//===----------------------------------------------------------------------===//

#include "collc/device/api.cuh"

namespace {
constexpr int kTile = 32;
constexpr int kM = 128, kN = 256, kK = 64; // 4 x 8 = 32 tiles per rank
} // namespace

/// One CTA of 32 x 32 threads per tile of C_r; A is M x K, B is K x N, row
/// major; C's window is nranks*M x N floats on every rank.
extern "C" __global__ void __launch_bounds__(kTile *kTile)
    matmul_allgather(collcDeviceComm comm, const float *a, const float *b) {
  const int tilesN = kN / kTile;
  const int row = (blockIdx.x / tilesN) * kTile + threadIdx.y;
  const int col = (blockIdx.x % tilesN) * kTile + threadIdx.x;
  float acc = 0.f;
  for (int k = 0; k < kK; ++k)
    acc += a[row * kK + k] * b[k * kN + col];
  // Push: this element into every rank's C (its own included).
  const size_t at = ((size_t)comm.rank * kM + row) * kN + col;
  for (int p = 0; p < comm.nranks; ++p)
    collc::dev::peer_ptr<float>(comm, p, 0)[at] = acc;
  // Every peer's tile with this index has landed once its signal arrived.
  if (!collc::dev::barrier_cta(comm, blockIdx.x))
    return; // timed out: collcCommGetAsyncError says who and where
}

#if !defined(__CUDACC_RTC__)
#include "example.h"

#include <cmath>

int main(int argc, char **argv) {
  const char *usage = "usage: matmul_allgather [--module M.collcmod] "
                      "[--devices 0,0] [--iterations 3] [--stall RANK]\n";
  example::Options o = example::parse(argc, argv, usage);
  const int n = (int)o.devices.size(), tiles = (kM / kTile) * (kN / kTile);
  static_assert((kM / kTile) * (kN / kTile) <= COLLC_DEVICE_SIGNAL_SLOTS,
                "a slot per tile");
  const size_t cElems = (size_t)n * kM * kN, cBytes = cElems * sizeof(float);
  example::Ranks ranks(o, cBytes);
  std::vector<float *> dA(n), dB(n);
  for (int r = 0; r < n; ++r) {
    CUDA_OK(cudaSetDevice(o.devices[r]));
    CUDA_OK(cudaMalloc(&dA[r], kM * kK * sizeof(float)));
    CUDA_OK(cudaMalloc(&dB[r], kK * kN * sizeof(float)));
  }
  std::vector<std::vector<float>> hA(n, std::vector<float>(kM * kK));
  std::vector<float> hB(kK * kN), got(cElems);
  int failures = 0, checks = 0;

  // One iteration's inputs, poisoned outputs, and the check after.
  auto prepare = [&](int it) {
    example::Random rng(1000 + it);
    for (float &x : hB)
      x = (float)rng.next(-3, 3);
    for (int r = 0; r < n; ++r) {
      example::Random rr(77 * (r + 1) + it);
      for (float &x : hA[r])
        x = (float)rr.next(-4, 4);
      CUDA_OK(cudaSetDevice(o.devices[r]));
      CUDA_OK(cudaMemcpy(dA[r], hA[r].data(), kM * kK * 4, cudaMemcpyHostToDevice));
      CUDA_OK(cudaMemcpy(dB[r], hB.data(), kK * kN * 4, cudaMemcpyHostToDevice));
      CUDA_OK(cudaMemset(ranks.windows[r], 0xFF, cBytes)); // NaN everywhere
    }
  };
  auto check = [&](const char *how, int it) {
    for (int r = 0; r < n; ++r) {
      CUDA_OK(cudaSetDevice(o.devices[r]));
      CUDA_OK(cudaMemcpy(got.data(), ranks.windows[r], cBytes, cudaMemcpyDeviceToHost));
      size_t wrong = 0, first = 0;
      for (int q = 0; q < n; ++q)
        for (int i = 0; i < kM; ++i)
          for (int j = 0; j < kN; ++j) {
            double want = 0;
            for (int k = 0; k < kK; ++k)
              want += (double)hA[q][i * kK + k] * hB[k * kN + j];
            const size_t at = ((size_t)q * kM + i) * kN + j;
            if (!(got[at] == (float)want) && wrong++ == 0)
              first = at;
          }
      ++checks;
      if (wrong) {
        ++failures;
        std::printf("FAIL %s iteration %d rank %d: %zu of %zu elements wrong "
                    "(first at %zu: %g)\n", how, it, r, wrong, cElems, first,
                    got[first]);
      }
    }
  };
  auto launch = [&](int r) {
    matmul_allgather<<<tiles, dim3(kTile, kTile), 0, ranks.streams[r]>>>(
        ranks.dev[r], dA[r], dB[r]);
    CUDA_OK(cudaGetLastError());
  };

  if (o.stall >= 0) {
    prepare(0);
    return ranks.stall(o.stall, launch);
  }
  ranks.rounds(o.iterations, prepare, launch, check);
  for (int r = 0; r < n; ++r) {
    CUDA_OK(cudaSetDevice(o.devices[r]));
    CUDA_OK(cudaFree(dA[r]));
    CUDA_OK(cudaFree(dB[r]));
  }
  std::printf("matmul_allgather: %s", ranks.layout().c_str());
  std::printf(", C %d x %d float per rank: %d of %d rank results right "
              "(eager and CUDA graph, %d iterations each)\n",
              n * kM, kN, checks - failures, checks, o.iterations);
  return failures ? 1 : 0;
}
#endif
