//===- multimem_collectives_sm90.cuh - In-switch collective steps -*- C++ -*-//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The steps of the in-switch (NVLink SHARP) collectives, built on the
/// multimem wrappers (multimem_sm90.cuh), for the multimem programs collc
/// will derive (issue 16; flash-comm's one-hop multimem, SiFAR's redundant
/// pull). Each works on a multicast address: a range of a registered
/// buffer bound to a multicast object on every rank, so one access reaches
/// the same offset of every rank's buffer.
///
///  - mc_arrive / mc_wait_arrivals: a barrier over the ranks through one
///    64-bit counter in multicast memory (multimem.red.release adds 1 to
///    every rank's copy; a rank waits on its own copy, acquire, bounded);
///  - mc_reduce_to_all<T>: the AllReduce step: each 16-byte vector of a
///    shard reduced in the switch (multimem.ld_reduce) and stored to every
///    rank (multimem.st);
///  - mc_reduce_to_local<T>: the ReduceScatter step: reduced in the switch,
///    stored to this rank's memory;
///  - mc_copy_to_all: the AllGather step: this rank's data stored to every
///    rank (multimem.st).
///
/// EXPLICIT OPT-IN, as multimem_sm90.cuh: nothing here compiles unless
/// COLLC_ENABLE_MULTIMEM is defined, and it must NEVER run on this
/// project's GPU machines. ptxas checks it (test/Target/Cuda/multimem.test).
/// Sizes are whole 16-byte vectors; the switch's reduction order is its
/// own (not the ascending rank order of the Atom's reduce), so results are
/// the same on every rank of a call but not bitwise those of the other
/// programs.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_DEVICE_SM90_MULTIMEM_COLLECTIVES_SM90_CUH
#define COLLC_DEVICE_SM90_MULTIMEM_COLLECTIVES_SM90_CUH

#include "collc/device/common/flags.cuh"
#include "collc/device/sm90/multimem_sm90.cuh"

#if defined(COLLC_ENABLE_MULTIMEM) && defined(COLLC_DEVICE_COMPILE)

namespace collc {
namespace dev {

/// multimem.red.release.sys.global.add.u64: adds `v` to the counter at
/// multicast address `mc` on every rank, ordered after this thread's
/// earlier writes (release, system scope).
COLLC_DEVICE_INLINE void mc_red_add_release_sys(u64 *mc, u64 v) {
#if defined(COLLC_ARCH_MULTIMEM_SM90_ENABLED)
  asm volatile("multimem.red.release.sys.global.add.u64 [%0], %1;" ::"l"(mc),
               "l"(v)
               : "memory");
#else
  (void)mc;
  (void)v;
  COLLC_INVALID_CONTROL_PATH("multimem.red needs sm_90 or newer");
#endif
}

/// One thread of each rank's CTA: this rank has arrived (its CTA's writes
/// before the call, after a barrier, are ordered before the count).
COLLC_DEVICE_INLINE void mc_arrive(u64 *counterMc) {
  mc_red_add_release_sys(counterMc, 1);
}

/// One thread: waits until this rank's copy of the counter reaches
/// `target` (every rank's arrival, counted over calls: nranks * calls),
/// acquire, at most `timeoutNs`; false when it expired.
COLLC_DEVICE_INLINE bool mc_wait_arrivals(const u64 *counterLocal, u64 target,
                                          unsigned long long timeoutNs,
                                          u64 *seen) {
  return wait_geq_acquire_sys(counterLocal, target, timeoutNs, seen);
}

/// The AllReduce step over vectors [begin, end) of 16 bytes, by thread
/// `tid` of `nt`: out[i] = the switch's sum over every rank of in[i],
/// stored to every rank. `inMc`, `outMc`: multicast addresses.
template <MultimemType T>
COLLC_DEVICE_INLINE void mc_reduce_to_all(const uint4 *inMc, uint4 *outMc,
                                          size_t begin, size_t end,
                                          unsigned tid, unsigned nt) {
  constexpr bool kAcc = T != MultimemType::F32;
  for (size_t i = begin + tid; i < end; i += nt)
    multimem_st_relaxed_sys<T>(
        outMc + i, multimem_ld_reduce_add_relaxed_sys<T, kAcc>(inMc + i));
}

/// The ReduceScatter step: out[i - begin] (this rank's memory) = the
/// switch's sum over every rank of in[i], i in [begin, end).
template <MultimemType T>
COLLC_DEVICE_INLINE void mc_reduce_to_local(const uint4 *inMc, uint4 *out,
                                            size_t begin, size_t end,
                                            unsigned tid, unsigned nt) {
  constexpr bool kAcc = T != MultimemType::F32;
  for (size_t i = begin + tid; i < end; i += nt)
    out[i - begin] = multimem_ld_reduce_add_relaxed_sys<T, kAcc>(inMc + i);
}

/// The AllGather step: `n` vectors of this rank's `src` stored to every
/// rank at multicast address `dstMc` (the bytes need no type: F32's
/// st moves 16 bytes as they are).
COLLC_DEVICE_INLINE void mc_copy_to_all(const uint4 *src, uint4 *dstMc,
                                        size_t n, unsigned tid, unsigned nt) {
  for (size_t i = tid; i < n; i += nt)
    multimem_st_relaxed_sys<MultimemType::F32>(dstMc + i, src[i]);
}

} // namespace dev
} // namespace collc

#endif // defined(COLLC_ENABLE_MULTIMEM) && defined(COLLC_DEVICE_COMPILE)

#endif // COLLC_DEVICE_SM90_MULTIMEM_COLLECTIVES_SM90_CUH
