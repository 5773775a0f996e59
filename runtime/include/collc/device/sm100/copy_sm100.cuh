//===- copy_sm100.cuh - Blackwell Atom copy: 256-bit loads/stores -*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// sm_100 adds 256-bit global loads and stores (ld/st.global.v4.b64 and
/// .v8.b32; ptxas 13 rejects them below sm_100). The register-based copy
/// moves 32 bytes per instruction instead of 16: half the load/store
/// instructions and twice the bytes in flight per thread for the same
/// unroll. They are reached through CUDA 13's 32-byte-aligned vector type
/// ulonglong4_32a, which nvcc/NVRTC lower to .v4.u64 on sm_100 (checked in
/// the PTX), so no inline assembly is needed and the loads stay ordinary C++
/// accesses that the compiler orders correctly against fences.
///
/// Used by copy.cuh when COLLC_ARCH_LDST256_SM100_ENABLED (__CUDA_ARCH__ >=
/// 1000) and dst and src are equally aligned modulo 32; the 32-byte-unaligned
/// head and the tail go through the generic copy.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_DEVICE_SM100_COPY_SM100_CUH
#define COLLC_DEVICE_SM100_COPY_SM100_CUH

#include "collc/device/common/arch_config.cuh"
#include "collc/device/common/copy.cuh"
#include "collc/device/common/types.cuh"

namespace collc {
namespace dev {

#if defined(COLLC_DEVICE_COMPILE)

/// Blackwell Atom copy (CTA-cooperative): as copy_generic, with 32-byte
/// vectors when (dst ^ src) % 32 == 0. Traps on GPUs before sm_100.
COLLC_DEVICE_INLINE void copy_ldst256_sm100(void *dst, const void *src,
                                            size_t bytes) {
#if defined(COLLC_ARCH_LDST256_SM100_ENABLED)
  static_assert(sizeof(ulonglong4_32a) == 32 && alignof(ulonglong4_32a) == 32,
                "256-bit vector type");
  char *d = static_cast<char *>(dst);
  const char *s = static_cast<const char *>(src);
  if (((reinterpret_cast<uintptr_t>(d) ^ reinterpret_cast<uintptr_t>(s)) &
       31) != 0) {
    copy_generic(dst, src, bytes);
    return;
  }
  size_t head = (32 - (reinterpret_cast<uintptr_t>(d) & 31)) & 31;
  if (head > bytes)
    head = bytes;
  copy_generic(d, s, head);
  d += head;
  s += head;
  bytes -= head;
  const size_t n32 = bytes / 32;
  const unsigned tid = cta_thread_rank();
  const unsigned nt = cta_num_threads();
  auto *dv = reinterpret_cast<ulonglong4_32a *>(d);
  const auto *sv = reinterpret_cast<const ulonglong4_32a *>(s);
  cta_for_each_unrolled<kCopyUnroll>(n32, tid, nt, [&](const auto &idx) {
    detail::copy_group(dv, idx, [&](size_t i) { return sv[i]; });
  });
  copy_generic(d + n32 * 32, s + n32 * 32, bytes - n32 * 32);
#else
  (void)dst;
  (void)src;
  (void)bytes;
  COLLC_INVALID_CONTROL_PATH(
      "copy_ldst256_sm100 needs sm_100 or newer (256-bit loads/stores)");
#endif
}

#endif // defined(COLLC_DEVICE_COMPILE)

} // namespace dev
} // namespace collc

#endif // COLLC_DEVICE_SM100_COPY_SM100_CUH
