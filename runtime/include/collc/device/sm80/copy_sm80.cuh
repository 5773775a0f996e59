//===- copy_sm80.cuh - Ampere Atom copy: cp.async smem pipeline -*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The sm_80 Atom copy: Purlin's unified pipeline (section 3.3, Algorithm 2)
/// on cp.async, which moves global memory (local or a peer's, over NVLink)
/// into shared memory without staging through registers. With S slots of
/// B bytes (template parameters Stages, StageBytes), a CTA keeps S * B bytes
/// in flight: Purlin eq. 3, Q_cap = C * S * B over C CTAs, sized to the
/// bandwidth-delay product.
///
///   prime:  issue stages 0 .. S-1 into slots 0 .. S-1;
///   steady: for stage j: wait until stage j has landed (cp.async.wait_group
///           S-1), read slot j % S into registers, store them to dst, refill
///           the slot with stage j + S;
///   drain:  the last S stages take the same path with nothing to refill
///           (empty commit groups keep the wait count constant).
///
/// Each thread reads back exactly the 16-byte vectors it fetched itself, so
/// the pipeline needs no CTA barrier: cp.async.wait_group is per thread.
/// The register store comes before the refill of the same slot (Algorithm 2
/// refills first); issuing the refill after the store makes the shared-memory
/// read complete (its value is consumed) before cp.async may overwrite the
/// slot, a write-after-read order that PTX does not otherwise promise between
/// ld.shared and cp.async. For a copy the store is only an issue slot, so
/// nothing is lost.
///
/// Requirements: dst, src and smem 16-byte aligned; smem holds at least
/// kCopySmemBytes<Stages, StageBytes> bytes and is not used by the CTA for
/// anything else during the call (reuse it after a __syncthreads()). Whole
/// stages go through the pipeline, the remainder (< StageBytes) through the
/// generic copy.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_DEVICE_SM80_COPY_SM80_CUH
#define COLLC_DEVICE_SM80_COPY_SM80_CUH

#include "collc/device/common/arch_config.cuh"
#include "collc/device/common/copy.cuh"
#include "collc/device/common/types.cuh"

namespace collc {
namespace dev {

/// Shared memory the pipelined copy needs per CTA: Stages slots of
/// StageBytes. The generator sizes dynamic shared memory with it.
template <int Stages, int StageBytes>
constexpr size_t kCopySmemBytes = static_cast<size_t>(Stages) * StageBytes;

#if defined(COLLC_DEVICE_COMPILE)

//===----------------------------------------------------------------------===//
// cp.async wrappers
//===----------------------------------------------------------------------===//

/// cp.async.cg.shared.global, 16 bytes: global (local or peer) to shared,
/// bypassing L1. `smemAddr` is a shared-window address (__cvta_generic_to_shared).
COLLC_DEVICE_INLINE void cp_async_cg_16_sm80(uint32_t smemAddr,
                                             const void *gmem) {
#if defined(COLLC_ARCH_CP_ASYNC_SM80_ENABLED)
  const u64 g = static_cast<u64>(__cvta_generic_to_global(gmem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smemAddr),
               "l"(g)
               : "memory");
#else
  (void)smemAddr;
  (void)gmem;
  COLLC_INVALID_CONTROL_PATH("cp.async needs sm_80 or newer");
#endif
}

/// cp.async.commit_group: closes the group of this thread's cp.async issued
/// since the last commit (an empty group is fine).
COLLC_DEVICE_INLINE void cp_async_commit_group_sm80() {
#if defined(COLLC_ARCH_CP_ASYNC_SM80_ENABLED)
  asm volatile("cp.async.commit_group;" ::: "memory");
#else
  COLLC_INVALID_CONTROL_PATH("cp.async needs sm_80 or newer");
#endif
}

/// cp.async.wait_group N: waits until at most N of this thread's committed
/// groups are pending; the completed ones are visible to this thread.
template <int N> COLLC_DEVICE_INLINE void cp_async_wait_group_sm80() {
  static_assert(N >= 0 && N <= 63, "cp.async.wait_group takes 0..63");
#if defined(COLLC_ARCH_CP_ASYNC_SM80_ENABLED)
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#else
  COLLC_INVALID_CONTROL_PATH("cp.async needs sm_80 or newer");
#endif
}

/// ld.shared.v4.u32 from a shared-window address. Volatile so that it stays
/// after the cp.async.wait_group that makes its bytes valid.
COLLC_DEVICE_INLINE uint4 ld_shared_v4_u32(uint32_t smemAddr) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(smemAddr)
               : "memory");
  return v;
}

//===----------------------------------------------------------------------===//
// The pipelined copy
//===----------------------------------------------------------------------===//

/// Ampere Atom copy (CTA-cooperative) through the cp.async pipeline; see the
/// file comment for the algorithm and the requirements. Traps before sm_80.
template <int Stages, int StageBytes>
COLLC_DEVICE_INLINE void copy_pipelined_sm80(void *dst, const void *src,
                                             size_t bytes, char *smem) {
  static_assert(Stages >= 1 && Stages <= 32, "1..32 pipeline stages");
  static_assert(StageBytes > 0 && StageBytes % 16 == 0,
                "a stage is a positive multiple of 16 bytes");
#if defined(COLLC_ARCH_CP_ASYNC_SM80_ENABLED)
  constexpr unsigned kVecs = StageBytes / 16;
  const unsigned tid = cta_thread_rank();
  const unsigned nt = cta_num_threads();
  char *d = static_cast<char *>(dst);
  const char *s = static_cast<const char *>(src);
  const size_t nStages = bytes / StageBytes;
  const uint32_t base =
      static_cast<uint32_t>(__cvta_generic_to_shared(smem));

  auto issue = [&](size_t stage, unsigned slot) {
    const char *g = s + stage * StageBytes;
    const uint32_t sm = base + slot * StageBytes;
    for (unsigned v = tid; v < kVecs; v += nt)
      cp_async_cg_16_sm80(sm + v * 16, g + static_cast<size_t>(v) * 16);
  };

  // Prime: always S commit groups, empty ones past the last stage, so that
  // wait_group<S-1> below always means "stage j has landed".
  COLLC_PRAGMA_UNROLL
  for (int j = 0; j < Stages; ++j) {
    if (static_cast<size_t>(j) < nStages)
      issue(j, j);
    cp_async_commit_group_sm80();
  }
  // Steady state and drain.
  for (size_t j = 0; j < nStages; ++j) {
    cp_async_wait_group_sm80<Stages - 1>();
    const unsigned slot = static_cast<unsigned>(j % Stages);
    const uint32_t sm = base + slot * StageBytes;
    char *out = d + j * StageBytes;
    for (unsigned v = tid; v < kVecs; v += nt)
      *reinterpret_cast<uint4 *>(out + static_cast<size_t>(v) * 16) =
          ld_shared_v4_u32(sm + v * 16);
    if (j + Stages < nStages)
      issue(j + Stages, slot);
    cp_async_commit_group_sm80();
  }
  cp_async_wait_group_sm80<0>();
  const size_t done = nStages * StageBytes;
  copy_generic(d + done, s + done, bytes - done);
#else
  (void)dst;
  (void)src;
  (void)bytes;
  (void)smem;
  COLLC_INVALID_CONTROL_PATH(
      "copy_pipelined_sm80 needs sm_80 or newer (cp.async)");
#endif
}

#endif // defined(COLLC_DEVICE_COMPILE)

} // namespace dev
} // namespace collc

#endif // COLLC_DEVICE_SM80_COPY_SM80_CUH
