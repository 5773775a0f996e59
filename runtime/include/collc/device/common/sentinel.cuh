//===- sentinel.cuh - Sentinel readiness (flash-comm 3.1) -------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Sentinel readiness: receive slots are pre-filled with a sentinel bit
/// pattern; a producer publishes by overwriting it with data, so the data is
/// its own readiness (no flag, no extra bytes); the sole consumer polls until
/// the slot differs from the sentinel, captures the value and re-arms the
/// slot with the sentinel once the buffer-reuse rule allows.
///
/// The sentinel. Every element of a slot is ALL ONES: 0xFFFFFFFF (f32),
/// 0xFFFF (f16, bf16), 0xFF (e4m3, e5m2). It is a negative NaN with a full
/// payload in all five formats, which no CUDA arithmetic or conversion
/// produces (they produce the positive canonical NaNs below), and it is the
/// same for every type, so a slot word's sentinel is all ones whatever the
/// element type (kWord32, kWord64).
///
/// Canonicalization. A real value can still carry the sentinel's bits: raw
/// input data can, and so can a partial result that passes an input through
/// unchanged (a copy, a max/min). Before publication every element equal to
/// the sentinel is replaced by the positive canonical NaN of its type:
/// 0x7FFFFFFF (f32), 0x7FFF (f16, bf16), 0x7F (e4m3, e5m2), which is also
/// what CUDA arithmetic produces for a NaN. Both are NaN, so the value is
/// numerically unchanged (NaN stays NaN; only sign and payload of that NaN
/// are lost). Apply it to partial sums too when they travel through
/// sentinel slots (flash-comm 3.1).
///
/// Bits, never floats: readiness compares integer bit patterns. Comparing
/// floats hangs (NaN != NaN) or misfires (-0.0 == +0.0, flushed subnormals).
///
/// Atomicity: a slot word is 4 or 8 bytes, written by one store and read by
/// one load, so it is observed whole. A 16-byte slot (Pack16) is written by
/// one 16-byte store but checked per 8-byte half: it is ready only when both
/// halves differ from the sentinel, which canonicalization guarantees for
/// real data (each half holds whole elements).
///
/// Accesses are relaxed at system scope (volatile for the 16-byte form),
/// generic-addressed. The value carries its own readiness; to order other
/// data behind it, use flags.cuh instead.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_DEVICE_COMMON_SENTINEL_CUH
#define COLLC_DEVICE_COMMON_SENTINEL_CUH

#include "collc/device/common/arch_config.cuh"
#include "collc/device/common/flags.cuh"
#include "collc/device/common/types.cuh"

namespace collc {
namespace dev {
namespace sentinel {

/// The sentinel of a 4-byte slot word (any element type).
constexpr uint32_t kWord32 = 0xFFFFFFFFu;
/// The sentinel of an 8-byte slot word (any element type).
constexpr u64 kWord64 = ~static_cast<u64>(0);

/// A 16-byte slot: two 8-byte halves, each checked on its own.
struct alignas(16) Pack16 {
  u64 lo;
  u64 hi;
};

#if defined(COLLC_DEVICE_COMPILE)

/// The canonical NaN that replaces a sentinel-valued element of type E.
template <typename E> struct CanonicalNaN;
template <> struct CanonicalNaN<float> {
  static constexpr uint32_t kBits = 0x7FFFFFFFu;
};
template <> struct CanonicalNaN<__half> {
  static constexpr uint16_t kBits = 0x7FFF;
};
template <> struct CanonicalNaN<__nv_bfloat16> {
  static constexpr uint16_t kBits = 0x7FFF;
};
template <> struct CanonicalNaN<__nv_fp8_e4m3> {
  static constexpr uint8_t kBits = 0x7F;
};
template <> struct CanonicalNaN<__nv_fp8_e5m2> {
  static constexpr uint8_t kBits = 0x7F;
};

/// Canonicalizes every element of type E packed in `word` (a 1-, 2-, 4- or
/// 8-byte unsigned integer holding sizeof(word) / sizeof(E) elements, lowest
/// address in the lowest bits): an element whose bits are all ones (the
/// sentinel) becomes CanonicalNaN<E>; others are unchanged. The result never
/// equals the sentinel word, nor has any sentinel-valued element.
template <typename E, typename Word>
COLLC_DEVICE_INLINE Word canonicalize(Word word) {
  static_assert(sizeof(Word) % sizeof(E) == 0 && sizeof(Word) <= 8,
                "a slot word holds whole elements and is at most 8 bytes");
  constexpr unsigned kLaneBits = 8 * sizeof(E);
  constexpr unsigned kLanes = sizeof(Word) / sizeof(E);
  constexpr Word kMask = static_cast<Word>((1ull << kLaneBits) - 1);
  Word out = word;
  COLLC_PRAGMA_UNROLL
  for (unsigned i = 0; i < kLanes; ++i) {
    const unsigned shift = i * kLaneBits;
    if (((word >> shift) & kMask) == kMask) {
      out = static_cast<Word>(out & ~static_cast<Word>(kMask << shift));
      out = static_cast<Word>(
          out | static_cast<Word>(static_cast<Word>(CanonicalNaN<E>::kBits)
                                  << shift));
    }
  }
  return out;
}

/// Canonicalizes both halves of a 16-byte pack of E elements.
template <typename E> COLLC_DEVICE_INLINE Pack16 canonicalize(Pack16 p) {
  return Pack16{canonicalize<E>(p.lo), canonicalize<E>(p.hi)};
}

/// Whether a slot word / pack still holds the sentinel (i.e. is not ready).
COLLC_DEVICE_INLINE bool is_sentinel(uint32_t w) { return w == kWord32; }
COLLC_DEVICE_INLINE bool is_sentinel(u64 w) { return w == kWord64; }
/// A 16-byte pack is ready only when neither half is the sentinel.
COLLC_DEVICE_INLINE bool is_ready(Pack16 p) {
  return p.lo != kWord64 && p.hi != kWord64;
}

/// Publishes an already canonicalized word: st.relaxed.sys.
COLLC_DEVICE_INLINE void store(uint32_t *slot, uint32_t canonicalWord) {
  asm volatile("st.relaxed.sys.u32 [%0], %1;" ::"l"(slot), "r"(canonicalWord)
               : "memory");
}
COLLC_DEVICE_INLINE void store(u64 *slot, u64 canonicalWord) {
  asm volatile("st.relaxed.sys.u64 [%0], %1;" ::"l"(slot), "l"(canonicalWord)
               : "memory");
}
/// Publishes an already canonicalized pack with one 16-byte volatile store.
COLLC_DEVICE_INLINE void store(Pack16 *slot, Pack16 canonicalPack) {
  asm volatile("st.volatile.v2.u64 [%0], {%1, %2};" ::"l"(slot),
               "l"(canonicalPack.lo), "l"(canonicalPack.hi)
               : "memory");
}

/// One read of a slot (ld.relaxed.sys; ld.volatile.v2.u64 for a pack).
COLLC_DEVICE_INLINE uint32_t load(const uint32_t *slot) {
  uint32_t v;
  asm volatile("ld.relaxed.sys.u32 %0, [%1];" : "=r"(v) : "l"(slot) : "memory");
  return v;
}
COLLC_DEVICE_INLINE u64 load(const u64 *slot) {
  u64 v;
  asm volatile("ld.relaxed.sys.u64 %0, [%1];" : "=l"(v) : "l"(slot) : "memory");
  return v;
}
COLLC_DEVICE_INLINE Pack16 load(const Pack16 *slot) {
  Pack16 v;
  asm volatile("ld.volatile.v2.u64 {%0, %1}, [%2];"
               : "=l"(v.lo), "=l"(v.hi)
               : "l"(slot)
               : "memory");
  return v;
}

namespace detail {
COLLC_DEVICE_INLINE bool ready(uint32_t w) { return w != kWord32; }
COLLC_DEVICE_INLINE bool ready(u64 w) { return w != kWord64; }
COLLC_DEVICE_INLINE bool ready(Pack16 p) { return is_ready(p); }
} // namespace detail

/// Polls `*slot` (single thread) until its bits differ from the sentinel,
/// then stores the value in `*out` and returns true; returns false on
/// bounded_poll's timeout. Slot may be uint32_t, u64 or Pack16.
template <typename Slot>
COLLC_DEVICE_INLINE bool poll(const Slot *slot, Slot *out,
                              unsigned long long timeoutNs) {
  if (bounded_poll(timeoutNs, [&] {
        const Slot v = load(slot);
        if (!detail::ready(v))
          return false;
        *out = v;
        return true;
      }))
    return true;
#if defined(COLLC_DEVICE_TRAP_ON_TIMEOUT)
  printf("collc: sentinel poll timed out: slot != sentinel after %llu ns\n",
         timeoutNs);
  __trap();
#endif
  return false;
}

/// Re-arms a slot: writes the sentinel (relaxed, system scope). Only the
/// slot's sole consumer does this, after capturing the value.
COLLC_DEVICE_INLINE void rearm(uint32_t *slot) { store(slot, kWord32); }
COLLC_DEVICE_INLINE void rearm(u64 *slot) { store(slot, kWord64); }
COLLC_DEVICE_INLINE void rearm(Pack16 *slot) {
  store(slot, Pack16{kWord64, kWord64});
}

#endif // defined(COLLC_DEVICE_COMPILE)

} // namespace sentinel
} // namespace dev
} // namespace collc

#endif // COLLC_DEVICE_COMMON_SENTINEL_CUH
