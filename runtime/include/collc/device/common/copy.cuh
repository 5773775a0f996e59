//===- copy.cuh - Generic Atom copy: vectorized loads/stores ----*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The generic Atom `copy` (DESIGN.md "Datapath"): register-based,
/// 16-byte vectorized, unrolled loads and stores that work on every GPU.
/// It is CTA-cooperative: every thread of the CTA calls it with the same
/// arguments, and the threads split the bytes among themselves. No barrier is
/// taken inside; a thread may return before others finish.
///
/// Shapes, by the relative alignment of dst and src:
///  - (dst ^ src) % 16 == 0: bytes up to dst's next 16-byte boundary one by
///    one, then 16-byte vectors, kCopyUnroll of them loaded per thread before
///    they are stored (several loads in flight, which is what hides NVLink
///    latency), then the tail one byte at a time;
///  - otherwise: dst is aligned to 16 the same way, and each 16-byte store is
///    assembled from aligned 4-byte loads of src (funnel shifts when src is
///    not 4-byte aligned). Loads never touch a 4-byte word of src that holds
///    no byte of the range.
/// Any byte count, including 0, is allowed.
///
/// Memory: dst and src are global memory, local or a peer GPU's (NVLink pull
/// when src is remote, push when dst is). The ranges must not overlap. Plain
/// (weak) loads and stores: order them against readiness with flags.cuh.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_DEVICE_COMMON_COPY_CUH
#define COLLC_DEVICE_COMMON_COPY_CUH

#include "collc/device/common/arch_config.cuh"
#include "collc/device/common/types.cuh"

namespace collc {
namespace dev {

/// 16-byte vectors each thread loads before storing them, in the generic copy.
#if !defined(COLLC_COPY_UNROLL)
#define COLLC_COPY_UNROLL 4
#endif
constexpr int kCopyUnroll = COLLC_COPY_UNROLL;
static_assert(kCopyUnroll >= 1 && kCopyUnroll <= 16, "unroll 1..16");

#if defined(COLLC_DEVICE_COMPILE)

namespace detail {

/// Bytes [0, n) one at a time, split across the CTA.
COLLC_DEVICE_INLINE void copy_bytes(char *d, const char *s, size_t n,
                                    unsigned tid, unsigned nt) {
  for (size_t i = tid; i < n; i += nt)
    d[i] = s[i];
}

/// Copies the vectors at `idx` of one cta_for_each_unrolled group from
/// load(i) to d[i]: every load first, so that they are in flight together,
/// then the stores.
template <typename V, size_t U, typename Load>
COLLC_DEVICE_INLINE void copy_group(V *d, const size_t (&idx)[U], Load load) {
  V v[U];
  COLLC_PRAGMA_UNROLL
  for (size_t u = 0; u < U; ++u)
    v[u] = load(idx[u]);
  COLLC_PRAGMA_UNROLL
  for (size_t u = 0; u < U; ++u)
    d[idx[u]] = v[u];
}

/// n 16-byte vectors, both pointers 16-byte aligned; Unroll loads in flight
/// per thread before the stores.
template <int Unroll>
COLLC_DEVICE_INLINE void copy_vec16(uint4 *d, const uint4 *s, size_t n,
                                    unsigned tid, unsigned nt) {
  cta_for_each_unrolled<Unroll>(n, tid, nt, [&](const auto &idx) {
    copy_group(d, idx, [&](size_t i) { return s[i]; });
  });
}

/// Loads the 16 source bytes of chunk `c` from aligned words `w` (the word
/// holding the range's first byte is w[0]), `off` = that byte's offset in it.
COLLC_DEVICE_INLINE uint4 load_shifted16(const uint32_t *w, size_t c,
                                         unsigned off) {
  const uint32_t *p = w + 4 * c;
  if (off == 0)
    return make_uint4(p[0], p[1], p[2], p[3]);
  const uint32_t w0 = p[0], w1 = p[1], w2 = p[2], w3 = p[3], w4 = p[4];
  const unsigned sh = 8 * off;
  return make_uint4(__funnelshift_r(w0, w1, sh), __funnelshift_r(w1, w2, sh),
                    __funnelshift_r(w2, w3, sh), __funnelshift_r(w3, w4, sh));
}

/// n 16-byte chunks to a 16-byte aligned d from a src of any alignment.
template <int Unroll>
COLLC_DEVICE_INLINE void copy_shifted16(uint4 *d, const char *s, size_t n,
                                        unsigned tid, unsigned nt) {
  const unsigned off = static_cast<unsigned>(reinterpret_cast<uintptr_t>(s) & 3);
  const uint32_t *w = reinterpret_cast<const uint32_t *>(s - off);
  cta_for_each_unrolled<Unroll>(n, tid, nt, [&](const auto &idx) {
    copy_group(d, idx, [&](size_t i) { return load_shifted16(w, i, off); });
  });
}

} // namespace detail

/// Generic Atom copy by `nt` threads (thread `tid` of them; every one calls
/// it with the same arguments): `bytes` bytes from `src` to `dst`, any
/// alignment, any count; see the file comment. Works on every GPU. A warp
/// (the device API's copy_warp) or one thread are groups too.
COLLC_DEVICE_INLINE void copy_generic(void *dst, const void *src, size_t bytes,
                                      unsigned tid, unsigned nt) {
  if (bytes == 0)
    return;
  char *d = static_cast<char *>(dst);
  const char *s = static_cast<const char *>(src);
  size_t head = (16 - (reinterpret_cast<uintptr_t>(d) & 15)) & 15;
  if (head > bytes)
    head = bytes;
  detail::copy_bytes(d, s, head, tid, nt);
  d += head;
  s += head;
  bytes -= head;
  const size_t n16 = bytes / 16;
  if ((reinterpret_cast<uintptr_t>(s) & 15) == 0)
    detail::copy_vec16<kCopyUnroll>(reinterpret_cast<uint4 *>(d),
                                    reinterpret_cast<const uint4 *>(s), n16,
                                    tid, nt);
  else
    detail::copy_shifted16<(kCopyUnroll + 1) / 2>(reinterpret_cast<uint4 *>(d),
                                                  s, n16, tid, nt);
  // The tail goes to the last threads, which had the least vector work.
  const size_t tail = bytes - n16 * 16;
  const unsigned tailTid = (tid + nt - static_cast<unsigned>(n16 % nt)) % nt;
  detail::copy_bytes(d + n16 * 16, s + n16 * 16, tail, tailTid, nt);
}

/// copy_generic by the whole CTA.
COLLC_DEVICE_INLINE void copy_generic(void *dst, const void *src,
                                      size_t bytes) {
  if (bytes == 0) // before reading the thread index: the kernels' PTX as before
    return;
  copy_generic(dst, src, bytes, cta_thread_rank(), cta_num_threads());
}

#endif // defined(COLLC_DEVICE_COMPILE)

} // namespace dev
} // namespace collc

#endif // COLLC_DEVICE_COMMON_COPY_CUH
