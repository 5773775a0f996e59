//===- reduce.cuh - Generic Atom reduce: deterministic FP32 fold -*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The generic Atom `reduce<E, Op>` (Purlin 3.3, "Deterministic reduction",
/// eq. 2): dst[i] = fromFloat(fold over p = 0 .. nsrc-1 of toFloat(src(p)[i])),
/// one FP32 accumulator per output element, contributions folded in
/// ascending source order starting from source 0's value, Avg dividing the
/// FP32 sum by float(nsrc), one rounding to E at the end. The result is
/// therefore bit-identical on every rank, run after run, whatever the
/// arrival order, and equal to the CPU reference (compiler/lib/Sim
/// atomReduce) for NaN-free results; a NaN result is a NaN of CUDA's
/// canonical pattern.
///
/// CTA-cooperative: all threads call it with the same arguments and split
/// the elements. When dst and every source share one alignment modulo 16
/// (a multiple of sizeof(E)), the elements up to the 16-byte boundary are
/// done one by one, then 16-byte vectors (kReduceUnroll per thread, with the
/// next source's vectors loaded while the current ones are folded), then the
/// tail one by one; otherwise all elements one by one.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_DEVICE_COMMON_REDUCE_CUH
#define COLLC_DEVICE_COMMON_REDUCE_CUH

#include "collc/device/common/arch_config.cuh"
#include "collc/device/common/types.cuh"

namespace collc {
namespace dev {

/// 16-byte output vectors each thread works on at once in reduce_generic.
#if !defined(COLLC_REDUCE_UNROLL)
#define COLLC_REDUCE_UNROLL 2
#endif
constexpr int kReduceUnroll = COLLC_REDUCE_UNROLL;
static_assert(kReduceUnroll >= 1 && kReduceUnroll <= 8, "unroll 1..8");

#if defined(COLLC_DEVICE_COMPILE)

namespace detail {

/// 16 bytes of E <-> kN floats (exact widening, RNE narrowing).
template <typename E> struct Vec16;

template <> struct Vec16<float> {
  static constexpr int kN = 4;
  COLLC_DEVICE_INLINE static void unpack(uint4 v, float (&f)[kN]) {
    f[0] = __uint_as_float(v.x);
    f[1] = __uint_as_float(v.y);
    f[2] = __uint_as_float(v.z);
    f[3] = __uint_as_float(v.w);
  }
  COLLC_DEVICE_INLINE static uint4 pack(const float (&f)[kN]) {
    return make_uint4(__float_as_uint(f[0]), __float_as_uint(f[1]),
                      __float_as_uint(f[2]), __float_as_uint(f[3]));
  }
};

/// Helpers over the four 32-bit words of a uint4.
COLLC_DEVICE_INLINE uint32_t word(uint4 v, int i) {
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

template <> struct Vec16<__half> {
  static constexpr int kN = 8;
  COLLC_DEVICE_INLINE static void unpack(uint4 v, float (&f)[kN]) {
    COLLC_PRAGMA_UNROLL
    for (int i = 0; i < 4; ++i) {
      const uint32_t w = word(v, i);
      f[2 * i] = __half2float(__ushort_as_half(static_cast<uint16_t>(w)));
      f[2 * i + 1] =
          __half2float(__ushort_as_half(static_cast<uint16_t>(w >> 16)));
    }
  }
  COLLC_DEVICE_INLINE static uint4 pack(const float (&f)[kN]) {
    uint32_t w[4];
    COLLC_PRAGMA_UNROLL
    for (int i = 0; i < 4; ++i) {
      const __half2 h = __floats2half2_rn(f[2 * i], f[2 * i + 1]);
      w[i] = static_cast<uint32_t>(__half_as_ushort(__low2half(h))) |
             (static_cast<uint32_t>(__half_as_ushort(__high2half(h))) << 16);
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
  }
};

template <> struct Vec16<__nv_bfloat16> {
  static constexpr int kN = 8;
  COLLC_DEVICE_INLINE static void unpack(uint4 v, float (&f)[kN]) {
    COLLC_PRAGMA_UNROLL
    for (int i = 0; i < 4; ++i) {
      const uint32_t w = word(v, i);
      f[2 * i] = __uint_as_float(w << 16);
      f[2 * i + 1] = __uint_as_float(w & 0xFFFF0000u);
    }
  }
  COLLC_DEVICE_INLINE static uint4 pack(const float (&f)[kN]) {
    uint32_t w[4];
    COLLC_PRAGMA_UNROLL
    for (int i = 0; i < 4; ++i) {
      const __nv_bfloat162 h = __floats2bfloat162_rn(f[2 * i], f[2 * i + 1]);
      w[i] =
          static_cast<uint32_t>(__bfloat16_as_ushort(__low2bfloat16(h))) |
          (static_cast<uint32_t>(__bfloat16_as_ushort(__high2bfloat16(h)))
           << 16);
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
  }
};

template <__nv_fp8_interpretation_t K> struct Vec16Fp8 {
  static constexpr int kN = 16;
  COLLC_DEVICE_INLINE static void unpack(uint4 v, float (&f)[kN]) {
    COLLC_PRAGMA_UNROLL
    for (int i = 0; i < 4; ++i) {
      const uint32_t w = word(v, i);
      const float2 a = fp8x2_to_float2<K>(static_cast<uint16_t>(w));
      const float2 b = fp8x2_to_float2<K>(static_cast<uint16_t>(w >> 16));
      f[4 * i] = a.x;
      f[4 * i + 1] = a.y;
      f[4 * i + 2] = b.x;
      f[4 * i + 3] = b.y;
    }
  }
  COLLC_DEVICE_INLINE static uint4 pack(const float (&f)[kN]) {
    uint32_t w[4];
    COLLC_PRAGMA_UNROLL
    for (int i = 0; i < 4; ++i)
      w[i] = static_cast<uint32_t>(fp8x2_from_float2<K>(f[4 * i], f[4 * i + 1])) |
             (static_cast<uint32_t>(
                  fp8x2_from_float2<K>(f[4 * i + 2], f[4 * i + 3]))
              << 16);
    return make_uint4(w[0], w[1], w[2], w[3]);
  }
};
template <> struct Vec16<__nv_fp8_e4m3> : Vec16Fp8<__NV_E4M3> {};
template <> struct Vec16<__nv_fp8_e5m2> : Vec16Fp8<__NV_E5M2> {};

/// Elements [begin, end) one at a time, split across the CTA.
template <typename E, RedOp Op, typename SrcFn>
COLLC_DEVICE_INLINE void reduce_scalar(E *dst, SrcFn &src, int nsrc,
                                       size_t begin, size_t end, unsigned tid,
                                       unsigned nt) {
  for (size_t i = begin + tid; i < end; i += nt) {
    float acc = Elem<E>::toFloat(src(0)[i]);
    for (int p = 1; p < nsrc; ++p)
      acc = red_step<Op>(acc, Elem<E>::toFloat(src(p)[i]));
    dst[i] = Elem<E>::fromFloat(red_finish<Op>(acc, nsrc));
  }
}

/// U output vectors at vector indices idx[0..U-1] (relative to element
/// offset `off`, which is 16-byte aligned in dst and every source).
template <typename E, RedOp Op, int U, typename SrcFn>
COLLC_DEVICE_INLINE void reduce_vec16_group(E *dst, SrcFn &src, int nsrc,
                                            size_t off, const size_t (&idx)[U]) {
  using V = Vec16<E>;
  constexpr int kN = V::kN;
  auto vecs = [&](int p) {
    return reinterpret_cast<const uint4 *>(src(p) + off);
  };
  float acc[U][kN];
  uint4 cur[U];
  uint4 nxt[U];
  {
    const uint4 *s0 = vecs(0);
    COLLC_PRAGMA_UNROLL
    for (int u = 0; u < U; ++u)
      cur[u] = s0[idx[u]];
  }
  if (nsrc > 1) {
    const uint4 *s1 = vecs(1);
    COLLC_PRAGMA_UNROLL
    for (int u = 0; u < U; ++u)
      nxt[u] = s1[idx[u]];
  }
  COLLC_PRAGMA_UNROLL
  for (int u = 0; u < U; ++u)
    V::unpack(cur[u], acc[u]);
  for (int p = 1; p < nsrc; ++p) {
    COLLC_PRAGMA_UNROLL
    for (int u = 0; u < U; ++u)
      cur[u] = nxt[u];
    if (p + 1 < nsrc) { // Prefetch the next source while folding this one.
      const uint4 *sn = vecs(p + 1);
      COLLC_PRAGMA_UNROLL
      for (int u = 0; u < U; ++u)
        nxt[u] = sn[idx[u]];
    }
    COLLC_PRAGMA_UNROLL
    for (int u = 0; u < U; ++u) {
      float x[kN];
      V::unpack(cur[u], x);
      COLLC_PRAGMA_UNROLL
      for (int k = 0; k < kN; ++k)
        acc[u][k] = red_step<Op>(acc[u][k], x[k]);
    }
  }
  uint4 *d = reinterpret_cast<uint4 *>(dst + off);
  COLLC_PRAGMA_UNROLL
  for (int u = 0; u < U; ++u) {
    COLLC_PRAGMA_UNROLL
    for (int k = 0; k < kN; ++k)
      acc[u][k] = red_finish<Op>(acc[u][k], nsrc);
    d[idx[u]] = V::pack(acc[u]);
  }
}

/// nvec 16-byte vectors starting at element offset `off`.
template <typename E, RedOp Op, typename SrcFn>
COLLC_DEVICE_INLINE void reduce_vec16(E *dst, SrcFn &src, int nsrc, size_t off,
                                      size_t nvec, unsigned tid, unsigned nt) {
  cta_for_each_unrolled<kReduceUnroll>(nvec, tid, nt, [&](const auto &idx) {
    constexpr int U = sizeof(idx) / sizeof(size_t);
    reduce_vec16_group<E, Op, U>(dst, src, nsrc, off, idx);
  });
}

/// Whether a reduce of `elems` elements over `nsrc` sources has work to do:
/// not without elements, nor (after trapping) without a source.
COLLC_DEVICE_INLINE bool reduce_has_work(int nsrc, size_t elems) {
  if (elems == 0)
    return false;
  if (nsrc < 1) {
    COLLC_INVALID_CONTROL_PATH("reduce: nsrc must be at least 1");
    return false;
  }
  return true;
}

} // namespace detail

/// Generic Atom reduce by `nt` threads (thread `tid` of them, every one
/// calling it with the same arguments; a CTA, a warp or one thread): for i
/// in [0, elems),
/// dst[i] = Op over p = 0 .. nsrc-1 of src(p)[i], with the FP32 fold of
/// Purlin eq. 2 (see the file comment and RedOp). `src(p)` returns the
/// `const E*` of source p (local or a peer GPU's memory); it is called
/// repeatedly and must be cheap and side-effect free. nsrc >= 1 (traps
/// otherwise). dst may be exactly one of the sources (in place: each element
/// is read and written by one thread), but must not partially overlap one.
/// Works on every GPU.
template <typename E, RedOp Op, typename SrcFn>
COLLC_DEVICE_INLINE void reduce_generic(E *dst, SrcFn src, int nsrc,
                                        size_t elems, unsigned tid,
                                        unsigned nt) {
  if (!detail::reduce_has_work(nsrc, elems))
    return;
  const uintptr_t mis = reinterpret_cast<uintptr_t>(dst) & 15;
  bool vec = mis % sizeof(E) == 0;
  for (int p = 0; vec && p < nsrc; ++p)
    vec = (reinterpret_cast<uintptr_t>(src(p)) & 15) == mis;
  if (!vec) {
    detail::reduce_scalar<E, Op>(dst, src, nsrc, 0, elems, tid, nt);
    return;
  }
  constexpr size_t kN = detail::Vec16<E>::kN;
  size_t head = ((16 - mis) & 15) / sizeof(E);
  if (head > elems)
    head = elems;
  const size_t nvec = (elems - head) / kN;
  const size_t body = head + nvec * kN;
  detail::reduce_scalar<E, Op>(dst, src, nsrc, 0, head, tid, nt);
  detail::reduce_vec16<E, Op>(dst, src, nsrc, head, nvec, tid, nt);
  // The tail goes to the threads with the least vector work.
  const unsigned tailTid = (tid + nt - static_cast<unsigned>(nvec % nt)) % nt;
  detail::reduce_scalar<E, Op>(dst, src, nsrc, body, elems, tailTid, nt);
}

/// reduce_generic by the whole CTA.
template <typename E, RedOp Op, typename SrcFn>
COLLC_DEVICE_INLINE void reduce_generic(E *dst, SrcFn src, int nsrc,
                                        size_t elems) {
  reduce_generic<E, Op>(dst, src, nsrc, elems, cta_thread_rank(),
                        cta_num_threads());
}

#endif // defined(COLLC_DEVICE_COMPILE)

} // namespace dev
} // namespace collc

#endif // COLLC_DEVICE_COMMON_REDUCE_CUH
