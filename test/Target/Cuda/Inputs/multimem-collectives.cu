// The in-switch collective steps (collc/device/sm90/
// multimem_collectives_sm90.cuh) in the kernels the multimem programs will
// be: AllReduce (two barriers around the switch's reduce-to-all of this
// rank's shard), ReduceScatter and AllGather, for f32, bf16 and f16. Only
// compiled (multimem.test: NVRTC, ptxas), NEVER run on this project's
// GPU machines.
#include "collc/device/sm90/multimem_collectives_sm90.cuh"

using namespace collc::dev;

namespace {

/// The CTA's barrier over the ranks: every rank's CTA `blockIdx.x` arrives
/// on its counter (one per CTA), then waits for `target` arrivals.
__device__ bool barrier(u64 *countersMc, const u64 *counters, u64 target,
                        unsigned long long timeoutNs, u64 *error) {
  __syncthreads();
  int ok = 1;
  if (threadIdx.x == 0) {
    mc_arrive(countersMc + blockIdx.x);
    u64 seen = 0;
    ok = mc_wait_arrivals(counters + blockIdx.x, target, timeoutNs, &seen);
    if (!ok)
      atomicCAS(reinterpret_cast<unsigned long long *>(error), 0ull, seen + 1);
  }
  return __syncthreads_and(ok) != 0;
}

/// This CTA's share of `vectors` 16-byte vectors of this rank's shard.
__device__ void shard(size_t vectors, int rank, int nranks, size_t &begin,
                      size_t &end) {
  const size_t per = (vectors + nranks - 1) / nranks;
  const size_t lo = per * rank, hi = per * (rank + 1) < vectors
                                         ? per * (rank + 1)
                                         : vectors;
  const size_t cta = (hi - lo + gridDim.x - 1) / gridDim.x;
  begin = lo + cta * blockIdx.x;
  end = begin + cta < hi ? begin + cta : hi;
  if (begin > end)
    begin = end;
}

/// A call's step between its two barriers (every rank's input written;
/// no rank returns while a peer still reads or writes through the switch):
/// the arrivals are counted over calls, two per call.
template <typename Step>
__device__ void between_barriers(u64 *countersMc, const u64 *counters,
                                 u64 call, int nranks,
                                 unsigned long long timeoutNs, u64 *error,
                                 Step &&step) {
  if (!barrier(countersMc, counters, (2 * call + 1) * nranks, timeoutNs,
               error))
    return;
  step();
  barrier(countersMc, counters, (2 * call + 2) * nranks, timeoutNs, error);
}

template <MultimemType T>
__device__ void all_reduce(const uint4 *inMc, uint4 *outMc, u64 *countersMc,
                           const u64 *counters, u64 call, int rank,
                           int nranks, size_t vectors,
                           unsigned long long timeoutNs, u64 *error) {
  between_barriers(countersMc, counters, call, nranks, timeoutNs, error, [&] {
    size_t begin, end;
    shard(vectors, rank, nranks, begin, end);
    mc_reduce_to_all<T>(inMc, outMc, begin, end, threadIdx.x, blockDim.x);
  });
}

template <MultimemType T>
__device__ void reduce_scatter(const uint4 *inMc, uint4 *out, u64 *countersMc,
                               const u64 *counters, u64 call, int rank,
                               int nranks, size_t vectors,
                               unsigned long long timeoutNs, u64 *error) {
  between_barriers(countersMc, counters, call, nranks, timeoutNs, error, [&] {
    size_t begin, end;
    shard(vectors, rank, nranks, begin, end);
    const size_t first = (vectors + nranks - 1) / nranks * rank;
    mc_reduce_to_local<T>(inMc, out + (begin - first), begin, end,
                          threadIdx.x, blockDim.x);
  });
}

} // namespace

#define COLLC_MULTIMEM_KERNELS(NAME, T)                                        \
  extern "C" __global__ void all_reduce_##NAME(                               \
      const uint4 *inMc, uint4 *outMc, u64 *countersMc, const u64 *counters,  \
      u64 call, int rank, int nranks, size_t vectors,                         \
      unsigned long long timeoutNs, u64 *error) {                             \
    all_reduce<T>(inMc, outMc, countersMc, counters, call, rank, nranks,      \
                  vectors, timeoutNs, error);                                 \
  }                                                                           \
  extern "C" __global__ void reduce_scatter_##NAME(                           \
      const uint4 *inMc, uint4 *out, u64 *countersMc, const u64 *counters,    \
      u64 call, int rank, int nranks, size_t vectors,                         \
      unsigned long long timeoutNs, u64 *error) {                             \
    reduce_scatter<T>(inMc, out, countersMc, counters, call, rank, nranks,    \
                      vectors, timeoutNs, error);                             \
  }

COLLC_MULTIMEM_KERNELS(f32, MultimemType::F32)
COLLC_MULTIMEM_KERNELS(bf16, MultimemType::BF16x2)
COLLC_MULTIMEM_KERNELS(f16, MultimemType::F16x2)

/// AllGather: this rank's `vectors` stored into partition `rank` of every
/// rank's output, between the barriers (outputs free, then complete).
extern "C" __global__ void all_gather(const uint4 *in, uint4 *outMc,
                                      u64 *countersMc, const u64 *counters,
                                      u64 call, int rank, int nranks,
                                      size_t vectors,
                                      unsigned long long timeoutNs,
                                      u64 *error) {
  between_barriers(countersMc, counters, call, nranks, timeoutNs, error, [&] {
    const size_t cta = (vectors + gridDim.x - 1) / gridDim.x;
    const size_t begin =
        cta * blockIdx.x < vectors ? cta * blockIdx.x : vectors;
    const size_t end = begin + cta < vectors ? begin + cta : vectors;
    mc_copy_to_all(in + begin, outMc + vectors * rank + begin, end - begin,
                   threadIdx.x, blockDim.x);
  });
}
