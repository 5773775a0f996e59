//===- types.cuh - Integer types, reduction ops, element traits -*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Vocabulary shared by every Atom header:
///  - fixed-width integers that work under NVRTC (which has no <cstdint>),
///  - RedOp, the reduction operators of `reduce<op>`,
///  - Elem<E>, the FP32 conversions of the five element types,
///  - the FP32 accumulation step of a reduction (Purlin eq. 2),
///  - the CTA-cooperation helpers (thread rank, thread count).
///
/// Integer types: with nvcc they come from <cstdint> (uint64_t is
/// `unsigned long` on LP64 Linux). Under NVRTC this header defines them in the
/// global namespace exactly as libcu++'s <cuda/std/cstdint> does
/// (uint64_t = `unsigned long long`), so a generated kernel may include both
/// in either order; including libcu++ itself would cost ~0.5 s per compile.
/// The device API's 64-bit type is collc::dev::u64 (see below).
///
/// Numerics. All float arithmetic of the reductions is written as PTX
/// (add.rn.f32, div.rn.f32, integer compares for max/min) so that neither
/// --use_fast_math nor -ftz can flush subnormals or contract into FMAs: the
/// result must be bit-identical to the CPU reference (compiler/lib/Sim), which
/// uses IEEE single precision with round-to-nearest-even.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_DEVICE_COMMON_TYPES_CUH
#define COLLC_DEVICE_COMMON_TYPES_CUH

#include "collc/device/common/arch_config.cuh"
#include "collc/vocab.h"

//===----------------------------------------------------------------------===//
// Fixed-width integers
//===----------------------------------------------------------------------===//

#if defined(__CUDACC_RTC__)
// Identical to libcu++'s NVRTC definitions, so redeclaration is harmless.
using int8_t = signed char;
using int16_t = signed short;
using int32_t = signed int;
using int64_t = signed long long;
using uint8_t = unsigned char;
using uint16_t = unsigned short;
using uint32_t = unsigned int;
using uint64_t = unsigned long long;
using intptr_t = int64_t;
using uintptr_t = uint64_t;
// size_t is predefined by NVRTC.
#else
#include <cstddef>
#include <cstdint>
#endif

static_assert(sizeof(uint64_t) == 8 && sizeof(uint32_t) == 4 &&
                  sizeof(uint16_t) == 2 && sizeof(uint8_t) == 1,
              "unexpected integer widths");
static_assert(sizeof(void *) == 8, "collc targets 64-bit addressing only");

#if defined(COLLC_DEVICE_COMPILE)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#endif

namespace collc {
namespace dev {

/// The 64-bit unsigned type of the device API (flags, epochs, LL payloads,
/// sentinel words): `unsigned long long` under every compiler, the type of
/// CUDA's 64-bit atomics. Under NVRTC it is the same type as ::uint64_t (this
/// header's and libcu++'s), so `u64 ld_acquire_sys(const u64*)` reads as
/// `uint64_t ld_acquire_sys(const uint64_t*)` in generated code. Under nvcc
/// on LP64 Linux ::uint64_t is `unsigned long`, a different type; the `_sys`
/// flag functions have `unsigned long` overloads for it (flags.cuh), the
/// rest of the API takes u64. (It is not named uint64_t so that
/// `using namespace collc::dev;` never makes uint64_t ambiguous.)
using u64 = unsigned long long;

/// The reduction operators of `reduce<op>`: the vocabulary's RedOp
/// (collc/vocab.h, the IR's Reduction and the C API's collcRedOp_t).
///  - Sum: FP32 sum in ascending source order, starting from source 0's value
///    (not from +0.0, so a sum of -0.0s stays -0.0).
///  - Avg: the FP32 Sum divided by float(nsrc), rounded once.
///  - Max/Min: IEEE 754-2019 maximumNumber/minimumNumber: a NaN loses to any
///    number (the result is NaN only when every source is NaN) and
///    -0.0 < +0.0, so the result does not depend on the order of sources.
using RedOp = vocab::RedOp;

#if defined(COLLC_DEVICE_COMPILE)

//===----------------------------------------------------------------------===//
// CTA cooperation
//===----------------------------------------------------------------------===//

/// Linear rank of the calling thread in its CTA (any block shape).
COLLC_DEVICE_INLINE unsigned cta_thread_rank() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

/// Number of threads in the calling CTA.
COLLC_DEVICE_INLINE unsigned cta_num_threads() {
  return blockDim.x * blockDim.y * blockDim.z;
}

/// The CTA-strided loop of the Atom copies and reductions: indices [0, n)
/// go to the threads round-robin (index i to thread i % nt), and each thread
/// takes Unroll of its indices at once, `group(idx)` with idx a
/// `const size_t[Unroll]` (so that Unroll loads are in flight together),
/// then the rest one at a time, `group(idx)` with a `const size_t[1]`.
/// `group` is a generic lambda; `sizeof(idx) / sizeof(size_t)` is the size
/// of its group, a constant.
template <int Unroll, typename Group>
COLLC_DEVICE_INLINE void cta_for_each_unrolled(size_t n, unsigned tid,
                                               unsigned nt, Group &&group) {
  size_t i = tid;
  const size_t step = static_cast<size_t>(nt) * Unroll;
  for (; i + static_cast<size_t>(Unroll - 1) * nt < n; i += step) {
    size_t idx[Unroll];
    COLLC_PRAGMA_UNROLL
    for (int u = 0; u < Unroll; ++u)
      idx[u] = i + static_cast<size_t>(u) * nt;
    group(static_cast<const size_t(&)[Unroll]>(idx));
  }
  for (; i < n; i += nt) {
    const size_t idx[1] = {i};
    group(idx);
  }
}

//===----------------------------------------------------------------------===//
// FP32 helpers immune to fast-math flags
//===----------------------------------------------------------------------===//

/// IEEE FP32 addition, round to nearest even, subnormals kept (no .ftz),
/// never contracted into an FMA.
COLLC_DEVICE_INLINE float f32_add_rn(float a, float b) {
  float d;
  asm("add.rn.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
  return d;
}

/// IEEE FP32 division, correctly rounded to nearest even, subnormals kept.
COLLC_DEVICE_INLINE float f32_div_rn(float a, float b) {
  float d;
  asm("div.rn.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
  return d;
}

/// Whether the FP32 bit pattern is a NaN.
COLLC_DEVICE_INLINE bool f32_bits_isnan(uint32_t bits) {
  return (bits & 0x7FFFFFFFu) > 0x7F800000u;
}

/// Maps an FP32 bit pattern to a signed integer whose order is the numeric
/// order of non-NaN floats with -0.0 < +0.0 (a total order on bits).
COLLC_DEVICE_INLINE int32_t f32_order_key(uint32_t bits) {
  return static_cast<int32_t>(
      bits ^ (static_cast<uint32_t>(static_cast<int32_t>(bits) >> 31) >> 1));
}

/// One accumulation step of `reduce<Op>`: folds contribution `x` into `acc`.
/// Sum/Avg add in FP32 (add.rn.f32); Max/Min keep the winner under
/// maximumNumber/minimumNumber (NaN loses, -0.0 < +0.0), comparing bits, so
/// the result is bit-identical to one of the contributions.
template <RedOp Op>
COLLC_DEVICE_INLINE float red_step(float acc, float x) {
  if constexpr (Op == RedOp::Sum || Op == RedOp::Avg) {
    return f32_add_rn(acc, x);
  } else {
    const uint32_t xb = __float_as_uint(x);
    const uint32_t ab = __float_as_uint(acc);
    if (f32_bits_isnan(xb))
      return acc;
    if (f32_bits_isnan(ab))
      return x;
    if constexpr (Op == RedOp::Max)
      return f32_order_key(xb) > f32_order_key(ab) ? x : acc;
    else
      return f32_order_key(xb) < f32_order_key(ab) ? x : acc;
  }
}

/// The final step of `reduce<Op>` over `n` contributions: Avg divides the
/// FP32 sum by float(n) (div.rn.f32); the other ops return `acc` unchanged.
template <RedOp Op>
COLLC_DEVICE_INLINE float red_finish(float acc, int n) {
  if constexpr (Op == RedOp::Avg)
    return f32_div_rn(acc, static_cast<float>(n));
  else
    return acc;
}

//===----------------------------------------------------------------------===//
// Element traits
//===----------------------------------------------------------------------===//

namespace detail {
/// float -> fp8 (kind K), round to nearest even, NO saturation: a finite
/// value beyond the format's range becomes NaN (e4m3: 0x7F | sign; e4m3 has
/// no infinity) or infinity (e5m2: 0x7C | sign), as LLVM APFloat does. A NaN
/// input becomes the canonical NaN 0x7F. On sm_89+ the hardware conversion
/// (which only exists with .satfinite) is used and the overflow is patched;
/// elsewhere cuda_fp8.h's exact software path (__NV_NOSAT).
template <__nv_fp8_interpretation_t K>
COLLC_DEVICE_INLINE uint8_t fp8_fixup_overflow(float x, uint8_t rounded) {
  const uint32_t u = __float_as_uint(x);
  const uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u)
    return 0x7F;
  // e4m3: |x| > 464 (= 448 + half an ulp; exactly 464 rounds to even 448).
  // e5m2: |x| >= 61440 (= 57344 + half an ulp; the tie rounds up to inf).
  const bool overflow = K == __NV_E4M3 ? a > 0x43E80000u : a >= 0x47700000u;
  if (overflow)
    return static_cast<uint8_t>(((u >> 24) & 0x80u) |
                                (K == __NV_E4M3 ? 0x7Fu : 0x7Cu));
  return rounded;
}

/// Two floats to two fp8 of kind K: `lo` in bits 0-7, `hi` in bits 8-15.
template <__nv_fp8_interpretation_t K>
COLLC_DEVICE_INLINE uint16_t fp8x2_from_float2(float lo, float hi) {
#if defined(COLLC_ARCH_CVT_FP8_SM89_ENABLED)
  uint16_t s;
  // cvt ... d, a, b puts a in the upper byte and b in the lower one.
  if constexpr (K == __NV_E4M3)
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(s) : "f"(hi), "f"(lo));
  else
    asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(s) : "f"(hi), "f"(lo));
  const uint8_t l = fp8_fixup_overflow<K>(lo, static_cast<uint8_t>(s & 0xFF));
  const uint8_t h = fp8_fixup_overflow<K>(hi, static_cast<uint8_t>(s >> 8));
  return static_cast<uint16_t>(l | (h << 8));
#else
  const uint16_t l = __nv_cvt_float_to_fp8(lo, __NV_NOSAT, K);
  const uint16_t h = __nv_cvt_float_to_fp8(hi, __NV_NOSAT, K);
  return static_cast<uint16_t>(l | (h << 8));
#endif
}

/// One float to fp8 of kind K (see fp8x2_from_float2).
template <__nv_fp8_interpretation_t K>
COLLC_DEVICE_INLINE uint8_t fp8_from_float(float x) {
  return static_cast<uint8_t>(fp8x2_from_float2<K>(x, 0.0f) & 0xFF);
}

/// fp8 of kind K to float, exactly.
template <__nv_fp8_interpretation_t K>
COLLC_DEVICE_INLINE float fp8_to_float(uint8_t bits) {
  const __half_raw h = __nv_cvt_fp8_to_halfraw(bits, K);
  return __half2float(__half(h));
}

/// Two fp8 of kind K (bits 0-7 and 8-15) to two floats, exactly.
template <__nv_fp8_interpretation_t K>
COLLC_DEVICE_INLINE float2 fp8x2_to_float2(uint16_t bits) {
  const __half2_raw h = __nv_cvt_fp8x2_to_halfraw2(bits, K);
  return __half22float2(__half2(h));
}
} // namespace detail

/// FP32 conversions of an element type E: `toFloat` is exact for every
/// supported type; `fromFloat` rounds to nearest, ties to even, without
/// saturation (overflow: infinity, or NaN for e4m3 which has no infinity),
/// matching LLVM APFloat's convert(rmNearestTiesToEven) used by the CPU
/// reference. NaN results are a canonical NaN (CUDA's: 0x7FFFFFFF-like); their
/// payload and sign are not specified. `Bits` is the same-width unsigned
/// integer, `bits`/`fromBits` reinterpret without conversion.
template <typename E> struct Elem;

/// FP32: identity conversions.
template <> struct Elem<float> {
  using Bits = uint32_t;
  COLLC_DEVICE_INLINE static float toFloat(float x) { return x; }
  COLLC_DEVICE_INLINE static float fromFloat(float x) { return x; }
  COLLC_DEVICE_INLINE static Bits bits(float x) { return __float_as_uint(x); }
  COLLC_DEVICE_INLINE static float fromBits(Bits b) { return __uint_as_float(b); }
};

/// IEEE binary16.
template <> struct Elem<__half> {
  using Bits = uint16_t;
  COLLC_DEVICE_INLINE static float toFloat(__half x) { return __half2float(x); }
  COLLC_DEVICE_INLINE static __half fromFloat(float x) {
    return __float2half_rn(x);
  }
  COLLC_DEVICE_INLINE static Bits bits(__half x) { return __half_as_ushort(x); }
  COLLC_DEVICE_INLINE static __half fromBits(Bits b) {
    return __ushort_as_half(b);
  }
};

/// bfloat16 (the upper half of an FP32).
template <> struct Elem<__nv_bfloat16> {
  using Bits = uint16_t;
  COLLC_DEVICE_INLINE static float toFloat(__nv_bfloat16 x) {
    return __uint_as_float(static_cast<uint32_t>(__bfloat16_as_ushort(x)) << 16);
  }
  COLLC_DEVICE_INLINE static __nv_bfloat16 fromFloat(float x) {
    return __float2bfloat16_rn(x);
  }
  COLLC_DEVICE_INLINE static Bits bits(__nv_bfloat16 x) {
    return __bfloat16_as_ushort(x);
  }
  COLLC_DEVICE_INLINE static __nv_bfloat16 fromBits(Bits b) {
    return __ushort_as_bfloat16(b);
  }
};

/// Raw bytes: the element of a copy's kernel, which serves every type of its
/// collective (a copy moves bytes and converts nothing: no toFloat).
template <> struct Elem<unsigned char> {
  using Bits = uint8_t;
  COLLC_DEVICE_INLINE static Bits bits(unsigned char x) { return x; }
  COLLC_DEVICE_INLINE static unsigned char fromBits(Bits b) { return b; }
};

namespace detail {
/// Elem of the OCP fp8 type T, whose interpretation is K: the two fp8 types
/// differ only in that.
template <typename T, __nv_fp8_interpretation_t K> struct Fp8Elem {
  using Bits = uint8_t;
  COLLC_DEVICE_INLINE static float toFloat(T x) {
    return fp8_to_float<K>(x.__x);
  }
  COLLC_DEVICE_INLINE static T fromFloat(float x) {
    return fromBits(fp8_from_float<K>(x));
  }
  COLLC_DEVICE_INLINE static Bits bits(T x) { return x.__x; }
  COLLC_DEVICE_INLINE static T fromBits(Bits b) {
    T r;
    r.__x = b;
    return r;
  }
};
} // namespace detail

/// OCP fp8 e4m3 ("fn": no infinities, NaN = S.1111.111).
template <>
struct Elem<__nv_fp8_e4m3> : detail::Fp8Elem<__nv_fp8_e4m3, __NV_E4M3> {};

/// OCP fp8 e5m2 (IEEE-like: infinities and NaNs).
template <>
struct Elem<__nv_fp8_e5m2> : detail::Fp8Elem<__nv_fp8_e5m2, __NV_E5M2> {};

#endif // defined(COLLC_DEVICE_COMPILE)

} // namespace dev
} // namespace collc

#endif // COLLC_DEVICE_COMMON_TYPES_CUH
