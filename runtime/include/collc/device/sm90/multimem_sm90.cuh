//===- multimem_sm90.cuh - NVLink SHARP multicast / in-switch ops -*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Wrappers of multimem.ld_reduce / multimem.st / multimem.red (sm_90+),
/// which act on a multicast address: ld_reduce returns the sum over every GPU
/// bound to the multicast object (reduced in the NVSwitch), st writes to all,
/// red adds into all.
///
/// EXPLICIT OPT-IN. This header compiles to nothing unless the user defines
/// COLLC_ENABLE_MULTIMEM, and atom.cuh never includes it. In-switch reduction
/// has no fixed rank order (not deterministic, DESIGN.md "Determinism"), and
/// multicast must NEVER run on this project's GPU machines (DESIGN.md "GPU
/// machines"): the wrappers exist so that the compiler can emit them and
/// ptxas can check them.
///
/// Element kinds (MultimemType): F32 (.v4.f32), BF16x2 (.v4.bf16x2), F16x2
/// (.v4.f16x2); each call moves 16 bytes. Ordering and scope are fixed to
/// relaxed, system scope (`.relaxed.sys`) in the names; order them with
/// flags.cuh fences. For BF16x2/F16x2, ld_reduce accumulates in FP32 in the
/// switch (.acc::f32) when AccF32 is true.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_DEVICE_SM90_MULTIMEM_SM90_CUH
#define COLLC_DEVICE_SM90_MULTIMEM_SM90_CUH

#include "collc/device/common/arch_config.cuh"
#include "collc/device/common/types.cuh"

#if defined(COLLC_ENABLE_MULTIMEM)

#if defined(COLLC_ARCH_MULTIMEM_SM90_ENABLED)
#define COLLC_MULTIMEM_AVAILABLE 1
#else
#define COLLC_MULTIMEM_AVAILABLE 0
#endif

namespace collc {
namespace dev {

/// The 16-byte vector shapes of the multimem wrappers.
enum class MultimemType { F32, BF16x2, F16x2 };

#if defined(COLLC_DEVICE_COMPILE)

/// `asm volatile(OP ".v4.<T>" REST operands)` for element kind T.
#define COLLC_MULTIMEM_ASM(T, OP, REST, ...)                                   \
  COLLC_ASM_PICK3((T) == MultimemType::F32, OP ".v4.f32" REST,                 \
                  (T) == MultimemType::BF16x2, OP ".v4.bf16x2" REST,           \
                  OP ".v4.f16x2" REST, __VA_ARGS__)

/// multimem.ld_reduce.relaxed.sys.global.add.v4.<T>: the in-switch sum of the
/// 16 bytes at multicast address `mc` over all bound GPUs. Returns the four
/// 32-bit words (f32 bits, or bf16x2 / f16x2 pairs).
template <MultimemType T, bool AccF32 = false>
COLLC_DEVICE_INLINE uint4 multimem_ld_reduce_add_relaxed_sys(const void *mc) {
  static_assert(!AccF32 || T != MultimemType::F32,
                ".acc::f32 applies to 16-bit element types only");
  uint4 v;
#if defined(COLLC_ARCH_MULTIMEM_SM90_ENABLED)
  if constexpr (AccF32)
    COLLC_MULTIMEM_ASM(T, "multimem.ld_reduce.relaxed.sys.global.add.acc::f32",
                       " {%0, %1, %2, %3}, [%4];",
                       : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                       : "l"(mc)
                       : "memory");
  else
    COLLC_MULTIMEM_ASM(T, "multimem.ld_reduce.relaxed.sys.global.add",
                       " {%0, %1, %2, %3}, [%4];",
                       : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                       : "l"(mc)
                       : "memory");
#else
  (void)mc;
  v = make_uint4(0, 0, 0, 0);
  COLLC_INVALID_CONTROL_PATH("multimem.ld_reduce needs sm_90 or newer");
#endif
  return v;
}

namespace detail {
/// multimem.red.relaxed.sys.global.add.v4.<T> when Red, else
/// multimem.st.relaxed.sys.global.v4.<T>: 16 bytes into every GPU bound to
/// the multicast address `mc`.
template <MultimemType T, bool Red>
COLLC_DEVICE_INLINE void multimem_put_relaxed_sys(void *mc, uint4 v) {
#if defined(COLLC_ARCH_MULTIMEM_SM90_ENABLED)
  if constexpr (Red)
    COLLC_MULTIMEM_ASM(T, "multimem.red.relaxed.sys.global.add",
                       " [%0], {%1, %2, %3, %4};",
                       ::"l"(mc), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                       : "memory");
  else
    COLLC_MULTIMEM_ASM(T, "multimem.st.relaxed.sys.global",
                       " [%0], {%1, %2, %3, %4};",
                       ::"l"(mc), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                       : "memory");
#else
  (void)mc;
  (void)v;
  COLLC_INVALID_CONTROL_PATH(Red ? "multimem.red needs sm_90 or newer"
                                 : "multimem.st needs sm_90 or newer");
#endif
}
} // namespace detail

/// multimem.st.relaxed.sys.global.v4.<T>: writes 16 bytes to every GPU bound
/// to the multicast address `mc`.
template <MultimemType T>
COLLC_DEVICE_INLINE void multimem_st_relaxed_sys(void *mc, uint4 v) {
  detail::multimem_put_relaxed_sys<T, false>(mc, v);
}

/// multimem.red.relaxed.sys.global.add.v4.<T>: adds 16 bytes into every GPU
/// bound to the multicast address `mc` (no result).
template <MultimemType T>
COLLC_DEVICE_INLINE void multimem_red_add_relaxed_sys(void *mc, uint4 v) {
  detail::multimem_put_relaxed_sys<T, true>(mc, v);
}

#undef COLLC_MULTIMEM_ASM

#endif // defined(COLLC_DEVICE_COMPILE)

} // namespace dev
} // namespace collc

#endif // defined(COLLC_ENABLE_MULTIMEM)

#endif // COLLC_DEVICE_SM90_MULTIMEM_SM90_CUH
