//===- copy.cuh - Atom copy: picks the datapath for the target --*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `copy(dst, src, bytes, smem)`, the Atom copy the generated kernels call,
/// chooses at compile time (by __CUDA_ARCH__) and at run time (by size,
/// alignment and whether shared memory was given) among:
///  1. the sm_80 cp.async shared-memory pipeline (sm80/copy_sm80.cuh), when
///     COLLC_ARCH_CP_ASYNC_SM80_ENABLED, smem != nullptr, dst and src are
///     16-byte aligned and bytes >= kCopyPipelineMinBytes;
///  2. the sm_100 256-bit register copy (sm100/copy_sm100.cuh), when
///     COLLC_ARCH_LDST256_SM100_ENABLED and (dst ^ src) % 32 == 0;
///  3. the generic 16-byte register copy (common/copy.cuh), otherwise.
///
/// The default pipeline shape is COLLC_COPY_STAGES x COLLC_COPY_STAGE_BYTES
/// (4 x 8 KiB = 32 KiB of shared memory per CTA, under the 48 KiB that needs
/// no opt-in); define them before including to change it, or call the
/// template overload copy<Stages, StageBytes>. kCopySmemBytesDefault is what
/// `smem` must hold when it is not null.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_DEVICE_COPY_CUH
#define COLLC_DEVICE_COPY_CUH

#include "collc/device/common/arch_config.cuh"
#include "collc/device/common/copy.cuh"
#include "collc/device/common/types.cuh"
#include "collc/device/sm100/copy_sm100.cuh"
#include "collc/device/sm80/copy_sm80.cuh"

#if !defined(COLLC_COPY_STAGES)
#define COLLC_COPY_STAGES 4
#endif
#if !defined(COLLC_COPY_STAGE_BYTES)
#define COLLC_COPY_STAGE_BYTES 8192
#endif

namespace collc {
namespace dev {

/// Default pipeline depth (slots per CTA) of copy().
constexpr int kCopyStages = COLLC_COPY_STAGES;
/// Default slot size in bytes of copy().
constexpr int kCopyStageBytes = COLLC_COPY_STAGE_BYTES;
/// Shared memory copy() needs when given a non-null smem.
constexpr size_t kCopySmemBytesDefault =
    kCopySmemBytes<kCopyStages, kCopyStageBytes>;

/// Smallest transfer copy<Stages, StageBytes>() sends through the cp.async
/// pipeline: one full pipeline's worth; smaller ones take the register path.
template <int Stages, int StageBytes>
constexpr size_t kCopyPipelineMinBytes = kCopySmemBytes<Stages, StageBytes>;

#if defined(COLLC_DEVICE_COMPILE)

/// Atom copy (CTA-cooperative: every thread of the CTA calls it with the
/// same arguments): copies `bytes` bytes from `src` to `dst`, global memory,
/// local or a peer GPU's, any alignment, any count, non-overlapping.
/// `smem` is CTA shared workspace of at least
/// kCopySmemBytes<Stages, StageBytes> bytes, 16-byte aligned, or nullptr
/// (register path only). No barrier inside; plain weak accesses.
template <int Stages, int StageBytes>
COLLC_DEVICE_INLINE void copy(void *dst, const void *src, size_t bytes,
                              char *smem) {
  if (bytes == 0)
    return;
#if defined(COLLC_ARCH_CP_ASYNC_SM80_ENABLED)
  const uintptr_t any = reinterpret_cast<uintptr_t>(dst) |
                        reinterpret_cast<uintptr_t>(src) |
                        reinterpret_cast<uintptr_t>(smem);
  if (smem != nullptr && (any & 15) == 0 &&
      bytes >= kCopyPipelineMinBytes<Stages, StageBytes>) {
    copy_pipelined_sm80<Stages, StageBytes>(dst, src, bytes, smem);
    return;
  }
#else
  (void)smem;
#endif
#if defined(COLLC_ARCH_LDST256_SM100_ENABLED)
  copy_ldst256_sm100(dst, src, bytes);
#else
  copy_generic(dst, src, bytes);
#endif
}

/// Atom copy with the default pipeline shape (kCopyStages x kCopyStageBytes);
/// a non-null `smem` must hold kCopySmemBytesDefault bytes.
COLLC_DEVICE_INLINE void copy(void *dst, const void *src, size_t bytes,
                              char *smem) {
  copy<kCopyStages, kCopyStageBytes>(dst, src, bytes, smem);
}

/// Atom copy on the register datapath alone (paths 2 and 3), what the
/// generated kernels call: the cp.async pipeline moved no more per CTA at
/// any CTA count (THROUGHPUT.md) and doubles a kernel's code.
COLLC_DEVICE_INLINE void copy(void *dst, const void *src, size_t bytes) {
#if defined(COLLC_ARCH_LDST256_SM100_ENABLED)
  copy_ldst256_sm100(dst, src, bytes);
#else
  copy_generic(dst, src, bytes);
#endif
}

#endif // defined(COLLC_DEVICE_COMPILE)

} // namespace dev
} // namespace collc

#endif // COLLC_DEVICE_COPY_CUH
