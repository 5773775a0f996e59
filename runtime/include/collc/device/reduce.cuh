//===- reduce.cuh - Atom reduce: picks the datapath for the target -*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `reduce<E, Op>(dst, src, nsrc, elems, smem)`, the Atom reduce the generated
/// kernels call, chooses at compile time (by __CUDA_ARCH__) and at run time
/// (by size, alignment and whether shared memory was given) between:
///  1. the sm_80 cp.async shared-memory pipeline (sm80/reduce_sm80.cuh), when
///     COLLC_ARCH_CP_ASYNC_SM80_ENABLED, smem != nullptr, dst, every source
///     and smem are 16-byte aligned and elems * sizeof(E) >=
///     kReducePipelineMinBytes;
///  2. the generic register datapath (common/reduce.cuh), otherwise:
///     16-byte vectorized when the pointers share an alignment, else scalar.
/// Both compute the same thing bit for bit: FP32 accumulation in ascending
/// source order from source 0's value, one rounding to E (Purlin eq. 2), so
/// the choice never changes a result.
///
/// The pipeline works inside the copy's workspace (kReduceSmemBytesDefault
/// == kCopySmemBytesDefault, 32 KiB by default), so a kernel that gives the
/// copy its shared memory needs no more for the reduce.
///
/// In-switch reduction (multimem.ld_reduce) is not reached from here: it
/// does not keep the fixed rank order, so it is an explicit opt-in
/// (sm90/multimem_sm90.cuh).
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_DEVICE_REDUCE_CUH
#define COLLC_DEVICE_REDUCE_CUH

#include "collc/device/common/arch_config.cuh"
#include "collc/device/common/reduce.cuh"
#include "collc/device/common/types.cuh"
#include "collc/device/copy.cuh"
#include "collc/device/sm80/reduce_sm80.cuh"

namespace collc {
namespace dev {

/// Shared memory reduce() uses when given a non-null smem: the copy's, so
/// that the kernels' shared memory does not grow.
constexpr size_t kReduceSmemBytesDefault = kCopySmemBytesDefault;

/// Smallest output (bytes) reduce() sends through the cp.async pipeline.
/// Below it the pipeline's prime and drain are not amortized (at 512
/// threads a tile is 8 KiB, so this is two tiles), and the latency path
/// skips the alignment check of every source.
constexpr size_t kReducePipelineMinBytes = 16384;

#if defined(COLLC_DEVICE_COMPILE)

/// Atom reduce (CTA-cooperative: every thread of the CTA calls it with the
/// same arguments): dst[i] = Op over sources p = 0 .. nsrc-1 of src(p)[i] for
/// i in [0, elems), each source converted to FP32, folded in ascending p
/// order starting from source 0's value, Avg = sum / float(nsrc), rounded to
/// E once (Purlin eq. 2; bit-identical on every rank, whichever datapath).
/// `src(p)` returns the `const E*` of source p, local or a peer GPU's; it
/// must be cheap and side-effect free. dst may be exactly one of the sources
/// but must not partially overlap one. `smem`: CTA shared workspace of
/// kReduceSmemBytesDefault bytes, 16-byte aligned, not otherwise used during
/// the call, or nullptr (register path only). No barrier inside.
template <typename E, RedOp Op, typename SrcFn>
COLLC_DEVICE_INLINE void reduce(E *dst, SrcFn src, int nsrc, size_t elems,
                                char *smem) {
#if defined(COLLC_ARCH_CP_ASYNC_SM80_ENABLED)
  // Size first: small (latency-bound) reduces skip the per-source checks.
  if (smem != nullptr && nsrc >= 1 &&
      elems >= kReducePipelineMinBytes / sizeof(E)) {
    uintptr_t any = reinterpret_cast<uintptr_t>(dst) |
                    reinterpret_cast<uintptr_t>(smem);
    for (int p = 0; p < nsrc; ++p)
      any |= reinterpret_cast<uintptr_t>(src(p));
    if ((any & 15) == 0) {
      reduce_pipelined_sm80<E, Op, kReduceSmemBytesDefault>(dst, src, nsrc,
                                                            elems, smem);
      return;
    }
  }
#else
  (void)smem;
#endif
  reduce_generic<E, Op>(dst, src, nsrc, elems);
}

/// Atom reduce on the register datapath alone (path 2), what the generated
/// kernels call: the cp.async pipeline moved less per CTA at every source
/// count (THROUGHPUT.md: 38-48 GB/s against 46-79 from 1 to 8 CTAs).
template <typename E, RedOp Op, typename SrcFn>
COLLC_DEVICE_INLINE void reduce(E *dst, SrcFn src, int nsrc, size_t elems) {
  reduce_generic<E, Op>(dst, src, nsrc, elems);
}

#endif // defined(COLLC_DEVICE_COMPILE)

} // namespace dev
} // namespace collc

#endif // COLLC_DEVICE_REDUCE_CUH
