//===- reduce.cuh - Atom reduce: picks the datapath for the target -*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `reduce<E, Op>(dst, src, nsrc, elems, smem)`, the Atom reduce the generated
/// kernels call. Today every target uses the generic register datapath
/// (common/reduce.cuh): 16-byte vectorized, FP32 accumulation in ascending
/// source order. A cp.async-pipelined sm_80 variant (Purlin Algorithm 2 with
/// "process" = fold into the accumulators) would slot in here behind
/// COLLC_ARCH_CP_ASYNC_SM80_ENABLED without changing the signature; `smem` is
/// in the signature for it and is unused now.
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

namespace collc {
namespace dev {

#if defined(COLLC_DEVICE_COMPILE)

/// Atom reduce (CTA-cooperative: every thread of the CTA calls it with the
/// same arguments): dst[i] = Op over sources p = 0 .. nsrc-1 of src(p)[i] for
/// i in [0, elems), each source converted to FP32, folded in ascending p
/// order starting from source 0's value, Avg = sum / float(nsrc), rounded to
/// E once (Purlin eq. 2; bit-identical on every rank). `src(p)` returns the
/// `const E*` of source p, local or a peer GPU's. `smem`: CTA shared
/// workspace or nullptr (unused by the current datapaths).
template <typename E, RedOp Op, typename SrcFn>
COLLC_DEVICE_INLINE void reduce(E *dst, SrcFn src, int nsrc, size_t elems,
                                char *smem) {
  (void)smem;
  reduce_generic<E, Op>(dst, src, nsrc, elems);
}

#endif // defined(COLLC_DEVICE_COMPILE)

} // namespace dev
} // namespace collc

#endif // COLLC_DEVICE_REDUCE_CUH
