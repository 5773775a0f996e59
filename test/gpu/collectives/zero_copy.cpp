//===- zero_copy.cpp - zero-copy programs on registered buffers -*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The zero_copy suite: calls whose buffers are registered windows
/// (collcCommRegister, docs/runtime.md "Registered buffers") run the
/// module's zero-copy programs, which read the peers' registered buffers in
/// place. For all_gather, reduce_scatter, all_to_all, all_reduce (bf16 and
/// f32; out of place and in place), broadcast and
/// reduce (every call its own root), all_gather_v and reduce_scatter_v (an
/// empty partition each), three calls per collective in the zero-copy band
/// (above 64 KiB of input per rank; all_reduce above 1 MiB), each rank's
/// input and output its own cudaMalloc, both registered on every rank:
///
///  - the communicators choose by the policy table's ordinary entries
///    (their registered entries are replaced by the ordinary ones: they may
///    pick a staged program at these sizes, and the suite tests the
///    zero-copy ones);
///  - white box: the call's route (comm->routes, collc::selectionBytes,
///    collc::findWindow, collc::pickProgram, computed as collcLaunch does)
///    picks a kernel named "_zero_copy" with the registered bits, and not
///    without them; the launch noted a use of the windows (an event per
///    stream, collc::noteWindowUse), which only a zero-copy program does;
///  - eager calls, then deregistration right after them (no
///    synchronization): it succeeds, and every stream is idle when it
///    returns; the outputs are right;
///  - the outputs: fresh random inputs (reductions: integers in [-8, 8], so
///    sums are exact; copies: random non-NaN bit patterns), outputs and a
///    guard band after every buffer poisoned (0xEE); every output element
///    compared bit for bit with a host reference from the collective's
///    definition, inputs unchanged, guard bands untouched, an empty output
///    (reduce off the root) untouched;
///  - a CUDA graph of the three calls per rank (global capture mode): the
///    graph holds every window a call noted (the window's live-graph
///    count); replayed twice with the inputs changed in between (cudaMemcpy
///    outside the graph), checked after each;
///  - while the graph's execution lives, deregistering a window it holds is
///    refused with collcInvalidUsage and changes nothing (the route still
///    picks the zero-copy program, an eager call and a third replay are
///    right); once graph and execution are destroyed it succeeds (polled,
///    bounded: the user object's destructor may run late);
///  - after deregistration, the same (now unregistered) buffers: the route
///    picks the chunked program for them, and the launch (collc::routeCall)
///    runs it where one process runs each rank (procs mode) or
///    COLLC_CLIQUE_DIRECT=0; in single mode, a clique, it runs the
///    zero-copy program with the buffers published as their addresses
///    (direct buffers: the window table's last row, every entry 0); either
///    way the calls are right.
///
/// Calls with some buffers registered and others not (mixed registration)
/// are not tested: one process per rank, the ranks would pick different
/// programs and time out, by design. In single mode it runs on the world's
/// devices and again with 2 and 4 ranks sharing GPU 0; in procs mode on the
/// world's ranks.
///
//===----------------------------------------------------------------------===//

#include "cases.h"
#include "harness.h"
#include "runtime.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <numeric>
#include <unistd.h>

namespace ct {

namespace {

constexpr uint8_t kPoison = 0xEE;
/// Poisoned bytes after every buffer (inside its allocation, outside its
/// window).
constexpr size_t kGuard = 256;
/// What an empty buffer (a rooted call's input off the root, output off
/// the root, an empty V partition) allocates and registers.
constexpr size_t kEmptyBytes = 16;

constexpr unsigned kIn = collc::ProgramInfo::kRegisteredInput;
constexpr unsigned kOut = collc::ProgramInfo::kRegisteredOutput;

/// The ranks this process drives for one run of the suite, with one
/// communicator per module.
struct Ranks : LayoutRanks {
  std::string label;
  /// The layout in group names, without spaces ("n4@0,0,0,0").
  std::string tag;
  World *world = nullptr;
  bool procs = false;
  std::vector<collcComm_t> fixed, variable; ///< collectives, variable
  /// A communicator reported an asynchronous error (or a stream a
  /// timeout): the remaining cases of this layout are counted as failed.
  bool broken = false;
  size_t size() const { return rank.size(); }
  int agree(int status) { return procs ? world->agree(status) : status; }
};

/// One call of a collective, the same on every rank but for its root.
struct Call {
  const CollInfo *coll = nullptr;
  collcDataType_t type = collcBfloat16;
  size_t count = 0;           ///< fixed-size: collcLaunch's count
  std::vector<size_t> counts; ///< V: one row of n sizes
  /// AllToAll_v: matrix[p][k] elements rank p sends to rank k.
  std::vector<std::vector<size_t>> matrix;
  int root = 0;
  bool inplace = false;
  std::string label;
};

/// A rank's buffer: [base, base + bytes) is the data (registered), then
/// kGuard poisoned bytes.
struct Buf {
  uint8_t *base = nullptr;
  size_t bytes = 0; ///< registered bytes (kEmptyBytes when empty)
  size_t elems = 0; ///< the call's elements (0: empty)
  collcWindow_t win = nullptr;
  size_t alloc() const { return bytes + kGuard; }
};

/// One call's buffers on every local rank, and its inputs on every rank.
struct CallState {
  Call call;
  std::vector<Buf> in, out; ///< per local rank; in place: `in` unused
  uint64_t seed = 0;
  /// Every rank's input (the reference needs the peers'), and the
  /// element-wise sums (reductions).
  std::vector<std::vector<uint8_t>> hostIn;
  std::vector<uint8_t> hostSum;
};

bool isV(Kind k) {
  return k == Kind::AllGatherV || k == Kind::ReduceScatterV ||
         k == Kind::AllToAllV;
}

/// AllToAll_v: what rank r sends (its row's sum) or receives (its
/// column's), and where partition k of its row (column) starts.
size_t rowSum(const Call &c, int r) {
  return std::accumulate(c.matrix[r].begin(), c.matrix[r].end(), size_t(0));
}
size_t columnSum(const Call &c, int r) {
  size_t s = 0;
  for (const std::vector<size_t> &row : c.matrix)
    s += row[r];
  return s;
}

/// collcLaunch's counts for local rank r: a V row, or AllToAll_v's n send
/// counts then n receive counts.
std::vector<size_t> launchCounts(const Call &c, int r) {
  if (c.coll->kind != Kind::AllToAllV)
    return c.counts;
  std::vector<size_t> v = c.matrix[r];
  for (const std::vector<size_t> &row : c.matrix)
    v.push_back(row[r]);
  return v;
}

/// Elements of rank r's input and output, as collcLaunch counts them (an
/// input or output the call does not use is empty).
size_t inElems(const Call &c, int n, int r) {
  const size_t k = c.count, nn = size_t(n);
  switch (c.coll->kind) {
  case Kind::AllGather:
    return k;
  case Kind::ReduceScatter:
  case Kind::AllToAll:
  case Kind::Reduce:
    return nn * k;
  case Kind::AllReduce:
    return c.coll->perPartition ? nn * k : k;
  case Kind::Broadcast:
    return r == c.root ? nn * k : 0;
  case Kind::AllGatherV:
    return c.counts[r];
  case Kind::ReduceScatterV:
    return std::accumulate(c.counts.begin(), c.counts.end(), size_t(0));
  case Kind::AllToAllV:
    return rowSum(c, r);
  default:
    return 0;
  }
}

size_t outElems(const Call &c, int n, int r) {
  const size_t k = c.count, nn = size_t(n);
  switch (c.coll->kind) {
  case Kind::AllGather:
  case Kind::AllToAll:
  case Kind::Broadcast:
    return nn * k;
  case Kind::ReduceScatter:
    return k;
  case Kind::AllReduce:
    return c.coll->perPartition ? nn * k : k;
  case Kind::Reduce:
    return r == c.root ? nn * k : 0;
  case Kind::AllGatherV:
    return std::accumulate(c.counts.begin(), c.counts.end(), size_t(0));
  case Kind::ReduceScatterV:
    return c.counts[r];
  case Kind::AllToAllV:
    return columnSum(c, r);
  default:
    return 0;
  }
}

const std::vector<collcComm_t> &commsOf(Ranks &r, const Call &c) {
  return std::string(c.coll->module) == "variable" ? r.variable : r.fixed;
}

/// Local rank l's send and receive pointers for `s`.
const void *sendOf(const CallState &s, size_t l) {
  return s.call.inplace ? s.out[l].base : s.in[l].base;
}
void *recvOf(const CallState &s, size_t l) { return s.out[l].base; }

//===----------------------------------------------------------------------===//
// Host reference
//===----------------------------------------------------------------------===//

/// Makes every rank's input for `seed` and the sums of a reduction.
void makeInputs(CallState &s, int n) {
  const Call &c = s.call;
  const int eb = typeBytes(c.type);
  const Values v = c.coll->reduce ? Values::Integers : Values::RandomBits;
  s.hostIn.assign(n, {});
  for (int p = 0; p < n; ++p) {
    std::vector<uint8_t> &img = s.hostIn[p];
    img.assign(inElems(c, n, p) * eb, 0);
    const uint64_t seed = s.seed;
    parallelFor(inElems(c, n, p), [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i)
        storeBits(img.data(), eb, i, inputBits(v, c.type, seed, p, i));
    });
  }
  s.hostSum.clear();
  if (!c.coll->reduce)
    return;
  // Every rank's input has the reduced length (a reduction's rows).
  const size_t len = inElems(c, n, 0);
  s.hostSum.assign(len * eb, 0);
  parallelFor(len, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      // FP32 in ascending rank order, one rounding (DESIGN.md); exact for
      // the integer inputs.
      float acc = 0;
      for (int p = 0; p < n; ++p) {
        const float x =
            bitsToFloat(c.type, loadBits(s.hostIn[p].data(), eb, i));
        acc = p == 0 ? x : acc + x;
      }
      storeBits(s.hostSum.data(), eb, i, floatToBits(c.type, acc));
    }
  });
}

/// Element j of rank r's output, from the collective's definition.
uint32_t expected(const CallState &s, int n, int r, size_t j) {
  const Call &c = s.call;
  const int eb = typeBytes(c.type);
  const size_t k = c.count;
  auto in = [&](int p, size_t i) {
    return loadBits(s.hostIn[p].data(), eb, i);
  };
  auto sum = [&](size_t i) { return loadBits(s.hostSum.data(), eb, i); };
  switch (c.coll->kind) {
  case Kind::AllGather:
    return in(int(j / k), j % k);
  case Kind::ReduceScatter:
    return sum(size_t(r) * k + j);
  case Kind::AllToAll:
    return in(int(j / k), size_t(r) * k + j % k);
  case Kind::AllReduce:
  case Kind::Reduce:
    return sum(j);
  case Kind::Broadcast:
    return in(c.root, j);
  case Kind::AllGatherV: {
    size_t off = 0;
    int p = 0;
    while (p + 1 < n && j >= off + c.counts[p])
      off += c.counts[p++];
    return in(p, j - off);
  }
  case Kind::ReduceScatterV: {
    size_t off = 0;
    for (int p = 0; p < r; ++p)
      off += c.counts[p];
    return sum(off + j);
  }
  case Kind::AllToAllV: {
    // Output partition p: what p sent to r, at r's place in p's row.
    size_t off = 0;
    int p = 0;
    while (p + 1 < n && j >= off + c.matrix[p][r])
      off += c.matrix[p++][r];
    size_t at = 0;
    for (int k = 0; k < r; ++k)
      at += c.matrix[p][k];
    return in(p, at + j - off);
  }
  default:
    return 0;
  }
}

//===----------------------------------------------------------------------===//
// Buffers, uploads, checks
//===----------------------------------------------------------------------===//

void allocate(Ranks &r, CallState &s) {
  const int eb = typeBytes(s.call.type);
  s.in.assign(r.size(), Buf());
  s.out.assign(r.size(), Buf());
  for (size_t l = 0; l < r.size(); ++l) {
    CT_CUDA(cudaSetDevice(r.device[l]));
    const int rk = r.rank[l];
    auto make = [&](Buf &b, size_t elems) {
      b.elems = elems;
      b.bytes = std::max(elems * eb, kEmptyBytes);
      CT_CUDA(cudaMalloc(&b.base, b.alloc()));
    };
    if (s.call.inplace) {
      make(s.out[l], std::max(inElems(s.call, r.nranks, rk),
                              outElems(s.call, r.nranks, rk)));
    } else {
      make(s.in[l], inElems(s.call, r.nranks, rk));
      make(s.out[l], outElems(s.call, r.nranks, rk));
    }
  }
}

void release(Ranks &r, std::vector<CallState> &calls) {
  for (CallState &s : calls)
    for (size_t l = 0; l < r.size(); ++l) {
      cudaSetDevice(r.device[l]);
      if (s.in[l].base)
        cudaFree(s.in[l].base);
      if (s.out[l].base)
        cudaFree(s.out[l].base);
    }
}

/// The image of local rank l's input allocation (data, poisoned guard).
std::vector<uint8_t> inputImage(const CallState &s, const Buf &b, int rank) {
  std::vector<uint8_t> img(b.alloc(), kPoison);
  const std::vector<uint8_t> &in = s.hostIn[rank];
  std::copy(in.begin(), in.end(), img.begin());
  return img;
}

/// New inputs for `seed` on every local rank, outputs and guards poisoned;
/// synchronous (every stream is idle before and the copies are done after).
void upload(Ranks &r, CallState &s, uint64_t seed) {
  s.seed = seed;
  makeInputs(s, r.nranks);
  for (size_t l = 0; l < r.size(); ++l) {
    CT_CUDA(cudaSetDevice(r.device[l]));
    if (s.call.inplace) {
      std::vector<uint8_t> img = inputImage(s, s.out[l], r.rank[l]);
      CT_CUDA(cudaMemcpy(s.out[l].base, img.data(), img.size(),
                         cudaMemcpyHostToDevice));
    } else {
      std::vector<uint8_t> img = inputImage(s, s.in[l], r.rank[l]);
      CT_CUDA(cudaMemcpy(s.in[l].base, img.data(), img.size(),
                         cudaMemcpyHostToDevice));
      CT_CUDA(cudaMemset(s.out[l].base, kPoison, s.out[l].alloc()));
    }
  }
  // The rank streams are non-blocking: the copies on the legacy stream must
  // be complete before a call on them starts.
  for (size_t l = 0; l < r.size(); ++l) {
    CT_CUDA(cudaSetDevice(r.device[l]));
    CT_CUDA(cudaDeviceSynchronize());
  }
}

/// Compares local rank l's buffers of `s` with the reference: the output
/// element by element, the guard after it, the input unchanged.
bool verifyRank(Ranks &r, const CallState &s, size_t l, std::string *why) {
  const Call &c = s.call;
  const int n = r.nranks, rk = r.rank[l], eb = typeBytes(c.type);
  CT_CUDA(cudaSetDevice(r.device[l]));
  const Buf &ob = s.out[l];
  std::vector<uint8_t> got(ob.alloc());
  CT_CUDA(cudaMemcpy(got.data(), ob.base, got.size(), cudaMemcpyDeviceToHost));
  const size_t oe = outElems(c, n, rk);
  // Output elements (an in-place buffer holds the output over its input).
  std::mutex mu;
  size_t bad = 0, first = SIZE_MAX;
  parallelFor(oe, [&](size_t b, size_t e) {
    size_t localBad = 0, localFirst = SIZE_MAX;
    for (size_t j = b; j < e; ++j)
      if (loadBits(got.data(), eb, j) != expected(s, n, rk, j)) {
        localFirst = std::min(localFirst, j);
        ++localBad;
      }
    if (localBad) {
      std::lock_guard<std::mutex> lock(mu);
      bad += localBad;
      first = std::min(first, localFirst);
    }
  });
  char msg[512];
  if (bad) {
    std::snprintf(msg, sizeof msg,
                  "%s: rank %d output: %zu of %zu elements differ; first at "
                  "element %zu: got 0x%0*x, expected 0x%0*x",
                  c.label.c_str(), rk, bad, oe, first, eb * 2,
                  loadBits(got.data(), eb, first), eb * 2,
                  expected(s, n, rk, first));
    *why = msg;
    return false;
  }
  // The rest of the registered range (an empty output's placeholder, the
  // tail of an in-place buffer larger than its output) and the guard.
  for (size_t i = oe * eb; i < got.size(); ++i) {
    uint8_t want = kPoison;
    if (c.inplace && i < ob.bytes && i < s.hostIn[rk].size())
      want = s.hostIn[rk][i];
    if (got[i] != want) {
      std::snprintf(msg, sizeof msg,
                    "%s: rank %d: byte %zu of the output allocation (%s, "
                    "%zu bytes past the output's %zu) changed: got 0x%02x, "
                    "expected 0x%02x",
                    c.label.c_str(), rk, i,
                    i >= ob.bytes ? "the guard band after it"
                                  : "an unused part of the buffer",
                    i - oe * eb, oe * eb, got[i], want);
      *why = msg;
      return false;
    }
  }
  if (c.inplace)
    return true;
  const Buf &ib = s.in[l];
  got.assign(ib.alloc(), 0);
  CT_CUDA(cudaMemcpy(got.data(), ib.base, got.size(), cudaMemcpyDeviceToHost));
  const std::vector<uint8_t> want = inputImage(s, ib, rk);
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i]) {
      if (i < s.hostIn[rk].size())
        std::snprintf(msg, sizeof msg,
                      "%s: rank %d: the input changed at element %zu: got "
                      "0x%0*x, expected 0x%0*x",
                      c.label.c_str(), rk, i / eb, eb * 2,
                      loadBits(got.data(), eb, i / eb), eb * 2,
                      loadBits(want.data(), eb, i / eb));
      else
        std::snprintf(msg, sizeof msg,
                      "%s: rank %d: byte %zu after the input (%s) changed: "
                      "got 0x%02x, expected 0x%02x",
                      c.label.c_str(), rk, i - s.hostIn[rk].size(),
                      i >= ib.bytes ? "guard band" : "empty buffer", got[i],
                      want[i]);
      *why = msg;
      return false;
    }
  return true;
}

/// Waits for every local stream (fatal past the bound), then reads the
/// communicators' asynchronous errors: 0, or 2 with a message.
int waitAndCheckAsync(Ranks &r, const std::vector<collcComm_t> &comms,
                      const char *what, std::string *why) {
  if (!waitStreams(r.stream, r.device, syncBoundSeconds()))
    fatal("zero_copy %s: %s: the streams did not finish within %.0f s "
          "(runtime hang)",
          r.label.c_str(), what, syncBoundSeconds());
  for (size_t l = 0; l < r.size(); ++l) {
    collcResult_t async = collcSuccess;
    if (collcCommGetAsyncError(comms[l], &async) != collcSuccess ||
        async != collcSuccess) {
      *why = "rank " + std::to_string(r.rank[l]) + ": asynchronous error " +
             resultName(async) + ": " + collcGetLastError();
      return 2;
    }
  }
  return 0;
}

/// Launches every call on every local rank (call-major, as a program
/// issues them).
bool launchAll(Ranks &r, std::vector<CallState> &calls, std::string *why) {
  bool ok = true;
  for (CallState &s : calls) {
    const std::vector<collcComm_t> &comms = commsOf(r, s.call);
    for (size_t l = 0; l < r.size(); ++l) {
      CT_CUDA(cudaSetDevice(r.device[l]));
      const Call &c = s.call;
      const std::vector<size_t> counts = launchCounts(c, r.rank[l]);
      collcResult_t e = collcLaunch(
          comms[l], c.coll->name, sendOf(s, l), recvOf(s, l), c.count,
          isV(c.coll->kind) ? counts.data() : nullptr, c.type, c.root,
          reinterpret_cast<collcStream_t>(r.stream[l]));
      if (e != collcSuccess && ok) {
        *why = c.label + ": rank " + std::to_string(r.rank[l]) +
               ": collcLaunch returned " + resultName(e) + ": " +
               collcGetLastError();
        ok = false;
      }
    }
  }
  return ok;
}

bool verifyAll(Ranks &r, const std::vector<CallState> &calls,
               std::string *why) {
  for (const CallState &s : calls)
    for (size_t l = 0; l < r.size(); ++l)
      if (!verifyRank(r, s, l, why))
        return false;
  return true;
}

//===----------------------------------------------------------------------===//
// The runtime's choice, white box
//===----------------------------------------------------------------------===//

/// What collcLaunch decides for local rank l's call `s`: the registered
/// bits it passes to pickProgram (launch.cpp: the buffers found in
/// windows, an empty buffer counting as registered when the other is),
/// the buffers found, and the program picked with those bits and with
/// none.
struct Choice {
  unsigned found = 0, registered = 0;
  const collc::KernelInfo *picked = nullptr, *unregistered = nullptr;
  long long key = 0;
  /// What the launch runs (collc::routeCall: a clique reads unregistered
  /// buffers in place, its direct buffers) and the where words it passes.
  const collc::KernelInfo *launched = nullptr;
  /// The route has registered entries (routeCall reads direct buffers in
  /// place only then).
  bool registeredTable = false;
  collcWindowParams win{};
  unsigned launchFound = 0;
};

Choice choose(Ranks &r, const CallState &s, size_t l) {
  const Call &c = s.call;
  const collcComm_t comm = commsOf(r, c)[l];
  const int n = r.nranks, rk = r.rank[l], eb = typeBytes(c.type);
  Choice ch;
  // (collc::Manifest::findCollective is not exported.)
  const collc::CollectiveInfo *ci = nullptr;
  for (const collc::CollectiveInfo &k : comm->module->collectives)
    if (k.name == c.coll->name)
      ci = &k;
  if (!ci)
    return ch;
  const collc::Route &route =
      comm->routes[size_t(ci - comm->module->collectives.data()) *
                       collcNumTypes +
                   c.type];
  // The size matrix of the first transform's input (launch.cpp,
  // launchCounts).
  const collc::TransformInfo &first = ci->parts.front();
  const int parts = collc::vocab::partitions(first.in, n);
  std::vector<long long> sizes((size_t)n * parts, 0);
  if (!first.variable)
    std::fill(sizes.begin(), sizes.end(), (long long)c.count);
  else if (first.in == collc::Layout::Packed)
    for (int p = 0; p < n; ++p)
      sizes[p] = (long long)c.counts[p];
  else if (first.out == collc::Layout::Transposed)
    for (int p = 0; p < n; ++p)
      for (int k = 0; k < n; ++k)
        sizes[(size_t)p * n + k] = (long long)c.matrix[p][k];
  else
    for (int p = 0; p < n; ++p)
      for (int k = 0; k < n; ++k)
        sizes[(size_t)p * n + k] = (long long)c.counts[k];
  ch.key = collc::selectionBytes(*ci, sizes.data(), n, rk, eb);
  const size_t ie = inElems(c, n, rk), oe = outElems(c, n, rk);
  unsigned long long where = 0;
  if (ie > 0 && collc::findWindow(comm, sendOf(s, l), ie * eb, &where))
    ch.found |= kIn;
  if (oe > 0 && collc::findWindow(comm, recvOf(s, l), oe * eb, &where))
    ch.found |= kOut;
  ch.registered = ch.found == 0
                      ? 0u
                      : ch.found | (ie == 0 ? kIn : 0u) | (oe == 0 ? kOut : 0u);
  if (collc::Workspace *w =
          collc::pickProgram(route, ch.key, ch.registered))
    ch.picked = w->kernel;
  if (collc::Workspace *w =
          collc::pickProgram(route, ch.key, 0))
    ch.unregistered = w->kernel;
  ch.registeredTable = !route.table[1].empty();
  if (collc::Workspace *w = collc::routeCall(
          comm, route, ch.key, sendOf(s, l), ie * eb, recvOf(s, l), oe * eb,
          &ch.win, &ch.launchFound))
    ch.launched = w->kernel;
  return ch;
}

bool contains(const collc::KernelInfo *k, const char *what) {
  return k && k->name.find(what) != std::string::npos;
}

std::string kernelName(const collc::KernelInfo *k) {
  return k ? k->name : std::string("(none: the v1 kernel)");
}

/// Registered: every non-empty buffer lies in a window and the route picks
/// a zero-copy program, and without registration a chunked one.
/// Unregistered: no buffer in a window, the chunked program.
bool checkRoutes(Ranks &r, const std::vector<CallState> &calls, bool registered,
                 std::string *why) {
  for (const CallState &s : calls)
    for (size_t l = 0; l < r.size(); ++l) {
      const Call &c = s.call;
      const int rk = r.rank[l];
      const Choice ch = choose(r, s, l);
      const std::string who = c.label + ": rank " + std::to_string(rk) + " (" +
                              std::to_string(ch.key) + " selection bytes): ";
      unsigned want = 0;
      if (registered) {
        want |= inElems(c, r.nranks, rk) && !c.inplace ? kIn : 0u;
        want |= outElems(c, r.nranks, rk) ? kOut : 0u;
        if (c.inplace)
          want |= kIn;
      }
      if (ch.found != want) {
        *why = who + "findWindow finds the buffers " +
               std::to_string(ch.found) + " (1 input, 2 output), expected " +
               std::to_string(want);
        return false;
      }
      const collc::KernelInfo *k = registered ? ch.picked : ch.unregistered;
      if (registered && !contains(k, "_zero_copy")) {
        *why = who + "pickProgram(route, key, registered " +
               std::to_string(ch.registered) + ") picks " + kernelName(k) +
               ", not a _zero_copy program (is the module older than the "
               "zero-copy programs? rebuild out/modules)";
        return false;
      }
      if (registered && (k->program.registered & ~ch.registered) != 0) {
        *why =
            who + kernelName(k) + " needs buffers the call has not registered";
        return false;
      }
      if (contains(ch.unregistered, "_zero_copy") ||
          !contains(ch.unregistered, "_chunked")) {
        *why = who + "without registered buffers pickProgram picks " +
               kernelName(ch.unregistered) + ", expected the _chunked program";
        return false;
      }
      if (!registered && ch.picked != ch.unregistered) {
        *why = who + "picks " + kernelName(ch.picked) +
               " after deregistration, expected " + kernelName(ch.unregistered);
        return false;
      }
      // What the launch runs: the registered choice; without windows, in a
      // clique that reads ordinary buffers in place (COLLC_CLIQUE_DIRECT
      // not 0, ranks on one device here or cudaMalloc buffers), for a call
      // whose ranks share a size (not AllToAll_v) on a route with
      // registered entries (a calibrated collective's), the same zero-copy
      // program with every non-empty buffer published as its address; else
      // the chunked program.
      const bool direct = !registered && commsOf(r, c)[l]->cliqueDirect &&
                          ch.key >= 0 && ch.registeredTable;
      if (ch.launchFound != ch.found) {
        *why = who + "routeCall finds the buffers " +
               std::to_string(ch.launchFound) + ", findWindow " +
               std::to_string(ch.found);
        return false;
      }
      if (direct) {
        const unsigned long long row = (unsigned long long)collc::kDirectWindow
                                       << collc::kWindowShift;
        const size_t ie = inElems(c, r.nranks, rk),
                     oe = outElems(c, r.nranks, rk);
        if (!contains(ch.launched, "_zero_copy") ||
            (ie > 0 && ch.win.input !=
                           (row | reinterpret_cast<uintptr_t>(sendOf(s, l)))) ||
            (oe > 0 && ch.win.output !=
                           (row | reinterpret_cast<uintptr_t>(recvOf(s, l))))) {
          *why = who + "a clique's unregistered buffers launch " +
                 kernelName(ch.launched) +
                 ", expected a _zero_copy program reading them in place "
                 "(where words " +
                 std::to_string(ch.win.input) + ", " +
                 std::to_string(ch.win.output) + ")";
          return false;
        }
      } else if (ch.launched != k) {
        *why = who + "the launch runs " + kernelName(ch.launched) +
               ", expected " + kernelName(k);
        return false;
      }
    }
  return true;
}

/// The window bits of `s` on local rank l the picked program noted a use
/// of (launch.cpp: program.registered & found).
unsigned uses(Ranks &r, const CallState &s, size_t l) {
  const Choice ch = choose(r, s, l);
  return ch.picked ? ch.picked->program.registered & ch.found : 0u;
}

collcWindow_t windowOf(const CallState &s, size_t l, unsigned bit) {
  return bit == kIn && !s.call.inplace ? s.in[l].win : s.out[l].win;
}

/// The use bits that land in a call's window `which` (0 input, 1 output;
/// an in-place call has only the output's, holding both).
unsigned bitsOf(const CallState &s, int which) {
  return s.call.inplace ? kIn | kOut : which == 0 ? kIn : kOut;
}

/// After an eager launch: every window the call used holds an event of
/// this rank's stream (noteWindowUse after a zero-copy program), and the
/// input's is among them.
bool checkNoted(Ranks &r, const std::vector<CallState> &calls,
                std::string *why) {
  for (const CallState &s : calls)
    for (size_t l = 0; l < r.size(); ++l) {
      const unsigned u = uses(r, s, l);
      const int rk = r.rank[l];
      if (inElems(s.call, r.nranks, rk) > 0 && !(u & kIn)) {
        *why = s.call.label + ": rank " + std::to_string(rk) +
               ": the picked program does not read the registered input";
        return false;
      }
      unsigned long long id = 0;
      CT_CUDA(cudaStreamGetId(r.stream[l], &id));
      for (unsigned bit : {kIn, kOut}) {
        if (!(u & bit))
          continue;
        collcWindow_t w = windowOf(s, l, bit);
        bool seen = false;
        if (w && w->shared) {
          std::lock_guard<std::mutex> lock(w->shared->mutex);
          for (const collc::WindowShared::Tracked &t : w->shared->tracked)
            seen |= t.rank == rk && t.stream == id;
        }
        if (!seen) {
          *why = s.call.label + ": rank " + std::to_string(rk) + ": the " +
                 (bit == kIn ? "input" : "output") +
                 " window holds no event of the rank's stream: the launch "
                 "noted no use of it (did it run the zero-copy program?)";
          return false;
        }
      }
    }
  return true;
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

/// Registers every call's buffers on every local rank, windows in the same
/// order on every rank (input, output of each call).
bool registerAll(Ranks &r, std::vector<CallState> &calls, std::string *why) {
  bool ok = true;
  for (CallState &s : calls) {
    const std::vector<collcComm_t> &comms = commsOf(r, s.call);
    for (int which = 0; which < 2; ++which) {
      if (which == 0 && s.call.inplace)
        continue;
      for (size_t l = 0; l < r.size(); ++l) {
        Buf &b = which == 0 ? s.in[l] : s.out[l];
        CT_CUDA(cudaSetDevice(r.device[l]));
        b.win = nullptr;
        collcResult_t e = collcCommRegister(comms[l], b.base, b.bytes, &b.win);
        if (e != collcSuccess) {
          if (ok)
            *why = s.call.label + ": rank " + std::to_string(r.rank[l]) +
                   ": collcCommRegister(" + (which == 0 ? "input" : "output") +
                   ", " + std::to_string(b.bytes) + " bytes) returned " +
                   resultName(e) + ": " + collcGetLastError();
          ok = false;
          b.win = nullptr;
        }
      }
    }
  }
  return ok;
}

/// Deregisters every window still registered, in registration order;
/// collcInvalidUsage (a graph's user object released late) is retried
/// until `seconds` pass (the ranks agree on when to stop in procs mode).
bool deregisterAll(Ranks &r, std::vector<CallState> &calls, double seconds,
                   std::string *why) {
  bool ok = true;
  const double t0 = nowSeconds();
  for (CallState &s : calls) {
    const std::vector<collcComm_t> &comms = commsOf(r, s.call);
    for (int which = 0; which < 2; ++which) {
      if (which == 0 && s.call.inplace)
        continue;
      for (size_t l = 0; l < r.size(); ++l) {
        Buf &b = which == 0 ? s.in[l] : s.out[l];
        // Not registered (a refused registration, already deregistered):
        // skipped by every rank together in procs mode (the call is
        // collective there).
        if (r.agree(b.win ? 0 : 1))
          continue;
        CT_CUDA(cudaSetDevice(r.device[l]));
        collcResult_t e = collcInvalidUsage;
        for (;;) {
          e = b.win ? collcCommDeregister(comms[l], b.win)
                    : collcInvalidArgument;
          const bool retry =
              e == collcInvalidUsage && nowSeconds() < t0 + seconds;
          if (r.agree(retry ? 0 : 1))
            break;
          usleep(10000);
        }
        if (e == collcSuccess) {
          b.win = nullptr;
        } else {
          if (ok)
            *why = s.call.label + ": rank " + std::to_string(r.rank[l]) +
                   ": collcCommDeregister(" +
                   (which == 0 ? "input" : "output") + ") returned " +
                   resultName(e) + ": " + collcGetLastError();
          ok = false;
        }
      }
    }
  }
  return ok;
}

//===----------------------------------------------------------------------===//
// The cases
//===----------------------------------------------------------------------===//

/// One case: `fn` says what went wrong (0 ok, 1 wrong, 2 communicator
/// broken); the ranks agree on the verdict.
void check(Ranks &r, Group &g, const std::string &what,
           const std::function<int(std::string *)> &fn) {
  if (r.agree(r.broken ? 1 : 0)) {
    r.broken = true;
    g.fail();
    return;
  }
  std::string why;
  int st = fn(&why);
  if (st)
    log("FAIL zero_copy %s: %s: %s", r.label.c_str(), what.c_str(),
        why.c_str());
  st = r.agree(st);
  if (st == 2)
    r.broken = true;
  g.result(st == 0);
  if (st == 0)
    report("  ok   %s: %s", r.label.c_str(), what.c_str());
}

uint64_t gSerial = 0;
uint64_t nextSeed() { return mix64(gOpt.seed * 7000003ull + ++gSerial); }

/// Fresh inputs, every call launched eagerly, waited for, checked.
int eagerRound(Ranks &r, std::vector<CallState> &calls, bool noted,
               std::string *why) {
  for (CallState &s : calls)
    upload(r, s, nextSeed());
  bool ok = launchAll(r, calls, why);
  if (ok && noted)
    ok = checkNoted(r, calls, why);
  std::string async;
  if (waitAndCheckAsync(r, commsOf(r, calls[0].call), "eager calls", &async)) {
    *why = async;
    return 2;
  }
  if (ok)
    ok = verifyAll(r, calls, why);
  return ok ? 0 : 1;
}

/// Captures the calls, in order, into one graph per local rank (global
/// capture mode); the graphs are destroyed once instantiated (the
/// executions hold what they captured).
bool captureAll(Ranks &r, std::vector<CallState> &calls,
                std::vector<cudaGraphExec_t> &execs, std::string *why) {
  bool ok = true;
  execs.assign(r.size(), nullptr);
  for (size_t l = 0; l < r.size(); ++l) {
    CT_CUDA(cudaSetDevice(r.device[l]));
    CT_CUDA(cudaStreamBeginCapture(r.stream[l], cudaStreamCaptureModeGlobal));
  }
  ok = launchAll(r, calls, why);
  std::vector<cudaGraph_t> graphs(r.size(), nullptr);
  for (size_t l = 0; l < r.size(); ++l) {
    CT_CUDA(cudaSetDevice(r.device[l]));
    cudaError_t e = cudaStreamEndCapture(r.stream[l], &graphs[l]);
    if (e != cudaSuccess) {
      if (ok)
        *why = std::string("cudaStreamEndCapture: ") + cudaGetErrorString(e) +
               " (a call during capture was not capturable)";
      ok = false;
      cudaGetLastError();
      graphs[l] = nullptr;
    }
  }
  for (size_t l = 0; l < r.size(); ++l) {
    if (!graphs[l])
      continue;
    CT_CUDA(cudaSetDevice(r.device[l]));
    cudaError_t e = cudaGraphInstantiate(&execs[l], graphs[l], 0);
    cudaGraphDestroy(graphs[l]);
    if (e != cudaSuccess) {
      if (ok)
        *why = std::string("cudaGraphInstantiate: ") + cudaGetErrorString(e);
      ok = false;
      execs[l] = nullptr;
    }
  }
  return ok;
}

void destroyExecs(Ranks &r, std::vector<cudaGraphExec_t> &execs) {
  for (size_t l = 0; l < execs.size(); ++l)
    if (execs[l]) {
      cudaSetDevice(r.device[l]);
      cudaGraphExecDestroy(execs[l]);
    }
  execs.clear();
}

int replay(Ranks &r, std::vector<CallState> &calls,
           std::vector<cudaGraphExec_t> &execs, std::string *why) {
  for (CallState &s : calls)
    upload(r, s, nextSeed());
  for (size_t l = 0; l < r.size(); ++l) {
    if (!execs[l]) {
      *why = "no graph execution";
      return 1;
    }
    CT_CUDA(cudaSetDevice(r.device[l]));
    CT_CUDA(cudaGraphLaunch(execs[l], r.stream[l]));
  }
  if (waitAndCheckAsync(r, commsOf(r, calls[0].call), "graph replay", why))
    return 2;
  return verifyAll(r, calls, why) ? 0 : 1;
}

/// The local ranks whose graph holds window `which` of `s` (a use of it
/// was noted on them). In one process every rank's graph holds the shared
/// window once, so its live-graph count is that number; with one process
/// per rank, 1 or 0.
int localUsers(Ranks &r, const CallState &s, int which) {
  int k = 0;
  for (size_t l = 0; l < r.size(); ++l)
    k += (uses(r, s, l) & bitsOf(s, which)) != 0;
  return k;
}

void runSet(Ranks &r, const std::string &name, std::vector<Call> set) {
  Group g("zero_copy/" + r.tag + "/" + name);
  std::vector<CallState> calls(set.size());
  for (size_t i = 0; i < set.size(); ++i) {
    calls[i].call = set[i];
    allocate(r, calls[i]);
  }
  const std::vector<collcComm_t> &comms = commsOf(r, set[0]);

  // A. Registered, eager calls, deregistration right after them.
  check(r, g, name + ": register inputs and outputs on every rank",
        [&](std::string *why) { return registerAll(r, calls, why) ? 0 : 1; });
  check(r, g,
        name + ": the route picks the _zero_copy program (registered), "
               "the _chunked one without",
        [&](std::string *why) {
          return checkRoutes(r, calls, true, why) ? 0 : 1;
        });
  check(r, g,
        name + ": eager calls, deregistered before they finish: the "
               "deregistration waits; outputs right",
        [&](std::string *why) {
          for (CallState &s : calls)
            upload(r, s, nextSeed());
          bool ok = launchAll(r, calls, why);
          if (ok)
            ok = checkNoted(r, calls, why);
          std::string msg;
          if (!deregisterAll(r, calls, 0, &msg) && ok) {
            *why = "deregistration after eager use: " + msg;
            ok = false;
          }
          // Each stream's last work is a call that used its windows: the
          // deregistrations waited for it.
          for (size_t l = 0; ok && l < r.size(); ++l) {
            CT_CUDA(cudaSetDevice(r.device[l]));
            cudaError_t q = cudaStreamQuery(r.stream[l]);
            if (q != cudaSuccess) {
              *why = "rank " + std::to_string(r.rank[l]) +
                     ": the stream is still busy (" + cudaGetErrorName(q) +
                     ") after every window it used was deregistered";
              ok = false;
            }
          }
          if (waitAndCheckAsync(r, comms, "eager calls", &msg)) {
            *why = msg;
            return 2;
          }
          if (ok)
            ok = verifyAll(r, calls, why);
          return ok ? 0 : 1;
        });

  // B. Registered again: eager, graph, refusal, deregistration, chunked.
  check(r, g, name + ": register the same buffers again",
        [&](std::string *why) {
          if (!registerAll(r, calls, why))
            return 1;
          return checkRoutes(r, calls, true, why) ? 0 : 1;
        });
  check(r, g, name + ": eager calls (zero-copy), outputs right",
        [&](std::string *why) { return eagerRound(r, calls, true, why); });

  std::vector<cudaGraphExec_t> execs;
  std::vector<int> held(calls.size() * 2, 0);
  check(r, g,
        name + ": 3 calls per rank captured in a graph that holds "
               "their windows",
        [&](std::string *why) {
          if (!captureAll(r, calls, execs, why))
            return 1;
          for (size_t i = 0; i < calls.size(); ++i)
            for (int which = 0; which < 2; ++which) {
              if (which == 0 && calls[i].call.inplace)
                continue;
              const int users = localUsers(r, calls[i], which);
              held[2 * i + which] = users;
              const Buf &b = which == 0 ? calls[i].in[0] : calls[i].out[0];
              const int live = b.win && b.win->shared
                                   ? b.win->shared->graphs->live.load()
                                   : -1;
              if (live != users) {
                *why = calls[i].call.label + ": the " +
                       (which == 0 ? "input" : "output") +
                       " window is held by " + std::to_string(live) +
                       " captured graphs, expected " + std::to_string(users) +
                       " (the ranks whose captured call noted a use of it)";
                return 1;
              }
            }
          return 0;
        });
  for (int k = 1; k <= 2; ++k)
    check(r, g,
          name + ": graph replay " + std::to_string(k) + " with new inputs",
          [&](std::string *why) { return replay(r, calls, execs, why); });
  check(r, g,
        name + ": deregistration refused while the graph execution lives; "
               "nothing changes",
        [&](std::string *why) {
          // Every rank makes the same collcCommDeregister calls (they are
          // collective with one process per rank): no early exit.
          std::vector<int> anyHeld(held.size(), 0);
          for (size_t i = 0; i < held.size(); ++i)
            anyHeld[i] = r.agree(held[i] > 0 ? 1 : 0);
          bool ok = true;
          std::string first;
          auto fail = [&](const std::string &m) {
            if (ok)
              *why = m;
            ok = false;
          };
          for (size_t i = 0; i < calls.size(); ++i) {
            CallState &s = calls[i];
            for (int which = 0; which < 2; ++which) {
              if (which == 0 && s.call.inplace)
                continue;
              // A window no rank's graph holds would just go; the input's
              // is held (a zero-copy program reads it on some rank).
              if (!anyHeld[2 * i + which]) {
                if (bitsOf(s, which) & kIn)
                  fail(s.call.label + ": no rank's graph holds the input "
                                      "window");
                continue;
              }
              for (size_t l = 0; l < r.size(); ++l) {
                Buf &b = which == 0 ? s.in[l] : s.out[l];
                if (!b.win) {
                  fail(s.call.label + ": not registered");
                  continue;
                }
                CT_CUDA(cudaSetDevice(r.device[l]));
                collcResult_t e = collcCommDeregister(comms[l], b.win);
                std::string msg = collcGetLastError();
                const std::string who =
                    s.call.label + ": rank " + std::to_string(r.rank[l]) +
                    ": " + (which == 0 ? "input" : "output") + " window: ";
                if (e == collcSuccess) {
                  b.win = nullptr;
                  fail(who + "collcCommDeregister succeeded while a graph "
                             "execution holds the window");
                } else if (e != collcInvalidUsage ||
                           msg.find("captured CUDA graph") ==
                               std::string::npos) {
                  fail(who + "collcCommDeregister returned " + resultName(e) +
                       ", expected collcInvalidUsage naming the captured "
                       "graphs: " +
                       msg);
                } else if (first.empty()) {
                  first = msg;
                }
              }
            }
          }
          if (!first.empty())
            report("         %s", first.c_str());
          if (!ok)
            return 1;
          return checkRoutes(r, calls, true, why) ? 0 : 1;
        });
  check(r, g, name + ": after the refusal: eager calls (zero-copy) right",
        [&](std::string *why) { return eagerRound(r, calls, false, why); });
  check(r, g, name + ": after the refusal: graph replay 3 right",
        [&](std::string *why) { return replay(r, calls, execs, why); });
  destroyExecs(r, execs);
  check(r, g,
        name + ": graph and execution destroyed: deregistration "
               "succeeds (polled, 5 s)",
        [&](std::string *why) {
          return deregisterAll(r, calls, 5.0, why) ? 0 : 1;
        });
  check(r, g,
        name + ": deregistered: the same buffers run the _chunked "
               "program, outputs right",
        [&](std::string *why) {
          if (!checkRoutes(r, calls, false, why))
            return 1;
          return eagerRound(r, calls, false, why);
        });
  // Whatever failed: no window may outlive its memory.
  if (!r.broken) {
    std::string ignored;
    deregisterAll(r, calls, 5.0, &ignored);
  }
  release(r, calls);
}

//===----------------------------------------------------------------------===//
// The calls
//===----------------------------------------------------------------------===//

bool selected(const char *name) {
  if (gOpt.filter.empty())
    return true;
  size_t b = 0;
  while (b <= gOpt.filter.size()) {
    size_t e = gOpt.filter.find(',', b);
    if (e == std::string::npos)
      e = gOpt.filter.size();
    const std::string part = gOpt.filter.substr(b, e - b);
    if (!part.empty() && std::string(name).find(part) != std::string::npos)
      return true;
    b = e + 1;
  }
  return false;
}

Call makeCall(const char *name, collcDataType_t type, int n, size_t inBytes,
              size_t extra, int root = 0, bool inplace = false) {
  Call c;
  c.coll = findCollective(name);
  if (!c.coll)
    fatal("zero_copy: unknown collective %s", name);
  c.type = type;
  c.root = root;
  c.inplace = inplace;
  const size_t eb = size_t(typeBytes(type)), elems = inBytes / eb;
  // collcLaunch's count: a rank's input is count (packed input) or n x
  // count (scattered input; all_reduce, broadcast and reduce count one
  // partition).
  size_t parts = 1;
  switch (c.coll->kind) {
  case Kind::ReduceScatter:
  case Kind::AllToAll:
  case Kind::Broadcast:
  case Kind::Reduce:
    parts = size_t(n);
    break;
  case Kind::AllReduce:
    parts = c.coll->perPartition ? size_t(n) : 1;
    break;
  default:
    break;
  }
  c.count = elems / parts + extra;
  const size_t in = parts * c.count * eb;
  c.label = std::string(name) + " " + typeName(type) +
            " count=" + std::to_string(c.count) + " (" + std::to_string(in) +
            " input bytes" +
            (c.coll->rooted ? ", root " + std::to_string(root) : "") +
            (inplace ? ", in place" : "") + ")";
  return c;
}

/// A V call: partition p holds base + step * p elements, one partition
/// (`empty`, or none when negative) holds none.
Call makeVCall(const char *name, collcDataType_t type, int n, size_t base,
               size_t step, int empty) {
  Call c;
  c.coll = findCollective(name);
  if (!c.coll)
    fatal("zero_copy: unknown collective %s", name);
  c.type = type;
  c.counts.resize(n);
  for (int p = 0; p < n; ++p)
    c.counts[p] = p == empty ? 0 : base + step * size_t(p);
  c.label = std::string(name) + " " + typeName(type) + " counts=[";
  for (int p = 0; p < n; ++p)
    c.label += (p ? "," : "") + std::to_string(c.counts[p]);
  c.label += "]";
  return c;
}

/// An AllToAll_v call: rank p sends base + step * ((3p + 5k) mod n)
/// elements to rank k, but `big` elements to itself when p is the last
/// rank (an entry no other rank's row or column holds from 3 ranks on,
/// and rank 0's neither at 2: the ranks' largest sizes differ, so they
/// must agree on the steps), and nothing at all when p is `empty`.
Call makeA2AvCall(collcDataType_t type, int n, size_t base, size_t step,
                  size_t big, int empty) {
  Call c;
  c.coll = findCollective("all_to_all_v");
  if (!c.coll)
    fatal("zero_copy: unknown collective all_to_all_v");
  c.type = type;
  c.matrix.assign(n, std::vector<size_t>(n, 0));
  for (int p = 0; p < n; ++p)
    for (int k = 0; k < n; ++k)
      c.matrix[p][k] = p == empty ? 0
                       : p == n - 1 && k == p
                           ? big
                           : base + step * size_t((3 * p + 5 * k) % n);
  c.label = "all_to_all_v " + std::string(typeName(type)) + " rows=[";
  for (int p = 0; p < n; ++p) {
    c.label += p ? "; " : "";
    for (int k = 0; k < n; ++k)
      c.label += (k ? "," : "") + std::to_string(c.matrix[p][k]);
  }
  c.label += "]";
  return c;
}

struct Set {
  std::string name;
  std::vector<Call> calls;
};

std::vector<Set> makeSets(int n) {
  constexpr size_t KiB = 1024, MiB = 1024 * KiB;
  const collcDataType_t bf16 = collcBfloat16, f32 = collcFloat32;
  std::vector<Set> sets;
  // 256 KiB + odd elements, 1 MiB, 3 MiB + 48 bytes of input per rank.
  for (const char *name : {"all_gather", "reduce_scatter", "all_to_all"})
    sets.push_back({std::string(name) + "/bf16",
                    {makeCall(name, bf16, n, 256 * KiB, 7),
                     makeCall(name, bf16, n, MiB, 0),
                     makeCall(name, bf16, n, 3 * MiB + 48, 0)}});
  // all_reduce's zero-copy band starts above 1 MiB; one call in place.
  for (collcDataType_t t : {bf16, f32})
    sets.push_back({std::string("all_reduce/") + typeName(t),
                    {makeCall("all_reduce", t, n, 2 * MiB, 0),
                     makeCall("all_reduce", t, n, 5 * MiB + 32, 0),
                     makeCall("all_reduce", t, n, 4 * MiB + 96, 0, 0, true)}});
  // one_shot_all_reduce has no zero-copy program: in place, a rank's
  // reduced output would land on input its peers still read (measured: 6
  // wrong calls of 13 at 4 ranks sharing one H200 before the derivation
  // stopped deriving it; docs/snac.md "Zero-copy programs").
  for (const char *name : {"broadcast", "reduce"})
    sets.push_back({std::string(name) + "/bf16",
                    {makeCall(name, bf16, n, 256 * KiB, 7, 0),
                     makeCall(name, bf16, n, MiB, 0, n - 1),
                     makeCall(name, bf16, n, 3 * MiB + 48, 0, 1 % n)}});
  // all_gather_v: the largest partition picks the program; one rank's
  // input empty (it counts as registered: its output is).
  sets.push_back({"all_gather_v/bf16",
                  {makeVCall("all_gather_v", bf16, n, 131079, 1000, 1),
                   makeVCall("all_gather_v", bf16, n, 524288, 64, -1),
                   makeVCall("all_gather_v", bf16, n, 1572888, 4099, -1)}});
  // reduce_scatter_v: the whole row picks the program; the last rank's
  // output empty.
  sets.push_back(
      {"reduce_scatter_v/bf16",
       {makeVCall("reduce_scatter_v", bf16, n, 131072 / n + 7, 3, n - 1),
        makeVCall("reduce_scatter_v", bf16, n, 524288 / n, 0, -1),
        makeVCall("reduce_scatter_v", bf16, n, 1572888 / n, 5, -1)}});
  // all_to_all_v: one program for every size, its ranks agreeing on the
  // steps (the last rank's part for itself the largest, which no other
  // rank sees); a rank sending nothing (its empty input counts as
  // registered: its output is).
  sets.push_back({"all_to_all_v/bf16",
                  {makeA2AvCall(bf16, n, 65536 + 7, 1000, 1572888, -1),
                   makeA2AvCall(bf16, n, 131072, 64, 0, 0),
                   makeA2AvCall(bf16, n, 4099, 4099, 3 * 262144 + 5, 1)}});
  std::vector<Set> chosen;
  for (Set &s : sets)
    if (selected(s.calls[0].coll->name) &&
        (!gOpt.quick || s.name == "all_reduce/bf16" ||
         s.name == "all_gather/bf16" || s.name == "broadcast/bf16" ||
         s.name == "all_to_all_v/bf16" ||
         s.name == "reduce_scatter_v/bf16" || s.name == "reduce/bf16"))
      chosen.push_back(std::move(s));
  return chosen;
}

/// Whether `module` has kernels of `collective` for `n` ranks.
bool hasKernels(collcModule_t module, const char *collective, int n) {
  for (const collc::KernelInfo &k : module->kernels)
    if (k.collective == collective && k.worldSize == n)
      return true;
  return false;
}

/// Whether `module` has kernels for `n` ranks.
bool hasWorldSize(collcModule_t module, int n) {
  for (const collc::KernelInfo &k : module->kernels)
    if (k.worldSize == n)
      return true;
  return false;
}

void runOn(Ranks &r, collcModule_t fixed, collcModule_t variable) {
  for (const Set &s : makeSets(r.nranks)) {
    const char *name = s.calls[0].coll->name;
    collcModule_t m =
        std::string(s.calls[0].coll->module) == "variable" ? variable : fixed;
    if (!hasKernels(m, name, r.nranks)) {
      report("SKIP zero_copy/%s/%s: the module has no %s kernels for %d "
             "ranks",
             r.tag.c_str(), s.name.c_str(), name, r.nranks);
      continue;
    }
    if (r.broken) {
      Group g("zero_copy/" + r.tag + "/" + s.name);
      g.fail();
      report("  skipped (counted as failed): a communicator of %s broke",
             r.label.c_str());
      continue;
    }
    runSet(r, s.name, s.calls);
  }
}

} // namespace

void runZeroCopy(World &w) {
  collcModule_t fixed = loadModule("collectives.collcmod");
  collcModule_t variable = loadModule("variable.collcmod");
  collcConfig_t config = makeConfig(gOpt.timeoutMs);
  // The world's ranks, and in one process also 2 and 4 ranks on GPU 0.
  const std::vector<std::vector<int>> layouts = sharedGpuLayouts(w);
  for (size_t k = 0; k < layouts.size(); ++k) {
    Ranks r;
    r.world = &w;
    r.procs = w.procs;
    static_cast<LayoutRanks &>(r) = layoutRanks(w, layouts, k);
    const std::vector<cudaStream_t> own = r.own;
    r.label = std::to_string(r.nranks) + " ranks";
    r.tag = "n" + std::to_string(r.nranks);
    if (!w.procs) {
      r.label += " on devices";
      for (size_t i = 0; i < r.device.size(); ++i) {
        r.label += " " + std::to_string(r.device[i]);
        r.tag += (i ? "," : "@") + std::to_string(r.device[i]);
      }
    }
    if (!hasWorldSize(fixed, r.nranks) || !hasWorldSize(variable, r.nranks)) {
      report("SKIP zero_copy/%s: the modules have no kernels for %d ranks",
             r.tag.c_str(), r.nranks);
      for (size_t i = 0; i < own.size(); ++i) {
        cudaSetDevice(r.device[i]);
        cudaStreamDestroy(own[i]);
      }
      continue;
    }
    std::string msg;
    collcResult_t e = collcSuccess;
    for (auto [module, comms] : {std::make_pair(fixed, &r.fixed),
                                 std::make_pair(variable, &r.variable)}) {
      if (e != collcSuccess)
        break;
      if (k == 0) {
        e = w.initComms(module, &config, *comms, &msg);
      } else {
        comms->assign(r.device.size(), nullptr);
        e = collcCommInitAll(comms->data(), module, (int)r.device.size(),
                             r.device.data(), &config);
        if (e != collcSuccess) {
          msg = collcGetLastError();
          comms->clear();
        }
      }
    }
    if (e != collcSuccess) {
      Group g("zero_copy/" + r.tag + "/setup");
      log("FAIL zero_copy %s: setup: %s: %s", r.label.c_str(), resultName(e),
          msg.c_str());
      g.fail();
    } else {
      // The suite tests the zero-copy programs, at sizes where a policy
      // table's registered entries may pick their staged twins (`:staged`,
      // faster there on one H200): its communicators' registered entries
      // are the ordinary ones, whose variants run their zero-copy twins on
      // registered buffers (pickProgram), and on a clique's direct buffers
      // (routeCall: where a route has registered entries). LibraryPolicyTest
      // covers the shipped registered entries.
      for (std::vector<collcComm_t> *comms : {&r.fixed, &r.variable})
        for (collcComm_t comm : *comms)
          for (collc::Route &route : comm->routes)
            route.table[1] = route.table[0];
      runOn(r, fixed, variable);
    }
    for (std::vector<collcComm_t> *comms : {&r.fixed, &r.variable})
      for (size_t l = 0; l < comms->size(); ++l)
        if ((*comms)[l]) {
          cudaSetDevice(r.device[l]);
          if (r.broken)
            collcCommAbort((*comms)[l]);
          else
            collcCommDestroy((*comms)[l]);
        }
    for (size_t i = 0; i < own.size(); ++i) {
      cudaSetDevice(r.device[i]);
      cudaStreamDestroy(own[i]);
    }
  }
  collcModuleDestroy(fixed);
  collcModuleDestroy(variable);
}

} // namespace ct
