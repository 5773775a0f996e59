//===- schedule.cuh - what a generated SNAC kernel runs on ------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The device side of a derived schedule: buffer geometry (layouts and the
/// run-time size matrix), chunk regions and slots, and the events of the
/// schedule (abi.h lays out their words). Generated kernels
/// (`collc --emit=cuda`) are loops over these calls; the bytes move through
/// the Atom (atom.cuh). Nothing here depends on a collective's name.
///
/// Semantics (docs/snac.md): a ready event is a word per (sender, partition,
/// slot) at the receiver holding (call << 32) | (chunk + 1); a free event is
/// a release counter per (partition, slot) at the region's owner, and the
/// u-th use of a slot waits for (u - 1) * quota releases. The use count of
/// earlier calls lives in the private state and is advanced by the last CTA
/// of each call.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_DEVICE_SNAC_SCHEDULE_CUH
#define COLLC_DEVICE_SNAC_SCHEDULE_CUH

#include "collc/device/atom.cuh"
#include "collc/device/snac/abi.h"
#include "collc/vocab.h"

#if defined(COLLC_DEVICE_COMPILE)

namespace collc::dev::snac {

using vocab::Consume;
using vocab::Layout;
using vocab::Root;
/// Whether a buffer has the geometry of a transform's input or output.
enum class Side { Input, Output };
enum class Kind { Input, Output, Staging, Intermediate };

/// One transform of the collective, as the generator bakes it in.
using Part = vocab::Transform;

/// The size vector, the second kernel parameter (abi.h): passed by value and
/// read in place (__grid_constant__), so sizes are parameter loads, never
/// dependent loads of global memory.
template <int N> struct SizeVector {
  long long v[2 * N];
};

/// Partition sizes and offsets of the collective's buffers (Purlin 3.1), from
/// the size vector of the first transform's input at `n` ranks. `Desc`
/// provides `static constexpr int kParts` and `static constexpr Part
/// kPart[]`.
template <class Desc>
struct Geometry {
  const long long *sizes;
  int root;
  int rank;
  int n;

  /// Elements producer rank `p` contributes to partition `k` of transform
  /// `T`'s input.
  template <int T>
  COLLC_DEVICE_INLINE long long inSize(int p, int k) const {
    if constexpr (T == 0)
      return collcSizeAt(sizes, n, Desc::kPart[0].in == Layout::Packed, rank,
                         p, k);
    else
      return outSize<T - 1>(p, k);
  }

  /// Elements of partition `j` of transform `T`'s output at rank `r`.
  template <int T>
  COLLC_DEVICE_INLINE long long outSize(int r, int j) const {
    const vocab::SizeEntry e = vocab::outputEntry(Desc::kPart[T], root, r, j);
    return inSize<T>(e.producer, e.part);
  }

  template <Side S, int T>
  COLLC_DEVICE_INLINE long long size(int owner, int j) const {
    if constexpr (S == Side::Input)
      return inSize<T>(owner, j);
    else
      return outSize<T>(owner, j);
  }

  template <Side S, int T>
  COLLC_DEVICE_INLINE long long offset(int owner, int j) const {
    long long at = 0;
    for (int i = 0; i < j; ++i)
      at += size<S, T>(owner, i);
    return at;
  }
};

/// The running schedule of one kernel launch on one rank: N ranks, or any
/// number up to N (AnyRanks: the parameters' world size; the size vector
/// holds N ranks' words, those past the world size zero).
template <typename E, int N, class Desc, long long ChunkBytes, int Slots,
          int ReadyEvents, int FreeEvents, bool AnyRanks = false>
struct Context {
  using Elem = E;
  static constexpr int kN = N;
  static constexpr long long kChunkElems =
      vocab::chunkElems(ChunkBytes, (int)sizeof(E));

  collcKernelParams p;
  Geometry<Desc> geo;
  /// This call's sequence number (1 for the first call), the same on every
  /// rank: it stamps ready events so a word from an earlier call never
  /// satisfies a wait.
  unsigned long long call;
  bool failed = false;

  COLLC_DEVICE_INLINE Context(const collcKernelParams &params,
                              const long long *sizes)
      : p(params),
        geo{sizes, params.root, params.rank, AnyRanks ? params.worldSize : N},
        call(params.state[COLLC_STATE_SEQ] + 1) {
    // The kernel (and rank) by its state words' address (trace.cuh).
    COLLC_TRACE_CALL_BEGIN(reinterpret_cast<u64>(params.state), call);
  }
#if defined(COLLC_DEVICE_TRACE) && COLLC_DEVICE_TRACE
  /// The CTA's call ends at any return of the kernel.
  COLLC_DEVICE_INLINE ~Context() { COLLC_TRACE_CALL_END(); }
#endif

  /// Starts the call in this CTA: takes the claim word with this launch's
  /// token (a call of the same kernel still holding it with another token
  /// is a concurrent call, or one that timed out: this CTA does nothing),
  /// then
  /// publishes the call in the arrival word peers read to blame a rank that
  /// never arrived. Runs after griddepcontrol.wait, so the previous call on
  /// the stream has released the claim.
  COLLC_DEVICE_INLINE bool begin() {
    __shared__ int ok;
    if (threadIdx.x == 0) {
      const unsigned long long held =
          atomicCAS(p.state + COLLC_STATE_CLAIM, 0ull, p.launch);
      ok = held == 0 || held == p.launch;
      if (ok)
        atomicMax(p.events[p.rank] + arrivalIndex(), call);
      else if (p.error[0] == COLLC_KERNEL_OK &&
               p.error[COLLC_ERROR_REMOTE] == COLLC_KERNEL_OK)
        // Else the holder is an earlier call that timed out and ended
        // without releasing: its error is the one to report, and this call
        // (queued behind it) ends at once.
        recordError(COLLC_KERNEL_CONCURRENT, 0, 0, -1, 0, 0);
    }
    __syncthreads();
    return ok;
  }

  COLLC_DEVICE_INLINE unsigned long long arrivalIndex() const {
    return collcArrivalWord(ReadyEvents, FreeEvents, n(), Slots);
  }

  COLLC_DEVICE_INLINE int rank() const { return p.rank; }
  /// The call's world size: N, or the parameters' (AnyRanks).
  COLLC_DEVICE_INLINE int n() const { return AnyRanks ? p.worldSize : N; }
  COLLC_DEVICE_INLINE int root() const { return p.root; }

  template <Side S, int T>
  COLLC_DEVICE_INLINE long long numChunks(long long owner, long long j) const {
    return (geo.template size<S, T>((int)owner, (int)j) + kChunkElems - 1) /
           kChunkElems;
  }

  /// The most chunks of any partition of the buffer with the geometry of
  /// side `S` of transform `T` at rank `owner`.
  template <Side S, int T>
  COLLC_DEVICE_INLINE long long maxChunks(long long owner) const {
    constexpr Part part = Desc::kPart[T];
    const int parts =
        vocab::partitions(S == Side::Input ? part.in : part.out, n());
    long long most = 0;
    for (long long j = 0; j < parts; ++j) {
      const long long c = numChunks<S, T>(owner, j);
      most = c > most ? c : most;
    }
    return most;
  }

  /// The slot of `chunk` in a buffer of kind `K`: peer-accessible buffers
  /// cycle through `Slots` slots per partition.
  template <Kind K>
  static COLLC_DEVICE_INLINE long long slot(long long chunk) {
    if constexpr (K == Kind::Staging || K == Kind::Intermediate)
      return vocab::slotOf(chunk, Slots);
    else
      return chunk;
  }

  /// Address and length of chunk `c` of partition `j` of a buffer at rank
  /// `owner`.
  template <Kind K, Side S, int T>
  COLLC_DEVICE_INLINE E *region(long long owner, long long j, long long c,
                                long long &len) const {
    const long long size = geo.template size<S, T>((int)owner, (int)j);
    len = size - c * kChunkElems < kChunkElems ? size - c * kChunkElems
                                               : kChunkElems;
    if constexpr (K == Kind::Input)
      return const_cast<E *>(static_cast<const E *>(p.input)) +
             geo.template offset<S, T>((int)owner, (int)j) + c * kChunkElems;
    else if constexpr (K == Kind::Output)
      return static_cast<E *>(p.output) +
             geo.template offset<S, T>((int)owner, (int)j) + c * kChunkElems;
    else if constexpr (K == Kind::Staging)
      return static_cast<E *>(p.staging[owner]) +
             vocab::slotOffset(j, c, Slots, kChunkElems);
    else
      return static_cast<E *>(p.inter[owner]) +
             vocab::slotOffset(j, c, Slots, kChunkElems);
  }

  //===--------------------------------------------------------------------===//
  // Events. One thread signals or waits; the CTA barrier around it orders
  // the other threads' accesses (cumulativity of release and acquire).
  //===--------------------------------------------------------------------===//

  // Event words are 64-bit; the flag primitives take uint64_t, which is
  // `unsigned long` rather than `unsigned long long` on some hosts.
  COLLC_DEVICE_INLINE uint64_t *readyWord(int at, int event, int sender,
                                          long long k, long long c) const {
    return reinterpret_cast<uint64_t *>(
        p.events[at] +
        vocab::readyWord(event, sender, k, vocab::slotOf(c, Slots), n(), Slots));
  }

  COLLC_DEVICE_INLINE uint64_t *freeWord(int at, int event, long long k,
                                         long long s) const {
    return reinterpret_cast<uint64_t *>(
        p.events[at] + vocab::freeWord(ReadyEvents, event, k, s, n(), Slots));
  }

  COLLC_DEVICE_INLINE unsigned long long *uses(int event, long long k,
                                               long long s) const {
    return p.state + COLLC_STATE_USES + vocab::useWord(event, k, s, n(), Slots);
  }

  /// Publishes chunk `c` of partition `k` to rank `target`, or to every rank
  /// when `target` < 0, after this CTA's writes (release, system scope).
  COLLC_DEVICE_INLINE void notifyReady(int event, long long k, long long c,
                                       long long target) {
    __syncthreads();
    const uint64_t value = (call << 32) | (unsigned long long)(c + 1);
    const int t = threadIdx.x;
    if (target >= 0) {
      if (t == 0) {
        fence_acq_rel_sys();
        st_release_sys(readyWord((int)target, event, p.rank, k, c), value);
      }
    } else if (t < n()) {
      fence_acq_rel_sys();
      st_release_sys(readyWord(t, event, p.rank, k, c), value);
    }
  }

  /// Releases slot `s` of partition `k` to its owner `target` (every rank
  /// when < 0): one more consumer is done with it.
  COLLC_DEVICE_INLINE void notifyFree(int event, long long k, long long s,
                                      long long target) {
    __syncthreads();
    const int t = threadIdx.x;
    if (target >= 0) {
      if (t == 0)
        red_add_release_sys(freeWord((int)target, event, k, s), 1);
    } else if (t < n()) {
      red_add_release_sys(freeWord(t, event, k, s), 1);
    }
  }

  /// Waits until chunk `c` of partition `k` was published by `source` (every
  /// rank when < 0). Returns false, after recording the error, on timeout.
  COLLC_DEVICE_INLINE bool awaitReady(int event, long long k, long long c,
                                      long long source, int role) {
    __shared__ int ok;
    const uint64_t target = (call << 32) | (unsigned long long)(c + 1);
    const int t = threadIdx.x;
    if (t == 0)
      ok = 1;
    __syncthreads();
    const bool waits = source >= 0 ? t == 0 : t < n();
    if (waits) {
      const int from = source >= 0 ? (int)source : t;
      if (!wait_geq_acquire_sys(readyWord(p.rank, event, from, k, c), target,
                                p.timeoutNs)) {
        ok = 0;
        recordTimeout(role, event, from, k, c);
      }
    }
    __syncthreads();
    failed = !ok;
    return ok;
  }

  /// Waits until every earlier use of slot `s` (chunk `c`) of partition `k`
  /// of this rank's buffer was released `quota` times.
  COLLC_DEVICE_INLINE bool awaitFree(int event, long long k, long long s,
                                     long long c, long long quota, int role) {
    __shared__ int ok;
    const int t = threadIdx.x;
    if (t == 0) {
      ok = 1;
      const unsigned long long earlier =
          *uses(event, k, s) + (unsigned long long)vocab::usesBefore(c, Slots);
      if (!wait_geq_acquire_sys(freeWord(p.rank, event, k, s),
                                (uint64_t)(earlier * (unsigned long long)quota),
                                p.timeoutNs)) {
        ok = 0;
        recordTimeout(role, ReadyEvents + event, -1, k, s);
      }
    }
    __syncthreads();
    failed = !ok;
    return ok;
  }

  /// Advances the use counts of free event `event` by this call's uses
  /// (vocab.h): every chunk of every partition of this rank's buffer with
  /// the geometry of side `S` of transform `T` was one use of its slot. Run
  /// by the last CTA, once per free event.
  template <Side S, int T> COLLC_DEVICE_INLINE void advanceUses(int event) {
    constexpr Part part = Desc::kPart[T];
    const int parts =
        vocab::partitions(S == Side::Input ? part.in : part.out, n());
    for (long long j = 0; j < parts; ++j) {
      const long long chunks = numChunks<S, T>(p.rank, j);
      for (long long s = 0; s < Slots && s < chunks; ++s)
        *uses(event, j, s) +=
            (unsigned long long)vocab::slotUses(chunks, Slots, s);
    }
  }

  COLLC_DEVICE_INLINE void recordTimeout(int role, int event, int peer,
                                         long long k0, long long k1) {
    recordBlame();
    recordError(COLLC_KERNEL_TIMEOUT, role, event, peer, k0, k1);
  }

  /// The ranks that never started this call: their arrival word is behind
  /// it. Read when a wait has timed out, long after every live rank began.
  COLLC_DEVICE_INLINE void recordBlame() {
    unsigned long long *blame = p.error + COLLC_ERROR_BLAME;
    // 1 while being written, 2 when complete (the host reads only 2).
    if (atomicCAS(blame, 0ull, 1ull) != 0ull)
      return;
    unsigned long long mask = 0, behind = 0;
    for (int q = 0; q < n(); ++q) {
      const unsigned long long arrived =
          *(volatile unsigned long long *)(p.events[q] + arrivalIndex());
      if (arrived < call) {
        ++behind;
        if (q < 64)
          mask |= 1ull << q;
      }
    }
    blame[1] = call;
    blame[2] = behind;
    blame[3] = mask;
    __threadfence_system();
    *(volatile unsigned long long *)blame = 2;
  }

  COLLC_DEVICE_INLINE void recordError(unsigned long long code, int role,
                                       int event, int peer, long long k0,
                                       long long k1) {
    unsigned long long *err =
        p.error + (peer >= 0 && peer != p.rank ? COLLC_ERROR_REMOTE : 0);
    if (atomicCAS(err, (unsigned long long)COLLC_KERNEL_OK, code) ==
        COLLC_KERNEL_OK) {
      err[1] = call;
      err[2] = (unsigned long long)p.rank;
      err[3] = (unsigned long long)role;
      err[4] = (unsigned long long)event;
      err[5] = (unsigned long long)(long long)peer;
      err[6] = (unsigned long long)k0;
      err[7] = (unsigned long long)k1;
      __threadfence_system();
    }
  }

  /// Counts this CTA in; true for the last CTA of the call, which may then
  /// do the call's bookkeeping and must call `finishCall`.
  COLLC_DEVICE_INLINE bool arriveLast() {
    __shared__ int last;
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      const unsigned long long before =
          atomicAdd(p.state + COLLC_STATE_ARRIVALS, 1ull);
      last = before + 1 == call * gridDim.x;
    }
    __syncthreads();
    return last;
  }

  /// Ends the call (the last CTA): the next call's number, then the claim
  /// is released.
  COLLC_DEVICE_INLINE void finishCall() {
    __threadfence();
    p.state[COLLC_STATE_SEQ] = call;
    __threadfence();
    p.state[COLLC_STATE_CLAIM] = 0;
  }
};

} // namespace collc::dev::snac

#endif // defined(COLLC_DEVICE_COMPILE)

#endif // COLLC_DEVICE_SNAC_SCHEDULE_CUH
