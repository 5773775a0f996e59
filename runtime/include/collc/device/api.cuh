//===- api.cuh - The collc device API for users' kernels --------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The device API (Purlin R3, docs/device-api.md): what a user's own kernel
/// (a GEMM epilogue, an MoE dispatch, a fused norm) calls to communicate on a
/// collc communicator, with the same datapath and readiness the generated
/// collectives use. Everything takes the communicator's handle,
/// collcDeviceComm (device_comm.h, from collcCommGetDeviceHandle), passed to
/// the kernel by value. In namespace collc::dev:
///
///  - addresses: peer_ptr<T>(c, peer, offset): a byte offset into `peer`'s
///    registered window, as this rank maps it (load and store it directly);
///  - copy and reduce at three scopes (every thread of the scope calls with
///    the same arguments): copy_thread / copy_warp / copy_cta, and
///    reduce_thread / reduce_warp / reduce_cta (the Atom's fold: FP32, ranks
///    in ascending order, rounded once, so every rank gets the same bits),
///    plus reduce_peers_cta: one element range of every rank's window;
///  - readiness by counted signals: signal / wait (one thread), _warp and
///    _cta forms (the scope's memory operations before a signal are visible
///    to the peer once its wait returns), signal_all_cta / wait_all_cta /
///    barrier_cta (every peer); put_cta: copy into a peer's window, then
///    signal it;
///  - the LL encoding (ll_put_* / ll_get_*: 8 bytes of data and a sequence
///    number per 16-byte packet, no separate signal) and the sentinel
///    encoding (sentinel_put_* / sentinel_get_*: the data is its own
///    readiness; the reader re-arms), at thread, warp and CTA scope.
///
/// Every wait is bounded by the communicator's timeout; one that expires
/// returns false and fills the handle's error record, which
/// collcCommGetAsyncError reports on the host (then abort the
/// communicator). Compiles with nvcc and NVRTC (--std=c++17, include paths
/// <cuda>/include and <collc>/include); needs sm_70 or newer.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_DEVICE_API_CUH
#define COLLC_DEVICE_API_CUH

#include "collc/device/atom.cuh"
#include "collc/device/device_comm.h"

namespace collc {
namespace dev {

#if defined(COLLC_DEVICE_COMPILE)

//===----------------------------------------------------------------------===//
// Addresses
//===----------------------------------------------------------------------===//

/// `offset` bytes into `peer`'s registered window, mapped into this rank.
template <typename T = void>
COLLC_DEVICE_INLINE T *peer_ptr(const collcDeviceComm &c, int peer,
                                size_t offset) {
  return reinterpret_cast<T *>(static_cast<char *>(c.peers[peer]) + offset);
}

/// The scopes of the API: a thread's index and the thread count, a barrier,
/// and whether a predicate holds on every thread (a barrier too).
struct ThreadScope {
  COLLC_DEVICE_INLINE static unsigned rank() { return 0; }
  COLLC_DEVICE_INLINE static unsigned size() { return 1; }
  COLLC_DEVICE_INLINE static void sync() {}
  COLLC_DEVICE_INLINE static bool all(int ok) { return ok != 0; }
};
/// A warp: lane index (of the block's linear thread index, any block
/// shape), 32 threads, all of them active.
struct WarpScope {
  COLLC_DEVICE_INLINE static unsigned rank() { return cta_thread_rank() & 31; }
  COLLC_DEVICE_INLINE static unsigned size() { return 32; }
  COLLC_DEVICE_INLINE static void sync() { __syncwarp(); }
  COLLC_DEVICE_INLINE static bool all(int ok) {
    __syncwarp(); // orders lane 0's acquire before the others' reads
    return __all_sync(0xffffffffu, ok) != 0;
  }
};
struct CtaScope {
  COLLC_DEVICE_INLINE static unsigned rank() { return cta_thread_rank(); }
  COLLC_DEVICE_INLINE static unsigned size() { return cta_num_threads(); }
  COLLC_DEVICE_INLINE static void sync() { __syncthreads(); }
  COLLC_DEVICE_INLINE static bool all(int ok) {
    return __syncthreads_and(ok) != 0;
  }
};

//===----------------------------------------------------------------------===//
// Copy and reduce
//===----------------------------------------------------------------------===//

/// `bytes` bytes from `src` to `dst` (local or a peer's), any alignment,
/// non-overlapping: by one thread, by the 32 threads of a warp (all
/// active), or by the whole CTA (the Atom copy of the generated kernels).
COLLC_DEVICE_INLINE void copy_thread(void *dst, const void *src,
                                     size_t bytes) {
  copy_generic(dst, src, bytes, 0, 1);
}
COLLC_DEVICE_INLINE void copy_warp(void *dst, const void *src, size_t bytes) {
  copy_generic(dst, src, bytes, WarpScope::rank(), 32);
}
COLLC_DEVICE_INLINE void copy_cta(void *dst, const void *src, size_t bytes) {
  copy(dst, src, bytes);
}

/// dst[i] = Op over p = 0 .. nsrc-1 of srcs[p][i], i in [0, elems), folded
/// in FP32 in ascending p and rounded to E once (the Atom reduce); dst may
/// be one of the sources. By one thread, a warp, or the CTA.
template <typename E, RedOp Op = RedOp::Sum>
COLLC_DEVICE_INLINE void reduce_thread(E *dst, const E *const *srcs, int nsrc,
                                       size_t elems) {
  reduce_generic<E, Op>(dst, [&](int p) { return srcs[p]; }, nsrc, elems, 0,
                        1);
}
template <typename E, RedOp Op = RedOp::Sum>
COLLC_DEVICE_INLINE void reduce_warp(E *dst, const E *const *srcs, int nsrc,
                                     size_t elems) {
  reduce_generic<E, Op>(dst, [&](int p) { return srcs[p]; }, nsrc, elems,
                        WarpScope::rank(), 32);
}
template <typename E, RedOp Op = RedOp::Sum>
COLLC_DEVICE_INLINE void reduce_cta(E *dst, const E *const *srcs, int nsrc,
                                    size_t elems) {
  reduce<E, Op>(dst, [&](int p) { return srcs[p]; }, nsrc, elems);
}

/// dst[i] = Op over every rank p (ascending) of element i of the range that
/// starts `offset` bytes into p's window: the reduction of a one-shot
/// all-reduce, the same bits on every rank. By the whole CTA.
template <typename E, RedOp Op = RedOp::Sum>
COLLC_DEVICE_INLINE void reduce_peers_cta(E *dst, const collcDeviceComm &c,
                                          size_t offset, size_t elems) {
  reduce<E, Op>(
      dst, [&](int p) { return peer_ptr<const E>(c, p, offset); }, c.nranks,
      elems);
}

//===----------------------------------------------------------------------===//
// Readiness: counted signals
//===----------------------------------------------------------------------===//

namespace detail {

COLLC_DEVICE_INLINE u64 *inbox_word(const collcDeviceComm &c, int receiver,
                                    int sender, int slot) {
  return c.inbox[receiver] + static_cast<size_t>(slot) * c.nranks + sender;
}

/// Fills the handle's error record once (the first expired wait wins).
COLLC_DEVICE_INLINE void record_timeout(const collcDeviceComm &c, int kind,
                                        int peer, int slot, u64 expected,
                                        u64 seen) {
  u64 *e = c.error;
  if (atomicCAS(reinterpret_cast<unsigned long long *>(e), 0ull,
                static_cast<unsigned long long>(COLLC_DEVICE_WAIT_TIMEOUT)) !=
      0ull)
    return;
  e[1] = static_cast<u64>(slot);
  e[2] = static_cast<u64>(c.rank);
  e[3] = static_cast<u64>(peer);
  e[4] = expected;
  e[5] = seen;
  e[6] = blockIdx.x;
  e[7] = static_cast<u64>(kind);
  __threadfence_system();
}

} // namespace detail

/// One thread: tells `peer` that this thread's memory operations so far
/// (and, after a barrier, its scope's) are done: adds 1 to the peer's inbox
/// word for (slot, this rank) with release order at system scope.
COLLC_DEVICE_INLINE void signal(const collcDeviceComm &c, int peer, int slot) {
  red_add_release_sys(detail::inbox_word(c, peer, c.rank, slot), 1);
}

/// One thread: waits for `peer`'s next signal on `slot` (acquire order), at
/// most the communicator's timeout. Returns false when it expired (the
/// error record names the wait; the communicator is then unusable).
COLLC_DEVICE_INLINE bool wait(const collcDeviceComm &c, int peer, int slot) {
  u64 *expected =
      c.expected + static_cast<size_t>(slot) * c.nranks + static_cast<size_t>(peer);
  // Atomic: two kernels of this rank may wait on one (slot, peer) pair.
  const u64 target = atom_add_acq_rel<Scope::Gpu>(expected, 1) + 1;
  u64 seen = 0;
  if (wait_geq_acquire_sys(detail::inbox_word(c, c.rank, peer, slot), target,
                           c.timeoutNs, &seen))
    return true;
  detail::record_timeout(c, COLLC_DEVICE_WAIT_SIGNAL, peer, slot, target,
                         seen);
  return false;
}

/// A scope's signal: every thread of the scope calls it; the scope's memory
/// operations before the call are visible to `peer` once its wait returns.
template <typename S>
COLLC_DEVICE_INLINE void signal_in(const collcDeviceComm &c, int peer,
                                   int slot) {
  S::sync();
  if (S::rank() == 0)
    signal(c, peer, slot);
}

/// A scope's wait: every thread calls it; returns (the same answer to every
/// thread) once `peer`'s signal arrived, with its data visible to the whole
/// scope.
template <typename S>
COLLC_DEVICE_INLINE bool wait_in(const collcDeviceComm &c, int peer,
                                 int slot) {
  int ok = 1;
  if (S::rank() == 0)
    ok = wait(c, peer, slot);
  return S::all(ok);
}

COLLC_DEVICE_INLINE void signal_warp(const collcDeviceComm &c, int peer,
                                     int slot) {
  signal_in<WarpScope>(c, peer, slot);
}
COLLC_DEVICE_INLINE void signal_cta(const collcDeviceComm &c, int peer,
                                    int slot) {
  signal_in<CtaScope>(c, peer, slot);
}
COLLC_DEVICE_INLINE bool wait_warp(const collcDeviceComm &c, int peer,
                                   int slot) {
  return wait_in<WarpScope>(c, peer, slot);
}
COLLC_DEVICE_INLINE bool wait_cta(const collcDeviceComm &c, int peer,
                                  int slot) {
  return wait_in<CtaScope>(c, peer, slot);
}

/// The CTA signals every other rank on `slot` (one thread per peer).
COLLC_DEVICE_INLINE void signal_all_cta(const collcDeviceComm &c, int slot) {
  __syncthreads();
  for (unsigned p = cta_thread_rank(); p < static_cast<unsigned>(c.nranks);
       p += cta_num_threads())
    if (static_cast<int>(p) != c.rank)
      signal(c, static_cast<int>(p), slot);
}

/// The CTA waits for every other rank's signal on `slot` (one thread per
/// peer); true on every thread when all arrived.
COLLC_DEVICE_INLINE bool wait_all_cta(const collcDeviceComm &c, int slot) {
  int ok = 1;
  for (unsigned p = cta_thread_rank(); p < static_cast<unsigned>(c.nranks);
       p += cta_num_threads())
    if (static_cast<int>(p) != c.rank && ok)
      ok = wait(c, static_cast<int>(p), slot);
  return __syncthreads_and(ok) != 0;
}

/// signal_all_cta then wait_all_cta: the same CTA's barrier on every rank
/// (every rank's CTA must call it with the same slot).
COLLC_DEVICE_INLINE bool barrier_cta(const collcDeviceComm &c, int slot) {
  signal_all_cta(c, slot);
  return wait_all_cta(c, slot);
}

/// The CTA copies `bytes` from `src` to `offset` bytes into `peer`'s window,
/// then signals `peer` on `slot`: once the peer's wait on (this rank, slot)
/// returns, the data is there.
COLLC_DEVICE_INLINE void put_cta(const collcDeviceComm &c, int peer,
                                 size_t offset, const void *src, size_t bytes,
                                 int slot) {
  copy_cta(peer_ptr(c, peer, offset), src, bytes);
  signal_cta(c, peer, slot);
}

/// put_cta by one warp (all 32 threads call it).
COLLC_DEVICE_INLINE void put_warp(const collcDeviceComm &c, int peer,
                                  size_t offset, const void *src, size_t bytes,
                                  int slot) {
  copy_warp(peer_ptr(c, peer, offset), src, bytes);
  signal_warp(c, peer, slot);
}

/// put_cta by one thread.
COLLC_DEVICE_INLINE void put_thread(const collcDeviceComm &c, int peer,
                                    size_t offset, const void *src,
                                    size_t bytes, int slot) {
  copy_thread(peer_ptr(c, peer, offset), src, bytes);
  signal(c, peer, slot);
}

//===----------------------------------------------------------------------===//
// Encodings: LL packets and sentinels
//===----------------------------------------------------------------------===//

/// LL: `bytes` (a multiple of 8) from `src` (8-byte aligned) into
/// bytes / 8 packets at `dst` (16-byte aligned; a peer's window through
/// peer_ptr), each with sequence number `seq` (nonzero: ll::next_seq; the
/// sender and the receiver agree on it, e.g. a per-launch counter). No
/// signal: the packets are their own readiness. By the threads of scope S.
template <typename S>
COLLC_DEVICE_INLINE void ll_put_in(ll::Packet *dst, const void *src,
                                   size_t bytes, uint32_t seq) {
  const u64 *s = static_cast<const u64 *>(src);
  for (size_t i = S::rank(); i < bytes / 8; i += S::size())
    ll::store(dst + i, s[i], seq);
}

/// LL: waits for bytes / 8 packets with sequence number `seq` at `src`
/// (this rank's memory, written by `peer`) and writes their data to `dst`.
/// Returns false on every thread of the scope when a packet did not arrive
/// in time (the error record names it).
template <typename S>
COLLC_DEVICE_INLINE bool ll_get_in(const collcDeviceComm &c, int peer,
                                   const ll::Packet *src, void *dst,
                                   size_t bytes, uint32_t seq) {
  u64 *d = static_cast<u64 *>(dst);
  int ok = 1;
  for (size_t i = S::rank(); ok && i < bytes / 8; i += S::size())
    if (!ll::poll(src + i, seq, d + i, c.timeoutNs)) {
      detail::record_timeout(c, COLLC_DEVICE_WAIT_PACKET, peer,
                             static_cast<int>(i), seq, 0);
      ok = 0;
    }
  return S::all(ok);
}

COLLC_DEVICE_INLINE void ll_put_thread(ll::Packet *dst, const void *src,
                                       size_t bytes, uint32_t seq) {
  ll_put_in<ThreadScope>(dst, src, bytes, seq);
}
COLLC_DEVICE_INLINE void ll_put_warp(ll::Packet *dst, const void *src,
                                     size_t bytes, uint32_t seq) {
  ll_put_in<WarpScope>(dst, src, bytes, seq);
}
COLLC_DEVICE_INLINE void ll_put_cta(ll::Packet *dst, const void *src,
                                    size_t bytes, uint32_t seq) {
  ll_put_in<CtaScope>(dst, src, bytes, seq);
}
COLLC_DEVICE_INLINE bool ll_get_thread(const collcDeviceComm &c, int peer,
                                       const ll::Packet *src, void *dst,
                                       size_t bytes, uint32_t seq) {
  return ll_get_in<ThreadScope>(c, peer, src, dst, bytes, seq);
}
COLLC_DEVICE_INLINE bool ll_get_warp(const collcDeviceComm &c, int peer,
                                     const ll::Packet *src, void *dst,
                                     size_t bytes, uint32_t seq) {
  return ll_get_in<WarpScope>(c, peer, src, dst, bytes, seq);
}
COLLC_DEVICE_INLINE bool ll_get_cta(const collcDeviceComm &c, int peer,
                                    const ll::Packet *src, void *dst,
                                    size_t bytes, uint32_t seq) {
  return ll_get_in<CtaScope>(c, peer, src, dst, bytes, seq);
}

/// Sentinel: `words` 32-bit words of element type E from `src` to `dst` (a
/// peer's slot, armed: every word all ones), each canonicalized (an element
/// equal to the sentinel becomes the canonical NaN) and stored whole. By the
/// threads of scope S.
template <typename S, typename E>
COLLC_DEVICE_INLINE void sentinel_put_in(uint32_t *dst, const uint32_t *src,
                                         size_t words) {
  for (size_t i = S::rank(); i < words; i += S::size())
    sentinel::store(dst + i, sentinel::canonicalize<E>(src[i]));
}

/// Sentinel: waits until each of `words` words at `src` (this rank's slot,
/// written by `peer`) differs from the sentinel, copies it to `dst` and
/// re-arms it. False on every thread of the scope when one did not arrive.
template <typename S>
COLLC_DEVICE_INLINE bool sentinel_get_in(const collcDeviceComm &c, int peer,
                                         uint32_t *src, uint32_t *dst,
                                         size_t words) {
  int ok = 1;
  for (size_t i = S::rank(); ok && i < words; i += S::size()) {
    uint32_t w = 0;
    if (!sentinel::poll(src + i, &w, c.timeoutNs)) {
      detail::record_timeout(c, COLLC_DEVICE_WAIT_PACKET, peer,
                             static_cast<int>(i), 0, 0);
      ok = 0;
      break;
    }
    dst[i] = w;
    sentinel::rearm(src + i);
  }
  return S::all(ok);
}

template <typename E>
COLLC_DEVICE_INLINE void sentinel_put_thread(uint32_t *dst, const uint32_t *src,
                                             size_t words) {
  sentinel_put_in<ThreadScope, E>(dst, src, words);
}
template <typename E>
COLLC_DEVICE_INLINE void sentinel_put_warp(uint32_t *dst, const uint32_t *src,
                                           size_t words) {
  sentinel_put_in<WarpScope, E>(dst, src, words);
}
template <typename E>
COLLC_DEVICE_INLINE void sentinel_put_cta(uint32_t *dst, const uint32_t *src,
                                          size_t words) {
  sentinel_put_in<CtaScope, E>(dst, src, words);
}
COLLC_DEVICE_INLINE bool sentinel_get_thread(const collcDeviceComm &c,
                                             int peer, uint32_t *src,
                                             uint32_t *dst, size_t words) {
  return sentinel_get_in<ThreadScope>(c, peer, src, dst, words);
}
COLLC_DEVICE_INLINE bool sentinel_get_warp(const collcDeviceComm &c, int peer,
                                           uint32_t *src, uint32_t *dst,
                                           size_t words) {
  return sentinel_get_in<WarpScope>(c, peer, src, dst, words);
}
COLLC_DEVICE_INLINE bool sentinel_get_cta(const collcDeviceComm &c, int peer,
                                          uint32_t *src, uint32_t *dst,
                                          size_t words) {
  return sentinel_get_in<CtaScope>(c, peer, src, dst, words);
}

#endif // defined(COLLC_DEVICE_COMPILE)

} // namespace dev
} // namespace collc

#endif // COLLC_DEVICE_API_CUH
