//===- bandwidth.cpp - the bandwidth regime on one GPU (issue 11) ---------===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// Issue 11's one-H200 targets: AllReduce, AllGather, ReduceScatter and
// AllToAll through the runtime (the chunked programs above the latency
// bands), bf16, ranks in one process sharing GPU 0 (collcCommInitAll, one
// stream each), against the v1 kernels (a row forcing COLLC_FORCE_VARIANT=v1)
// and a plain vectorized device-to-device copy with the same CTAs
// (copy_kernel.cu), all in the same run. One row per module and forcing,
// listed in a rows file that scripts/gpu-bandwidth.sh writes (the library
// module, v1, and the ablation: chunk size, CTAs).
//
// Sizes (NCCL's convention): S = the bytes of the collective's larger
// buffer per rank: AllReduce S in and out; AllGather the output S (input
// S/n); ReduceScatter the input S (output S/n); AllToAll S in and out.
// algbw = S / time.
//
// Method, per (row, collective, ranks, size):
//  - one eager call on fresh inputs (reductions: small integers, so every
//    sum is exact in any order and the FP32 rank-order reference is the
//    answer; copies: random bit patterns), outputs poisoned and a guard band
//    after them; every output element checked bitwise against the host
//    reference. A failing configuration is reported (FAIL) and not timed;
//  - then K calls per rank captured in a CUDA graph of the rank's stream,
//    K = clamp(64 MiB / S, 1, 64) (--calls-bytes), the ranks' graphs
//    replayed together, 2 warm-up and 5 timed replays between CUDA events;
//    per-call time = the slowest rank's elapsed / (5 K). Where a replay
//    took less than 2 ms (--min-replay-us), all of it again with K large
//    enough for 2 ms (at most 1024 calls), and that time is the one kept.
//
// Bytes moved (traffic: bytes read + bytes written, summed over ranks; a
// rank's part below, times n) by the chunked programs' algorithms, with
// staging through the receive regions of the peers (docs/snac.md; the
// AllReduce is the two-shot program); a rank's own part is read where it
// lies, not staged (program.cuh kSelfDirect: the bench's buffers are
// 16-byte aligned and whole):
//   AllGather (output S):  put S/n -> (n-1)S/n (its input to every peer's
//                          region), take_each S -> S (its own part from
//                          its input):                            3S
//   ReduceScatter (in S):  put_each (n-1)S/n -> (n-1)S/n,
//                          reduce_take S -> S/n:                  3S - S/n
//   AllToAll (S):          put_each (n-1)S/n -> (n-1)S/n,
//                          take_each S -> S:                      4S - 2S/n
//   AllReduce (S):         the ReduceScatter's 3S - S/n, forward
//                          S/n -> (n-1)S/n, take (n-1)S/n ->
//                          (n-1)S/n:                              6S - 3S/n
// (r -> w: bytes read -> bytes written.) The same numbers are recorded for
// every row, v1 included, as that row's data moved by this model; rows with
// registered buffers (the zero-copy programs: consumers read the producers'
// buffers in place, nothing staged) use that algorithm's instead:
//   AllGather:     read S (every rank's S/n) -> write S:        2S
//   ReduceScatter: read S (S/n from each rank) -> write S/n:    S + S/n
//   AllToAll:      read S -> write S:                           2S
//   AllReduce:     reduce S -> S/n, then read the other ranks'
//                  reduced partitions (n-1)S/n -> (n-1)S/n:     S + S/n +
//                                                               2(n-1)S/n
//
// The copy baseline: one copy per rank on the rank's stream, concurrently,
// each with the CTAs and threads of the rank's collective kernel (the
// routed kernel's grid in the module's manifest, or --ctas, --threads),
// copying traffic / (2n) bytes per rank, so that the copies move the
// collective's bytes; timed the same way (graphs of K launches, 2 + 5
// replays, slowest rank), checked once. Its traffic rate = 2 x bytes copied
// / time; `copy_ratio` = the collective's traffic rate / the copy's.
//
// usage: collc_bandwidth ROWS [--ranks=2] [--sizes=1048576,...]
//          [--collectives=all_reduce,all_gather,reduce_scatter,all_to_all]
//          [--partitions=even,skewed,zero,zipf] [--ctas=N] [--threads=T]
//          [--calls-bytes=67108864]
//          [--min-replay-us=2000] [--alarm=SECONDS]
//          [--json=FILE --machine=M --date=D]
//          [--no-copy] [--strict-force] [--plan=FILE] [--target=sm_90]
// Sizes: each requested S is snapped to the nearest S whose partitions are
// whole 16-byte units (at least one; snapBytes: 16 bytes for AllReduce,
// 16 n for the other fixed collectives, 16 x the partitions' weights for a
// _v one), printed as "SIZE collective nN: R bytes -> S bytes" where it
// differs; a size that snaps onto one already measured is measured once.
// So sizes go down to 8 bytes (AllReduce: 16, AllGather at 8 ranks: 128).
// --no-copy: no copy baseline (for calibration: collc-bench); the records'
// copy_traffic_gbs, copy_ratio are then 0.
// --strict-force: a row forcing `<variant>:<encoding>` whose variant has no
// program serving the call (routedKernel: the runtime would run the v1
// kernel instead) prints "SKIP [label] ... (variant X does not serve K
// bytes)" and is not measured, so that v1's time is never recorded as the
// variant's; a row forcing v1 runs v1 as always.
// --plan=FILE: measure only the listed (row label, collective, ranks,
// requested bytes), one per line, tab-separated ('#' lines skipped): the
// refinement runs of collc-bench; --sizes, --collectives and --ranks must
// still list them.
// Routing (routedKernel, as the runtime's pickProgram): the kernels of
// --target (default sm_90; the runtime's is the device's image) that serve
// bf16 at the call's rank count; a row that forces nothing ('-') follows
// the module's policy_table when it has an entry for (--target, ranks,
// collective, buffers; registered buffers fall back to the ordinary entry):
// the selected variant's first program whose band holds the key and whose
// registered buffers the row has, the v1 kernel for "v1"; otherwise (no
// table, no entry, or the variant serves nothing) the first program whose
// band holds the key. Records name the kernel ("kernel") and how it was
// chosen ("selected_by": force, table or bands).
// Every record has "key_bytes": the bytes the runtime selects a program by
// (Shape::inputBytes, as passed to routedKernel: a rank's input; AllGather's
// input is S/n), -1 for a _v call whose ranks know no size in common
// (AllToAll_v), and "requested_bytes" (before snapping).
// --collectives also takes the rooted collectives (broadcast, reduce,
// scatter, gather; root 0; S = the root's larger buffer: Broadcast's and
// Reduce's count x 2, Scatter's input, Gather's output; NCCL runs
// ncclBroadcast and ncclReduce, and for Scatter and Gather, which it lacks,
// the root's grouped ncclSend/ncclRecv to and from every rank; no traffic
// model: traffic 0; Scatter and Gather out of place only) and
// the _v variants (all_gather_v, reduce_scatter_v,
// all_to_all_v), each run with every --partitions shape of its T = S / 2
// elements (Shape, Parts above); S, algbw and the traffic model are the
// fixed collective's, with T for the partitions' sum. Their records say
// "partitions": even, skewed, zero or zipf ("fixed" for the fixed
// collectives). NCCL has no _v collectives: its rows run the grouped
// point-to-point calls that stand for them (ncclSend/ncclRecv; for
// ReduceScatter_v an ncclReduce per partition to its rank, grouped).
// ROWS: one row per line, tab-separated: label, module file, the
// COLLC_FORCE_VARIANT value or '-' for none; '#' lines are skipped.
// Output lines: first "driver N" (cudaDriverGetVersion) and "gpu NAME"
// (the device's name), then "bandwidth ...", "copy ...", "SIZE ...",
// "SKIP ...", "FAIL [label] collective nN BYTES bytes: why", with
// --strict-force "N skipped (...)", last "N passed, M failed".
// JSON: one record per measurement, flushed as it is written.
//
//===----------------------------------------------------------------------===//

#include "collc/collc.h"
#include "copy_kernel.h"
#include "graph_timing.h"
#include "partitions.h"
#include "rows.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <nlohmann/json.hpp>
#if COLLC_BENCH_NCCL
#include <nccl.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <unistd.h>
#include <vector>

namespace {

// A CUDA error is fatal: "FATAL file:line: call: error", exit 2.
#define CUDA(x) COLLC_CUDA_CHECK(x)

constexpr int kWarm = 2, kTimed = 5, kMaxCalls = 64, kMaxAdaptive = 1024;
/// Poisoned elements after each output, checked untouched.
constexpr size_t kGuard = 128;
constexpr uint16_t kPoison = 0xEEEE;

using collc::bench::Row;

int passed = 0, failed = 0, skipped = 0;
FILE *json = nullptr;
/// --no-copy: no copy baseline; --strict-force: a forced variant that does
/// not serve a call is not measured (SKIP), rather than timing the v1
/// kernel the runtime runs instead.
bool noCopy = false, strictForce = false;
std::string machine = "unknown", date = "unknown";
int threadsOverride = 0, ctasOverride = 0;
long long callsBytes = 64ll << 20;
double minReplayUs = 2000;
uint64_t seedCounter = 11;
/// --gpus: rank q runs on GPU q % gpus (1: every rank shares GPU 0).
int gpus = 1;
int devOf(int q) { return q % gpus; }
void useDevice(int q) { COLLC_CUDA_CHECK(cudaSetDevice(devOf(q))); }
/// Waits for every GPU the ranks use.
void syncAll() {
  for (int d = 0; d < gpus; ++d) {
    COLLC_CUDA_CHECK(cudaSetDevice(d));
    COLLC_CUDA_CHECK(cudaDeviceSynchronize());
  }
}

/// Where a call's buffers lie: out of place (input and output buffers of
/// their own) or in place, by NCCL's conventions (AllReduce send == recv,
/// AllGather send == recv + rank * count, ReduceScatter recv == send +
/// rank * count; AllToAll has none, in NCCL or collc).
enum class Placement { OutOfPlace, InPlace };
const char *placementName(Placement p) {
  return p == Placement::InPlace ? "in_place" : "out_of_place";
}

//===----------------------------------------------------------------------===//
// The collectives
//===----------------------------------------------------------------------===//

enum class Kind {
  AllReduce,
  AllGather,
  ReduceScatter,
  AllToAll,
  Broadcast,
  Reduce,
  Scatter,
  Gather
};

/// The root of the rooted collectives' calls (nccl-tests' default).
constexpr int kRoot = 0;

bool rootedKind(Kind k) {
  return k == Kind::Broadcast || k == Kind::Reduce || k == Kind::Scatter ||
         k == Kind::Gather;
}

struct Coll {
  const char *name;
  Kind kind;
  bool reduces;
  /// The _v variant (collcAllGatherV, ...): partitions of any sizes.
  bool variable = false;
  /// Broadcast, Reduce, Scatter, Gather (root kRoot): measured only when
  /// --collectives names them.
  bool rooted() const { return rootedKind(kind); }
};

const Coll kColls[] = {
    {"all_reduce", Kind::AllReduce, true},
    {"all_gather", Kind::AllGather, false},
    {"reduce_scatter", Kind::ReduceScatter, true},
    {"all_to_all", Kind::AllToAll, false},
    {"all_gather_v", Kind::AllGather, false, true},
    {"reduce_scatter_v", Kind::ReduceScatter, true, true},
    {"all_to_all_v", Kind::AllToAll, false, true},
    {"broadcast", Kind::Broadcast, false},
    {"reduce", Kind::Reduce, true},
    {"scatter", Kind::Scatter, false},
    {"gather", Kind::Gather, false},
};

/// How a _v call's T elements split into the n ranks' partitions c_q
/// (AllToAll_v: rank q sends c_((q + p) mod n) to rank p, so that every rank
/// sends and receives T):
///   even    c_q = T / n (the fixed collective's shape);
///   skewed  c_q proportional to 3 for even q, 1 for odd q;
///   zero    the last rank's partition empty, the others even;
///   zipf    Purlin's equation 4 (its variable-length benchmark, C.4:
///           partitions.h); AllToAll_v: rank q sends to p the partition
///           vector rotated right by (q + 1) mod n.
enum class Parts { Even, Skewed, Zero, Zipf };
const char *partsName(Parts p) {
  return p == Parts::Even     ? "even"
         : p == Parts::Skewed ? "skewed"
         : p == Parts::Zero   ? "zero"
                              : "zipf";
}

/// Partition q's weight of n (Even, Skewed, Zero: the split is in
/// proportion; Zipf is partitions.h's).
size_t partsWeight(Parts parts, int q, int n) {
  return parts == Parts::Skewed ? (q % 2 == 0 ? 3 : 1)
         : parts == Parts::Zero ? (q == n - 1 ? 0 : 1)
                                : 1;
}

/// One call of a collective whose larger buffer per rank is about `bytes`.
struct Shape {
  size_t count = 0; // the count argument, elements (fixed collectives)
  size_t inElems = 0, outElems = 0; // rank 0's (the largest buffer: all)
  size_t bytes = 0;      // S: the larger buffer per rank, bytes
  size_t inputBytes = 0; // what a program's band holds (runtime's key)
  Parts parts = Parts::Even;
  /// _v: partition q's elements, and where it starts (prefix sums).
  std::vector<size_t> counts, displs;
  bool variable = false;
  /// The ranks know no size in common (AllToAll_v): the runtime routes the
  /// program whose ranks agree on its steps, whatever the size.
  bool noCommonSize = false;
  int n = 0;
  Kind kindOf = Kind::AllReduce;
  /// AllToAll_v: the elements rank q sends to rank p, and where they start
  /// in q's input (sendOffset) and in p's output (recvOffset).
  size_t pair(int q, int p) const {
    if (parts == Parts::Zipf) // rotated right by (q + 1) mod n at rank q
      return counts[((p - q - 1) % n + n) % n];
    return counts[(q + p) % n];
  }
  size_t sendOffset(int q, int p) const {
    size_t at = 0;
    for (int j = 0; j < p; ++j)
      at += pair(q, j);
    return at;
  }
  size_t recvOffset(int p, int q) const {
    size_t at = 0;
    for (int j = 0; j < q; ++j)
      at += pair(j, p);
    return at;
  }
  /// Rank q's input and output elements (a rooted collective's: the
  /// root's input of Broadcast and Scatter, its output of Reduce and
  /// Gather; the other ranks' are empty).
  size_t inOf(int q) const {
    if (kindOf == Kind::Broadcast || kindOf == Kind::Scatter)
      return q == kRoot ? inElems : 0;
    if (!variable)
      return inElems;
    return kindOf == Kind::AllGather ? counts[q] : total();
  }
  size_t outOf(int q) const {
    if (kindOf == Kind::Reduce || kindOf == Kind::Gather)
      return q == kRoot ? outElems : 0;
    if (!variable)
      return outElems;
    return kindOf == Kind::ReduceScatter ? counts[q] : total();
  }
  size_t total() const {
    size_t t = 0;
    for (size_t c : counts)
      t += c;
    return t;
  }
};

/// S rounded down so that a partition is whole 16-byte units.
Shape shapeOf(const Coll &c, size_t bytes, int n, Parts parts) {
  const Kind k = c.kind;
  Shape s;
  s.n = n;
  s.kindOf = k;
  if (c.variable) {
    s.variable = true;
    s.parts = parts;
    if (parts == Parts::Zipf) {
      s.counts = zipfSplit(bytes, n);
      for (size_t &e : s.counts)
        e /= 2; // bf16 elements
    } else {
      size_t sum = 0;
      for (int q = 0; q < n; ++q)
        sum += partsWeight(parts, q, n);
      const size_t unit = bytes / 2 / sum / 8 * 8;
      s.counts.resize(n);
      for (int q = 0; q < n; ++q)
        s.counts[q] = partsWeight(parts, q, n) * unit;
    }
    s.displs.resize(n);
    for (int q = 0; q < n; ++q)
      s.displs[q] = q ? s.displs[q - 1] + s.counts[q - 1] : 0;
    const size_t t = s.total();
    s.inElems = k == Kind::AllGather ? s.counts[0] : t;
    s.outElems = k == Kind::ReduceScatter ? s.counts[0] : t;
    s.bytes = 2 * t;
    // The runtime's selection key (launch.cpp selectionBytes): a reduction's
    // rank input, a packed copy's largest partition; a transposing copy
    // (AllToAll_v) none: the program whose ranks agree on its steps.
    size_t most = 0;
    for (size_t x : s.counts)
      most = std::max(most, x);
    s.inputBytes = 2 * (k == Kind::AllGather ? most : t);
    s.noCommonSize = k == Kind::AllToAll;
    return s;
  }
  if (k == Kind::AllReduce || k == Kind::Broadcast || k == Kind::Reduce) {
    s.count = bytes / 2 / 8 * 8;
    s.inElems = s.outElems = s.count;
  } else {
    // Scatter and Gather: the root's buffer of n partitions, as AllGather's
    // output (Scatter's input) and ReduceScatter's input (Gather's output).
    const size_t c = bytes / 2 / n / 8 * 8;
    s.count = c;
    s.inElems = k == Kind::AllGather || k == Kind::Gather ? c : n * c;
    s.outElems = k == Kind::ReduceScatter || k == Kind::Scatter ? c : n * c;
  }
  s.bytes = 2 * std::max(s.inElems, s.outElems);
  s.inputBytes = 2 * s.inElems;
  return s;
}

/// The S nearest `bytes` that shapeOf takes whole: whole 16-byte units per
/// partition (bf16: 8 elements), at least one. A fixed AllReduce's unit is
/// 16 bytes; the other fixed collectives' 16 n (n partitions); a _v call's
/// 16 x the partitions' weights (Parts). shapeOf(snapBytes(S)) has S bytes.
size_t snapBytes(const Coll &c, size_t bytes, int n, Parts parts) {
  size_t unit = (c.kind == Kind::AllReduce || c.kind == Kind::Broadcast ||
                 c.kind == Kind::Reduce) &&
                        !c.variable
                    ? 16
                    : 16 * n;
  if (c.variable && parts == Parts::Zipf)
    return zipfSnapBytes(bytes, n);
  if (c.variable) {
    size_t sum = 0;
    for (int q = 0; q < n; ++q)
      sum += partsWeight(parts, q, n);
    unit = 16 * std::max<size_t>(1, sum);
  }
  return std::max<size_t>(1, (bytes + unit / 2) / unit) * unit;
}

/// Bytes read + written by one rank in one call (the models above; none
/// for the rooted collectives: 0).
double rankTraffic(Kind k, double S, int n, bool zeroCopy) {
  if (rootedKind(k))
    return 0;
  if (zeroCopy)
    switch (k) {
    case Kind::AllGather:
    case Kind::AllToAll:
      return 2 * S;
    case Kind::ReduceScatter:
      return S + S / n;
    case Kind::AllReduce:
      return S + S / n + 2 * (n - 1) * S / n;
    default:
      return 0;
    }
  switch (k) {
  case Kind::AllGather:
    return 3 * S;
  case Kind::ReduceScatter:
    return 3 * S - S / n;
  case Kind::AllToAll:
    return 4 * S - 2 * S / n;
  case Kind::AllReduce:
    return 6 * S - 3 * S / n;
  default:
    return 0;
  }
}

/// Rank q's call. The _v calls' count arrays live in `s` (the runtime reads
/// them during the call: they need not outlive it).
collcResult_t callOf(const Coll &c, const Shape &s, int q, const void *in,
                     void *out, collcComm_t comm, cudaStream_t stream) {
  const size_t count = s.count;
  if (c.variable) {
    switch (c.kind) {
    case Kind::AllGather:
      return collcAllGatherV(in, s.counts[q], out, s.counts.data(),
                             s.displs.data(), collcBfloat16, comm, stream);
    case Kind::ReduceScatter:
      return collcReduceScatterV(in, out, s.counts.data(), collcBfloat16,
                                 collcSum, comm, stream);
    case Kind::AllToAll: {
      const int n = s.n;
      size_t sc[64], sd[64], rc[64], rd[64];
      if (n > 64)
        return collcInvalidArgument;
      for (int p = 0; p < n; ++p) {
        sc[p] = s.pair(q, p);
        sd[p] = s.sendOffset(q, p);
        rc[p] = s.pair(p, q);
        rd[p] = s.recvOffset(q, p);
      }
      return collcAllToAllV(in, sc, sd, out, rc, rd, collcBfloat16, comm,
                            stream);
    }
    default:
      return collcInvalidArgument;
    }
  }
  switch (c.kind) {
  case Kind::AllReduce:
    return collcAllReduce(in, out, count, collcBfloat16, collcSum, comm,
                          stream);
  case Kind::AllGather:
    return collcAllGather(in, out, count, collcBfloat16, comm, stream);
  case Kind::ReduceScatter:
    return collcReduceScatter(in, out, count, collcBfloat16, collcSum, comm,
                              stream);
  case Kind::AllToAll:
    return collcAllToAll(in, out, count, collcBfloat16, comm, stream);
  case Kind::Broadcast:
    return collcBroadcast(in, out, count, collcBfloat16, kRoot, comm, stream);
  case Kind::Reduce:
    return collcReduce(in, out, count, collcBfloat16, collcSum, kRoot, comm,
                       stream);
  case Kind::Scatter:
    return collcScatter(in, out, count, collcBfloat16, kRoot, comm, stream);
  case Kind::Gather:
    return collcGather(in, out, count, collcBfloat16, kRoot, comm, stream);
  }
  return collcInvalidArgument;
}

//===----------------------------------------------------------------------===//
// Host helpers
//===----------------------------------------------------------------------===//

/// f(lo, hi) over [0, n) in parallel blocks (the host's cores), when the
/// work (`work` items, default n) is worth threads.
void parallelFor(size_t n, const std::function<void(size_t, size_t)> &f,
                 size_t work = 0) {
  const size_t threads = std::min<size_t>(
      std::min<size_t>(32, std::max(1u, std::thread::hardware_concurrency())),
      std::max<size_t>(1, n));
  if ((work ? work : n) < (1u << 16) || threads == 1) {
    f(0, n);
    return;
  }
  const size_t per = (n + threads - 1) / threads;
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t) {
    const size_t lo = std::min(n, t * per), hi = std::min(n, lo + per);
    if (lo < hi)
      pool.emplace_back(f, lo, hi);
  }
  for (auto &t : pool)
    t.join();
}

uint64_t splitmix(uint64_t &s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint16_t bf16FromFloat(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u)
    return 0x7FFF;
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
float toFloat(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Fresh inputs: small integers in [-4, 3] as bf16 for a reduction (a sum
/// of up to 64 of them is an integer below 256 in magnitude: exact in bf16
/// and FP32 in any order), random bit patterns for a copy.
void fillInputs(std::vector<uint16_t> &v, size_t elems, bool reduces) {
  static uint16_t small[8];
  for (int i = 0; i < 8; ++i)
    small[i] = bf16FromFloat(static_cast<float>(i - 4));
  const uint64_t seed = seedCounter++ * 0x2545F4914F6CDD1Dull;
  constexpr size_t kBlock = 4096;
  parallelFor(
      (elems + kBlock - 1) / kBlock,
      [&](size_t lo, size_t hi) {
    for (size_t b = lo; b < hi; ++b) {
      uint64_t s = seed ^ (b * 0xD1B54A32D192ED03ull);
      const size_t end = std::min(elems, (b + 1) * kBlock);
      for (size_t i = b * kBlock; i < end;) {
        uint64_t r = splitmix(s);
        if (reduces)
          for (int j = 0; j < 16 && i < end; ++j, ++i, r >>= 4)
            v[i] = small[r & 7];
        else
          for (int j = 0; j < 4 && i < end; ++j, ++i, r >>= 16)
            v[i] = static_cast<uint16_t>(r);
      }
    }
      },
      elems);
}

//===----------------------------------------------------------------------===//
// The module's manifest: which kernel a call runs, and its grid
//===----------------------------------------------------------------------===//

struct Routed {
  std::string name = "?";
  int grid = 0, threads = 0;
  /// A program serves the call (else the v1 kernel, or nothing).
  bool program = false;
  /// How the kernel was chosen: "force" (COLLC_FORCE_VARIANT), "table" (the
  /// module's policy_table), "bands" (the first program whose band holds
  /// the call: no table, no entry, or the table's variant serves nothing).
  const char *by = "bands";
};

/// The kernels' target routedKernel reads (--target; the runtime's is the
/// device's image).
std::string target = "sm_90";

/// Whether the row's communicators read ordinary buffers in place
/// (COLLC_CLIQUE_DIRECT not 0 when they were created: the bench's ranks
/// are one process, and its buffers cudaMalloc memory, which every rank's
/// device reads).
bool cliqueDirect = true;

/// The variant the module's policy_table selects for a call of `key` bytes
/// (as the runtime's pickProgram: a call with registered buffers reads the
/// registered entry when there is one, else the ordinary one), or nullptr:
/// no table, or no entry for (target, n, coll).
const nlohmann::json *tableVariant(const nlohmann::json &m, const char *coll,
                                   int n, long long key, bool registered) {
  if (key < 0 || !m.contains("policy_table") ||
      !m["policy_table"].is_object())
    return nullptr;
  const auto &t = m["policy_table"];
  if (!t.contains("entries") || !t["entries"].is_array())
    return nullptr;
  const nlohmann::json *entry = nullptr;
  for (int reg = registered ? 1 : 0; reg >= 0 && !entry; --reg)
    for (const auto &e : t["entries"])
      if (e.is_object() && e.value("target", "") == target &&
          e.value("ranks", 0) == n && e.value("collective", "") == coll &&
          e.value("buffers", "") == (reg ? "registered" : "ordinary") &&
          e.contains("select") && e["select"].is_array() &&
          !e["select"].empty()) {
        entry = &e;
        break;
      }
  if (!entry)
    return nullptr;
  const auto &select = (*entry)["select"];
  const nlohmann::json *choice = &select.back();
  for (const auto &s : select)
    if (s.contains("upto") && key <= s["upto"].get<long long>()) {
      choice = &s;
      break;
    }
  return choice->contains("variant") ? &(*choice)["variant"] : nullptr;
}

/// Whether the module's policy_table has a registered entry for (--target,
/// n, coll): the runtime reads a clique's ordinary buffers in place only
/// where one chose.
bool registeredEntry(const nlohmann::json &m, const char *coll, int n) {
  if (!m.contains("policy_table") || !m["policy_table"].is_object() ||
      !m["policy_table"].contains("entries") ||
      !m["policy_table"]["entries"].is_array())
    return false;
  for (const auto &e : m["policy_table"]["entries"])
    if (e.is_object() && e.value("target", "") == target &&
        e.value("ranks", 0) == n && e.value("collective", "") == coll &&
        e.value("buffers", "") == "registered" && e.contains("select") &&
        e["select"].is_array() && !e["select"].empty())
      return true;
  return false;
}

/// Whether variant name `v` ("<variant>:<encoding>", or with ":staged": never
/// a zero-copy twin) names program `p` of the manifest, as the runtime's
/// VariantName::names.
bool namesProgram(const std::string &v, const nlohmann::json &p) {
  static const std::string kStaged = ":staged";
  const bool staged = v.size() > kStaged.size() &&
                      v.compare(v.size() - kStaged.size(), kStaged.size(),
                                kStaged) == 0;
  const std::string base = staged ? v.substr(0, v.size() - kStaged.size()) : v;
  return base == p.value("variant", "") + ":" + p.value("encoding", "") &&
         !(staged && p.contains("registered"));
}

/// As the runtime routes (docs/runtime.md): with COLLC_FORCE_VARIANT unset
/// and a policy_table entry for (--target, n, coll, buffers), the table's
/// variant for the call's key: its first program (manifest order) whose
/// band holds the key and whose registered buffers the call has, the v1
/// kernel for "v1"; else (no entry, or that variant serves nothing) the
/// first program of the collective (bf16, n ranks, --target) whose band
/// holds the rank's input bytes (with `noCommonSize`, whose ranks agree on
/// its steps), among those COLLC_FORCE_VARIANT allows, else the v1 kernel.
Routed routedKernel(const nlohmann::json &m, const char *coll, int n,
                    size_t inputBytes, const std::string &force,
                    bool registered, bool noCommonSize) {
  Routed r;
  if (!m.is_object() || !m.contains("kernels") || !m["kernels"].is_array())
    return r;
  const bool forced = !force.empty() && force != "-";
  const long long key = noCommonSize ? -1 : (long long)inputBytes;
  const nlohmann::json *chosen =
      forced ? nullptr : tableVariant(m, coll, n, key, registered);
  const std::string tableChoice =
      chosen && chosen->is_string() ? chosen->get<std::string>() : "";
  const nlohmann::json *v1 = nullptr, *program = nullptr, *byTable = nullptr;
  for (const auto &k : m["kernels"]) {
    // bf16's kernel: its own, or a copy's bytes kernel that serves it.
    const auto serves = k.value("serves", nlohmann::json::array());
    const bool bf16 = k.value("element_type", "") == "bf16" ||
                      std::find(serves.begin(), serves.end(), "bf16") !=
                          serves.end();
    if (k.value("collective", "") != coll || !bf16 ||
        k.value("world_size", 0) != n || k.value("target", target) != target)
      continue;
    if (!k.contains("program")) {
      if (!v1)
        v1 = &k;
      continue;
    }
    if (force == "v1")
      continue;
    const auto &p = k["program"];
    // A zero-copy program runs only for registered buffers.
    if (p.contains("registered") && !registered)
      continue;
    if (forced && !namesProgram(force, p))
      continue;
    if (!p.contains("band") || !p["band"].is_array() || p["band"].size() != 2)
      continue;
    const long long lo = p["band"][0].get<long long>();
    const long long hi = p["band"][1].get<long long>();
    const bool holds = noCommonSize ? p.value("agree", false)
                                    : lo <= key && key <= hi;
    if (!holds)
      continue;
    if (!program)
      program = &k;
    if (!byTable && !noCommonSize && !tableChoice.empty() &&
        namesProgram(tableChoice, p))
      byTable = &k;
  }
  if (forced)
    r.by = "force";
  if (chosen && tableChoice == "v1") {
    program = nullptr;
    r.by = "table";
  } else if (byTable) {
    program = byTable;
    r.by = "table";
  }
  const nlohmann::json *k = program ? program : v1;
  r.program = program != nullptr;
  if (k) {
    r.name = k->value("name", "?");
    r.grid = k->value("grid", 0);
    r.threads = k->value("threads", 0);
  }
  return r;
}

//===----------------------------------------------------------------------===//
// Timing
//===----------------------------------------------------------------------===//

/// A timed configuration: per-call microseconds, and what one call of rank
/// 0 launched, read from its captured graph (kernel nodes: their number and
/// their CTAs summed, per call); -1 where unknown.
struct Timed {
  double us = -1;
  double ctas = -1, kernels = -1;
};

/// The kernel nodes of `g` and their CTAs; false when a node's parameters
/// cannot be read.
bool graphKernels(cudaGraph_t g, double &kernels, double &ctas) {
  size_t count = 0;
  CUDA(cudaGraphGetNodes(g, nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  CUDA(cudaGraphGetNodes(g, nodes.data(), &count));
  kernels = ctas = 0;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type;
    CUDA(cudaGraphNodeGetType(node, &type));
    if (type != cudaGraphNodeTypeKernel)
      continue;
    // The driver's view: the runtime's cudaGraphKernelNodeGetParams
    // refuses kernels launched through the driver API (collc's, NCCL's).
    CUDA_KERNEL_NODE_PARAMS p{};
    if (cuGraphKernelNodeGetParams(node, &p) != CUDA_SUCCESS)
      return false;
    kernels += 1;
    ctas += double(p.gridDimX) * p.gridDimY * p.gridDimZ;
  }
  return true;
}

/// Per-call microseconds of `calls` calls per rank: every rank's stream
/// captured at once (`issue()` queues one call on every rank's stream;
/// NCCL's ranks of one process must be queued in one group), the graphs replayed
/// together: kWarm times, then kTimed between events on each stream; the
/// slowest stream's span / (kTimed x calls). us -1 when a call fails in the
/// capture.
Timed timeReplays(const std::vector<cudaStream_t> &streams, int calls,
                  const std::function<bool()> &issue) {
  const size_t n = streams.size();
  Timed t;
  std::vector<cudaGraph_t> graphs(n);
  for (size_t q = 0; q < n; ++q) {
    useDevice((int)q);
    CUDA(cudaStreamBeginCapture(streams[q], cudaStreamCaptureModeThreadLocal));
  }
  bool ok = true;
  for (int i = 0; i < calls && ok; ++i)
    ok = issue();
  for (size_t q = 0; q < n; ++q) {
    useDevice((int)q);
    CUDA(cudaStreamEndCapture(streams[q], &graphs[q]));
  }
  if (ok && graphKernels(graphs[0], t.kernels, t.ctas)) {
    t.kernels /= calls;
    t.ctas /= calls;
  } else {
    t.kernels = t.ctas = -1;
  }
  std::vector<cudaGraphExec_t> execs(n);
  for (size_t q = 0; q < n; ++q) {
    if (ok) {
      useDevice((int)q);
      CUDA(cudaGraphInstantiate(&execs[q], graphs[q], 0));
    }
    CUDA(cudaGraphDestroy(graphs[q]));
  }
  if (!ok) {
    t.us = -1;
    return t;
  }
  std::vector<cudaEvent_t> start(n), stop(n);
  for (size_t q = 0; q < n; ++q) {
    useDevice((int)q);
    CUDA(cudaEventCreate(&start[q]));
    CUDA(cudaEventCreate(&stop[q]));
  }
  auto replay = [&](int times, bool timed) {
    syncAll();
    for (size_t q = 0; q < n; ++q) {
      useDevice((int)q);
      if (timed)
        CUDA(cudaEventRecord(start[q], streams[q]));
      for (int i = 0; i < times; ++i)
        CUDA(cudaGraphLaunch(execs[q], streams[q]));
      if (timed)
        CUDA(cudaEventRecord(stop[q], streams[q]));
    }
    syncAll();
  };
  replay(kWarm, false);
  replay(kTimed, true);
  float most = 0;
  for (size_t q = 0; q < n; ++q) {
    float ms = 0;
    CUDA(cudaEventElapsedTime(&ms, start[q], stop[q]));
    most = std::max(most, ms);
    CUDA(cudaGraphExecDestroy(execs[q]));
    CUDA(cudaEventDestroy(start[q]));
    CUDA(cudaEventDestroy(stop[q]));
  }
  t.us = most * 1000.0 / (kTimed * calls);
  return t;
}

/// timeReplays with `calls` calls per graph; where a replay took less than
/// minReplayUs, again with enough calls for it (at most kMaxAdaptive),
/// `calls` updated: short kernels are timed over milliseconds too.
Timed timeAdaptive(const std::vector<cudaStream_t> &streams, int &calls,
                   const std::function<bool()> &issue) {
  Timed t = timeReplays(streams, calls, issue);
  if (t.us > 0 && t.us * calls < minReplayUs && calls < kMaxAdaptive) {
    calls = std::min(kMaxAdaptive,
                     std::max(calls + 1, (int)(minReplayUs / t.us) + 1));
    t = timeReplays(streams, calls, issue);
  }
  return t;
}

//===----------------------------------------------------------------------===//
// Ranks, buffers, the check
//===----------------------------------------------------------------------===//

/// The device buffers of n ranks (kept across rows), their streams.
struct Buffers {
  int n = 0;
  std::vector<cudaStream_t> streams;
  std::vector<uint16_t *> in, out;
  size_t elems = 0; // per buffer, guard band excluded
  /// Allocated with ncclMemAlloc (NCCL's symmetric windows need it).
  bool ncclMemory = false;
  // The copy baseline's source and destination per rank.
  std::vector<char *> src, dst;
  size_t copyCap = 0;
};

/// The ranks of one row: collc communicators, or NCCL's (a row whose module
/// is "nccl"; its registered buffers are NCCL symmetric windows).
struct Ranks {
  int n = 0;
  std::vector<collcComm_t> comms;
  /// Registered rows: window [w * n + q] of rank q (w 0: input, 1: output).
  std::vector<collcWindow_t> windows;
  bool nccl = false;
#if COLLC_BENCH_NCCL
  std::vector<ncclComm_t> ncclComms;
  std::vector<ncclWindow_t> ncclWindows;
#endif
};

/// Whether `row` measures NCCL rather than a collc module.
bool isNccl(const Row &row) { return row.module == "nccl"; }

/// Rank q's send and receive buffers for a call of shape `s` in buffer set
/// `b`, and where its output starts in `b.out[q]` (elements).
struct CallBuffers {
  const void *send;
  void *recv;
  size_t sendAt, outAt; // offsets in b.out[q] (in place), elements
};
CallBuffers buffersOf(const Buffers &b, const Coll &c, const Shape &s, int q,
                      Placement where) {
  if (where == Placement::OutOfPlace)
    return {b.in[q], b.out[q], 0, 0};
  uint16_t *base = b.out[q];
  switch (c.kind) {
  case Kind::AllGather:
    return {base + q * s.count, base, q * s.count, 0};
  case Kind::ReduceScatter:
    return {base, base + q * s.count, 0, q * s.count};
  default:
    return {base, base, 0, 0};
  }
}

#if COLLC_BENCH_NCCL
/// Rank q's NCCL call (in the caller's group).
ncclResult_t ncclCallOf(const Coll &c, const Shape &s, int q,
                        const void *in, void *out, Ranks &r,
                        cudaStream_t stream) {
  ncclComm_t comm = r.ncclComms[q];
  const size_t count = s.count;
  const uint16_t *src = static_cast<const uint16_t *>(in);
  uint16_t *dst = static_cast<uint16_t *>(out);
  if (c.variable) {
    // NCCL has no _v collectives: the grouped point-to-point calls that
    // stand for them (PyTorch's uneven all_gather / all_to_all), and for
    // ReduceScatter_v, which send/recv cannot reduce, one ncclReduce per
    // partition to its rank, grouped.
    ncclResult_t res = ncclGroupStart();
    for (int p = 0; p < s.n && res == ncclSuccess; ++p) {
      switch (c.kind) {
      case Kind::AllGather:
        res = ncclSend(src, s.counts[q], ncclBfloat16, p, comm, stream);
        if (res == ncclSuccess)
          res = ncclRecv(dst + s.displs[p], s.counts[p], ncclBfloat16, p,
                         comm, stream);
        break;
      case Kind::ReduceScatter:
        res = ncclReduce(src + s.displs[p], dst, s.counts[p], ncclBfloat16,
                         ncclSum, p, comm, stream);
        break;
      case Kind::AllToAll:
        res = ncclSend(src + s.sendOffset(q, p), s.pair(q, p), ncclBfloat16,
                       p, comm, stream);
        if (res == ncclSuccess)
          res = ncclRecv(dst + s.recvOffset(q, p), s.pair(p, q), ncclBfloat16,
                         p, comm, stream);
        break;
      default:
        res = ncclInvalidArgument;
      }
    }
    ncclResult_t end = ncclGroupEnd();
    return res != ncclSuccess ? res : end;
  }
  switch (c.kind) {
  case Kind::AllReduce:
    return ncclAllReduce(in, out, count, ncclBfloat16, ncclSum, comm, stream);
  case Kind::AllGather:
    return ncclAllGather(in, out, count, ncclBfloat16, comm, stream);
  case Kind::ReduceScatter:
    return ncclReduceScatter(in, out, count, ncclBfloat16, ncclSum, comm,
                             stream);
  case Kind::AllToAll: {
    // Grouped sends and receives (what nccl-tests' alltoall runs).
    ncclResult_t res = ncclGroupStart();
    for (int p = 0; p < s.n && res == ncclSuccess; ++p) {
      res = ncclSend(static_cast<const uint16_t *>(in) + p * count, count,
                     ncclBfloat16, p, comm, stream);
      if (res == ncclSuccess)
        res = ncclRecv(static_cast<uint16_t *>(out) + p * count, count,
                       ncclBfloat16, p, comm, stream);
    }
    ncclResult_t end = ncclGroupEnd();
    return res != ncclSuccess ? res : end;
  }
  case Kind::Broadcast:
    return ncclBroadcast(in, out, count, ncclBfloat16, kRoot, comm, stream);
  case Kind::Reduce:
    return ncclReduce(in, out, count, ncclBfloat16, ncclSum, kRoot, comm,
                      stream);
  case Kind::Scatter:
  case Kind::Gather: {
    // NCCL has neither: grouped sends and receives, the root's partition p
    // to (Scatter) or from (Gather) rank p, itself included.
    const bool scatter = c.kind == Kind::Scatter;
    ncclResult_t res = ncclGroupStart();
    if (q == kRoot)
      for (int p = 0; p < s.n && res == ncclSuccess; ++p)
        res = scatter ? ncclSend(src + p * count, count, ncclBfloat16, p,
                                 comm, stream)
                      : ncclRecv(dst + p * count, count, ncclBfloat16, p,
                                 comm, stream);
    if (res == ncclSuccess)
      res = scatter
                ? ncclRecv(dst, count, ncclBfloat16, kRoot, comm, stream)
                : ncclSend(src, count, ncclBfloat16, kRoot, comm, stream);
    ncclResult_t end = ncclGroupEnd();
    return res != ncclSuccess ? res : end;
  }
  }
  return ncclInvalidArgument;
}

std::string ncclError(ncclResult_t res, const Ranks &r) {
  std::string why = ncclGetErrorString(res);
  const char *last = r.ncclComms.empty() ? nullptr
                                         : ncclGetLastError(r.ncclComms[0]);
  if (last && *last)
    why += std::string(": ") + last;
  return why;
}
#endif

/// One call on every rank (NCCL's ranks in one group, as one thread drives
/// them all); false with `why` when a rank's call is refused.
bool issueAll(Buffers &b, Ranks &r, const Coll &c, const Shape &s,
              Placement where, std::string &why) {
  if (r.nccl) {
#if COLLC_BENCH_NCCL
    ncclResult_t res = ncclGroupStart();
    for (int q = 0; q < r.n && res == ncclSuccess; ++q) {
      const CallBuffers cb = buffersOf(b, c, s, q, where);
      res = ncclCallOf(c, s, q, cb.send, cb.recv, r, b.streams[q]);
    }
    ncclResult_t end = ncclGroupEnd();
    if (res == ncclSuccess)
      res = end;
    if (res != ncclSuccess) {
      why = "nccl: " + ncclError(res, r);
      return false;
    }
    return true;
#else
    why = "built without NCCL";
    return false;
#endif
  }
  for (int q = 0; q < r.n; ++q) {
    const CallBuffers cb = buffersOf(b, c, s, q, where);
    useDevice(q);
    if (callOf(c, s, q, cb.send, cb.recv, r.comms[q], b.streams[q]) !=
        collcSuccess) {
      why = "rank " + std::to_string(q) + " call: " + collcGetLastError();
      return false;
    }
  }
  return true;
}

/// The host side of the check: each rank's input, one output read back.
std::vector<std::vector<uint16_t>> hostIn;
std::vector<uint16_t> hostOut;

/// Fresh inputs, poisoned outputs, one eager call per rank, every output
/// element and the guard band bitwise (in place: the buffer's elements
/// outside the output, a ReduceScatter's other partitions, are not
/// specified and not checked).
bool checkOnce(Buffers &b, Ranks &r, const Coll &c, const Shape &s,
               Placement where, std::string &why) {
  const int n = r.n;
  const bool inPlace = where == Placement::InPlace;
  hostIn.resize(n);
  for (int q = 0; q < n; ++q) {
    useDevice(q);
    hostIn[q].resize(s.inOf(q));
    fillInputs(hostIn[q], s.inOf(q), c.reduces);
    const CallBuffers cb = buffersOf(b, c, s, q, where);
    const size_t bufElems =
        inPlace ? std::max(s.inOf(q), s.outOf(q)) : s.outOf(q);
    CUDA(cudaMemset(b.out[q], 0xEE, (bufElems + kGuard) * 2));
    CUDA(cudaMemcpy(inPlace ? b.out[q] + cb.sendAt : b.in[q],
                    hostIn[q].data(), s.inOf(q) * 2,
                    cudaMemcpyHostToDevice));
  }
  syncAll();
  if (!issueAll(b, r, c, s, where, why)) {
    syncAll();
    return false;
  }
  syncAll();
  for (int q = 0; q < n && !r.nccl; ++q) {
    collcResult_t async = collcSuccess;
    collcCommGetAsyncError(r.comms[q], &async);
    if (async != collcSuccess) {
      why = "rank " + std::to_string(q) + ": " + collcGetLastError();
      return false;
    }
  }
  const size_t c0 = s.count;
  for (int q = 0; q < n; ++q) {
    const CallBuffers cb = buffersOf(b, c, s, q, where);
    const size_t outElems = s.outOf(q);
    const size_t bufElems = inPlace ? std::max(s.inOf(q), outElems) : outElems;
    const size_t total = bufElems + kGuard;
    hostOut.resize(total);
    CUDA(cudaMemcpy(hostOut.data(), b.out[q], total * 2,
                    cudaMemcpyDeviceToHost));
    // The partition p of a _v output element i, and i's place in it.
    auto partOf = [&](size_t i) {
      int p = 0;
      while (p + 1 < n && i >= s.displs[p + 1])
        ++p;
      return p;
    };
    // Output element i (of outElems) of rank q.
    auto want = [&](size_t i) -> uint16_t {
      auto sum = [&](size_t at) {
        float acc = toFloat(hostIn[0][at]);
        for (int p = 1; p < n; ++p)
          acc = acc + toFloat(hostIn[p][at]);
        return bf16FromFloat(acc);
      };
      if (s.variable)
        switch (c.kind) {
        case Kind::AllGather: {
          const int p = partOf(i);
          return hostIn[p][i - s.displs[p]];
        }
        case Kind::ReduceScatter:
          return sum(s.displs[q] + i);
        case Kind::AllToAll: {
          // Output i of rank q: from the source p whose block holds it.
          int p = 0;
          while (p + 1 < n && i >= s.recvOffset(q, p + 1))
            ++p;
          return hostIn[p][s.sendOffset(p, q) + (i - s.recvOffset(q, p))];
        }
        default:
          return kPoison;
        }
      switch (c.kind) {
      case Kind::AllReduce:
        return sum(i);
      case Kind::AllGather:
        return hostIn[i / c0][i % c0];
      case Kind::ReduceScatter:
        return sum(q * c0 + i);
      case Kind::AllToAll:
        return hostIn[i / c0][q * c0 + i % c0];
      case Kind::Broadcast:
        return hostIn[kRoot][i];
      case Kind::Reduce:
        return sum(i);
      case Kind::Scatter:
        return hostIn[kRoot][q * c0 + i];
      case Kind::Gather:
        return hostIn[i / c0][i % c0];
      }
      return kPoison;
    };
    // Buffer element i: the output's, poison in the guard band, anything
    // elsewhere (in place only).
    auto wrong = [&](size_t i) {
      if (i >= bufElems)
        return hostOut[i] != kPoison;
      if (i >= cb.outAt && i < cb.outAt + outElems)
        return hostOut[i] != want(i - cb.outAt);
      return false;
    };
    // The first wrong element of each block; the smallest of them.
    std::vector<size_t> firstBad(64, SIZE_MAX);
    const size_t per = (total + 63) / 64;
    parallelFor(
        64,
        [&](size_t lo, size_t hi) {
          for (size_t t = lo; t < hi; ++t)
            for (size_t i = t * per; i < std::min(total, (t + 1) * per); ++i)
              if (wrong(i)) {
                firstBad[t] = i;
                break;
              }
        },
        total);
    const size_t bad = *std::min_element(firstBad.begin(), firstBad.end());
    if (bad != SIZE_MAX) {
      const bool guard = bad >= bufElems;
      char msg[240];
      std::snprintf(msg, sizeof msg,
                    "rank %d %s %zu of %zu: got 0x%04x, want 0x%04x", q,
                    guard ? "guard element" : "output element",
                    guard ? bad - bufElems : bad - cb.outAt,
                    guard ? kGuard : outElems, hostOut[bad],
                    guard ? kPoison : want(bad - cb.outAt));
      why = msg;
      return false;
    }
  }
  return true;
}

/// Whether two ranks of n share a GPU (NCCL refuses that).
bool ranksShareGpu(int n) { return n > gpus; }

bool initRanks(Ranks &r, const Row &row, collcModule_t module, int n,
               std::string &error) {
  r.n = n;
  r.nccl = isNccl(row);
  std::vector<int> devices(n);
  for (int q = 0; q < n; ++q)
    devices[q] = devOf(q);
  if (r.nccl) {
#if COLLC_BENCH_NCCL
    r.ncclComms.assign(n, nullptr);
    ncclResult_t res = ncclCommInitAll(r.ncclComms.data(), n, devices.data());
    if (res != ncclSuccess) {
      error = "ncclCommInitAll: " + std::string(ncclGetErrorString(res));
      if (const char *last = ncclGetLastError(nullptr); last && *last)
        error += std::string(": ") + last;
      r.ncclComms.clear();
      return false;
    }
    return true;
#else
    error = "this collc_bandwidth was built without NCCL (nccl.h, "
            "libnccl: see bench/bandwidth/CMakeLists.txt)";
    return false;
#endif
  }
  r.comms.assign(n, nullptr);
  collcConfig_t config = COLLC_CONFIG_INITIALIZER;
  config.timeoutMs = 5000; // a stuck call: seconds, not hours
  if (collcCommInitAll(r.comms.data(), module, n, devices.data(), &config) !=
      collcSuccess) {
    error = collcGetLastError();
    return false;
  }
  return true;
}

#if COLLC_BENCH_NCCL
/// f(q) on a thread per rank, all at once (NCCL's collective calls that
/// one thread cannot drive for several ranks); the first failure's message.
bool perRankThreads(int n, const std::function<ncclResult_t(int)> &f,
                    const Ranks &r, std::string &error) {
  std::vector<ncclResult_t> res(n, ncclSuccess);
  std::vector<std::thread> pool;
  for (int q = 0; q < n; ++q)
    pool.emplace_back([&, q] {
      if (cudaSetDevice(devOf(q)) != cudaSuccess) {
        res[q] = ncclUnhandledCudaError;
        return;
      }
      res[q] = f(q);
    });
  for (auto &t : pool)
    t.join();
  for (int q = 0; q < n; ++q)
    if (res[q] != ncclSuccess) {
      error = "rank " + std::to_string(q) + ": " + ncclError(res[q], r);
      return false;
    }
  return true;
}
#endif

/// Registers every rank's input, then every rank's output (the same order
/// on every rank: window 0 the inputs, window 1 the outputs); NCCL's as
/// symmetric windows (NCCL_WIN_COLL_SYMMETRIC).
bool registerBuffers(Ranks &r, Buffers &b, std::string &error) {
  if (r.nccl) {
#if COLLC_BENCH_NCCL
    r.ncclWindows.assign(2 * r.n, nullptr);
    for (int w = 0; w < 2; ++w)
      if (!perRankThreads(
              r.n,
              [&](int q) {
                void *ptr = w == 0 ? (void *)b.in[q] : (void *)b.out[q];
                const size_t bytes = (w == 0 ? b.elems : b.elems + kGuard) * 2;
                return ncclCommWindowRegister(r.ncclComms[q], ptr, bytes,
                                              &r.ncclWindows[w * r.n + q],
                                              NCCL_WIN_COLL_SYMMETRIC);
              },
              r, error))
        return false;
    return true;
#else
    error = "built without NCCL";
    return false;
#endif
  }
  r.windows.assign(2 * r.n, nullptr);
  for (int w = 0; w < 2; ++w)
    for (int q = 0; q < r.n; ++q) {
      void *ptr = w == 0 ? (void *)b.in[q] : (void *)b.out[q];
      const size_t bytes = (w == 0 ? b.elems : b.elems + kGuard) * 2;
      if (collcCommRegister(r.comms[q], ptr, bytes,
                            &r.windows[w * r.n + q]) != collcSuccess) {
        error = "rank " + std::to_string(q) + ": " + collcGetLastError();
        return false;
      }
    }
  return true;
}

/// Deregisters what registerBuffers registered. The graphs that used the
/// windows are destroyed, but the driver may run their user objects'
/// destructors a little later: a refusal is retried for up to 2 s.
bool deregisterBuffers(Ranks &r, std::string &error) {
  if (r.nccl) {
#if COLLC_BENCH_NCCL
    syncAll();
    for (int w = 0; w < 2 && !r.ncclWindows.empty(); ++w)
      if (!perRankThreads(
              r.n,
              [&](int q) {
                return ncclCommWindowDeregister(r.ncclComms[q],
                                                r.ncclWindows[w * r.n + q]);
              },
              r, error))
        return false;
    r.ncclWindows.clear();
#endif
    return true;
  }
  for (size_t i = 0; i < r.windows.size(); ++i) {
    if (!r.windows[i])
      continue;
    collcResult_t res = collcSuccess;
    for (int tries = 0; tries < 200; ++tries) {
      res = collcCommDeregister(r.comms[i % r.n], r.windows[i]);
      if (res != collcInvalidUsage)
        break;
      usleep(10000);
    }
    if (res != collcSuccess) {
      error = collcGetLastError();
      return false;
    }
    r.windows[i] = nullptr;
  }
  return true;
}

void finishRanks(Ranks &r, bool abort) {
  syncAll();
  if (r.nccl) {
#if COLLC_BENCH_NCCL
    r.ncclWindows.clear(); // released with the communicators
    for (ncclComm_t comm : r.ncclComms)
      abort ? ncclCommAbort(comm) : ncclCommDestroy(comm);
    r.ncclComms.clear();
#endif
    return;
  }
  r.windows.clear(); // released with the communicators
  for (int q = 0; q < r.n; ++q)
    abort ? collcCommAbort(r.comms[q]) : collcCommDestroy(r.comms[q]);
  r.comms.clear();
}

//===----------------------------------------------------------------------===//
// The copy baseline
//===----------------------------------------------------------------------===//

struct CopyResult {
  double us = -1, trafficGbs = 0;
  size_t bytesPerRank = 0;
};

/// Measured copies: (collective, ranks, CTAs, threads, bytes per rank) ->
/// result.
std::map<std::tuple<std::string, int, int, int, size_t>, CopyResult> copies;

/// The copy of `bytesPerRank` on every rank's stream, `ctas` CTAs of
/// `threads` each,
/// checked once then timed with graphs of `calls` launches per stream.
CopyResult copyBaseline(Buffers &b, const Coll &c, const Shape &s, int ctas,
                        int threads, size_t bytesPerRank, int calls) {
  // `calls`: the collective's; more where a replay is short.
  const auto key =
      std::make_tuple(std::string(c.name), b.n, ctas, threads, bytesPerRank);
  auto found = copies.find(key);
  if (found != copies.end())
    return found->second;
  CopyResult res;
  res.bytesPerRank = bytesPerRank;
  const size_t guard = 256; // bytes after the copy, poisoned and checked
  if (bytesPerRank + guard > b.copyCap) {
    for (int q = 0; q < b.n; ++q) {
      if (b.src.size() > (size_t)q) {
        useDevice(q);
        CUDA(cudaFree(b.src[q]));
        CUDA(cudaFree(b.dst[q]));
      }
    }
    b.src.assign(b.n, nullptr);
    b.dst.assign(b.n, nullptr);
    b.copyCap = bytesPerRank + guard;
    for (int q = 0; q < b.n; ++q) {
      useDevice(q);
      CUDA(cudaMalloc(&b.src[q], b.copyCap));
      CUDA(cudaMalloc(&b.dst[q], b.copyCap));
      CUDA(collc::bench::launchFill(reinterpret_cast<uint32_t *>(b.src[q]),
                                    b.copyCap / 4, 1000 + q, nullptr));
    }
    syncAll();
  }
  // Once, checked: every word of every rank's copy, and the guard band.
  for (int q = 0; q < b.n; ++q) {
    useDevice(q);
    CUDA(cudaMemset(b.dst[q], 0xEE, bytesPerRank + guard));
  }
  syncAll();
  for (int q = 0; q < b.n; ++q) {
    useDevice(q);
    CUDA(collc::bench::launchCopy(b.dst[q], b.src[q], bytesPerRank, ctas,
                                  threads, b.streams[q]));
  }
  syncAll();
  std::vector<uint32_t> got((bytesPerRank + guard) / 4);
  char what[160];
  std::snprintf(what, sizeof what, "[copy %dx%d] %s n%d %zu bytes", ctas,
                threads, c.name, b.n, s.bytes);
  for (int q = 0; q < b.n; ++q) {
    CUDA(cudaMemcpy(got.data(), b.dst[q], got.size() * 4,
                    cudaMemcpyDeviceToHost));
    const size_t words = bytesPerRank / 4;
    std::vector<size_t> firstBad(64, SIZE_MAX);
    const size_t per = (got.size() + 63) / 64;
    parallelFor(
        64,
        [&](size_t lo, size_t hi) {
          for (size_t t = lo; t < hi; ++t)
            for (size_t i = t * per; i < std::min(got.size(), (t + 1) * per);
                 ++i)
              if (got[i] != (i < words ? collc::bench::copyPattern(i, 1000 + q)
                                       : 0xEEEEEEEEu)) {
                firstBad[t] = i;
                break;
              }
        },
        got.size());
    const size_t bad = *std::min_element(firstBad.begin(), firstBad.end());
    if (bad != SIZE_MAX) {
      std::printf("FAIL %s: rank %d word %zu of %zu wrong\n", what, q, bad,
                  words);
      ++failed;
      copies[key] = res;
      return res;
    }
  }
  ++passed;
  res.us = timeAdaptive(b.streams, calls, [&] {
              for (int q = 0; q < b.n; ++q) {
                useDevice(q);
                if (collc::bench::launchCopy(b.dst[q], b.src[q], bytesPerRank,
                                             ctas, threads,
                                             b.streams[q]) != cudaSuccess)
                  return false;
              }
              return true;
            }).us;
  if (res.us < 0) {
    std::printf("FAIL %s: capture\n", what);
    ++failed;
    copies[key] = res;
    return res;
  }
  const double traffic = 2.0 * b.n * bytesPerRank;
  res.trafficGbs = traffic / res.us / 1e3;
  std::printf("copy %s: %.2f us, %.1f GB/s traffic (%zu bytes per rank, %d "
              "calls per graph)\n",
              what, res.us, res.trafficGbs, bytesPerRank, calls);
  if (json) {
    std::fprintf(
        json,
        "{\"collective\": \"%s\", \"dtype\": \"bf16\", \"bytes\": %zu, "
        "\"nranks\": %d, \"implementation\": \"copy\", \"variant\": \"copy "
        "%dx%d\", \"us\": %.4f, \"algbw_gbs\": %.4f, \"traffic_bytes\": %.0f, "
        "\"traffic_gbs\": %.4f, \"copy_bytes_per_rank\": %zu, \"ctas\": %d, "
        "\"threads\": %d, \"calls_per_graph\": %d, \"machine\": \"%s\", "
        "\"date\": \"%s\", \"checked\": \"bitwise\", \"method\": \"one GPU, "
        "one plain vectorized copy per rank (16-byte vectors, %d loads in "
        "flight per thread) on the ranks' streams concurrently, moving the "
        "collective's traffic; graph of %d launches per stream, %d warm-up "
        "and %d timed replays, max over streams; algbw = bytes / time, "
        "traffic = 2 x bytes copied\"}\n",
        c.name, s.bytes, b.n, ctas, threads, res.us, s.bytes / res.us / 1e3,
        traffic, res.trafficGbs, bytesPerRank, ctas, threads, calls,
        machine.c_str(), date.c_str(), collc::bench::kCopyUnroll, calls, kWarm,
        kTimed);
    std::fflush(json);
  }
  copies[key] = res;
  return res;
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

std::vector<long long> parseList(const std::string &text) {
  std::vector<long long> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty())
      out.push_back(std::atoll(item.c_str()));
  return out;
}

std::string jsonEscape(const std::string &s) {
  std::string out;
  for (char ch : s) {
    if (ch == '"' || ch == '\\')
      out += '\\';
    out += ch;
  }
  return out;
}

/// Whether `row` forces a program (`<variant>:<encoding>`), not v1 or none.
bool forcesProgram(const Row &row) {
  return !row.force.empty() && row.force != "-" && row.force != "v1";
}

/// One (row, collective, ranks, size, placement): check, time, copy,
/// record. `bytes` is snapped (snapBytes), `requested` what --sizes asked
/// for. False when the communicators must be re-created (a failed call or
/// replay).
bool measure(Buffers &b, Ranks &r, const Row &row, const nlohmann::json &m,
             const Coll &c, size_t bytes, size_t requested, Parts parts,
             Placement where) {
  const int n = r.n;
  const Shape s = shapeOf(c, bytes, n, parts);
  const bool inPlace = where == Placement::InPlace;
  char what[240];
  std::snprintf(what, sizeof what, "[%s] %s%s%s%s n%d %zu bytes",
                row.label.c_str(), c.name, c.variable ? ":" : "",
                c.variable ? partsName(parts) : "",
                inPlace ? " in-place" : "", n, s.bytes);
  // The bytes the runtime selects a program by (launch.cpp selectionBytes):
  // this rank's input; -1 for a call whose ranks know no size in common.
  const long long key = s.noCommonSize ? -1 : (long long)s.inputBytes;
  Routed k;
  if (r.nccl) {
    k.name = "nccl";
    k.by = "nccl";
  } else {
    k = routedKernel(m, c.name, n, s.inputBytes, row.force, row.registered(),
                     s.noCommonSize);
    // Direct buffers (launch.cpp routeCall): ordinary ones run the zero-copy
    // program the registered choice names, where the module's policy table
    // has a registered entry (no forcing, a size the ranks share).
    if (!row.registered() && cliqueDirect && !s.noCommonSize &&
        (row.force.empty() || row.force == "-") &&
        registeredEntry(m, c.name, n)) {
      Routed d = routedKernel(m, c.name, n, s.inputBytes, row.force, true,
                              s.noCommonSize);
      if (d.name.find("_zero_copy") != std::string::npos)
        k = d;
    }
  }
  if (!r.nccl && strictForce && forcesProgram(row) && !k.program) {
    // The runtime would run v1 here: never recorded as the variant.
    if (key >= 0)
      std::printf("SKIP %s (variant %s does not serve %lld bytes)\n", what,
                  row.force.c_str(), key);
    else
      std::printf("SKIP %s (variant %s does not serve this call: no program "
                  "of it agrees on its steps)\n",
                  what, row.force.c_str());
    ++skipped;
    return true;
  }
  std::string why;
  if (!checkOnce(b, r, c, s, where, why)) {
    std::printf("FAIL %s: %s\n", what, why.c_str());
    ++failed;
    return false;
  }
  ++passed;
  if (n == 1 && inPlace) {
    // One rank in place: the output is the input, nothing moves (NCCL
    // returns at once); a time would be the launch's, not a collective's.
    std::printf("SKIP %s (one rank in place moves nothing)\n", what);
    ++skipped;
    return true;
  }
  int calls = (int)std::max<long long>(
      1, std::min<long long>(kMaxCalls, callsBytes / (long long)s.bytes));
  const Timed timed = timeAdaptive(
      b.streams, calls, [&] { return issueAll(b, r, c, s, where, why); });
  const double us = timed.us;
  if (us < 0) {
    std::printf("FAIL %s: capture: %s\n", what, why.c_str());
    ++failed;
    return false;
  }
  // A wait that expired inside the graph leaves an error, not a time.
  for (int q = 0; q < n && !r.nccl; ++q) {
    collcResult_t async = collcSuccess;
    collcCommGetAsyncError(r.comms[q], &async);
    if (async != collcSuccess) {
      std::printf("FAIL %s: graph replay: rank %d: %s\n", what, q,
                  collcGetLastError());
      ++failed;
      return false;
    }
  }
  // The zero-copy programs' model where they ran (the routed kernel).
  const bool zeroCopy = k.name.find("_zero_copy") != std::string::npos;
  const int ctas = ctasOverride > 0 ? ctasOverride : k.grid > 0 ? k.grid : 16;
  const int threads = threadsOverride > 0 ? threadsOverride
                      : k.threads > 0     ? k.threads
                                          : 512;
  // collc's traffic model (NCCL's algorithms are its own: no model).
  const double traffic =
      r.nccl ? 0 : n * rankTraffic(c.kind, (double)s.bytes, n, zeroCopy);
  const size_t copyBytes = (size_t)(traffic / (2.0 * n)) / 16 * 16;
  const double algbw = s.bytes / us / 1e3, trafficGbs = traffic / us / 1e3;
  // The copy moves the traffic model's bytes: none for the rooted ones.
  const bool withCopy = !noCopy && !r.nccl && !c.rooted();
  const CopyResult copy =
      withCopy ? copyBaseline(b, c, s, ctas, threads, copyBytes, calls)
               : CopyResult();
  const double ratio = copy.us > 0 ? trafficGbs / copy.trafficGbs : 0;
  char ofCopy[48] = "no copy";
  if (withCopy)
    std::snprintf(ofCopy, sizeof ofCopy, "%.1f%% of the copy", 100 * ratio);
  std::printf("bandwidth %s: %.2f us, algbw %.2f GB/s, traffic %.1f GB/s, "
              "%s (%s %dx%d, %.1f CTAs in %.1f kernels per call, %d calls "
              "per graph)\n",
              what, us, algbw, trafficGbs, ofCopy, k.name.c_str(), k.grid,
              k.threads, timed.ctas, timed.kernels, calls);
  if (json) {
    const std::string buffers =
        row.registered()          ? (r.nccl ? "window" : "registered")
        : row.buffers == "staged" ? "staged"
                                  : "ordinary";
    char gpusText[64];
    std::snprintf(gpusText, sizeof gpusText,
                  gpus == 1 ? "one GPU" : "%d GPUs (rank q on GPU q %% %d)",
                  gpus, gpus);
    std::fprintf(
        json,
        "{\"collective\": \"%s\", \"dtype\": \"bf16\", \"bytes\": %zu, "
        "\"requested_bytes\": %zu, \"key_bytes\": %lld, "
        "\"nranks\": %d, \"gpus\": %d, \"implementation\": \"%s\", "
        "\"variant\": \"%s\", \"placement\": \"%s\", "
        "\"partitions\": \"%s\", \"root\": %d, \"us\": %.4f, "
        "\"algbw_gbs\": %.4f, "
        "\"traffic_bytes\": %.0f, "
        "\"traffic_gbs\": %.4f, \"copy_traffic_gbs\": %.4f, "
        "\"copy_ratio\": %.4f, \"copy_ctas\": %d, \"copy_threads\": %d, "
        "\"kernel\": \"%s\", \"selected_by\": \"%s\", \"target\": \"%s\", "
        "\"grid\": %d, \"threads\": %d, \"ctas_per_call\": %.2f, "
        "\"kernels_per_call\": %.2f, \"count\": %zu, \"calls_per_graph\": "
        "%d, \"machine\": \"%s\", \"date\": \"%s\", \"module\": \"%s\", "
        "\"force\": \"%s\", \"buffers\": \"%s\", \"direct\": %s, "
        "\"checked\": \"bitwise\", "
        "\"traffic_model\": \"%s (bench/bandwidth/bandwidth.cpp)\", "
        "\"method\": \"%s, ranks in one process (%s), one "
        "stream each, graph of %d calls per rank, %d warm-up and %d timed "
        "replays, max over ranks; bytes = the larger buffer per rank\"}\n",
        c.name, s.bytes, requested, key, n, gpus, r.nccl ? "nccl" : "collc",
        jsonEscape(row.label).c_str(), placementName(where),
        c.variable ? partsName(parts) : "fixed", c.rooted() ? kRoot : -1, us,
        algbw, traffic,
        trafficGbs, copy.us > 0 ? copy.trafficGbs : 0.0, ratio, ctas, threads,
        k.name.c_str(), k.by, target.c_str(), k.grid, k.threads, timed.ctas,
        timed.kernels, s.count, calls, machine.c_str(), date.c_str(),
        jsonEscape(row.module).c_str(), row.force.c_str(), buffers.c_str(),
        k.name.find("_zero_copy") != std::string::npos && !row.registered()
            ? "true"
            : "false",
        r.nccl        ? "none: NCCL's own algorithms"
        : c.rooted()  ? "none: no model of the rooted collectives"
        : zeroCopy    ? "zero-copy programs, read in place"
                      : "chunked programs with staging",
        gpusText, r.nccl ? "ncclCommInitAll, calls grouped" : "collcCommInitAll",
        calls, kWarm, kTimed);
    std::fflush(json);
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  // Line by line into a pipe too (collc-bench follows the progress).
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  unsigned alarmSeconds = 480;
  if (argc < 2) {
    std::printf("usage: collc_bandwidth ROWS [--ranks=2] [--sizes=...] "
                "[--collectives=...] [--partitions=...] [--ctas=N] "
                "[--threads=T] "
                "[--calls-bytes=B] [--min-replay-us=U] [--alarm=S] "
                "[--json=FILE --machine=M --date=D] [--no-copy] "
                "[--strict-force] [--plan=FILE] [--target=sm_90]\n");
    return 2;
  }
  std::vector<long long> ranks = {2};
  std::vector<long long> sizes = {1ll << 20, 4ll << 20, 16ll << 20, 64ll << 20,
                                  256ll << 20};
  std::vector<const Coll *> colls;
  for (const Coll &c : kColls)
    if (!c.variable && !c.rooted())
      colls.push_back(&c);
  std::vector<Parts> partsList = {Parts::Even, Parts::Skewed, Parts::Zero};
  std::vector<Placement> placements = {Placement::OutOfPlace};
  // --plan: the (row label, collective, ranks, requested bytes) to measure.
  std::set<std::tuple<std::string, std::string, int, long long>> plan;
  std::set<std::pair<std::string, int>> planRowRanks;
  bool havePlan = false;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char *key) -> const char * {
      const size_t len = std::strlen(key);
      return a.compare(0, len, key) == 0 ? a.c_str() + len : nullptr;
    };
    if (const char *v = value("--ranks="))
      ranks = parseList(v);
    else if (const char *v = value("--sizes="))
      sizes = parseList(v);
    else if (const char *v = value("--collectives=")) {
      colls.clear();
      std::stringstream ss(v);
      std::string name;
      while (std::getline(ss, name, ',')) {
        const Coll *found = nullptr;
        for (const Coll &c : kColls)
          if (name == c.name)
            found = &c;
        if (!found) {
          std::printf("FATAL unknown collective '%s'\n", name.c_str());
          return 2;
        }
        colls.push_back(found);
      }
    } else if (const char *v = value("--partitions=")) {
      partsList.clear();
      std::stringstream ss(v);
      std::string name;
      while (std::getline(ss, name, ',')) {
        const size_t before = partsList.size();
        for (Parts p : {Parts::Even, Parts::Skewed, Parts::Zero, Parts::Zipf})
          if (name == partsName(p))
            partsList.push_back(p);
        if (partsList.size() == before) {
          std::printf("FATAL unknown partitions '%s' (even, skewed, zero, "
                      "zipf)\n", name.c_str());
          return 2;
        }
      }
    } else if (const char *v = value("--placement=")) {
      placements.clear();
      std::stringstream ss(v);
      std::string name;
      while (std::getline(ss, name, ',')) {
        if (name != "out" && name != "in") {
          std::printf("FATAL unknown placement '%s' (out, in)\n",
                      name.c_str());
          return 2;
        }
        placements.push_back(name == "in" ? Placement::InPlace
                                          : Placement::OutOfPlace);
      }
    } else if (const char *v = value("--gpus="))
      gpus = std::atoi(v);
    else if (const char *v = value("--ctas="))
      ctasOverride = std::atoi(v);
    else if (const char *v = value("--threads="))
      threadsOverride = std::atoi(v);
    else if (const char *v = value("--calls-bytes="))
      callsBytes = std::atoll(v);
    else if (const char *v = value("--min-replay-us="))
      minReplayUs = std::atof(v);
    else if (const char *v = value("--alarm="))
      alarmSeconds = (unsigned)std::atoi(v);
    else if (const char *v = value("--json="))
      json = std::fopen(v, "w");
    else if (const char *v = value("--machine="))
      machine = v;
    else if (const char *v = value("--date="))
      date = v;
    else if (a == "--no-copy")
      noCopy = true;
    else if (a == "--strict-force")
      strictForce = true;
    else if (const char *v = value("--target="))
      target = v;
    else if (const char *v = value("--plan=")) {
      std::ifstream f(v);
      if (!f) {
        std::printf("FATAL cannot read plan file %s\n", v);
        return 2;
      }
      havePlan = true;
      std::string line;
      while (std::getline(f, line)) {
        if (line.empty() || line[0] == '#')
          continue;
        std::stringstream ss(line);
        std::string label, coll, nText, bytesText;
        std::getline(ss, label, '\t');
        std::getline(ss, coll, '\t');
        std::getline(ss, nText, '\t');
        std::getline(ss, bytesText, '\t');
        if (nText.empty() || bytesText.empty()) {
          std::printf("FATAL plan file %s: '%s': expected label, collective, "
                      "ranks, bytes (tab-separated)\n",
                      v, line.c_str());
          return 2;
        }
        plan.emplace(label, coll, std::atoi(nText.c_str()),
                     std::atoll(bytesText.c_str()));
        planRowRanks.emplace(label, std::atoi(nText.c_str()));
      }
    } else {
      std::printf("FATAL unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  if (threadsOverride < 0 || threadsOverride > 1024 || threadsOverride % 32) {
    std::printf("FATAL --threads=%d: a multiple of 32 in [32, 1024]\n",
                threadsOverride);
    return 2;
  }
  int devices = 0;
  CUDA(cudaGetDeviceCount(&devices));
  if (gpus < 1 || gpus > devices) {
    std::printf("FATAL --gpus=%d: this machine has %d GPU(s)\n", gpus,
                devices);
    return 2;
  }
  // A hang is reported by the process's end, not the caller's; every record
  // written so far is in the JSON file already.
  alarm(alarmSeconds);

  // The environment's COLLC_CLIQUE_DIRECT, which rows other than "staged"
  // run with (collc-bench --calibrate sets 0: its ordinary entries are
  // staged buffers').
  std::optional<std::string> cliqueDirectEnv;
  if (const char *e = std::getenv("COLLC_CLIQUE_DIRECT"))
    cliqueDirectEnv = e;
  std::vector<Row> rows;
  if (!collc::bench::readRows(argv[1], rows)) {
    std::printf("FATAL cannot read rows file %s\n", argv[1]);
    return 2;
  }
  for (const Row &row : rows) {
    if (!isNccl(row))
      continue;
    // NEVER NVLink multicast on the GPU machines (DESIGN.md).
    const char *nvls = std::getenv("NCCL_NVLS_ENABLE");
    if (!nvls || std::string(nvls) != "0") {
      std::printf("FATAL [%s]: NCCL rows need NCCL_NVLS_ENABLE=0 in the "
                  "environment (no NVLink multicast)\n",
                  row.label.c_str());
      return 2;
    }
    if (!row.force.empty() && row.force != "-") {
      std::printf("FATAL [%s]: an NCCL row forces nothing ('-'), not '%s'\n",
                  row.label.c_str(), row.force.c_str());
      return 2;
    }
  }
  long long most = 0;
  for (long long s : sizes)
    most = std::max(most, s);

  cudaDeviceProp prop{};
  CUDA(cudaGetDeviceProperties(&prop, 0));
  int driver = 0;
  CUDA(cudaDriverGetVersion(&driver));
  // For the callers' records (collc-bench: the policy table's header).
  std::printf("driver %d\ngpu %s\n", driver, prop.name);
#if COLLC_BENCH_NCCL
  int ncclVersion = 0;
  ncclGetVersion(&ncclVersion);
  std::printf("nccl %d\n", ncclVersion);
#endif
  std::printf("%s, %d SMs, %d GPU(s) used; %zu rows, ranks", prop.name,
              prop.multiProcessorCount, gpus, rows.size());
  for (long long n : ranks)
    std::printf(" %lld", n);
  std::printf(", sizes up to %lld bytes\n", most);

  // Sizes whose snapping was printed (once, not per row).
  std::set<std::tuple<std::string, int, int, long long>> snapNoted;
  // Device buffers per (world size, NCCL memory), kept across rows: NCCL's
  // windows need ncclMemAlloc's memory, collc's registration cudaMalloc's.
  std::map<std::pair<int, bool>, Buffers> buffers;
  auto buffersFor = [&](int n, bool ncclMemory) -> Buffers & {
    Buffers &b = buffers[{n, ncclMemory}];
    if (b.n == n)
      return b;
    b.n = n;
    b.ncclMemory = ncclMemory;
    // A snapped size may lie up to half a unit (8 n bytes) above the
    // largest requested.
    b.elems = (size_t)most / 2 + 64 + 8 * (size_t)n;
    b.streams.resize(n);
    b.in.resize(n);
    b.out.resize(n);
    for (int q = 0; q < n; ++q) {
      useDevice(q);
      CUDA(cudaStreamCreateWithFlags(&b.streams[q], cudaStreamNonBlocking));
#if COLLC_BENCH_NCCL
      if (ncclMemory) {
        if (ncclMemAlloc((void **)&b.in[q], b.elems * 2) != ncclSuccess ||
            ncclMemAlloc((void **)&b.out[q], (b.elems + kGuard) * 2) !=
                ncclSuccess) {
          std::printf("FATAL ncclMemAlloc of %zu bytes failed\n",
                      b.elems * 2);
          std::exit(2);
        }
        continue;
      }
#endif
      CUDA(cudaMalloc(&b.in[q], b.elems * 2));
      CUDA(cudaMalloc(&b.out[q], (b.elems + kGuard) * 2));
    }
    return b;
  };

  for (const Row &row : rows) {
    collcModule_t module = nullptr;
    nlohmann::json manifest;
    if (isNccl(row)) {
      // NCCL: no module, no manifest, no forcing.
    } else if (collcModuleLoad(&module, row.module.c_str()) != collcSuccess) {
      std::printf("FAIL [%s] module %s: %s\n", row.label.c_str(),
                  row.module.c_str(), collcGetLastError());
      ++failed;
      continue;
    }
    if (!isNccl(row)) {
      std::ifstream f(row.module);
      manifest = nlohmann::json::parse(f, nullptr, /*allow_exceptions=*/false);
      if (manifest.is_discarded() && strictForce) {
        // Which program serves a call is read there.
        std::printf("FATAL [%s] %s: the manifest does not parse here, and "
                    "--strict-force needs it\n",
                    row.label.c_str(), row.module.c_str());
        return 2;
      }
      if (manifest.is_discarded())
        std::printf("NOTE [%s] %s: the manifest does not parse here; the "
                    "copy uses %d CTAs per rank\n",
                    row.label.c_str(), row.module.c_str(),
                    ctasOverride > 0 ? ctasOverride : 16);
    }
    // Read at communicator creation (docs/runtime.md).
    if (row.force.empty() || row.force == "-")
      unsetenv("COLLC_FORCE_VARIANT");
    else
      setenv("COLLC_FORCE_VARIANT", row.force.c_str(), 1);
    // A "staged" row: ordinary buffers staged, as one process per rank
    // stages them; the others run with the environment the bench got.
    if (row.buffers == "staged")
      setenv("COLLC_CLIQUE_DIRECT", "0", 1);
    else if (cliqueDirectEnv)
      setenv("COLLC_CLIQUE_DIRECT", cliqueDirectEnv->c_str(), 1);
    else
      unsetenv("COLLC_CLIQUE_DIRECT");
    {
      const char *e = std::getenv("COLLC_CLIQUE_DIRECT");
      cliqueDirect = !(e && std::strcmp(e, "0") == 0);
    }
    for (long long nn : ranks) {
      const int n = (int)nn;
      if (havePlan && !planRowRanks.count({row.label, n}))
        continue;
      Ranks r;
      std::string error;
      if (isNccl(row) && ranksShareGpu(n)) {
        // NCCL refuses two ranks on one GPU ("Duplicate GPU detected").
        std::printf("SKIP [%s] n%d: NCCL needs a GPU per rank (%d GPU(s) "
                    "used)\n",
                    row.label.c_str(), n, gpus);
        continue;
      }
      if (!initRanks(r, row, module, n, error)) {
        if (error.find("has no kernel for " + std::to_string(n) + " ranks") !=
            std::string::npos) {
          std::printf("SKIP [%s] n%d: %s\n", row.label.c_str(), n,
                      error.c_str());
          continue;
        }
        std::printf("FAIL [%s] n%d: collcCommInitAll: %s\n", row.label.c_str(),
                    n, error.c_str());
        ++failed;
        continue;
      }
      Buffers &b = buffersFor(n, isNccl(row) && row.registered());
      bool alive = true;
      if (row.registered() && !registerBuffers(r, b, error)) {
        std::printf("FAIL [%s] n%d: collcCommRegister: %s\n",
                    row.label.c_str(), n, error.c_str());
        ++failed;
        finishRanks(r, /*abort=*/true);
        continue;
      }
      for (const Coll *c : colls) {
        // Snapped sizes measured (a duplicate is measured once).
        std::set<std::pair<int, size_t>> seen;
        for (long long bytes : sizes)
          for (Parts parts : c->variable ? partsList
                                         : std::vector<Parts>{Parts::Even}) {
          if (!alive)
            break;
          if (havePlan && !plan.count({row.label, c->name, n, bytes}))
            continue;
          const size_t snapped = snapBytes(*c, (size_t)bytes, n, parts);
          if (!seen.emplace((int)parts, snapped).second)
            continue;
          if (snapped != (size_t)bytes &&
              snapNoted.emplace(c->name, n, (int)parts, bytes).second)
            std::printf("SIZE %s%s%s n%d: %lld bytes -> %zu bytes (whole "
                        "16-byte units per partition)\n",
                        c->name, c->variable ? ":" : "",
                        c->variable ? partsName(parts) : "", n, bytes,
                        snapped);
          bool ok = true;
          for (Placement where : placements) {
            if (where == Placement::InPlace &&
                (c->variable || c->kind == Kind::AllToAll ||
                 c->kind == Kind::Scatter || c->kind == Kind::Gather))
              continue; // no in-place convention (NCCL's, collc's)
            ok = measure(b, r, row, manifest, *c, snapped, (size_t)bytes,
                         parts, where);
            if (!ok)
              break;
          }
          if (ok)
            continue;
          // The communicators refuse calls after an error: new ones.
          finishRanks(r, /*abort=*/true);
          if (!initRanks(r, row, module, n, error) ||
              (row.registered() && !registerBuffers(r, b, error))) {
            std::printf("FAIL [%s] n%d: collcCommInitAll again: %s\n",
                        row.label.c_str(), n, error.c_str());
            ++failed;
            alive = false;
          }
        }
      }
      if (alive && row.registered() && !deregisterBuffers(r, error)) {
        std::printf("FAIL [%s] n%d: collcCommDeregister: %s\n",
                    row.label.c_str(), n, error.c_str());
        ++failed;
      }
      if (alive)
        finishRanks(r, /*abort=*/false);
    }
    if (module)
      collcModuleDestroy(module);
  }
  syncAll();
  for (auto &[key, b] : buffers) {
    const int n = key.first;
    for (int q = 0; q < n; ++q) {
      useDevice(q);
#if COLLC_BENCH_NCCL
      if (b.ncclMemory) {
        ncclMemFree(b.in[q]);
        ncclMemFree(b.out[q]);
      } else
#endif
      {
        CUDA(cudaFree(b.in[q]));
        CUDA(cudaFree(b.out[q]));
      }
      if (b.src.size() > (size_t)q) {
        CUDA(cudaFree(b.src[q]));
        CUDA(cudaFree(b.dst[q]));
      }
      CUDA(cudaStreamDestroy(b.streams[q]));
    }
  }
  if (json)
    std::fclose(json);
  if (strictForce)
    std::printf("%d skipped (forced variants that do not serve the call)\n",
                skipped);
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
