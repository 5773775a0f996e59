//===- program.cuh - what a generated SNAC v2 program runs on ---*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The device side of a one-shot push program (issue 10, SNAC v2 step 1): every
/// producer pushes each input partition into its consumers' receive buffers,
/// readiness carried with the data, and every consumer takes (copies) or
/// reduce-takes the regions of its sources. One kernel per call, no CTA
/// barrier (chunked programs aside), no fence stacked on a release, no
/// cross-CTA counter: the only dependent load is this CTA's call counter,
/// after griddepcontrol.wait.
///
/// Receive buffers (abi.h, "Programs"): rank q's buffer holds one region per
/// (slot, source); slot = epoch mod Slots, epoch = this CTA's counter + 1.
/// With 2 slots reuse needs no free event (SiFAR dual buffering): p writes
/// q's slot of call e + 2 only after its own call e + 1 finished, which
/// needed q's call-(e + 1) data, which q writes only after griddepcontrol.wait
/// (or stream order), i.e. after q's call e, the reader of that slot, ended.
/// That needs every (source, consumer) pair to exchange readiness every call,
/// so a put of 0 elements still publishes one padding unit.
///
/// Work assignment: every op splits its units over every thread of the grid
/// by a grid stride (thread t of T takes units t, t + T, ...; Grain units per
/// thread-step, issued together); units depend only on (count, grid), so the
/// producer's and the consumer's agree:
///  - LL16: 8 bytes of payload per 16-byte packet {d0, seq, d1, seq}
///    (collc/device/common/ll.cuh), seq = the epoch's low 32 bits;
///  - SENTINEL: 16 bytes of payload per unit, canonicalized (bits, never
///    floats; partial sums too) so it never equals the all-ones pattern the
///    region is armed with; the consumer re-arms what it read
///    (collc/device/common/sentinel.cuh);
///  - FLAG: warp w of W owns a contiguous segment of the 16-byte units and one
///    64-bit ready word per (slot, source) region, after the payload: its lanes
///    store the data, __syncwarp, and one lane per destination stores the
///    epoch with st.release.sys; every consuming lane polls the word with
///    ld.acquire.sys (collc/device/common/flags.cuh).
///
/// Chunked programs (ChunkBytes = C > 0; issue 11, the bandwidth regime):
/// the emitted body runs once per step s = 0 .. steps() - 1 with epoch
/// e0.step(s) (value e0 + s; finish(e0.step(steps() - 1))). A call of M
/// elements at most (the largest size-vector word, the same on every rank)
/// has steps = max(1, ceil(M / (H * C / sizeof(E)))), and its parts are
/// balanced: c = min(C / sizeof(E), ceil(M / (steps * H)) rounded up to 16
/// bytes), so a call below a step still spreads over every CTA; with
/// PerPartParts (`_v` programs) M is each partition's own count, so skewed
/// partitions give every CTA about the same work. A staged program's part
/// for its own rank is not staged where kSelfDirect allows (recordSelf).
/// In step s, CTA h of the grid's H moves elements [lo, min(lo + c,
/// count)), lo = (s * H + h) * c, of every partition (an empty part: a put
/// publishes one padding unit, a take waits for it, so every (source,
/// consumer, CTA) triple exchanges readiness every step and two slots stay
/// enough), into sub-region h (at h * C, LL16 h * 2C) of the region, unit u
/// of the part at sub-region + 16u. The units go to the CTA's own threads.
/// LL16 / SENTINEL: the unit code above, CTA-local. FLAG: one ready word per
/// (slot, source, CTA), word h at the region's end; all threads copy the
/// part with unrolled 16-byte vectors, __syncthreads, thread 0 releases; a
/// take's thread 0 polls, and a barrier hands the acquire (or the failure)
/// to the CTA. A barrier before a put that follows a take or reduce_take
/// (syncBeforePut) orders every thread's reads of step s before any of step
/// s + 1's publications and makes a forward see the reduction's stores.
///
/// Waits are bounded by p.timeoutNs. A wait that expires records
/// COLLC_KERNEL_TIMEOUT, one that sees a packet or ready word of a later call
/// than its own records COLLC_KERNEL_SEQUENCE (the ranks did not issue the same
/// call sequence), in the error record (abi.h: [3] op, [4] -1, [5] the source,
/// [6] the slot, [7] the first element waited for); that thread then does
/// nothing more in the call (the communicator is dead: the runtime refuses
/// later launches). Sentinel readiness carries no call number, so only LL16
/// and FLAG detect a sequence mismatch. Chunked: [7] counts from the
/// partition's start, and a FLAG wait's failure stops its whole CTA.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_DEVICE_SNAC_PROGRAM_CUH
#define COLLC_DEVICE_SNAC_PROGRAM_CUH

#include "collc/device/common/flags.cuh"
#include "collc/device/common/ll.cuh"
#include "collc/device/common/sentinel.cuh"
#include "collc/device/common/types.cuh"
#include "collc/device/sm90/pdl_sm90.cuh"
#include "collc/device/snac/abi.h"

#if defined(COLLC_DEVICE_COMPILE)

namespace collc {
namespace prog {

using dev::u64;

/// How readiness travels with the data (abi.h, COLLC_ENCODING_*).
enum class Encoding : int {
  flag = COLLC_ENCODING_FLAG,
  ll16 = COLLC_ENCODING_LL16,
  sentinel = COLLC_ENCODING_SENTINEL,
};

/// The reduction of a reduce_take: the vocabulary's (collc/vocab.h), spelled
/// `RedOp::Sum` etc. as the emitter prints it.
using dev::RedOp;

/// The destination of a put that writes every rank's region, self included.
constexpr int kAllRanks = -1;

/// The second kernel parameter: every rank's receive buffer, mapped into this
/// rank's address space. It and the size vector are `__grid_constant__`
/// parameters, read in place: a run-time index is a parameter load, and the
/// parameter is never copied to local memory.
template <int N> struct Peers {
  void *rx[N];
};

/// The third kernel parameter: the size vector (abi.h, collcSizeVectorWords).
template <int N> struct Sizes {
  long long v[2 * N];
};

/// The call number of this CTA's current call (1 for the first call), and
/// which of the program's receive buffers an op addresses (two-shot's second
/// one, the forwarded partitions, has the slots after the first's: abi.h,
/// collcRxBuffers).
struct Epoch {
  u64 value;
  int buffer = 0;
  /// A chunked program's step (0 otherwise): which part of every partition
  /// this CTA moves. Not named `step`: that is the method below.
  long long stepIndex = 0;
  /// The same call (and step) on receive buffer `b`.
  COLLC_DEVICE_INLINE Epoch in(int b) const {
    return Epoch{value, b, stepIndex};
  }
  /// Step `s` of a chunked call, from its first step's epoch: value + s.
  COLLC_DEVICE_INLINE Epoch step(long long s) const {
    return Epoch{value + static_cast<u64>(s), buffer, s};
  }
};

namespace detail {

/// The elements of E packed in a 64-bit word, lowest address lowest.
template <typename E> struct Word {
  static constexpr int kLanes = 8 / (int)sizeof(E);
  static constexpr unsigned kBits = 8u * sizeof(E);
  static constexpr u64 kMask =
      kBits == 64 ? ~0ull : ((1ull << (kBits == 64 ? 0 : kBits)) - 1ull);
  using Bits = typename dev::Elem<E>::Bits;

  /// Up to kLanes elements of src[i0 ..] (none at or past `count`); one 8-byte
  /// load when `aligned` (src is 8-byte aligned) and the word is whole.
  COLLC_DEVICE_INLINE static u64 load(const E *src, long long i0,
                                      long long count, bool aligned) {
    if (aligned && i0 + kLanes <= count)
      return *reinterpret_cast<const u64 *>(src + i0);
    u64 w = 0;
    const Bits *s = reinterpret_cast<const Bits *>(src);
    COLLC_PRAGMA_UNROLL
    for (int i = 0; i < kLanes; ++i)
      if (i0 + i < count)
        w |= static_cast<u64>(s[i0 + i]) << (i * kBits);
    return w;
  }

  /// Stores the elements of `w` that fall before `count` at dst[i0 ..].
  COLLC_DEVICE_INLINE static void store(E *dst, long long i0, long long count,
                                        bool aligned, u64 w) {
    if (aligned && i0 + kLanes <= count) {
      *reinterpret_cast<u64 *>(dst + i0) = w;
      return;
    }
    Bits *d = reinterpret_cast<Bits *>(dst);
    COLLC_PRAGMA_UNROLL
    for (int i = 0; i < kLanes; ++i)
      if (i0 + i < count)
        d[i0 + i] = static_cast<Bits>((w >> (i * kBits)) & kMask);
  }

  /// Reduces one element of N sources (`bits(s)` is source s's), in rank
  /// order: FP32 accumulation from source 0's value, rounded once.
  template <dev::RedOp Op, int N, class Source>
  COLLC_DEVICE_INLINE static Bits reduce1(Source &&bits) {
    float acc = dev::Elem<E>::toFloat(dev::Elem<E>::fromBits(bits(0)));
    COLLC_PRAGMA_UNROLL
    for (int s = 1; s < N; ++s)
      acc = dev::red_step<Op>(
          acc, dev::Elem<E>::toFloat(dev::Elem<E>::fromBits(bits(s))));
    acc = dev::red_finish<Op>(acc, N);
    return dev::Elem<E>::bits(dev::Elem<E>::fromFloat(acc));
  }

  /// Reduces the words of N sources lane by lane, as reduce1.
  template <dev::RedOp Op, int N>
  COLLC_DEVICE_INLINE static u64 reduce(const u64 (&w)[N]) {
    u64 out = 0;
    COLLC_PRAGMA_UNROLL
    for (int i = 0; i < kLanes; ++i)
      out |= static_cast<u64>(reduce1<Op, N>([&](int s) {
               return static_cast<Bits>((w[s] >> (i * kBits)) & kMask);
             }))
             << (i * kBits);
    return out;
  }
};

/// A if `c`, else B (no <type_traits> under NVRTC).
template <bool c, class A, class B> struct Pick {
  using type = A;
};
template <class A, class B> struct Pick<false, A, B> {
  using type = B;
};

/// One 16-byte volatile load of an LL16 packet, both sequence words kept.
COLLC_DEVICE_INLINE dev::ll::Packet ll_load(const dev::ll::Packet *p) {
  dev::ll::Packet v;
  asm volatile("ld.volatile.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.data0), "=r"(v.seq0), "=r"(v.data1), "=r"(v.seq1)
               : "l"(p)
               : "memory");
  return v;
}

/// The CTA-strided unit loop of a chunked FLAG part: unit i to thread
/// i mod T, U units per thread loaded before any is stored (loads in flight
/// hide the latency: THROUGHPUT.md, 97 against 40 GB/s per CTA). int
/// indices: a part has at most C / 16 units.
template <int U, class Load, class Store>
COLLC_DEVICE_INLINE void cta_units(int units, Load &&load, Store &&store) {
  const int t = static_cast<int>(blockDim.x);
  int i = static_cast<int>(threadIdx.x);
  for (; i + (U - 1) * t < units; i += U * t) {
    decltype(load(i)) v[U];
    COLLC_PRAGMA_UNROLL
    for (int u = 0; u < U; ++u)
      v[u] = load(i + u * t);
    COLLC_PRAGMA_UNROLL
    for (int u = 0; u < U; ++u)
      store(i + u * t, v[u]);
  }
  for (; i < units; i += t)
    store(i, load(i));
}

/// The elements [from, n) of a chunked FLAG part that no whole 16-byte
/// vector moved (a partial last unit, or every element when a buffer is
/// not 16-byte aligned): element j to thread j mod T. A unit at a time
/// instead (a 16-byte unit assembled from its elements, every source's for
/// a reduction) took a quarter of the compile of a FLAG kernel for what
/// only the last unit of a part, or an unaligned call, runs.
template <class Element>
COLLC_DEVICE_INLINE void cta_elements(int from, int n, Element &&element) {
  const int t = static_cast<int>(blockDim.x);
#pragma unroll 1
  for (int j = from + static_cast<int>(threadIdx.x); j < n; j += t)
    element(j);
}

} // namespace detail

/// griddepcontrol.wait on sm_90+ (the previous kernel on the stream has
/// ended and its writes are visible); stream order alone on sm_80. Every
/// program kernel's (Program, MulticastProgram) wait_previous().
COLLC_DEVICE_INLINE void waitPreviousKernel() {
#if COLLC_PDL_AVAILABLE
  dev::griddepcontrol_wait();
#endif
}

/// Lets the next kernel on the stream launch (sm_90+): right after the last
/// remote write, so its prologue overlaps this call's waits.
COLLC_DEVICE_INLINE void launchDependentKernels() {
#if COLLC_PDL_AVAILABLE
  dev::griddepcontrol_launch_dependents();
#endif
}

/// A one-shot push program on one rank: E the element type, N the world size,
/// Enc the readiness encoding, Slots the receive-buffer slots, RegionBytes one
/// (slot, source) region (collcRxRegionBytes), InputPacked whether the input
/// has one partition (its sizes read as collcSizeAt does), Grain the units a
/// thread issues per step, Speculate whether take, take_each and reduce_take
/// load every unit of a step before validating them (else each unit is
/// waited for before the next source is read), OutputByRow whether output
/// partition k holds count(rank, k) elements (two-shot's: a reduction's
/// partitions, one size on every rank) rather than count(k, rank),
/// ChunkBytes the bytes a CTA moves per partition per step (0: not chunked;
/// see the file comment), InPlace whether the receive buffers are in place
/// (zero-copy: consumers read the producers' registered buffers, see
/// expose and retire), PerPartParts whether a chunked CTA's parts are sized
/// by each partition's count (partitions of different sizes, `_v`) rather
/// than the largest, Agree whether the ranks agree on a chunked call's
/// steps (agree) rather than count them from their own size vectors. The
/// constructor does address arithmetic only (no load), so it belongs before
/// wait_previous().
template <typename E, int N, Encoding Enc, int Slots,
          unsigned long long RegionBytes, bool InputPacked, int Grain = 1,
          bool Speculate = false, bool OutputByRow = false,
          long long ChunkBytes = 0, bool InPlace = false,
          bool PerPartParts = false, bool Agree = false, bool Pairs = false,
          long long PairLL16 = 0>
class Program {
  static_assert(N >= 1 && Slots >= 1 && Grain >= 1, "bad program shape");
  // The agreement's words sit beside the chunked flag ready words; the
  // parts of its `_v` partitions are each partition's own (the constructor
  // knows no agreed steps to size them by the largest).
  static_assert(!Agree || (Enc == Encoding::flag && ChunkBytes > 0 &&
                           PerPartParts),
                "agreed steps need a chunked flag program of `_v` parts");
  // Pair steps (policy pairs): each pair of ranks runs the steps of the
  // larger of its two counts, at its own epochs (docs/snac.md "Pair steps").
  static_assert(!Pairs || (Enc == Encoding::flag && ChunkBytes > 0 &&
                           PerPartParts && !Agree),
                "pair steps need a chunked flag program of `_v` parts");
  // Small pairs by LL16 (policy pair_ll16): staged, one receive buffer.
  static_assert(PairLL16 == 0 || (Pairs && !InPlace && !OutputByRow &&
                                  PairLL16 % 16 == 0 && PairLL16 <= ChunkBytes),
                "small pairs by LL16 need a staged one-shot pairs program");
  // Zero-copy readiness is one word per CTA and step: flag, chunked.
  static_assert(!InPlace || (Enc == Encoding::flag && ChunkBytes > 0),
                "in-place receive buffers need flag readiness and a chunk");
  static_assert(ChunkBytes >= 0 && ChunkBytes % 16 == 0 &&
                    ChunkBytes <= (1ll << 30),
                "a chunk is whole 16-byte units (int unit indices)");
  // A flag orders the data written before it, not a payload loaded before
  // the flag was read (SiFAR 8.1): only self-validating units speculate.
  static_assert(!Speculate || Enc != Encoding::flag,
                "speculation needs ll16 or sentinel readiness");
  static_assert(RegionBytes % 16 == 0, "regions are 16-byte aligned");
  using W = detail::Word<E>;
  /// Elements of one 16-byte unit (SENTINEL, FLAG) and of one LL16 packet.
  static constexpr long long kLanes16 = 16 / (long long)sizeof(E);
  static constexpr long long kLanes8 = 8 / (long long)sizeof(E);
  /// A unit of a receive region as it is stored and loaded (LL16: a packet,
  /// else 16 bytes), the payload it carries, and the payload's bytes.
  using Unit = typename detail::Pick<Enc == Encoding::ll16, dev::ll::Packet,
                                     dev::sentinel::Pack16>::type;
  using Payload =
      typename detail::Pick<Enc == Encoding::ll16, u64,
                            dev::sentinel::Pack16>::type;
  static constexpr long long kUnitBytes = Enc == Encoding::ll16 ? 8 : 16;
  /// Peers whose units a batched op (put_each, take_each) keeps in flight at
  /// once: all of them up to 8, so that registers hold them.
  static constexpr int kBatch = N < 8 ? N : 8;
  /// Chunked: elements of a CTA's part, bytes of its sub-region (LL16 packets
  /// carry 8 payload bytes in 16), elements of an LL16 / sentinel unit (error
  /// records count units from the partition's start), and the 16-byte
  /// vectors a thread keeps in flight: a copy's, and a reduction's per source
  /// (about 16 in all, so N sources' registers fit: no spill at 512 threads).
  static constexpr bool kChunked = ChunkBytes > 0;
  static constexpr long long kChunkElems = ChunkBytes / (long long)sizeof(E);
  static constexpr unsigned long long kSubBytes =
      Enc == Encoding::ll16 ? 2ull * ChunkBytes : ChunkBytes;
  static constexpr long long kUnitLanes = kUnitBytes / (long long)sizeof(E);
  /// FLAG chunked: Grain (the policy's grain / 16; 8 by default) vectors in
  /// flight per thread for a copy, at most 4 from 8 ranks (a put to all
  /// keeps N destination pointers live: 8 vectors spilled there, sm_90),
  /// and for a reduction per source at most that and about 16 in all.
  static constexpr int kCopyUnroll = N >= 8 && Grain > 4 ? 4 : Grain;
  static constexpr int kReduceUnrollMost =
      N >= 16 ? 1 : 16 / N < 8 ? 16 / N : 8;
  static constexpr int kReduceUnroll =
      Grain < kReduceUnrollMost ? Grain : kReduceUnrollMost;
  /// Zero-copy reductions keep half as many units in flight from 4 ranks
  /// on, and for 4-byte elements: the peers' pointers and alignment flags
  /// take the registers (kReduceUnroll spilled at 4 ranks, and for f32 at
  /// 2, 512 threads, sm_90). Two-shot (OutputByRow) at 2 ranks keeps 6:
  /// with the peers read in place, 8 spilled 4 bytes (sm_90). Measured
  /// while each peer's alignment flag also took a register (peerReduceIn
  /// now tests one OR of the addresses); not re-measured since.
  static constexpr int kPeerReduceUnrollMost =
      N <= 2 && sizeof(E) < 4 ? (OutputByRow ? 6 : kReduceUnrollMost)
      : N >= 8                ? 1
                              : 8 / N;
  static constexpr int kPeerReduceUnroll =
      Grain < kPeerReduceUnrollMost ? Grain : kPeerReduceUnrollMost;
  /// Staged chunked FLAG: a rank's part for itself is not staged. A put
  /// skips its own region (no copy, no ready word) and records where the
  /// part is; a take from itself reads it there, as a zero-copy take reads
  /// a peer's. That saves a write and a read of every byte a rank keeps
  /// (half of an AllGather's output at 2 ranks). Receive buffer 0 of a
  /// program only (the derived programs put to themselves nowhere else: a
  /// two-shot forward goes to the peers), so one pointer stays live.
  static constexpr bool kSelfDirect =
      kChunked && Enc == Encoding::flag && !InPlace;

public:
  COLLC_DEVICE_INLINE Program(const collcProgramParams &p, const Peers<N> &rx,
                              const Sizes<N> &sizes,
                              const collcWindowParams &win = {})
      : p_(p), rx_(rx), sizes_(sizes), win_(win),
        thread_(kChunked ? (long long)threadIdx.x
                         : (long long)blockIdx.x * blockDim.x + threadIdx.x),
        threads_(kChunked ? (long long)blockDim.x
                          : (long long)gridDim.x * blockDim.x),
        counter_(p.counters + blockIdx.x), steps_(stepsOf(sizes)),
        partElems_(largestPartOf(sizes, steps_)) {}

  COLLC_DEVICE_INLINE void wait_previous() const { waitPreviousKernel(); }
  COLLC_DEVICE_INLINE void launch_dependents() const {
    launchDependentKernels();
  }

  /// This CTA's call number: its counter + 1 (the one dependent load).
  COLLC_DEVICE_INLINE Epoch epoch() const {
    const Epoch e{*reinterpret_cast<volatile const u64 *>(counter_) + 1};
    if constexpr (Pairs) {
      // Each pair's counter and steps, once a call into shared memory:
      // read where used (a volatile load and a division per op, peer and
      // step) they made AllToAll_v 1.4x slower at 1 KiB on one H200.
      for (int q = static_cast<int>(threadIdx.x); q < N;
           q += static_cast<int>(blockDim.x)) {
        pairTable()[q] = pairCounter(q);
        pairTable()[N + q] = static_cast<u64>(pairStepsOf(q));
        if constexpr (PairLL16 > 0)
          pairTable()[2 * N + q] = pairLargest(q) * (long long)sizeof(E) <=
                                   PairLL16;
      }
      __syncthreads();
    }
    // The kernel (and rank) by its counters' address (trace.cuh).
    COLLC_TRACE_CALL_BEGIN(reinterpret_cast<u64>(p_.counters), e.value);
    return e;
  }

  /// Steps of a chunked call (1 otherwise): max(1, ceil(M / (H * C /
  /// sizeof(E)))), M the largest word of the size vector (every rank's size
  /// of a packed input; else this rank's row and column), H the grid's CTAs.
  COLLC_DEVICE_INLINE long long steps() const { return steps_; }

  /// Agreed steps (policy agree: a transposing `_v` copy, whose size vector,
  /// this rank's row and column, need not hold the call's largest size): thread
  /// 0 (warp 0 beyond 4 ranks) stores this CTA's agreement word of region
  /// (slot(e0), rank) at every peer, then awaits every peer's (bounded), and
  /// the call runs the most steps any rank counts. A word carries its own
  /// readiness and orders no other data, so the stores are relaxed and need no
  /// fence: the high 32 bits are the call's first epoch (its low 32 bits, as
  /// LL16's sequence numbers: calls 2^32 apart share one), the low 32 the steps
  /// this rank counts (at most 2^32 - 1: the steps of 2^32 x the grid's
  /// chunks). The words need no slot of their own: p writes call k + 1's only
  /// after its call k took q's step-0 part, which q put only after it read p's
  /// call-k word. Returns the steps (0 after a failed wait: the CTA does
  /// nothing more, as after any failure).
  COLLC_DEVICE_INLINE long long agree(Epoch e0) {
    static_assert(Agree, "agree is an agreeing program's (policy agree)");
    __shared__ long long agreed;
    // Beyond 4 ranks warp 0's lanes store and poll the peers' words at once
    // (lane d: peers d, d + 32, ...), up to 4 thread 0 alone: AllToAll_v
    // at 8 ranks on one H200 ran 1.01-1.06x faster at 1 KiB-64 KiB and
    // 1.24x / 1.81x at 1 / 16 MiB with the lanes, at 2 ranks 0.90-0.93x
    // at 1 KiB-1 MiB (bench/results/2026-12-04-nvidia-h200/agree).
    constexpr int kLanes = N > 4 ? 32 : 1;
    const int lane = kLanes > 1 ? static_cast<int>(threadIdx.x) : 0;
    if (threadIdx.x < kLanes) {
      const long long mine = stepsFor(largestOf(sizes_));
      const uint32_t tag = agreeTag(e0);
      const u64 word = (static_cast<u64>(tag) << 32) |
                       static_cast<u64>(mine < 0xFFFFFFFFll ? mine
                                                            : 0xFFFFFFFFll);
      const unsigned long long off =
          collcRxOffset(slot(e0), p_.rank, N, RegionBytes);
      COLLC_PRAGMA_UNROLL
      for (int d = lane; d < N; d += kLanes)
        if (d != p_.rank)
          dev::st_relaxed_sys(agreeWord(static_cast<char *>(rx_.rx[d]) + off),
                              word);
      long long most = mine;
      char *const buffer = myBuffer();
      for (int q = lane; q < N && !failed_; q += kLanes) {
        if (q == p_.rank)
          continue;
        const u64 *at =
            agreeWord(buffer + collcRxOffset(slot(e0), q, N, RegionBytes));
        u64 v = 0;
        const dev::PollState state = dev::bounded_poll(
            p_.timeoutNs,
            [&] {
              v = dev::ld_relaxed_sys(at);
              return static_cast<uint32_t>(v >> 32) == tag;
            },
            // Another call's tag that is not an earlier one: the ranks
            // did not issue the same calls (a sequence error).
            [&] {
              const uint32_t t = static_cast<uint32_t>(v >> 32);
              return t != 0 && static_cast<int32_t>(t - tag) > 0;
            });
        if (state != dev::PollState::Ready) {
          waitFailed(state, /*op=*/-1, e0, q, -1);
          break;
        }
        const long long theirs = static_cast<long long>(v & 0xFFFFFFFFull);
        most = theirs > most ? theirs : most;
      }
      if constexpr (kLanes > 1) {
        COLLC_PRAGMA_UNROLL
        for (int o = kLanes / 2; o > 0; o >>= 1) {
          const long long other = __shfl_xor_sync(0xFFFFFFFFu, most, o);
          most = other > most ? other : most;
        }
      }
      if (lane == 0)
        agreed = most;
    }
    failed_ = __syncthreads_or(failed_) != 0;
    steps_ = failed_ ? 0 : agreed;
    return steps_;
  }

  /// Ends the call in this CTA: stores its counter (read by the next call
  /// after griddepcontrol.wait or stream order, so no fence). Not after an
  /// error: the communicator is dead. Chunked: e is the last step's epoch.
  COLLC_DEVICE_INLINE void finish(Epoch e) const {
    // Every thread of the CTA read the counter in epoch(); without the
    // barrier a warp scheduled late could read the value stored here and
    // run the call a second time with the next call's epoch. Every thread
    // reaches it (a failed thread skips its ops, not the kernel's end).
    __syncthreads();
    if (threadIdx.x == 0 && !failed_) {
      *counter_ = e.value;
      // Pair steps: each pair's counter advances by the pair's steps.
      if constexpr (Pairs)
        for (int q = 0; q < N; ++q)
          pairCounter(q) = pairTable()[q] + pairTable()[N + q];
    }
    COLLC_TRACE_CALL_END();
  }

  COLLC_DEVICE_INLINE int rank() const { return p_.rank; }

  /// Elements rank p contributes to partition k (collcSizeAt on the size
  /// vector, read in place: a parameter load at a run-time index).
  COLLC_DEVICE_INLINE long long count(int p, int k) const {
    if (InputPacked)
      return sizeWord(p);
    return k == p_.rank && p != p_.rank ? sizeWord(N + p) : sizeWord(k);
  }

  /// Partition k of this rank's input (partitions of sizes count(rank, i)).
  COLLC_DEVICE_INLINE const E *input(int k) const {
    long long at = 0;
    for (int i = 0; i < k; ++i)
      at += count(p_.rank, i);
    return static_cast<const E *>(p_.input) + at;
  }

  /// Partition k of this rank's output: what rank k contributed to this rank's
  /// partition (count(i, 0) for a packed input, count(i, rank) otherwise), so
  /// partition 0 is the whole output of a packed one.
  COLLC_DEVICE_INLINE E *output(int k) const {
    long long at = 0;
    for (int i = 0; i < k; ++i)
      at += OutputByRow ? count(p_.rank, i) : count(i, InputPacked ? 0 : p_.rank);
    return static_cast<E *>(p_.output) + at;
  }

  /// Zero-copy: where partition k of this rank's input (output) lies in its
  /// registered window (abi.h, collcWindowParams): what expose publishes.
  COLLC_DEVICE_INLINE u64 input_where(int k) const {
    return win_.input + static_cast<u64>(input(k) - static_cast<const E *>(
                                                         p_.input)) *
                            sizeof(E);
  }
  COLLC_DEVICE_INLINE u64 output_where(int k) const {
    return win_.output +
           static_cast<u64>(output(k) - static_cast<E *>(p_.output)) *
               sizeof(E);
  }

  /// Zero-copy put (snac.put into an in_place buffer): tells rank `dst`
  /// (kAllRanks: every rank, self included) where this rank's partition is,
  /// in this CTA's word of region (slot(e), this rank), then releases the
  /// CTA's ready word. Nothing is copied. A forward's partition was just
  /// reduced by this CTA's threads: syncBeforePut's barrier puts their
  /// stores before the release (cumulativity).
  COLLC_DEVICE_INLINE void expose(int op, Epoch e, u64 where, int dst) {
    static_assert(InPlace, "expose is a zero-copy program's put");
    (void)op;
    syncBeforePut();
    if (failed_ || threadIdx.x != 0)
      return;
    const unsigned long long off =
        collcRxOffset(slot(e), p_.rank, N, RegionBytes);
    if (dst != kAllRanks) {
      char *const region = static_cast<char *>(peer(dst)) + off;
      dev::st_relaxed_sys(whereWord(region), where);
      dev::st_release_sys(chunkWord(region), e.value);
      return;
    }
    COLLC_PRAGMA_UNROLL
    for (int d = 0; d < N; ++d)
      dev::st_relaxed_sys(whereWord(static_cast<char *>(rx_.rx[d]) + off),
                          where);
    releaseEvery(off, e);
  }

  /// Zero-copy put_each: where partition k is (`where(k)`) to rank k, every
  /// k; one fence for the N ready words. A spread's (Spread) also says
  /// where this rank's output is (`output`), released by the same words.
  template <bool Spread = false, class Where>
  COLLC_DEVICE_INLINE void expose_each(int op, Epoch e, Where where,
                                       u64 output = 0) {
    static_assert(InPlace, "expose_each is a zero-copy program's put_each");
    (void)op;
    syncBeforePut();
    if (failed_ || threadIdx.x != 0)
      return;
    if constexpr (Pairs) {
      // Each active pair's where word and ready word at its own slot.
      for (int k = 0; k < N; ++k)
        if (active(e, k))
          dev::st_relaxed_sys(
              whereWord(static_cast<char *>(rx_.rx[k]) +
                        collcRxOffset(slot(at(e, k)), p_.rank, N, RegionBytes)),
              where(k));
      dev::fence_acq_rel_sys();
      for (int k = 0; k < N; ++k)
        if (active(e, k))
          releasePair(e, k);
      return;
    }
    const unsigned long long off =
        collcRxOffset(slot(e), p_.rank, N, RegionBytes);
    COLLC_PRAGMA_UNROLL
    for (int k = 0; k < N; ++k) {
      char *const region = static_cast<char *>(rx_.rx[k]) + off;
      dev::st_relaxed_sys(whereWord(region), where(k));
      if constexpr (Spread)
        dev::st_relaxed_sys(outputWhereWord(region), output);
    }
    releaseEvery(off, e);
  }

  /// snac.reduce_spread: the call's partitions (every rank's output
  /// partition, rank order: count(rank, o) elements each, one size on every
  /// rank as a reduction's are) are one sequence of T elements, cut into
  /// steps x N x H pieces of ceil(T / (steps N H)) elements (whole 16-byte
  /// vectors), and this CTA reduces piece (s N + rank) H + h of step s:
  /// each element from every source's input (its partition o, at the where
  /// word of the put_each's partition `rank` moved by the offsets between
  /// them: every rank's input has the same partitions), stored to owner
  /// o's output (a peer's at its output where word). Its own stores to peer
  /// outputs are ordered before the owners' call ends by snac.retire (the
  /// barrier, then the fence before the retire words).
  template <RedOp kOp>
  COLLC_DEVICE_INLINE void reduce_spread(int op, Epoch e) {
    static_assert(InPlace && !InputPacked,
                  "a spread reads the partitions of scattered inputs in place");
    dirty_ = true;
    if (failed_)
      return;
    long long total = 0, mine = 0;
    COLLC_PRAGMA_UNROLL
    for (int o = 0; o < N; ++o) {
      mine += o < p_.rank ? sizeWord(o) : 0;
      total += sizeWord(o);
    }
    const long long pieces = steps_ * N * (long long)gridDim.x;
    long long c = (total + pieces - 1) / pieces;
    c = (c + kLanes16 - 1) / kLanes16 * kLanes16;
    const long long lo =
        ((e.stepIndex * N + p_.rank) * gridDim.x + blockIdx.x) * c;
    const long long hi = lo + c < total ? lo + c : total;
    if (!chunkAcquire(op, e, 0, N, lo))
      return;
    long long at = 0;
    for (int o = 0; o < N && at < hi; ++o) {
      const long long n = sizeWord(o);
      const long long a = lo > at ? lo : at;
      const long long b = hi < at + n ? hi : at + n;
      if (a < b) {
        const E *from[N];
        COLLC_PRAGMA_UNROLL
        for (int q = 0; q < N; ++q)
          from[q] = peerPart(e, q) + (a - mine);
        E *const dst = (o == p_.rank ? static_cast<E *>(p_.output)
                                     : peerOutput(e, o)) +
                       (a - at);
        peerReduceIn<kOp>(from, dst, b - a);
      }
      at += n;
    }
    dirty_ = true;
  }

  /// snac.retire: this CTA's reads of the step are done (the barrier: every
  /// thread has stored what it loaded), so thread 0 tells every rank, self
  /// included (one fence, then its retire word in each), and waits, bounded,
  /// until every rank's same CTA has told it the same; a barrier hands the
  /// result to the CTA. Only then may the call end and the host reuse the
  /// buffers the peers read in place.
  COLLC_DEVICE_INLINE void retire(int op, Epoch e) {
    static_assert(InPlace, "retire ends a zero-copy step");
    failed_ = __syncthreads_or(failed_) != 0;
    dirty_ = false;
    if (failed_)
      return;
    if (threadIdx.x == 0) {
      // Pairs: with each peer whose pair has this step, at its epoch.
      dev::fence_acq_rel_sys();
      COLLC_PRAGMA_UNROLL
      for (int d = 0; d < N; ++d)
        if (active(e, d))
          dev::st_relaxed_sys(
              retireWord(static_cast<char *>(rx_.rx[d]), p_.rank),
              at(e, d).value);
      char *const mine = myBuffer();
      for (int q = 0; q < N; ++q)
        if (active(e, q) &&
            !flagWait(op, at(e, q), q, retireWord(mine, q),
                      [] { return -1ll; }))
          break;
    }
    failed_ = __syncthreads_or(failed_) != 0;
  }

  /// Writes `count` elements of `src` into rank `dst`'s region (slot(e),
  /// source = this rank); kAllRanks writes every rank's, self included.
  /// `src` may be output this thread just reduced (a two-shot forward): the
  /// unit-to-thread mapping of put and reduce_take is the same for one
  /// count (grid-stride units; flag: the same warp segment and lanes), so
  /// each thread reads back its own stores. Nothing is published after this
  /// thread failed (its reduction may be incomplete): peers then time out.
  /// Chunked: this CTA's part of the step; a forward's source is ordered
  /// after the reduction's stores by syncBeforePut (FLAG's copy maps units
  /// to threads unlike the reduction).
  COLLC_DEVICE_INLINE void put(int op, Epoch e, const E *src, long long count,
                               int dst) {
    (void)op;
    if constexpr (kChunked) {
      syncBeforePut();
      if constexpr (Enc == Encoding::flag) {
        chunkPut(e, src, count, dst);
        return;
      }
    }
    if constexpr (Enc == Encoding::flag) {
      // The warp publishes one ready word together: all its lanes skip.
      if (__any_sync(0xffffffffu, failed_))
        return;
    } else if (failed_) {
      return;
    }
    if constexpr (kChunked)
      narrow(e, src, count);
    const unsigned long long off =
        subOffset(collcRxOffset(slot(e), p_.rank, N, RegionBytes));
    if constexpr (Enc != Encoding::flag) {
      const uint32_t seq = seqOf(e);
      const bool aligned = (reinterpret_cast<uintptr_t>(src) & 7u) == 0;
      const long long units = unitsOf(count, kUnitBytes);
      for (long long j0 = thread_; j0 < units; j0 += threads_ * Grain) {
        Payload w[Grain];
        COLLC_PRAGMA_UNROLL
        for (int g = 0; g < Grain; ++g) {
          const long long j = j0 + g * threads_;
          w[g] = j < units ? loadPayload(src, j, count, aligned) : Payload{};
        }
        COLLC_PRAGMA_UNROLL
        for (int d = 0; d < N; ++d) {
          if (dst != kAllRanks && dst != d)
            continue;
          Unit *base = reinterpret_cast<Unit *>(
              static_cast<char *>(rx_.rx[d]) + off);
          COLLC_PRAGMA_UNROLL
          for (int g = 0; g < Grain; ++g) {
            const long long j = j0 + g * threads_;
            if (j < units)
              publish(base + j, w[g], seq);
          }
        }
      }
    } else {
      const bool aligned = (reinterpret_cast<uintptr_t>(src) & 7u) == 0;
      long long lo, hi;
      if (!segment(count, &lo, &hi))
        return;
      const int lane = threadIdx.x & 31;
      for (long long j = lo + lane; j < hi; j += 32) {
        const dev::sentinel::Pack16 v = load16(src, j * kLanes16, count, aligned);
        COLLC_PRAGMA_UNROLL
        for (int d = 0; d < N; ++d) {
          if (dst != kAllRanks && dst != d)
            continue;
          *reinterpret_cast<dev::sentinel::Pack16 *>(
              static_cast<char *>(rx_.rx[d]) + off + 16ull * j) = v;
        }
      }
      // The lanes' stores happen before lane 0's release (cumulativity).
      // One system-scope fence per warp, whatever the destinations: every
      // `.sys` release is a MEMBAR.SYS, and those serialize across the GPU
      // (one per destination grew the call with the square of the ranks on
      // one H200). So one destination: st.release.sys; several: one
      // fence.acq_rel.sys, then relaxed stores (a release pattern; no
      // release store stacked on the fence).
      __syncwarp();
      if (lane == 0) {
        if (dst != kAllRanks) {
          dev::st_release_sys(
              readyWord(static_cast<char *>(peer(dst)) + off), e.value);
        } else {
          dev::fence_acq_rel_sys();
          COLLC_PRAGMA_UNROLL
          for (int d = 0; d < N; ++d)
            dev::st_relaxed_sys(
                readyWord(static_cast<char *>(rx_.rx[d]) + off), e.value);
        }
      }
    }
  }

  /// snac.put_each: partition k of this rank's input, `src(k)` with
  /// `count(k)` elements, into rank k's region (slot(e), this rank), for
  /// every rank k. The same stores as put(src(k), count(k), k) for each k,
  /// but a thread loads unit j of up to kBatch partitions before it stores
  /// any of them: one memory latency per batch instead of one per rank.
  /// Chunked FLAG: every part copied, then one barrier and one fence for
  /// the N ready words.
  template <class Src, class Count>
  COLLC_DEVICE_INLINE void put_each(int op, Epoch e, Src src, Count count) {
    if constexpr (kChunked)
      syncBeforePut();
    if constexpr (Enc == Encoding::flag && kChunked) {
      chunkPutEach(e, src, count);
    } else if constexpr (Enc == Encoding::flag) {
      // One ready word per warp and destination: nothing to batch.
      COLLC_PRAGMA_UNROLL
      for (int k = 0; k < N; ++k)
        put(op, e, src(k), count(k), k);
    } else {
      if (failed_)
        return;
      const unsigned long long off =
          subOffset(collcRxOffset(slot(e), p_.rank, N, RegionBytes));
      const uint32_t seq = seqOf(e);
      COLLC_PRAGMA_UNROLL
      for (int k0 = 0; k0 < N; k0 += kBatch) {
        const E *s[kBatch];
        long long c[kBatch], units[kBatch], most = 0;
        bool aligned[kBatch];
        COLLC_PRAGMA_UNROLL
        for (int b = 0; b < kBatch; ++b) {
          const bool here = k0 + b < N;
          s[b] = here ? src(k0 + b) : nullptr;
          c[b] = here ? count(k0 + b) : 0;
          if constexpr (kChunked)
            narrow(e, s[b], c[b]);
          units[b] = here ? unitsOf(c[b], kUnitBytes) : 0;
          aligned[b] = (reinterpret_cast<uintptr_t>(s[b]) & 7u) == 0;
          most = units[b] > most ? units[b] : most;
        }
        for (long long j0 = thread_; j0 < most; j0 += threads_ * Grain) {
          Payload w[Grain][kBatch];
          COLLC_PRAGMA_UNROLL
          for (int g = 0; g < Grain; ++g)
            COLLC_PRAGMA_UNROLL
            for (int b = 0; b < kBatch; ++b) {
              const long long j = j0 + g * threads_;
              w[g][b] = j < units[b] ? loadPayload(s[b], j, c[b], aligned[b])
                                     : Payload{};
            }
          COLLC_PRAGMA_UNROLL
          for (int g = 0; g < Grain; ++g)
            COLLC_PRAGMA_UNROLL
            for (int b = 0; b < kBatch; ++b) {
              const long long j = j0 + g * threads_;
              if (k0 + b < N && j < units[b])
                publish(reinterpret_cast<Unit *>(
                            static_cast<char *>(rx_.rx[k0 + b < N ? k0 + b : 0]) +
                            off) +
                            j,
                        w[g][b], seq);
            }
        }
      }
    }
  }

  /// Waits for the (slot(e), src) region of this rank's buffer and copies its
  /// `count` elements to `dst`.
  COLLC_DEVICE_INLINE void take(int op, Epoch e, int src, E *dst,
                                long long count) {
    if constexpr (kChunked)
      dirty_ = true;
    if (failed_)
      return;
    if constexpr (InPlace) {
      const long long lo = narrow(e, dst, count);
      if (!chunkAcquire(op, e, src, src + 1, lo))
        return;
      if (count > 0)
        peerCopyIn(peerPart(e, src) + lo, dst, count);
      dirty_ = true;
    } else if constexpr (Enc == Encoding::flag && kChunked) {
      const long long lo = narrow(e, dst, count);
      // From itself: no word; the barrier (in chunkAcquire) orders a
      // forward's reads after the CTA's writes of it.
      if (!chunkAcquire(op, e, src, src + 1, lo))
        return;
      if (fromSelf(e, src)) {
        if (count > 0)
          peerCopyIn(selfPart(e, lo), dst, count);
      } else {
        chunkCopyIn(subOffset(myRegion(slot(e), src)), dst, count);
      }
      dirty_ = true;
    } else if constexpr (Enc == Encoding::flag) {
      char *region = myRegion(slot(e), src);
      const bool aligned = (reinterpret_cast<uintptr_t>(dst) & 7u) == 0;
      long long lo, hi;
      if (!segment(count, &lo, &hi))
        return;
      if (!flagWait(op, e, src, region, lo))
        return;
      for (long long j = lo + (threadIdx.x & 31); j < hi; j += 32)
        store16(dst, j * kLanes16, count, aligned,
                dev::sentinel::load(
                    reinterpret_cast<const dev::sentinel::Pack16 *>(region) + j));
    } else {
      long long ub = 0;
      if constexpr (kChunked)
        ub = narrow(e, dst, count) / kUnitLanes;
      const int sources[1] = {src};
      E *const dsts[1] = {dst};
      const long long counts[1] = {count};
      takeSources<1>(op, e, sources, dsts, counts, ub);
    }
  }

  /// snac.take_each: source p's region (slot(e), p) into `dst(p)`, `count(p)`
  /// elements, for every source p. The same as take(p, dst(p), count(p)) for
  /// each p, but a thread loads unit j of up to kBatch sources before it
  /// validates any (loads of distinct regions, stores to this rank's own
  /// output, which no other rank reads in the call: the order is not
  /// observable, docs/snac.md).
  /// Chunked FLAG: thread 0 waits for every source, then one barrier.
  template <class Dst, class Count>
  COLLC_DEVICE_INLINE void take_each(int op, Epoch e, Dst dst, Count count) {
    if constexpr (kChunked)
      dirty_ = true;
    if constexpr (Enc == Encoding::flag && kChunked) {
      if (failed_)
        return;
      // lo is the same for every partition: it depends on (step, CTA) only.
      E *d0 = nullptr;
      long long c0 = 0;
      if (!chunkAcquire(op, e, 0, N, narrow(e, d0, c0)))
        return;
      char *const mine = myBuffer();
#pragma unroll 1
      for (int q = 0; q < N; ++q) { // One copy loop's code, not N.
        if (!active(e, q)) // Pairs: q's pair has fewer steps.
          continue;
        if (pairSmall(q) && !fromSelf(e, q)) // PairLL16: llTakeEach below.
          continue;
        E *d = dst(q);
        long long c = count(q);
        const long long lo = narrow(e, d, c, stepsWith(q));
        const Epoch eq = at(e, q);
        if constexpr (InPlace) {
          if (c > 0)
            peerCopyIn(peerPart(eq, q) + lo, d, c);
        } else {
          if (fromSelf(e, q)) {
            if (c > 0)
              peerCopyIn(selfPart(e, lo), d, c);
          } else {
            chunkCopyIn(
                subOffset(mine + collcRxOffset(slot(eq), q, N, RegionBytes)),
                d, c);
          }
        }
      }
      // PairLL16: a thread's failed wait stops its whole CTA, as a flag's.
      // A small pair has one step (at most PairLL16 <= a chunk), so the
      // later steps of a large call skip the phase and its barriers.
      if constexpr (PairLL16 > 0) {
        if (e.stepIndex == 0) {
          llTakeEach(op, e, dst, count);
          failed_ = __syncthreads_or(failed_) != 0;
        }
      }
      dirty_ = true;
    } else if constexpr (Enc == Encoding::flag) {
      // One ready word per warp and source, polled: nothing to batch.
      COLLC_PRAGMA_UNROLL
      for (int q = 0; q < N; ++q)
        take(op, e, q, dst(q), count(q));
    } else {
      COLLC_PRAGMA_UNROLL
      for (int q0 = 0; q0 < N; q0 += kBatch) {
        int sources[kBatch];
        E *dsts[kBatch];
        long long counts[kBatch];
        long long ub = 0;
        COLLC_PRAGMA_UNROLL
        for (int b = 0; b < kBatch; ++b) {
          const bool here = q0 + b < N;
          sources[b] = here ? q0 + b : -1;
          dsts[b] = here ? dst(q0 + b) : nullptr;
          counts[b] = here ? count(q0 + b) : 0;
          if constexpr (kChunked)
            ub = narrow(e, dsts[b], counts[b]) / kUnitLanes;
        }
        takeSources<kBatch>(op, e, sources, dsts, counts, ub);
      }
    }
  }

  /// Waits for the (slot(e), s) region of every source s and reduces their
  /// `count` elements into `dst`, in ascending rank order, FP32 accumulation,
  /// rounded once. Not written over acquire(): that form (reduction after
  /// the check, addresses recomputed or held per unit) measured 1.7x slower
  /// at 8 ranks sharing one H200 for 256 KiB-1 MiB (bench/results/
  /// 2026-12-01-nvidia-h200/step3); this one is step 2's, over the same
  /// unit operations.
  template <RedOp kOp>
  COLLC_DEVICE_INLINE void reduce_take(int op, Epoch e, E *dst,
                                       long long count) {
    if constexpr (kChunked)
      dirty_ = true;
    if (failed_)
      return;
    const long long first = narrow(e, dst, count);
    const bool aligned = (reinterpret_cast<uintptr_t>(dst) & 7u) == 0;
    const int s = slot(e);
    if constexpr (InPlace) {
      if (!chunkAcquire(op, e, 0, N, first))
        return;
      if (count > 0) {
        const E *from[N];
        COLLC_PRAGMA_UNROLL
        for (int q = 0; q < N; ++q)
          from[q] = peerPart(e, q) + first;
        peerReduceIn<kOp>(from, dst, count);
      }
      dirty_ = true;
    } else if constexpr (Enc == Encoding::flag && kChunked) {
      if (!chunkAcquire(op, e, 0, N, first))
        return;
      // Its own part where it lies, read as a region (recordSelf).
      chunkReduceIn<kOp>(s, dst, count,
                         selfDirect(e) ? selfPart(e, first) : nullptr);
      dirty_ = true;
    } else if constexpr (Enc != Encoding::flag) {
      const uint32_t seq = seqOf(e);
      const long long units = unitsOf(count, kUnitBytes);
      // Error records count units from the partition's start.
      const long long ub = first / kUnitLanes;
      for (long long j0 = thread_; j0 < units; j0 += threads_ * Grain) {
        auto at = [&](int q, long long j) {
          return reinterpret_cast<Unit *>(subOffset(myRegion(s, q))) + j;
        };
        Unit pk[Grain][N];
        auto reduce = [&](int g) {
          Payload w[N];
          COLLC_PRAGMA_UNROLL
          for (int q = 0; q < N; ++q)
            w[q] = payloadOf(pk[g][q]);
          return reducePayloads<kOp>(w);
        };
        // A sentinel unit is re-armed by its sole reader once validated.
        auto rearm = [&](int q, long long j) {
          if constexpr (Enc == Encoding::sentinel)
            dev::sentinel::rearm(at(q, j));
        };
        if constexpr (Speculate) {
          // Every unit of the step is loaded and reduced, then all are
          // validated in one check (each unit carries its own readiness:
          // LL16 both sequence words of its single 16-byte access, sentinel
          // no 64-bit half equal to the pattern); on failure only the
          // failing units are waited for, and the step is reduced again.
          Payload r[Grain];
          bool ok = true;
          COLLC_PRAGMA_UNROLL
          for (int g = 0; g < Grain; ++g) {
            const long long j = j0 + g * threads_;
            COLLC_PRAGMA_UNROLL
            for (int q = 0; q < N; ++q)
              if (j < units)
                pk[g][q] = loadUnit(at(q, j));
          }
          COLLC_PRAGMA_UNROLL
          for (int g = 0; g < Grain; ++g) {
            const long long j = j0 + g * threads_;
            if (j >= units)
              continue;
            COLLC_PRAGMA_UNROLL
            for (int q = 0; q < N; ++q)
              ok &= unitReady(pk[g][q], seq);
            r[g] = reduce(g);
          }
          COLLC_PRAGMA_UNROLL
          for (int g = 0; g < Grain; ++g) {
            const long long j = j0 + g * threads_;
            if (j >= units)
              continue;
            if (!ok) {
              COLLC_PRAGMA_UNROLL
              for (int q = 0; q < N; ++q)
                if (!unitReady(pk[g][q], seq) &&
                    !waitUnit(op, e, seq, q, at(q, j), ub + j, &pk[g][q]))
                  return;
              r[g] = reduce(g);
            }
            COLLC_PRAGMA_UNROLL
            for (int q = 0; q < N; ++q)
              rearm(q, j);
            storePayload(dst, j, count, aligned, r[g]);
          }
        } else {
          // Readiness first: each source's unit is waited for (and
          // re-armed) before the next source is read.
          COLLC_PRAGMA_UNROLL
          for (int g = 0; g < Grain; ++g) {
            const long long j = j0 + g * threads_;
            if (j >= units)
              continue;
            COLLC_PRAGMA_UNROLL
            for (int q = 0; q < N; ++q) {
              if (!waitUnit(op, e, seq, q, at(q, j), ub + j, &pk[g][q]))
                return;
              rearm(q, j);
            }
            storePayload(dst, j, count, aligned, reduce(g));
          }
        }
      }
    } else {
      long long lo, hi;
      if (!segment(count, &lo, &hi))
        return;
      COLLC_PRAGMA_UNROLL
      for (int q = 0; q < N; ++q)
        if (!flagWait(op, e, q, myRegion(s, q), lo))
          return;
      for (long long j = lo + (threadIdx.x & 31); j < hi; j += 32) {
        u64 a[N], b[N];
        COLLC_PRAGMA_UNROLL
        for (int q = 0; q < N; ++q) {
          const dev::sentinel::Pack16 v = dev::sentinel::load(
              reinterpret_cast<const dev::sentinel::Pack16 *>(myRegion(s, q)) + j);
          a[q] = v.lo;
          b[q] = v.hi;
        }
        store16(dst, j * kLanes16, count, aligned,
                dev::sentinel::Pack16{W::template reduce<kOp, N>(a),
                                      W::template reduce<kOp, N>(b)});
      }
    }
  }

private:
  /// Pairs: this CTA's counter of peer q's pair (the pair's steps in the
  /// calls before), after the grid's call counters (abi.h,
  /// collcProgramCounterWords). Written only by this CTA's thread 0 at the
  /// call's end; read volatile, as the call counter (a dependent kernel's
  /// CTA may start on an SM whose L1 saw an older value).
  COLLC_DEVICE_INLINE volatile u64 &pairCounter(int q) const {
    return reinterpret_cast<volatile u64 *>(
        p_.counters)[gridDim.x + blockIdx.x * (unsigned)N + (unsigned)q];
  }
  /// Pairs: the steps of peer q's pair this call, those of the larger of
  /// its two counts (this rank's row and column: the peer counts the same).
  COLLC_DEVICE_INLINE long long pairLargest(int q) const {
    const long long out = count(p_.rank, q), in = count(q, p_.rank);
    return out > in ? out : in;
  }
  COLLC_DEVICE_INLINE long long pairStepsOf(int q) const {
    return stepsFor(pairLargest(q));
  }
  /// Pairs: this CTA's copy of each peer's pair counter (words 0..N-1) and
  /// pair steps (N..2N-1) for the call, filled by epoch().
  /// With PairLL16 words 2N..3N-1: whether each pair is small (its larger
  /// count at most PairLL16 bytes: it exchanges by LL16 in one step).
  COLLC_DEVICE_INLINE static u64 *pairTable() {
    __shared__ u64 table[(PairLL16 > 0 ? 3 : 2) * N];
    return table;
  }
  COLLC_DEVICE_INLINE static bool pairSmall(int q) {
    if constexpr (PairLL16 > 0)
      return pairTable()[2 * N + q] != 0;
    else
      return false;
  }
  /// PairLL16: this CTA's LL16 sub-region of (slot, source) in `buffer`,
  /// after the slots x N regions (abi.h collcRxPairLL16Bytes).
  COLLC_DEVICE_INLINE static dev::ll::Packet *pairLLSub(char *buffer, int s,
                                                        int source) {
    const unsigned long long sub =
        collcRxPairLL16SubBytes(static_cast<int>(gridDim.x), PairLL16);
    return reinterpret_cast<dev::ll::Packet *>(
        buffer + (unsigned long long)Slots * N * RegionBytes +
        ((static_cast<unsigned long long>(s) * N + source) * gridDim.x +
         blockIdx.x) *
            sub);
  }
  /// PairLL16: the small pairs' parts of this CTA and step, for the
  /// batched LL16 put and take (llPutEach, llTakeEach): each pair's
  /// (narrowed) buffer and count, its part's first element, and the index
  /// of its first packet among all the pairs' (first[N]: their total).
  struct LLItems {
    char *ptr[N];
    long long count[N];
    long long lo[N];
    long long first[N + 1];
  };
  COLLC_DEVICE_INLINE static LLItems &llItems() {
    __shared__ LLItems items;
    return items;
  }
  /// Fills first[] from the per-pair packet counts thread k stored at
  /// first[k + 1]; every thread then sees them (two barriers).
  COLLC_DEVICE_INLINE static long long llPrefix(LLItems &t) {
    __syncthreads();
    if (threadIdx.x == 0) {
      t.first[0] = 0;
      for (int k = 0; k < N; ++k)
        t.first[k + 1] += t.first[k];
    }
    __syncthreads();
    return t.first[N];
  }
  /// PairLL16: this CTA's parts of every small pair as LL16 packets into
  /// each peer's LL16 area, all pairs' packets at once (thread t takes
  /// packets t, t + T, ... of their concatenation; an empty part sends one
  /// padding packet, for which its take waits). A pair at a time, a 1 KiB
  /// AllToAll_v ran 1.11-1.19x the agreed program at 4 and 8 ranks on one
  /// H200; all at once 1.35x and 1.58x (2 ranks: 1.15x and 1.00x;
  /// bench/results/2026-12-04-nvidia-h200/agree, calls 9 and 10).
  template <class Src, class Count>
  COLLC_DEVICE_INLINE void llPutEach(Epoch e, Src src, Count count,
                                     bool self) {
    LLItems &t = llItems();
    for (int k = static_cast<int>(threadIdx.x); k < N;
         k += static_cast<int>(blockDim.x)) {
      const E *s = nullptr;
      long long c = 0, units = 0;
      if (active(e, k) && pairSmall(k) && !(self && k == p_.rank)) {
        s = src(k);
        c = count(k);
        narrow(e, s, c, stepsWith(k));
        units = c > 0 ? (c + kLanes8 - 1) / kLanes8 : 1;
      }
      t.ptr[k] = const_cast<char *>(reinterpret_cast<const char *>(s));
      t.count[k] = c;
      t.first[k + 1] = units;
    }
    const long long total = llPrefix(t);
    int k = 0;
    for (long long i = threadIdx.x; i < total; i += blockDim.x) {
      while (i >= t.first[k + 1]) // i only grows: k only moves forward
        ++k;
      const long long j = i - t.first[k], c = t.count[k];
      const E *s = reinterpret_cast<const E *>(t.ptr[k]);
      const Epoch ek = at(e, k);
      dev::ll::store(
          pairLLSub(static_cast<char *>(peer(k)), slot(ek), p_.rank) + j,
          j * kLanes8 < c
              ? W::load(s, j * kLanes8, c,
                        (reinterpret_cast<uintptr_t>(s) & 7u) == 0)
              : u64{0},
          seqOf(ek));
    }
  }
  /// PairLL16: this CTA's parts of every small pair from this rank's LL16
  /// area into `dst(q)`, all pairs' packets at once, each polled (bounded)
  /// by the thread that stores it. A failed wait is recorded by its thread
  /// (the caller's barrier stops the CTA).
  template <class Dst, class Count>
  COLLC_DEVICE_INLINE void llTakeEach(int op, Epoch e, Dst dst, Count count) {
    LLItems &t = llItems();
    for (int q = static_cast<int>(threadIdx.x); q < N;
         q += static_cast<int>(blockDim.x)) {
      E *d = nullptr;
      long long c = 0, units = 0, lo = 0;
      if (active(e, q) && pairSmall(q) && !fromSelf(e, q)) {
        d = dst(q);
        c = count(q);
        lo = narrow(e, d, c, stepsWith(q));
        units = c > 0 ? (c + kLanes8 - 1) / kLanes8 : 1;
      }
      t.ptr[q] = reinterpret_cast<char *>(d);
      t.count[q] = c;
      t.lo[q] = lo;
      t.first[q + 1] = units;
    }
    const long long total = llPrefix(t);
    char *const mine = myBuffer();
    int q = 0;
    for (long long i = threadIdx.x; i < total && !failed_;
         i += blockDim.x) {
      while (i >= t.first[q + 1])
        ++q;
      const long long j = i - t.first[q], c = t.count[q];
      const Epoch eq = at(e, q);
      dev::ll::Packet v;
      if (!llWait(op, eq, seqOf(eq), q,
                  pairLLSub(mine, slot(eq), q) + j, t.lo[q] / kLanes8 + j,
                  &v))
        break;
      if (j * kLanes8 < c) {
        E *d = reinterpret_cast<E *>(t.ptr[q]);
        W::store(d, j * kLanes8, c, (reinterpret_cast<uintptr_t>(d) & 7u) == 0,
                 llPayload(v));
      }
    }
  }
  COLLC_DEVICE_INLINE long long pairSteps(int q) const {
    return static_cast<long long>(pairTable()[N + q]);
  }
  /// Whether peer q's pair has the step of `e` (always without Pairs).
  COLLC_DEVICE_INLINE bool active(Epoch e, int q) const {
    if constexpr (Pairs)
      return e.stepIndex < pairSteps(q);
    else
      return true;
  }
  /// The epoch of e's step in peer q's pair: its counter + step + 1 (e
  /// itself without Pairs).
  COLLC_DEVICE_INLINE Epoch at(Epoch e, int q) const {
    if constexpr (Pairs)
      return Epoch{pairTable()[q] + static_cast<u64>(e.stepIndex) + 1ull,
                   e.buffer, e.stepIndex};
    else
      return e;
  }
  /// The steps a part of peer q's pair is cut by.
  COLLC_DEVICE_INLINE long long stepsWith(int q) const {
    if constexpr (Pairs)
      return pairSteps(q);
    else
      return steps_;
  }

  COLLC_DEVICE_INLINE int slot(Epoch e) const {
    return e.buffer * Slots + static_cast<int>(e.value % static_cast<u64>(Slots));
  }

  /// The LL16 sequence number of a call: the epoch's low 32 bits, never 0 (the
  /// value of a fresh buffer); calls 2^32 apart share one (a documented limit).
  COLLC_DEVICE_INLINE static uint32_t seqOf(Epoch e) {
    const uint32_t s = static_cast<uint32_t>(e.value);
    return s == 0 ? 1u : s;
  }

  /// Units of `unitBytes` payload bytes a put of `count` elements publishes:
  /// at least one (the padding unit of an empty put).
  COLLC_DEVICE_INLINE static long long unitsOf(long long count,
                                               long long unitBytes) {
    const long long u =
        (count * (long long)sizeof(E) + unitBytes - 1) / unitBytes;
    return u > 0 ? u : 1;
  }

  COLLC_DEVICE_INLINE long long sizeWord(int i) const { return sizes_.v[i]; }

  /// Rank q's receive buffer (q a run-time value).
  COLLC_DEVICE_INLINE void *peer(int q) const { return rx_.rx[q]; }

  /// This rank's receive buffer.
  COLLC_DEVICE_INLINE char *myBuffer() const {
    return static_cast<char *>(rx_.rx[p_.rank]);
  }

  /// This rank's region of (slot, source).
  COLLC_DEVICE_INLINE char *myRegion(int s, int source) const {
    return myBuffer() + collcRxOffset(s, source, N, RegionBytes);
  }

  /// Chunked: this CTA's sub-region of a region (its offset or address);
  /// unchunked: the region.
  COLLC_DEVICE_INLINE static unsigned long long
  subOffset(unsigned long long region) {
    if constexpr (kChunked)
      return region + blockIdx.x * kSubBytes;
    else
      return region;
  }
  COLLC_DEVICE_INLINE static char *subOffset(char *region) {
    if constexpr (kChunked)
      return region + blockIdx.x * kSubBytes;
    else
      return region;
  }

  /// The largest size-vector word: every rank's largest partition (the
  /// derivation chunks only programs whose size vector holds it).
  COLLC_DEVICE_INLINE static long long largestOf(const Sizes<N> &sizes) {
    long long m = 0;
    COLLC_PRAGMA_UNROLL
    for (int j = 0; j < 2 * N; ++j)
      m = sizes.v[j] > m ? sizes.v[j] : m;
    return m;
  }

  /// Chunked: the call's steps, max(1, ceil(M / (H * C / sizeof(E)))); 1
  /// unchunked. Kernel parameters only: no dependent load.
  COLLC_DEVICE_INLINE static long long stepsOf(const Sizes<N> &sizes) {
    if constexpr (!kChunked) {
      (void)sizes;
      return 1;
    } else {
      return stepsFor(largestOf(sizes));
    }
  }
  /// Chunked: the steps of a call whose largest partition has `most`
  /// elements.
  COLLC_DEVICE_INLINE static long long stepsFor(long long most) {
    const long long per = (long long)gridDim.x * kChunkElems;
    const long long s = (most + per - 1) / per;
    return s > 1 ? s : 1;
  }

  /// Chunked, fixed sizes: the part of every partition, as partElemsOf(M)
  /// (M the largest size-vector word), by one 64-bit division in the
  /// constructor.
  COLLC_DEVICE_INLINE static long long largestPartOf(const Sizes<N> &sizes,
                                                     long long steps) {
    if constexpr (!kChunked || PerPartParts) {
      (void)sizes;
      (void)steps;
      return 0;
    } else {
      const long long per = steps * (long long)gridDim.x;
      long long c = (largestOf(sizes) + per - 1) / per;
      c = (c + kLanes16 - 1) / kLanes16 * kLanes16;
      return c < kLanes16 ? kLanes16 : c > kChunkElems ? kChunkElems : c;
    }
  }

  /// Chunked, PerPartParts: the elements of a CTA's part of a partition of
  /// `count` elements in every step, ceil(count / (steps * H)) rounded up
  /// to 16 bytes, at most the chunk (count <= M): each partition spreads
  /// over every CTA and step by its own size, so a CTA's work in a step is
  /// about the call's total / (steps * H) however the partitions are
  /// skewed, and a call smaller than a step still uses every CTA. Producer
  /// and consumer of a partition know its count (the size vector's row and
  /// column). Out of line: inlined, it spilled zero-copy kernels at 8
  /// ranks.
  __device__ __noinline__ long long partElemsOf(long long count,
                                                long long steps) const {
    // ceil(count / per) in 32 bits: a 64-bit division per op and step cost
    // registers (a spill at 2 ranks, sm_90). A partition of 2^32 elements
    // or more takes whole chunks (the steps cover it: count <= M), and
    // more than 2^32 CTA-steps (M far beyond 2^32) single units.
    const long long per = steps * (long long)gridDim.x;
    long long c;
    if (count <= 0)
      c = 0;
    else if (count > 0xFFFFFFFFll)
      c = kChunkElems;
    else if (per > 0xFFFFFFFFll)
      c = 1;
    else
      c = (long long)((unsigned)(count - 1) / (unsigned)per) + 1;
    c = (c + kLanes16 - 1) / kLanes16 * kLanes16;
    return c < kLanes16 ? kLanes16 : c > kChunkElems ? kChunkElems : c;
  }

  /// Chunked: narrows a partition (`ptr`, `count`) to this CTA's part in the
  /// epoch's step, elements [lo, min(lo + c, count)), c =
  /// partElemsOf(count), and returns lo (error records count from the
  /// partition's start); a part past the end gets count 0 and keeps ptr.
  /// Unchunked: 0, nothing narrowed.
  template <class P>
  COLLC_DEVICE_INLINE long long narrow(Epoch e, P *&ptr, long long &count,
                                       long long steps = -1) const {
    if constexpr (!kChunked) {
      (void)e;
      (void)ptr;
      (void)count;
      (void)steps;
      return 0;
    } else {
      // Fixed sizes: every partition is the largest (or empty: a padding
      // unit either way), so the constructor's part serves them all.
      // Pairs: a part is cut by its pair's steps.
      const long long c =
          PerPartParts ? partElemsOf(count, steps < 0 ? steps_ : steps)
                       : partElems_;
      const long long lo = (e.stepIndex * gridDim.x + blockIdx.x) * c;
      const long long left = count - lo;
      count = left <= 0 ? 0 : left < c ? left : c;
      if (count > 0)
        ptr += lo;
      return lo;
    }
  }

  /// Chunked, before a put: a barrier if this CTA read a region or stored
  /// output since its last one (dirty_, set by take, take_each and
  /// reduce_take on every thread alike). It orders every thread's reads of
  /// step s before any publication of step s + 1 (what makes two slots
  /// enough, as the call boundary does unchunked: a peer overwrites this
  /// slot only after it saw our step s + 1), and a forward's loads after the
  /// stores of the reduction it forwards. A thread's failure becomes the
  /// CTA's here (LL16 / sentinel threads fail alone).
  COLLC_DEVICE_INLINE void syncBeforePut() {
    if (dirty_) {
      dirty_ = false;
      failed_ = __syncthreads_or(failed_) != 0;
    }
  }

  /// FLAG chunked: this CTA's ready word in a region, word blockIdx.x of the
  /// roundup16(8 * gridDim.x) bytes at the region's end.
  COLLC_DEVICE_INLINE static u64 *chunkWord(char *region) {
    return reinterpret_cast<u64 *>(region + RegionBytes - readyBytes()) +
           blockIdx.x;
  }
  COLLC_DEVICE_INLINE static unsigned long long readyBytes() {
    return (static_cast<unsigned long long>(gridDim.x) * 8ull + 15ull) /
           16ull * 16ull;
  }
  /// Agree: this CTA's agreement word of a region (the call's tag and the
  /// steps its source counts), in the row of words right before the ready
  /// words (abi.h, collcRxChunkedWords).
  COLLC_DEVICE_INLINE static u64 *agreeWord(char *region) {
    return reinterpret_cast<u64 *>(region + RegionBytes - 2ull * readyBytes()) +
           blockIdx.x;
  }
  /// Agree: a call's tag, its first epoch's low 32 bits (never 0, the
  /// value of a fresh buffer).
  COLLC_DEVICE_INLINE static uint32_t agreeTag(Epoch e0) {
    const uint32_t t = static_cast<uint32_t>(e0.value);
    return t == 0 ? 1u : t;
  }

  /// FLAG chunked: thread 0 waits for this CTA's ready word of sources
  /// [q0, q1) in slot(e) (`lo`, the part's first element, for the error
  /// record); the barrier after it gives every thread the acquire (bar.sync
  /// orders their reads after it) and any failure (__syncthreads_or: no
  /// thread reads after a failed wait). False after a failure.
  COLLC_DEVICE_INLINE bool chunkAcquire(int op, Epoch e, int q0, int q1,
                                        long long lo) {
    if (threadIdx.x == 0) {
      char *const mine = myBuffer();
      // Pairs: each source at its pair's epoch, if its pair has the step.
      for (int q = q0; q < q1; ++q)
        if (active(e, q) && !pairSmall(q) && !fromSelf(e, q) &&
            !flagWait(op, at(e, q), q,
                      chunkWord(mine + collcRxOffset(slot(at(e, q)), q, N,
                                                     RegionBytes)),
                      [&] { return lo; }))
          break;
    }
    dirty_ = false;
    failed_ = __syncthreads_or(failed_) != 0;
    return !failed_;
  }

  /// FLAG chunked put: the part into each destination's sub-region, then
  /// __syncthreads and thread 0 releases the ready words (the barrier puts
  /// every thread's stores before the release: cumulativity). One
  /// destination: st.release.sys; all: one fence.acq_rel.sys, then relaxed
  /// stores (one .sys fence per CTA and step, as unchunked per warp).
  COLLC_DEVICE_INLINE void chunkPut(Epoch e, const E *src, long long count,
                                    int dst) {
    if (failed_)
      return;
    const bool self = selfDirect(e) && (dst == kAllRanks || dst == p_.rank) &&
                      recordSelf(e, src, count);
    narrow(e, src, count);
    const unsigned long long off =
        collcRxOffset(slot(e), p_.rank, N, RegionBytes);
    if (dst != kAllRanks) {
      if (self)
        return;
      char *const region = static_cast<char *>(peer(dst)) + off;
      char *const to[1] = {subOffset(region)};
      chunkCopyOut<1>(src, count, to);
      __syncthreads();
      dirty_ = false;
      if (threadIdx.x == 0)
        dev::st_release_sys(chunkWord(region), e.value);
    } else {
      char *to[N];
      COLLC_PRAGMA_UNROLL
      for (int d = 0; d < N; ++d)
        to[d] = subOffset(static_cast<char *>(rx_.rx[d]) + off);
      chunkCopyOut<N>(src, count, to, self ? p_.rank : -1);
      __syncthreads();
      dirty_ = false;
      if (threadIdx.x == 0)
        releaseEvery(off, e, self);
    }
  }

  /// Whether this rank's own part of receive buffer e.buffer is read where
  /// it lies (kSelfDirect) rather than staged.
  COLLC_DEVICE_INLINE static bool selfDirect(Epoch e) {
    if constexpr (kSelfDirect)
      return e.buffer == 0;
    else
      return false;
  }

  /// kSelfDirect: where the partition this rank put to itself in receive
  /// buffer 0 lies, or null where it was staged (`lo` narrows it to this
  /// CTA's part).
  COLLC_DEVICE_INLINE const E *selfPart(Epoch e, long long lo = 0) const {
    (void)e;
    return self_ ? self_ + lo : nullptr;
  }
  /// kSelfDirect, at a put to itself: the partition is read where it lies
  /// (true) when its reads can be a region's, 16-byte vectors from a
  /// 16-byte aligned start, whole (a region's tail unit is padded, a user
  /// buffer's is not); else it is staged as a peer's (false). The same
  /// answer at every step of a call, for every CTA.
  COLLC_DEVICE_INLINE bool recordSelf(Epoch e, const E *part,
                                      long long count) {
    const bool direct =
        (reinterpret_cast<uintptr_t>(part) & 15u) == 0 && count % kLanes16 == 0;
    (void)e;
    self_ = direct ? part : nullptr;
    return direct;
  }
  /// Whether source q of receive buffer e.buffer is this rank, read where
  /// its partition lies (no region, no ready word).
  COLLC_DEVICE_INLINE bool fromSelf(Epoch e, int q) const {
    return selfDirect(e) && q == p_.rank && selfPart(e) != nullptr;
  }

  /// FLAG chunked, thread 0: releases this CTA's ready word of the region at
  /// `off` (slot, this rank) in every rank's buffer: one fence.acq_rel.sys,
  /// then relaxed stores (what the CTA stored before its last barrier, and
  /// this thread's stores before, are ordered before every word).
  COLLC_DEVICE_INLINE void releaseEvery(unsigned long long off, Epoch e,
                                        bool skipSelf = false) const {
    dev::fence_acq_rel_sys();
    COLLC_PRAGMA_UNROLL
    for (int d = 0; d < N; ++d)
      if (!skipSelf || d != p_.rank)
        dev::st_relaxed_sys(chunkWord(static_cast<char *>(rx_.rx[d]) + off),
                            e.value);
  }

  /// Pairs, thread 0, after the fence: this CTA's ready word in peer k's
  /// region of the slot and epoch of k's pair at e's step.
  COLLC_DEVICE_INLINE void releasePair(Epoch e, int k) const {
    const Epoch ek = at(e, k);
    dev::st_relaxed_sys(
        chunkWord(static_cast<char *>(rx_.rx[k]) +
                  collcRxOffset(slot(ek), p_.rank, N, RegionBytes)),
        ek.value);
  }

  /// FLAG chunked put_each: partition k's part to rank k for every k, then
  /// one barrier and one release pattern for the N words.
  template <class Src, class Count>
  COLLC_DEVICE_INLINE void chunkPutEach(Epoch e, Src src, Count count) {
    if (failed_)
      return;
    bool self = false;
#pragma unroll 1
    for (int k = 0; k < N; ++k) { // One copy loop's code, not N.
      if (!active(e, k)) // Pairs: k's pair has fewer steps.
        continue;
      const E *s = src(k);
      long long c = count(k);
      if (k == p_.rank && selfDirect(e) && recordSelf(e, s, c)) {
        self = true;
        continue;
      }
      if (pairSmall(k)) // PairLL16: llPutEach below.
        continue;
      narrow(e, s, c, stepsWith(k));
      const unsigned long long off =
          collcRxOffset(slot(at(e, k)), p_.rank, N, RegionBytes);
      char *const to[1] = {subOffset(static_cast<char *>(peer(k)) + off)};
      chunkCopyOut<1>(s, c, to);
    }
    if constexpr (PairLL16 > 0)
      if (e.stepIndex == 0) // small pairs have step 0 only (llTakeEach)
        llPutEach(e, src, count, self);
    __syncthreads();
    dirty_ = false;
    if constexpr (Pairs) {
      // Each active pair's word at its own slot and epoch, one fence (none
      // when every active pair is small: LL16 needs neither).
      if (threadIdx.x == 0) {
        bool words = PairLL16 == 0;
        if constexpr (PairLL16 > 0)
          for (int k = 0; k < N; ++k)
            words |= active(e, k) && !pairSmall(k) && !(self && k == p_.rank);
        if (words)
          dev::fence_acq_rel_sys();
        for (int k = 0; k < N; ++k)
          if (active(e, k) && !pairSmall(k) && !(self && k == p_.rank))
            releasePair(e, k);
      }
      return;
    }
    const unsigned long long off =
        collcRxOffset(slot(e), p_.rank, N, RegionBytes);
    if (threadIdx.x == 0) {
      if constexpr (N == 1) {
        if (!self)
          dev::st_release_sys(chunkWord(static_cast<char *>(rx_.rx[0]) + off),
                              e.value);
      } else {
        releaseEvery(off, e, self);
      }
    }
  }

  /// FLAG chunked, all threads: `count` elements of `src` into the 16-byte
  /// units of each sub-region `to[d]` but `to[skip]`. Whole units of a
  /// 16-byte aligned source move as vectors; the rest element by element
  /// (a partial last unit's other bytes are not written: a FLAG consumer
  /// reads `count` elements, and the ready word, not the data, says the
  /// part arrived).
  template <int D>
  COLLC_DEVICE_INLINE static void chunkCopyOut(const E *src, long long count,
                                               char *const (&to)[D],
                                               int skip = -1) {
    using dev::sentinel::Pack16;
    const int n = static_cast<int>(count);
    auto store = [&](int i, const Pack16 &v) {
      COLLC_PRAGMA_UNROLL
      for (int d = 0; d < D; ++d)
        if (d != skip)
          reinterpret_cast<Pack16 *>(to[d])[i] = v;
    };
    const uintptr_t a = reinterpret_cast<uintptr_t>(src);
    const int whole = (a & 15u) == 0 ? n / static_cast<int>(kLanes16) : 0;
    detail::cta_units<kCopyUnroll>(
        whole, [&](int i) { return reinterpret_cast<const Pack16 *>(src)[i]; },
        store);
    using Bits = typename W::Bits;
    detail::cta_elements(whole * static_cast<int>(kLanes16), n, [&](int j) {
      const Bits v = reinterpret_cast<const Bits *>(src)[j];
      COLLC_PRAGMA_UNROLL
      for (int d = 0; d < D; ++d)
        if (d != skip)
          reinterpret_cast<Bits *>(to[d])[j] = v;
    });
  }

  /// FLAG chunked, all threads: the `count` elements of the units at `sub`
  /// into `dst` (vectors where dst is 16-byte aligned, else element-wise).
  COLLC_DEVICE_INLINE static void chunkCopyIn(const char *sub, E *dst,
                                              long long count) {
    using dev::sentinel::Pack16;
    const int n = static_cast<int>(count);
    const Pack16 *from = reinterpret_cast<const Pack16 *>(sub);
    const uintptr_t a = reinterpret_cast<uintptr_t>(dst);
    const int whole = (a & 15u) == 0 ? n / static_cast<int>(kLanes16) : 0;
    detail::cta_units<kCopyUnroll>(
        whole, [&](int i) { return from[i]; },
        [&](int i, const Pack16 &v) {
          reinterpret_cast<Pack16 *>(dst)[i] = v;
        });
    using Bits = typename W::Bits;
    detail::cta_elements(whole * static_cast<int>(kLanes16), n, [&](int j) {
      reinterpret_cast<Bits *>(dst)[j] = reinterpret_cast<const Bits *>(sub)[j];
    });
  }

  /// One 16-byte unit of every source, all loaded before any is reduced.
  struct Units {
    dev::sentinel::Pack16 v[N];
  };

  /// The units of every source reduced per 8-byte half (W::reduce).
  template <RedOp Op>
  COLLC_DEVICE_INLINE static dev::sentinel::Pack16
  reduceUnits(const Units &u) {
    u64 lo[N], hi[N];
    COLLC_PRAGMA_UNROLL
    for (int q = 0; q < N; ++q) {
      lo[q] = u.v[q].lo;
      hi[q] = u.v[q].hi;
    }
    return dev::sentinel::Pack16{W::template reduce<Op, N>(lo),
                                 W::template reduce<Op, N>(hi)};
  }

  /// FLAG chunked reduce_take, all threads: this CTA's sub-region of every
  /// source's region of slot `s`, reduced into the `count` elements of
  /// `dst`. Each thread loads every source's vectors of kReduceUnroll units
  /// before it reduces them: FP32 in ascending rank order, rounded once,
  /// per 8-byte half (W::reduce, the unchunked path's bits).
  template <RedOp Op>
  COLLC_DEVICE_INLINE void chunkReduceIn(int s, E *dst, long long count,
                                         const E *self = nullptr) const {
    using dev::sentinel::Pack16;
    const int n = static_cast<int>(count);
    char *const mine = myBuffer();
    const Pack16 *from[N];
    // kSelfDirect: this rank's own part where it lies (16-byte aligned,
    // whole vectors: recordSelf).
    COLLC_PRAGMA_UNROLL
    for (int q = 0; q < N; ++q)
      from[q] = self && q == p_.rank
                    ? reinterpret_cast<const Pack16 *>(self)
                    : reinterpret_cast<const Pack16 *>(subOffset(
                          mine + collcRxOffset(s, q, N, RegionBytes)));
    auto load = [&](int i) {
      Units u;
      COLLC_PRAGMA_UNROLL
      for (int q = 0; q < N; ++q)
        u.v[q] = from[q][i];
      return u;
    };
    const uintptr_t a = reinterpret_cast<uintptr_t>(dst);
    const int whole = (a & 15u) == 0 ? n / static_cast<int>(kLanes16) : 0;
    detail::cta_units<kReduceUnroll>(whole, load, [&](int i, const Units &u) {
      reinterpret_cast<Pack16 *>(dst)[i] = reduceUnits<Op>(u);
    });
    reduceTail<Op>(
        whole * static_cast<int>(kLanes16), n,
        [&](int q, int j) {
          return reinterpret_cast<const typename W::Bits *>(from[q])[j];
        },
        dst);
  }

  /// The elements [from, n) of a reduction no whole vector covered
  /// (detail::cta_elements): `bits(q, j)` is source q's element j, reduced
  /// by W::reduce1, the bits of the vector path.
  template <RedOp Op, class Bits>
  COLLC_DEVICE_INLINE static void reduceTail(int from, int n, Bits &&bits,
                                             E *dst) {
    auto *d = reinterpret_cast<typename W::Bits *>(dst);
    detail::cta_elements(from, n, [&](int j) {
      d[j] = W::template reduce1<Op, N>([&](int q) { return bits(q, j); });
    });
  }

  /// Zero-copy: the word of region (slot, source) that says where the
  /// source's partition is (this CTA's, at the region's start), and the
  /// retire word of (source, this CTA) in a rank's buffer (after the where
  /// words of its (slot 0, source) region: retire words are compared by
  /// value, so they need no slot). abi.h sizes both (collcRxInPlace*).
  COLLC_DEVICE_INLINE static u64 *whereWord(char *region) {
    return reinterpret_cast<u64 *>(region) + blockIdx.x;
  }
  COLLC_DEVICE_INLINE static u64 *retireWord(char *buffer, int source) {
    return reinterpret_cast<u64 *>(
               buffer + collcRxOffset(0, source, N, RegionBytes) +
               collcRxInPlaceWordBytes(static_cast<int>(gridDim.x))) +
           blockIdx.x;
  }

  /// A spread's: where source q's output is (after the retire words).
  COLLC_DEVICE_INLINE static u64 *outputWhereWord(char *region) {
    return reinterpret_cast<u64 *>(
               region +
               2ull * collcRxInPlaceWordBytes(static_cast<int>(gridDim.x))) +
           blockIdx.x;
  }

  /// Zero-copy, after chunkAcquire: rank o's output in its registered
  /// window (a spread's), as this rank maps it.
  COLLC_DEVICE_INLINE E *peerOutput(Epoch e, int o) const {
    const u64 where =
        dev::ld_relaxed_sys(outputWhereWord(myRegion(slot(e), o)));
    const u64 window = where >> COLLC_WINDOW_SHIFT;
    const u64 base = win_.table[window * N + static_cast<u64>(o)];
    return reinterpret_cast<E *>(
        base + (where & ((1ull << COLLC_WINDOW_SHIFT) - 1ull)));
  }

  /// Zero-copy, after chunkAcquire: source q's partition in its registered
  /// window, as this rank maps it (the window table's entry for the slot
  /// the where word names, plus the offset).
  COLLC_DEVICE_INLINE const E *peerPart(Epoch e, int q) const {
    const u64 where =
        dev::ld_relaxed_sys(whereWord(myRegion(slot(e), q)));
    const u64 window = where >> COLLC_WINDOW_SHIFT;
    const u64 base = win_.table[window * N + static_cast<u64>(q)];
    return reinterpret_cast<const E *>(
        base + (where & ((1ull << COLLC_WINDOW_SHIFT) - 1ull)));
  }

  /// Zero-copy: 16-byte unit i of a peer's 16-byte aligned buffer. L2
  /// loads (ld.global.cg), as every zero-copy load (the element-wise
  /// tails' too): the peer writes a forwarded partition during this kernel,
  /// and a line of it this SM cached for a neighbouring CTA's part could be
  /// stale in L1.
  COLLC_DEVICE_INLINE static dev::sentinel::Pack16
  peerVector(const E *src, int i) {
    const ulonglong2 v = __ldcg(reinterpret_cast<const ulonglong2 *>(src) + i);
    return dev::sentinel::Pack16{v.x, v.y};
  }

  /// Zero-copy, all threads of the CTA: `count` elements of a peer's `src`
  /// into `dst` (vectors where both are 16-byte aligned).
  COLLC_DEVICE_INLINE static void peerCopyIn(const E *src, E *dst,
                                             long long count) {
    using dev::sentinel::Pack16;
    const long long n = count;
    const uintptr_t any =
        reinterpret_cast<uintptr_t>(src) | reinterpret_cast<uintptr_t>(dst);
    const int whole = (any & 15u) == 0 ? static_cast<int>(n / kLanes16) : 0;
    detail::cta_units<kCopyUnroll>(
        whole, [&](int i) { return peerVector(src, i); },
        [&](int i, const Pack16 &v) {
          reinterpret_cast<Pack16 *>(dst)[i] = v;
        });
    using Bits = typename W::Bits;
    detail::cta_elements(
        whole * static_cast<int>(kLanes16), static_cast<int>(n), [&](int j) {
          reinterpret_cast<Bits *>(dst)[j] =
              __ldcg(reinterpret_cast<const Bits *>(src) + j);
        });
  }

  /// Zero-copy reduce_take, all threads: the `count` elements of every
  /// source's part `from[q]`, reduced in ascending rank order (FP32, rounded
  /// once: W::reduce, the bits of every other path) into `dst`.
  template <RedOp Op>
  COLLC_DEVICE_INLINE static void peerReduceIn(const E *const (&from)[N],
                                               E *dst, long long count) {
    using dev::sentinel::Pack16;
    const long long n = count;
    uintptr_t any = reinterpret_cast<uintptr_t>(dst);
    COLLC_PRAGMA_UNROLL
    for (int q = 0; q < N; ++q)
      any |= reinterpret_cast<uintptr_t>(from[q]);
    // Every source and the destination 16-byte aligned: whole units as
    // vectors, unrolled; the rest (a partial last unit, or every element
    // of an unaligned call) element by element.
    const int whole = (any & 15u) == 0 ? static_cast<int>(n / kLanes16) : 0;
    detail::cta_units<kPeerReduceUnroll>(
        whole,
        [&](int i) {
          Units u;
          COLLC_PRAGMA_UNROLL
          for (int q = 0; q < N; ++q)
            u.v[q] = peerVector(from[q], i);
          return u;
        },
        [&](int i, const Units &u) {
          reinterpret_cast<Pack16 *>(dst)[i] = reduceUnits<Op>(u);
        });
    reduceTail<Op>(
        whole * static_cast<int>(kLanes16), static_cast<int>(n),
        [&](int q, int j) {
          return __ldcg(reinterpret_cast<const typename W::Bits *>(from[q]) +
                        j);
        },
        dst);
  }

  /// FLAG: the 16-byte units [lo, hi) of this thread's warp segment; false
  /// when the segment is empty (no data, no ready word). Warp 0 always has
  /// unit 0 (the padding unit of an empty put).
  COLLC_DEVICE_INLINE bool segment(long long count, long long *lo,
                                   long long *hi) const {
    const long long units = unitsOf(count, 16);
    const long long warps = threads_ / 32;
    const long long per = (units + warps - 1) / warps;
    const long long w = thread_ / 32;
    *lo = w * per;
    *hi = *lo + per < units ? *lo + per : units;
    return *lo < *hi;
  }

  /// FLAG: the ready word of this thread's warp segment in a region; the
  /// words follow the payload, one per warp of the grid.
  COLLC_DEVICE_INLINE u64 *readyWord(char *region) const {
    const unsigned long long words =
        (static_cast<unsigned long long>(threads_ / 32) * 8ull + 15ull) / 16ull *
        16ull;
    return reinterpret_cast<u64 *>(region + RegionBytes - words) +
           thread_ / 32;
  }

  COLLC_DEVICE_INLINE static dev::sentinel::Pack16
  load16(const E *src, long long i0, long long count, bool aligned8) {
    return dev::sentinel::Pack16{W::load(src, i0, count, aligned8),
                                 W::load(src, i0 + kLanes8, count, aligned8)};
  }

  COLLC_DEVICE_INLINE static void store16(E *dst, long long i0,
                                          long long count, bool aligned8,
                                          dev::sentinel::Pack16 v) {
    W::store(dst, i0, count, aligned8, v.lo);
    W::store(dst, i0 + kLanes8, count, aligned8, v.hi);
  }

  /// Records the first error of this rank's program (abi.h) and stops this
  /// thread's part of the call.
  COLLC_DEVICE_INLINE void fail(unsigned long long code, int op, Epoch e,
                                int source, long long element) {
    failed_ = true;
    COLLC_TRACE_WARP(COLLC_TRACE_FAILED, static_cast<unsigned>(op));
    unsigned long long *err =
        p_.error + (source != p_.rank ? COLLC_ERROR_REMOTE : 0);
    if (atomicCAS(err, (unsigned long long)COLLC_KERNEL_OK, code) ==
        COLLC_KERNEL_OK) {
      err[1] = e.value;
      err[2] = static_cast<unsigned long long>(p_.rank);
      err[3] = static_cast<unsigned long long>(op);
      err[4] = ~0ull;
      err[5] = static_cast<unsigned long long>(source);
      err[6] = static_cast<unsigned long long>(slot(e));
      err[7] = static_cast<unsigned long long>(element);
      __threadfence_system();
    }
  }

  /// Records a wait that ended without its data (dev::bounded_poll): Failed
  /// (it saw a later call) is a sequence mismatch, TimedOut a timeout.
  /// Returns false, for the caller to return.
  COLLC_DEVICE_INLINE bool waitFailed(dev::PollState state, int op, Epoch e,
                                      int source, long long element) {
    fail(state == dev::PollState::Failed ? COLLC_KERNEL_SEQUENCE
                                         : COLLC_KERNEL_TIMEOUT,
         op, e, source, element);
    return false;
  }

  /// LL16: whether a loaded packet is this call's (both sequence words: the
  /// 16-byte access is single-copy atomic, so they vouch for its data).
  COLLC_DEVICE_INLINE static bool llValid(const dev::ll::Packet &v,
                                          uint32_t seq) {
    return v.seq0 == seq && v.seq1 == seq;
  }
  COLLC_DEVICE_INLINE static u64 llPayload(const dev::ll::Packet &v) {
    return (static_cast<u64>(v.data1) << 32) | v.data0;
  }

  /// LL16: polls packet `j` of `source` until it carries `seq`; false after
  /// recording a timeout, or a sequence mismatch when it carries a later
  /// call's number.
  COLLC_DEVICE_INLINE bool llWait(int op, Epoch e, uint32_t seq, int source,
                                  const dev::ll::Packet *at, long long j,
                                  dev::ll::Packet *out) {
    dev::ll::Packet v;
    const dev::PollState state = dev::bounded_poll(
        p_.timeoutNs,
        [&] {
          v = detail::ll_load(at);
          return llValid(v, seq);
        },
        // A packet of a later call than this one (a fresh buffer holds 0).
        [&] { return v.seq0 != 0 && static_cast<int32_t>(v.seq0 - seq) > 0; });
    if (state == dev::PollState::Ready)
      *out = v;
    return state == dev::PollState::Ready ||
           waitFailed(state, op, e, source, j * kLanes8);
  }

  /// SENTINEL: polls unit `j` of `source` until neither half is armed; the
  /// caller re-arms it.
  COLLC_DEVICE_INLINE bool sentinelWait(int op, Epoch e, int source,
                                        dev::sentinel::Pack16 *at, long long j,
                                        dev::sentinel::Pack16 *out) {
    if (dev::sentinel::poll(at, out, p_.timeoutNs))
      return true;
    fail(COLLC_KERNEL_TIMEOUT, op, e, source, j * kLanes16);
    return false;
  }

  /// The encoding's unit operations (LL16 or SENTINEL).
  COLLC_DEVICE_INLINE static Payload loadPayload(const E *src, long long j,
                                                 long long count,
                                                 bool aligned) {
    if constexpr (Enc == Encoding::ll16)
      return W::load(src, j * kLanes8, count, aligned);
    else
      return dev::sentinel::canonicalize<E>(
          load16(src, j * kLanes16, count, aligned));
  }
  COLLC_DEVICE_INLINE static void publish(Unit *at, Payload w, uint32_t seq) {
    if constexpr (Enc == Encoding::ll16)
      dev::ll::store(at, w, seq);
    else
      dev::sentinel::store(at, w);
  }
  COLLC_DEVICE_INLINE static Unit loadUnit(const Unit *at) {
    if constexpr (Enc == Encoding::ll16)
      return detail::ll_load(at);
    else
      return dev::sentinel::load(at);
  }
  COLLC_DEVICE_INLINE static bool unitReady(const Unit &v, uint32_t seq) {
    if constexpr (Enc == Encoding::ll16)
      return llValid(v, seq);
    else
      return dev::sentinel::is_ready(v);
  }
  COLLC_DEVICE_INLINE static Payload payloadOf(const Unit &v) {
    if constexpr (Enc == Encoding::ll16)
      return llPayload(v);
    else
      return v;
  }
  COLLC_DEVICE_INLINE static void storePayload(E *dst, long long j,
                                               long long count, bool aligned,
                                               Payload w) {
    if constexpr (Enc == Encoding::ll16)
      W::store(dst, j * kLanes8, count, aligned, w);
    else
      store16(dst, j * kLanes16, count, aligned, w);
  }
  /// Reduces N sources' payloads, in rank order (FP32 accumulation, rounded
  /// once): 8-byte words, or 16-byte units as two words.
  template <dev::RedOp Op>
  COLLC_DEVICE_INLINE static u64 reducePayloads(const u64 (&w)[N]) {
    return W::template reduce<Op, N>(w);
  }
  template <dev::RedOp Op>
  COLLC_DEVICE_INLINE static dev::sentinel::Pack16
  reducePayloads(const dev::sentinel::Pack16 (&w)[N]) {
    u64 lo[N], hi[N];
    COLLC_PRAGMA_UNROLL
    for (int q = 0; q < N; ++q) {
      lo[q] = w[q].lo;
      hi[q] = w[q].hi;
    }
    return dev::sentinel::Pack16{W::template reduce<Op, N>(lo),
                                 W::template reduce<Op, N>(hi)};
  }
  /// Bounded wait for unit `j` of `source` at `at` (LL16 or SENTINEL).
  COLLC_DEVICE_INLINE bool waitUnit(int op, Epoch e, uint32_t seq, int source,
                                    Unit *at, long long j, Unit *out) {
    if constexpr (Enc == Encoding::ll16)
      return llWait(op, e, seq, source, at, j, out);
    else
      return sentinelWait(op, e, source, at, j, out);
  }

  /// Where unit k of an acquire is: its address (null: none this step), the
  /// source that writes it and its index there (for the error record).
  struct UnitRef {
    Unit *where;
    int source;
    long long unit;
  };

  /// Reads K units (`ref(k)`), each validated by its own readiness, into
  /// `v`. Speculate: every load in flight first, one combined check, a
  /// bounded wait only for the units that fail it; else each unit is waited
  /// for in turn. A sentinel unit is re-armed once validated (this thread is
  /// its sole reader). False after a recorded failure. `ref` is a function,
  /// not an array, so the addresses are recomputed where needed rather than
  /// held in registers across the loads.
  template <int K, class Ref>
  COLLC_DEVICE_INLINE bool acquire(int op, Epoch e, Ref ref, Unit (&v)[K]) {
    const uint32_t seq = seqOf(e);
    bool ok = Speculate;
    if constexpr (Speculate) {
      COLLC_PRAGMA_UNROLL
      for (int k = 0; k < K; ++k) {
        const UnitRef r = ref(k);
        if (r.where) {
          v[k] = loadUnit(r.where);
          ok &= unitReady(v[k], seq);
        }
      }
    }
    if (!ok) {
      COLLC_PRAGMA_UNROLL
      for (int k = 0; k < K; ++k) {
        const UnitRef r = ref(k);
        if (r.where && !(Speculate && unitReady(v[k], seq)) &&
            !waitUnit(op, e, seq, r.source, r.where, r.unit, &v[k]))
          return false;
      }
    }
    if constexpr (Enc == Encoding::sentinel) {
      COLLC_PRAGMA_UNROLL
      for (int k = 0; k < K; ++k) {
        const UnitRef r = ref(k);
        if (r.where)
          dev::sentinel::rearm(r.where);
      }
    }
    return true;
  }

  /// take of B sources at once (src[b] < 0: none): unit j of every source
  /// is acquired before any is stored. Chunked: dst and count are the CTA's
  /// parts, ub their first unit in the partition (error records).
  template <int B>
  COLLC_DEVICE_INLINE void takeSources(int op, Epoch e, const int (&src)[B],
                                       E *const (&dst)[B],
                                       const long long (&count)[B],
                                       long long ub) {
    if (failed_)
      return;
    const int s = slot(e);
    Unit *base[B];
    long long units[B], most = 0;
    bool aligned[B];
    COLLC_PRAGMA_UNROLL
    for (int b = 0; b < B; ++b) {
      base[b] = src[b] < 0 ? nullptr
                           : reinterpret_cast<Unit *>(
                                 subOffset(myRegion(s, src[b])));
      units[b] = src[b] < 0 ? 0 : unitsOf(count[b], kUnitBytes);
      aligned[b] = (reinterpret_cast<uintptr_t>(dst[b]) & 7u) == 0;
      most = units[b] > most ? units[b] : most;
    }
    for (long long j0 = thread_; j0 < most; j0 += threads_ * Grain) {
      auto ref = [&](int k) {
        const int b = k % B;
        const long long j = j0 + (k / B) * threads_;
        return UnitRef{j < units[b] ? base[b] + j : nullptr, src[b], ub + j};
      };
      Unit v[Grain * B];
      if (!acquire<Grain * B>(op, e, ref, v))
        return;
      COLLC_PRAGMA_UNROLL
      for (int g = 0; g < Grain; ++g)
        COLLC_PRAGMA_UNROLL
        for (int b = 0; b < B; ++b)
          if (ref(g * B + b).where)
            storePayload(dst[b], j0 + g * threads_, count[b], aligned[b],
                         payloadOf(v[g * B + b]));
    }
  }

  /// FLAG: every lane of the warp polls the ready word of its segment in
  /// `region` until it holds this call's epoch: relaxed loads while it does
  /// not (an acquire per poll costs each spinning lane an L1 invalidation),
  /// then one ld.acquire.sys of the word, which reads the epoch the
  /// producer released and so orders this lane's reads of the data after it.
  COLLC_DEVICE_INLINE bool flagWait(int op, Epoch e, int source, char *region,
                                    long long lo) {
    return flagWait(op, e, source, readyWord(region),
                    [&] { return lo * kLanes16; });
  }

  /// The poll of a ready `word` (chunked: thread 0 polls the CTA's);
  /// `element()` is the error record's.
  template <class Element>
  COLLC_DEVICE_INLINE bool flagWait(int op, Epoch e, int source,
                                    const u64 *word, Element element) {
    u64 v;
    const dev::PollState state = dev::bounded_poll(
        p_.timeoutNs,
        [&] {
          v = dev::ld_relaxed_sys(word);
          return v == e.value && dev::ld_acquire_sys(word) == e.value;
        },
        [&] { return v > e.value; });
    return state == dev::PollState::Ready ||
           waitFailed(state, op, e, source, element());
  }

  const collcProgramParams p_;
  /// The kernel's `__grid_constant__` parameters, in place.
  const Peers<N> &rx_;
  const Sizes<N> &sizes_;
  /// Zero-copy: the window table and where this call's buffers are.
  const collcWindowParams win_;
  const long long thread_, threads_;
  u64 *const counter_;
  /// Chunked: the call's steps (Agree: set by agree).
  long long steps_;
  /// Chunked, fixed sizes: the part of every partition (largestPartOf).
  const long long partElems_;
  /// kSelfDirect: the partition this rank last put to itself in receive
  /// buffer 0 (this step's: a put precedes the takes of its buffer), or
  /// null where it staged it.
  const E *self_ = nullptr;
  bool failed_ = false;
  /// Chunked: a region was read or output stored since the last barrier.
  bool dirty_ = false;
};

} // namespace prog
} // namespace collc

#endif // defined(COLLC_DEVICE_COMPILE)

#endif // COLLC_DEVICE_SNAC_PROGRAM_CUH
