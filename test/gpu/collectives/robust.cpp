//===- robust.cpp - nothing a user does may hang, crash or corrupt -*- C++ -*-//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The robustness suite (issue 9, "The runtime"), single-process mode: the
/// ranks share the GPUs, one stream each unless a group says otherwise.
///
///  - counts: every entry point at the count edges (0, 1, SIZE_MAX,
///    SIZE_MAX / element size, 2^63, products and sums that wrap): 0 and 1
///    run and are checked against the host reference; the others are
///    refused with collcInvalidArgument naming the argument, and the CUDA
///    context stays healthy (a device sync and a checked call afterwards);
///  - streams: non-blocking, blocking (cudaStreamCreate) and per-thread
///    default streams, each rank its own; the legacy default stream for a
///    process driving one rank of its device; two ranks on one stream and
///    two ranks of one device on the legacy stream are refused, and the
///    communicator still works afterwards;
///  - shapes: --shapes (10^6) all_gather_v calls, every one of a distinct
///    size vector, device memory before and after; every 1000th call (and
///    the last) checked on random data with poisoned outputs;
///  - stall: one rank never launches at 3 and 8 ranks; every survivor's
///    collcTimeout message names that rank as the one that never arrived
///    and the rank it was waiting for; a launch after the timeout is
///    refused until collcCommAbort;
///  - coresidency: a compute kernel holding all but a few SMs; a collective
///    that cannot fit waits for it (no bogus timeout) and one that fits runs
///    beside it, both checked;
///  - concurrent: one communicator driven from two streams at once (eager,
///    and a graph replayed beside eager calls): detected and reported by
///    collcCommGetAsyncError, or (if the calls happened not to overlap)
///    both results correct.
///
//===----------------------------------------------------------------------===//

#include "cases.h"
#include "spinner.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <unistd.h>

namespace ct {

namespace {

const char *kRobustModule = "robust.collcmod";

CaseSpec spec(const char *name, size_t count, collcDataType_t type,
              uint64_t seed) {
  CaseSpec s;
  s.coll = findCollective(name);
  s.type = type;
  s.count = count;
  s.values = s.coll->reduce ? Values::Integers : Values::RandomBits;
  s.seed = seed;
  return s;
}

/// Checks that `r` is `want` and the last error names `what`; logs either
/// way.
bool expectRefusal(const std::string &label, collcResult_t r,
                   collcResult_t want, const std::string &what) {
  std::string msg = collcGetLastError();
  bool ok = r == want && msg.find(what) != std::string::npos;
  log("%s %s: %s: %s", ok ? "ok" : "FAIL", label.c_str(), resultName(r),
      msg.c_str());
  if (!ok)
    log("FAIL %s: expected %s naming '%s'", label.c_str(), resultName(want),
        what.c_str());
  return ok;
}

/// The device is healthy: a sync succeeds and a checked all_reduce runs.
bool healthy(World &w, const std::vector<collcComm_t> &comms,
             const std::string &label) {
  for (const LocalRank &lr : w.local) {
    CT_CUDA(cudaSetDevice(lr.device));
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      log("FAIL %s: the CUDA context is broken: %s", label.c_str(),
          cudaGetErrorString(e));
      return false;
    }
  }
  Case c(w, spec("all_reduce", 4099, collcFloat32, 4242));
  std::string why;
  if (runCase(w, comms, c, &why) != 0) {
    log("FAIL %s: a checked all_reduce afterwards: %s", label.c_str(),
        why.c_str());
    return false;
  }
  return true;
}

/// The shipped library's two modules, fixed-size and variable collectives,
/// and a communicator on each for every rank.
struct LibraryComms {
  collcModule_t fixed = loadModule("collectives.collcmod");
  collcModule_t var = loadModule("variable.collcmod");
  std::vector<collcComm_t> cf, cv;

  /// Creates the communicators with `config`; false, logged as a failure of
  /// `group` (`g`), when that fails.
  bool open(World &w, const collcConfig_t &config, Group &g,
            const char *group) {
    std::string msg;
    if (w.initComms(fixed, &config, cf, &msg) == collcSuccess &&
        w.initComms(var, &config, cv, &msg) == collcSuccess)
      return true;
    log("FAIL %s: communicator setup: %s", group, msg.c_str());
    g.fail();
    return false;
  }
  void destroyComms(World &w) {
    w.destroyComms(cf);
    w.destroyComms(cv);
  }
  void destroyModules() {
    collcModuleDestroy(fixed);
    collcModuleDestroy(var);
  }
};

//===----------------------------------------------------------------------===//
// counts
//===----------------------------------------------------------------------===//

void runCounts(World &w) {
  Group g("robust/counts");
  collcConfig_t config = makeConfig(gOpt.timeoutMs);
  LibraryComms lib;
  if (!lib.open(w, config, g, "robust/counts"))
    return;
  const std::vector<collcComm_t> &cf = lib.cf, &cv = lib.cv;
  const int n = w.nranks;
  // 0 and 1 through every typed entry point, checked.
  for (const CollInfo &ci : collectiveTable()) {
    for (size_t count : {size_t(0), size_t(1)}) {
      CaseSpec s = spec(ci.name, count, collcBfloat16, 900 + count);
      s.api = Api::Typed;
      if (ci.kind == Kind::AllGatherV || ci.kind == Kind::ReduceScatterV ||
          ci.kind == Kind::AllToAllV)
        s.matrix = makePartitions(ci.kind, n, count, "one", 5);
      Case c(w, s);
      std::string why;
      int st = runCase(w, std::string(ci.module) == "variable" ? cv : cf, c,
                       &why);
      if (st)
        log("FAIL robust/counts: %s count %zu: %s", ci.name, count,
            why.c_str());
      g.result(st == 0);
    }
  }
  // The refusals: rank 0 alone (nothing may be queued), small real buffers.
  CT_CUDA(cudaSetDevice(w.local[0].device));
  void *buf = nullptr;
  CT_CUDA(cudaMalloc(&buf, 1 << 20));
  cudaStream_t st = w.local[0].stream;
  collcStream_t s = reinterpret_cast<collcStream_t>(st);
  collcComm_t c0 = cf[0], v0 = cv[0];
  // SIZE_MAX / element size for 2- and 4-byte types; 2^63 (x 2 ranks
  // wraps); 2^63 + 1 (x 2 bytes wraps); 2^62 + 1 (x 4 bytes wraps).
  const size_t edges[] = {SIZE_MAX,
                          SIZE_MAX / 2,
                          SIZE_MAX / 4,
                          size_t(1) << 63,
                          (size_t(1) << 63) + 1,
                          (size_t(1) << 62) + 1};
  for (size_t e : edges) {
    char v[64];
    std::snprintf(v, sizeof v, "%zu", e);
    std::string at = std::string(" count=") + v;
    g.result(expectRefusal("collcAllReduce" + at,
                           collcAllReduce(buf, buf, e, collcBfloat16,
                                          collcSum, c0, s),
                           collcInvalidArgument, "count"));
    g.result(expectRefusal("collcAllGather" + at,
                           collcAllGather(buf, buf, e, collcFloat32, c0, s),
                           collcInvalidArgument, "sendcount"));
    g.result(expectRefusal("collcReduceScatter" + at,
                           collcReduceScatter(buf, buf, e, collcFloat16,
                                              collcSum, c0, s),
                           collcInvalidArgument, "recvcount"));
    g.result(expectRefusal("collcAllToAll" + at,
                           collcAllToAll(buf, buf, e, collcBfloat16, c0, s),
                           collcInvalidArgument, "count"));
    g.result(expectRefusal("collcBroadcast" + at,
                           collcBroadcast(buf, buf, e, collcBfloat16, 0, c0,
                                          s),
                           collcInvalidArgument, "count"));
    g.result(expectRefusal("collcReduce" + at,
                           collcReduce(buf, buf, e, collcBfloat16, collcSum,
                                       0, c0, s),
                           collcInvalidArgument, "count"));
    g.result(expectRefusal("collcScatter" + at,
                           collcScatter(buf, buf, e, collcBfloat16, 0, c0, s),
                           collcInvalidArgument, "recvcount"));
    g.result(expectRefusal("collcGather" + at,
                           collcGather(buf, buf, e, collcBfloat16, 0, c0, s),
                           collcInvalidArgument, "sendcount"));
    g.result(expectRefusal("collcLaunch(all_gather)" + at,
                           collcLaunch(c0, "all_gather", buf, buf, e, nullptr,
                                       collcBfloat16, 0, s),
                           collcInvalidArgument, "count"));
    // V calls: one huge count, and counts whose sum wraps.
    std::vector<size_t> one(n, 1), big(n, 1), wrap(n, e);
    big[n - 1] = e;
    std::vector<size_t> two(2 * n, 1);
    two[n] = e;
    g.result(expectRefusal("collcAllGatherV recvcounts[last]" + at,
                           collcAllGatherV(buf, 1, buf, big.data(), nullptr,
                                           collcBfloat16, v0, s),
                           collcInvalidArgument, "recvcounts"));
    g.result(expectRefusal("collcAllGatherV sum of recvcounts" + at,
                           collcAllGatherV(buf, e, buf, wrap.data(), nullptr,
                                           collcBfloat16, v0, s),
                           collcInvalidArgument, "recvcounts"));
    g.result(expectRefusal("collcReduceScatterV recvcounts" + at,
                           collcReduceScatterV(buf, buf, wrap.data(),
                                               collcFloat32, collcSum, v0, s),
                           collcInvalidArgument, "recvcounts"));
    g.result(expectRefusal("collcAllToAllV sendcounts" + at,
                           collcAllToAllV(buf, big.data(), nullptr, buf,
                                          one.data(), nullptr, collcBfloat16,
                                          v0, s),
                           collcInvalidArgument, "sendcounts"));
    g.result(expectRefusal("collcAllToAllV recvcounts" + at,
                           collcAllToAllV(buf, one.data(), nullptr, buf,
                                          big.data(), nullptr, collcBfloat16,
                                          v0, s),
                           collcInvalidArgument, "recvcounts"));
    g.result(expectRefusal("collcLaunch(all_to_all_v) counts" + at,
                           collcLaunch(v0, "all_to_all_v", buf, buf, 0,
                                       two.data(), collcBfloat16, 0, s),
                           collcInvalidArgument, "counts"));
  }
  CT_CUDA(cudaFree(buf));
  g.result(healthy(w, cf, "robust/counts: after the refusals"));
  lib.destroyComms(w);
  lib.destroyModules();
}

//===----------------------------------------------------------------------===//
// streams
//===----------------------------------------------------------------------===//

/// A world like `w` (its ranks and devices) on other streams.
World onStreams(const World &w, const std::vector<cudaStream_t> &streams) {
  World x;
  x.nranks = w.nranks;
  x.procs = false;
  x.local = w.local;
  for (size_t l = 0; l < x.local.size(); ++l)
    x.local[l].stream = streams[l];
  return x;
}

/// Runs a few checked calls of different shapes on `x`; every call must end
/// within `perCallS` (a size upload that synchronized with the other
/// ranks' kernels took seconds).
int checkedCalls(World &x, const std::vector<collcComm_t> &fixedComms,
                 const std::vector<collcComm_t> &varComms,
                 const std::string &label, double perCallS) {
  int failed = 0;
  for (int i = 0; i < 6; ++i) {
    CaseSpec s = i % 2 ? spec("all_reduce", 1000 + 977 * i, collcFloat32,
                              300 + i)
                       : spec("all_to_all_v", 0, collcBfloat16, 300 + i);
    if (s.coll->kind == Kind::AllToAllV)
      s.matrix = makePartitions(Kind::AllToAllV, x.nranks, 3000 + 101 * i,
                                "random", 300 + i);
    Case c(x, s);
    double t0 = nowSeconds();
    std::string why;
    int st = runCase(x, s.coll->kind == Kind::AllToAllV ? varComms
                                                         : fixedComms,
                     c, &why);
    double dt = nowSeconds() - t0;
    if (st) {
      log("FAIL %s: %s: %s", label.c_str(), s.label().c_str(), why.c_str());
      ++failed;
    } else if (dt > perCallS) {
      log("FAIL %s: %s took %.3f s (more than %.1f s)", label.c_str(),
          s.label().c_str(), dt, perCallS);
      ++failed;
    } else if (gOpt.verbose) {
      log("ok %s: %s in %.3f s", label.c_str(), s.label().c_str(), dt);
    }
  }
  return failed;
}

void runStreams(World &w) {
  Group g("robust/streams");
  collcConfig_t config = makeConfig(gOpt.timeoutMs);
  LibraryComms lib;
  if (!lib.open(w, config, g, "robust/streams"))
    return;
  const std::vector<collcComm_t> &cf = lib.cf, &cv = lib.cv;
  std::string msg;
  const size_t nl = w.local.size();
  // Blocking streams, the kind that stalled on the size upload.
  {
    std::vector<cudaStream_t> ss(nl);
    for (size_t l = 0; l < nl; ++l) {
      CT_CUDA(cudaSetDevice(w.local[l].device));
      CT_CUDA(cudaStreamCreate(&ss[l]));
    }
    World x = onStreams(w, ss);
    int f = checkedCalls(x, cf, cv, "robust/streams: blocking", 1.0);
    log("robust/streams: blocking streams (cudaStreamCreate): %d of 6 calls "
        "failed",
        f);
    g.result(f == 0);
    for (size_t l = 0; l < nl; ++l)
      CT_CUDA(cudaStreamDestroy(ss[l]));
  }
  // Per-thread default streams: each rank driven by its own thread.
  {
    Case c(w, spec("all_reduce", 70001, collcFloat32, 311));
    c.allocate();
    c.upload(311, false);
    std::vector<collcResult_t> res(nl, collcSuccess);
    std::vector<std::string> errs(nl);
    std::vector<std::thread> threads;
    World x = onStreams(w, std::vector<cudaStream_t>(nl, cudaStreamPerThread));
    Case cx(x, spec("all_reduce", 70001, collcFloat32, 311));
    cx.allocate();
    cx.upload(311, false);
    for (size_t l = 0; l < nl; ++l)
      threads.emplace_back([&, l] {
        CT_CUDA(cudaSetDevice(x.local[l].device));
        res[l] = cx.launch(l, cf[l]);
        if (res[l] != collcSuccess)
          errs[l] = collcGetLastError();
        // Bounded: every wait in the kernel is.
        cudaError_t e = cudaStreamSynchronize(cudaStreamPerThread);
        if (e != cudaSuccess)
          errs[l] = cudaGetErrorString(e);
      });
    for (std::thread &t : threads)
      t.join();
    bool ok = true;
    for (size_t l = 0; l < nl; ++l) {
      collcResult_t async = collcSuccess;
      collcCommGetAsyncError(cf[l], &async);
      if (res[l] != collcSuccess || !errs[l].empty() ||
          async != collcSuccess) {
        log("FAIL robust/streams: per-thread: rank %zu: %s %s async %s", l,
            resultName(res[l]), errs[l].c_str(), resultName(async));
        ok = false;
      }
    }
    std::string why;
    if (ok && !cx.verify(&why)) {
      log("FAIL robust/streams: per-thread: %s", why.c_str());
      ok = false;
    }
    log("robust/streams: per-thread default streams, one thread per rank: "
        "%s",
        ok ? "ok" : "failed");
    g.result(ok);
  }
  // Two ranks on one stream: refused (they would wait for each other).
  {
    World x = onStreams(w, std::vector<cudaStream_t>(nl, w.local[0].stream));
    Case c(x, spec("all_reduce", 1000, collcFloat32, 312));
    c.allocate();
    c.upload(312, false);
    collcResult_t r0 = c.launch(0, cf[0]);
    if (r0 != collcSuccess)
      log("FAIL robust/streams: rank 0 on its own stream: %s",
          collcGetLastError());
    g.result(r0 == collcSuccess);
    g.result(expectRefusal("robust/streams: rank 1 on rank 0's stream",
                           c.launch(1, cf[1]), collcInvalidUsage,
                           "rank 0 of this communicator uses"));
    // Rank 0's call cannot complete without rank 1: rank 1 joins on its own
    // stream (same inputs, other buffers), then both must finish cleanly.
    Case e(w, spec("all_reduce", 1000, collcFloat32, 312));
    e.allocate();
    e.upload(312, false);
    CT_CUDA(cudaSetDevice(w.local[1].device));
    collcResult_t r2 = e.launch(1, cf[1]);
    bool ok = r2 == collcSuccess &&
              waitStreams(w.streams(), w.devices(), syncBoundSeconds());
    collcResult_t a0 = collcSuccess, a1 = collcSuccess;
    collcCommGetAsyncError(cf[0], &a0);
    collcCommGetAsyncError(cf[1], &a1);
    ok = ok && a0 == collcSuccess && a1 == collcSuccess;
    if (!ok)
      log("FAIL robust/streams: after the refusal, rank 1 on its own stream: "
          "launch %s, async %s / %s",
          resultName(r2), resultName(a0), resultName(a1));
    g.result(ok);
    g.result(healthy(w, cf, "robust/streams: after two ranks on one stream"));
  }
  // The legacy default stream with two ranks of the process on the device.
  if (nl >= 2 && w.local[0].device == w.local[1].device) {
    World x = onStreams(w, std::vector<cudaStream_t>(nl, nullptr));
    Case c(x, spec("all_reduce", 1000, collcFloat32, 314));
    c.allocate();
    c.upload(314, false);
    g.result(expectRefusal("robust/streams: legacy stream, 2 ranks on a "
                           "device",
                           c.launch(0, cf[0]), collcInvalidUsage,
                           "legacy default stream"));
    g.result(healthy(w, cf, "robust/streams: after the legacy refusal"));
  }
  lib.destroyComms(w);
  // The legacy default stream where the process drives one rank per device.
  {
    collcModule_t one = loadModule(kRobustModule);
    World x;
    x.nranks = 1;
    x.procs = false;
    LocalRank lr;
    lr.rank = 0;
    lr.device = 0;
    lr.stream = nullptr; // the legacy default stream
    x.local.push_back(lr);
    std::vector<collcComm_t> c1;
    if (x.initComms(one, &config, c1, &msg) != collcSuccess) {
      log("FAIL robust/streams: 1-rank communicator: %s", msg.c_str());
      g.fail();
    } else {
      Case c(x, spec("all_reduce", 300001, collcFloat32, 315));
      std::string why;
      int st = runCase(x, c1, c, &why);
      log("robust/streams: legacy default stream, one rank on the device: "
          "%s",
          st == 0 ? "ok" : why.c_str());
      g.result(st == 0);
      x.destroyComms(c1);
    }
    collcModuleDestroy(one);
  }
  lib.destroyModules();
}

//===----------------------------------------------------------------------===//
// shapes
//===----------------------------------------------------------------------===//

void runShapes(World &w) {
  Group g("robust/shapes");
  collcModule_t var = loadModule("variable.collcmod");
  collcConfig_t config = makeConfig(gOpt.timeoutMs);
  std::vector<collcComm_t> cv;
  std::string msg;
  const int n = w.nranks;
  if (w.initComms(var, &config, cv, &msg) != collcSuccess) {
    log("FAIL robust/shapes: communicator setup: %s", msg.c_str());
    g.fail();
    return;
  }
  // Shape i: rank p contributes a count from the digits of i in base 1000
  // (rank 0 the lowest), so every call of the run has its own size vector.
  const long shapes = gOpt.shapes;
  const size_t maxCount = 1000;
  auto countsOf = [&](long i, std::vector<size_t> &c) {
    long x = i;
    for (int p = 0; p < n; ++p) {
      c[p] = size_t(x % 1000);
      x /= 1000;
    }
  };
  const size_t eb = 2; // bf16
  std::vector<uint8_t *> send(n), recv(n);
  for (int l = 0; l < n; ++l) {
    CT_CUDA(cudaSetDevice(w.local[l].device));
    CT_CUDA(cudaMalloc(&send[l], maxCount * eb));
    CT_CUDA(cudaMalloc(&recv[l], n * maxCount * eb));
  }
  size_t freeBefore = 0, total = 0, freeAfter = 0;
  CT_CUDA(cudaSetDevice(w.local[0].device));
  CT_CUDA(cudaDeviceSynchronize());
  CT_CUDA(cudaMemGetInfo(&freeBefore, &total));
  std::vector<size_t> counts(n);
  long checked = 0, bad = 0, refused = 0;
  double t0 = nowSeconds();
  uint64_t seed = 7000;
  std::vector<std::vector<uint8_t>> in(n);
  for (long i = 0; i < shapes && refused == 0 && bad < 5; ++i) {
    countsOf(i, counts);
    const bool check = i % 1000 == 999 || i == shapes - 1;
    if (i % 100000 == 0 && i > 0)
      log("robust/shapes: %ld calls in %.1f s", i, nowSeconds() - t0);
    if (check) {
      if (!waitStreams(w.streams(), w.devices(), syncBoundSeconds()))
        fatal("robust/shapes: streams stuck at call %ld", i);
      ++seed;
      for (int l = 0; l < n; ++l) {
        in[l].resize(counts[l] * eb);
        for (size_t j = 0; j < counts[l]; ++j)
          storeBits(in[l].data(), eb, j,
                    inputBits(Values::RandomBits, collcBfloat16, seed, l, j));
        CT_CUDA(cudaSetDevice(w.local[l].device));
        CT_CUDA(cudaMemcpy(send[l], in[l].data(), in[l].size(),
                           cudaMemcpyHostToDevice));
        CT_CUDA(cudaMemset(recv[l], 0xFF, n * maxCount * eb));
      }
    }
    for (int l = 0; l < n; ++l) {
      collcResult_t r = collcAllGatherV(
          send[l], counts[l], recv[l], counts.data(), nullptr, collcBfloat16,
          cv[l], reinterpret_cast<collcStream_t>(w.local[l].stream));
      if (r != collcSuccess) {
        log("FAIL robust/shapes: call %ld (shape %zu, ...): %s: %s", i,
            counts[0], resultName(r), collcGetLastError());
        ++refused;
        break;
      }
    }
    if (check && refused == 0) {
      if (!waitStreams(w.streams(), w.devices(), syncBoundSeconds()))
        fatal("robust/shapes: streams stuck at call %ld", i);
      ++checked;
      size_t total = 0;
      for (int p = 0; p < n; ++p)
        total += counts[p];
      for (int l = 0; l < n && bad < 5; ++l) {
        collcResult_t async = collcSuccess;
        collcCommGetAsyncError(cv[l], &async);
        std::vector<uint8_t> out(n * maxCount * eb);
        CT_CUDA(cudaSetDevice(w.local[l].device));
        CT_CUDA(cudaMemcpy(out.data(), recv[l], out.size(),
                           cudaMemcpyDeviceToHost));
        // The host reference: every rank's input in rank order, then the
        // poison untouched.
        std::vector<uint8_t> want(out.size(), 0xFF);
        size_t at = 0;
        for (int p = 0; p < n; ++p) {
          std::memcpy(want.data() + at, in[p].data(), in[p].size());
          at += in[p].size();
        }
        if (async != collcSuccess || out != want) {
          size_t j = 0;
          while (j < out.size() && out[j] == want[j])
            ++j;
          log("FAIL robust/shapes: call %ld rank %d: async %s, first "
              "differing byte %zu of %zu",
              i, l, resultName(async), j, total * eb);
          ++bad;
        }
      }
    }
  }
  if (!waitStreams(w.streams(), w.devices(), syncBoundSeconds()))
    fatal("robust/shapes: streams stuck at the end");
  double dt = nowSeconds() - t0;
  CT_CUDA(cudaSetDevice(w.local[0].device));
  CT_CUDA(cudaMemGetInfo(&freeAfter, &total));
  log("robust/shapes: %ld all_gather_v calls of distinct shapes at %d ranks "
      "in %.1f s (%.1f us a call), %ld checked, %ld wrong; device memory "
      "free before %zu MiB, after %zu MiB (of %zu MiB)",
      shapes, n, dt, dt * 1e6 / double(std::max(1l, shapes)), checked, bad,
      freeBefore >> 20, freeAfter >> 20, total >> 20);
  g.result(refused == 0);
  g.result(bad == 0 && checked > 0);
  // Bounded memory: nothing grew with the shapes (allow 2 MiB of slack for
  // the driver's own bookkeeping).
  bool bounded = freeAfter + (2u << 20) >= freeBefore;
  if (!bounded)
    log("FAIL robust/shapes: device memory shrank by %zu MiB",
        (freeBefore - freeAfter) >> 20);
  g.result(bounded);
  for (int l = 0; l < n; ++l) {
    CT_CUDA(cudaSetDevice(w.local[l].device));
    CT_CUDA(cudaFree(send[l]));
    CT_CUDA(cudaFree(recv[l]));
  }
  w.destroyComms(cv);
  collcModuleDestroy(var);
}

//===----------------------------------------------------------------------===//
// stall
//===----------------------------------------------------------------------===//

/// One rank of an `n`-rank world never launches; every survivor must name
/// it as the rank that never arrived (v1) or whose data never came (a
/// program), and say whom it was waiting for.
void stallAt(int n, int victim, const std::string &moduleFile, Group &g) {
  World x;
  x.initSingle(n);
  collcModule_t module = loadModule(moduleFile);
  collcConfig_t config = makeConfig(gOpt.stallTimeoutMs);
  std::vector<collcComm_t> comms;
  std::string msg;
  std::string label = "robust/stall: " + std::to_string(n) + " ranks, rank " +
                      std::to_string(victim) + " never calls all_reduce";
  if (x.initComms(module, &config, comms, &msg) != collcSuccess) {
    log("FAIL %s: setup: %s", label.c_str(), msg.c_str());
    g.fail();
    collcModuleDestroy(module);
    x.finalize();
    return;
  }
  Case c(x, spec("all_reduce", 65536, collcFloat32, 77));
  c.allocate();
  c.upload(77, false);
  std::vector<cudaStream_t> live;
  std::vector<int> liveDev;
  double t0 = nowSeconds();
  for (int l = 0; l < n; ++l) {
    if (l == victim)
      continue;
    CT_CUDA(cudaSetDevice(x.local[l].device));
    collcResult_t r = c.launch(l, comms[l]);
    if (r != collcSuccess)
      log("FAIL %s: rank %d launch: %s", label.c_str(), l,
          collcGetLastError());
    live.push_back(x.local[l].stream);
    liveDev.push_back(x.local[l].device);
  }
  double bound = gOpt.stallTimeoutMs / 1000.0;
  bool finished = waitStreams(live, liveDev, 3 * bound + 5);
  double dt = nowSeconds() - t0;
  if (!finished)
    fatal("%s: the survivors did not finish within 3 bounds", label.c_str());
  const std::string named = "rank " + std::to_string(victim) + " never arrived";
  for (int l = 0; l < n; ++l) {
    if (l == victim)
      continue;
    collcResult_t e = collcSuccess;
    collcCommGetAsyncError(comms[l], &e);
    std::string m = collcGetLastError();
    // v1: "waiting for event ... from rank q" or "(releases from its
    // consumers)", after the arrival counter's "rank V never arrived". A
    // SNAC v2 program has no arrival counter: its wait names the rank whose
    // data never came, "waiting for rank V's data ... rank V did not make
    // this call".
    const std::string victimName = "rank " + std::to_string(victim);
    bool program = m.find(", program ") != std::string::npos;
    bool says = program ? m.find("waiting for " + victimName + "'s data") !=
                              std::string::npos
                        : m.find(" from rank ") != std::string::npos ||
                              m.find("releases from its consumers") !=
                                  std::string::npos;
    bool ok = e == collcTimeout &&
              m.find(program ? victimName + " did not make this call"
                             : named) != std::string::npos &&
              m.find("ranks ") == std::string::npos && says;
    log("%s %s: survivor rank %d after %.2f s: %s", ok ? "ok" : "FAIL",
        label.c_str(), l, dt, m.c_str());
    g.result(ok);
  }
  // A launch after the timeout is refused until collcCommAbort.
  int survivor = victim == 0 ? 1 : 0;
  CT_CUDA(cudaSetDevice(x.local[survivor].device));
  collcResult_t again = c.launch(survivor, comms[survivor]);
  g.result(expectRefusal(label + ": launch after the timeout", again,
                         collcInvalidUsage, "collcCommAbort"));
  // Not refused: let what was queued end (it cannot take the claim the
  // timed-out call holds, so it ends at once) before the abort frees memory.
  if (again == collcSuccess &&
      !waitStreams({x.local[survivor].stream}, {x.local[survivor].device},
                   3 * bound + 5))
    fatal("%s: the launch after the timeout hangs", label.c_str());
  for (collcComm_t cm : comms)
    g.result(collcCommAbort(cm) == collcSuccess);
  collcModuleDestroy(module);
  x.finalize();
}

void runStall() {
  Group g("robust/stall");
  stallAt(3, 2, kRobustModule, g);
  stallAt(3, 1, kRobustModule, g);
  stallAt(8, 5, "collectives.collcmod", g);
  stallAt(8, 0, "collectives.collcmod", g);
}

//===----------------------------------------------------------------------===//
// coresidency
//===----------------------------------------------------------------------===//

/// CTAs of a kernel of the module file (its manifest's grid).
int gridOf(const std::string &file, const std::string &kernel) {
  nlohmann::json m = nlohmann::json::parse(readFile(modulePath(file)));
  for (const auto &k : m["kernels"])
    if (k["name"] == kernel)
      return k["grid"].get<int>();
  fatal("no kernel %s in %s", kernel.c_str(), file.c_str());
}

/// A spinner holds all but `freeSms` SMs of device 0; an `n`-rank
/// all_reduce runs. `fits`: the free SMs hold every rank's grid, so the
/// call must finish while the spinner still runs; otherwise it must wait
/// for the spinner (released after 3 bounds) and then finish, with no
/// timeout reported.
void coresident(int n, int freeSms, bool fits, const std::string &file,
                Group &g) {
  World x;
  x.initSingle(n);
  collcModule_t module = loadModule(file);
  const int timeoutMs = 1000;
  collcConfig_t config = makeConfig(timeoutMs);
  std::vector<collcComm_t> comms;
  std::string msg;
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "robust/coresidency: %d rank(s), all but %d SMs held by a "
                "compute kernel",
                n, freeSms);
  std::string label = buf;
  if (x.initComms(module, &config, comms, &msg) != collcSuccess) {
    log("FAIL %s: setup: %s", label.c_str(), msg.c_str());
    g.fail();
    collcModuleDestroy(module);
    x.finalize();
    return;
  }
  // 16 Mi floats a rank: far more chunks than slots, so role groups wait
  // on each other many times.
  Case c(x, spec("all_reduce", size_t(1) << 22, collcFloat32, 4000 + n));
  c.allocate();
  c.upload(4000 + n, false);
  int sms = 0;
  CT_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int *flags = nullptr;
  CT_CUDA(cudaSetDevice(0));
  CT_CUDA(cudaHostAlloc(&flags, 2 * sizeof(int), cudaHostAllocMapped));
  flags[0] = flags[1] = 0;
  int *dflags = nullptr;
  CT_CUDA(cudaHostGetDevicePointer(&dflags, flags, 0));
  cudaStream_t side;
  CT_CUDA(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  std::string why;
  if (!launchSpinner(0, sms - freeSms, side, dflags, dflags + 1, &why))
    fatal("%s: spinner: %s", label.c_str(), why.c_str());
  double t0 = nowSeconds();
  while (*(volatile int *)&flags[1] < sms - freeSms && nowSeconds() < t0 + 10)
    usleep(100);
  int started = *(volatile int *)&flags[1];
  bool ok = started == sms - freeSms;
  if (!ok)
    log("FAIL %s: only %d of %d spinner CTAs started", label.c_str(), started,
        sms - freeSms);
  t0 = nowSeconds();
  for (int l = 0; l < n; ++l) {
    collcResult_t r = c.launch(l, comms[l]);
    if (r != collcSuccess) {
      log("FAIL %s: rank %d launch: %s", label.c_str(), l,
          collcGetLastError());
      ok = false;
    }
  }
  const double hold = 3.0 * timeoutMs / 1000.0;
  bool doneEarly = waitStreams(x.streams(), x.devices(), hold);
  double tDone = nowSeconds() - t0;
  *(volatile int *)&flags[0] = 1; // release the spinner
  bool done = doneEarly || waitStreams(x.streams(), x.devices(),
                                       syncBoundSeconds());
  double tAll = nowSeconds() - t0;
  CT_CUDA(cudaStreamSynchronize(side));
  if (!done)
    fatal("%s: the collective never finished", label.c_str());
  for (int l = 0; l < n; ++l) {
    collcResult_t e = collcSuccess;
    collcCommGetAsyncError(comms[l], &e);
    if (e != collcSuccess) {
      log("FAIL %s: rank %d: %s: %s", label.c_str(), l, resultName(e),
          collcGetLastError());
      ok = false;
    }
  }
  if (ok && !c.verify(&why)) {
    log("FAIL %s: %s", label.c_str(), why.c_str());
    ok = false;
  }
  if (fits && !doneEarly) {
    log("FAIL %s: the free SMs hold every grid, but the call did not finish "
        "beside the compute kernel",
        label.c_str());
    ok = false;
  }
  log("%s %s: %s; finished %s (%.3f s after the launch; spinner released "
      "at %.1f s)",
      ok ? "ok" : "FAIL", label.c_str(),
      fits ? "every grid fits the free SMs" : "a grid does not fit",
      doneEarly ? "beside the compute kernel" : "after it", doneEarly ? tDone
                                                                      : tAll,
      hold);
  g.result(ok);
  CT_CUDA(cudaStreamDestroy(side));
  CT_CUDA(cudaFreeHost(flags));
  x.destroyComms(comms);
  collcModuleDestroy(module);
  x.finalize();
}

/// A grid the device cannot hold at once is refused when the communicator
/// is created (a module whose manifest asks for 2^20 CTAs a kernel).
void admission(Group &g) {
  nlohmann::json m =
      nlohmann::json::parse(readFile(modulePath(kRobustModule)));
  // A chunked program's region holds a chunk per CTA of its grid, so its
  // manifest at 2^20 CTAs would not even load; the other kernels show the
  // refusal.
  nlohmann::json kept = nlohmann::json::array();
  for (auto &k : m["kernels"])
    if (!k.contains("program") || !k["program"].value("chunk", 0))
      kept.push_back(k);
  m["kernels"] = kept;
  for (auto &k : m["kernels"]) {
    k["grid"] = 1 << 20;
    // A program's call counters are one per CTA of its grid.
    if (k.contains("program"))
      k["program"]["counter_words"] = 1 << 20;
  }
  std::string text = m.dump();
  collcModule_t module = nullptr;
  collcResult_t r = collcModuleLoadData(&module, text.data(), text.size());
  if (r != collcSuccess) {
    log("FAIL robust/coresidency: the relabelled module does not load: %s",
        collcGetLastError());
    g.fail();
    return;
  }
  World x;
  x.nranks = 1;
  x.procs = false;
  LocalRank lr;
  CT_CUDA(cudaStreamCreateWithFlags(&lr.stream, cudaStreamNonBlocking));
  x.local.push_back(lr);
  collcConfig_t config = makeConfig(gOpt.timeoutMs);
  std::vector<collcComm_t> comms;
  std::string msg;
  r = x.initComms(module, &config, comms, &msg);
  bool ok = r == collcInvalidArgument &&
            msg.find("must be resident at once") != std::string::npos;
  log("%s robust/coresidency: a 2^20-CTA grid at communicator creation: %s: "
      "%s",
      ok ? "ok" : "FAIL", resultName(r), msg.c_str());
  g.result(ok);
  if (r == collcSuccess)
    x.destroyComms(comms);
  CT_CUDA(cudaStreamDestroy(lr.stream));
  collcModuleDestroy(module);
}

void runCoresidency() {
  Group g("robust/coresidency");
  admission(g);
  // One rank: its 16-CTA grid cannot fit in 2 SMs (one CTA an SM).
  coresident(1, 2, false, kRobustModule, g);
  // Two ranks sharing the GPU with room for both grids: they run beside it.
  int grid = gridOf("collectives.collcmod", "collc_all_reduce_f32_upto8");
  coresident(2, 2 * grid + 2, true, "collectives.collcmod", g);
}

//===----------------------------------------------------------------------===//
// concurrent
//===----------------------------------------------------------------------===//

/// Two calls of one collective on one communicator at once, from two
/// streams a rank (`graph`: the first is a graph replay). Either the device
/// detects it (collcInvalidUsage naming the rule), or the calls did not
/// overlap and both results are right.
void concurrentCalls(World &w, bool graph, Group &g) {
  const std::string label = std::string("robust/concurrent: ") +
                            (graph ? "a graph replayed beside an eager call"
                                   : "two streams a rank");
  collcModule_t fixed = loadModule("collectives.collcmod");
  collcConfig_t config = makeConfig(gOpt.timeoutMs);
  std::vector<collcComm_t> comms;
  std::string msg;
  // The v1 kernels' claim word is what detects this; programs take none
  // (docs/runtime.md: two concurrent calls of one program are not
  // detected), and a 64 MiB call now runs the chunked program unless v1
  // is forced (read when the communicator is created).
  setenv("COLLC_FORCE_VARIANT", "v1", 1);
  const collcResult_t created = w.initComms(fixed, &config, comms, &msg);
  unsetenv("COLLC_FORCE_VARIANT");
  if (created != collcSuccess) {
    log("FAIL %s: setup: %s", label.c_str(), msg.c_str());
    g.fail();
    return;
  }
  const size_t nl = w.local.size();
  std::vector<cudaStream_t> second(nl);
  for (size_t l = 0; l < nl; ++l) {
    CT_CUDA(cudaSetDevice(w.local[l].device));
    CT_CUDA(cudaStreamCreateWithFlags(&second[l], cudaStreamNonBlocking));
  }
  World y = onStreams(w, second);
  // Big enough (64 MiB a rank) that the two calls overlap.
  Case a(w, spec("all_reduce", size_t(1) << 23, collcFloat32, 500));
  Case b(y, spec("all_reduce", size_t(1) << 23, collcFloat32, 501));
  a.allocate();
  b.allocate();
  a.upload(500, false);
  b.upload(501, false);
  std::vector<cudaGraphExec_t> execs(nl, nullptr);
  bool ok = true;
  if (graph) {
    for (size_t l = 0; l < nl; ++l) {
      CT_CUDA(cudaSetDevice(w.local[l].device));
      CT_CUDA(cudaStreamBeginCapture(w.local[l].stream,
                                     cudaStreamCaptureModeGlobal));
      if (a.launch(l, comms[l]) != collcSuccess) {
        log("FAIL %s: capture: %s", label.c_str(), collcGetLastError());
        ok = false;
      }
    }
    // End every capture before instantiating (global capture mode).
    std::vector<cudaGraph_t> graphs(nl);
    for (size_t l = 0; l < nl; ++l) {
      CT_CUDA(cudaSetDevice(w.local[l].device));
      CT_CUDA(cudaStreamEndCapture(w.local[l].stream, &graphs[l]));
    }
    for (size_t l = 0; l < nl; ++l) {
      CT_CUDA(cudaSetDevice(w.local[l].device));
      CT_CUDA(cudaGraphInstantiate(&execs[l], graphs[l], 0));
      CT_CUDA(cudaGraphDestroy(graphs[l]));
    }
  }
  for (size_t l = 0; l < nl; ++l) {
    CT_CUDA(cudaSetDevice(w.local[l].device));
    if (graph) {
      CT_CUDA(cudaGraphLaunch(execs[l], w.local[l].stream));
    } else if (a.launch(l, comms[l]) != collcSuccess) {
      log("FAIL %s: first call: %s", label.c_str(), collcGetLastError());
      ok = false;
    }
    if (b.launch(l, comms[l]) != collcSuccess) {
      log("FAIL %s: second call: %s", label.c_str(), collcGetLastError());
      ok = false;
    }
  }
  std::vector<cudaStream_t> all = w.streams();
  all.insert(all.end(), second.begin(), second.end());
  std::vector<int> devs = w.devices();
  std::vector<int> d2 = w.devices();
  devs.insert(devs.end(), d2.begin(), d2.end());
  if (!waitStreams(all, devs, syncBoundSeconds()))
    fatal("%s: the streams did not finish: a hang", label.c_str());
  int detected = 0, other = 0;
  for (size_t l = 0; l < nl; ++l) {
    collcResult_t e = collcSuccess;
    collcCommGetAsyncError(comms[l], &e);
    std::string m = collcGetLastError();
    if (e == collcInvalidUsage && m.find("serialized") != std::string::npos) {
      ++detected;
      log("%s: rank %zu: %s", label.c_str(), l, m.c_str());
    } else if (e != collcSuccess) {
      ++other;
      log("FAIL %s: rank %zu: unexpected %s: %s", label.c_str(), l,
          resultName(e), m.c_str());
    }
  }
  std::string why;
  if (detected == 0 && other == 0) {
    bool right = a.verify(&why) && b.verify(&why);
    log("%s: not detected on any rank; both results %s %s", label.c_str(),
        right ? "right" : "WRONG:", right ? "" : why.c_str());
    ok = ok && right;
  }
  ok = ok && other == 0;
  log("%s %s: detected on %d of %zu ranks", ok ? "ok" : "FAIL", label.c_str(),
      detected, nl);
  g.result(ok);
  // The accounting of the communicator is gone: abort it.
  for (size_t l = 0; l < nl; ++l) {
    if (execs[l])
      CT_CUDA(cudaGraphExecDestroy(execs[l]));
    CT_CUDA(cudaStreamDestroy(second[l]));
  }
  w.destroyComms(comms, /*abort=*/true);
  collcModuleDestroy(fixed);
}

void runConcurrent(World &w) {
  Group g("robust/concurrent");
  concurrentCalls(w, false, g);
  concurrentCalls(w, true, g);
  // A fresh communicator works afterwards.
  collcModule_t fixed = loadModule("collectives.collcmod");
  collcConfig_t config = makeConfig(gOpt.timeoutMs);
  std::vector<collcComm_t> comms;
  std::string msg;
  // The v1 kernels' claim word is what detects this; programs take none
  // (docs/runtime.md: two concurrent calls of one program are not
  // detected), and a 64 MiB call now runs the chunked program unless v1
  // is forced (read when the communicator is created).
  setenv("COLLC_FORCE_VARIANT", "v1", 1);
  const collcResult_t created = w.initComms(fixed, &config, comms, &msg);
  unsetenv("COLLC_FORCE_VARIANT");
  if (created != collcSuccess) {
    log("FAIL robust/concurrent: new communicator: %s", msg.c_str());
    g.fail();
  } else {
    g.result(healthy(w, comms, "robust/concurrent: a new communicator"));
    w.destroyComms(comms);
  }
  collcModuleDestroy(fixed);
}

} // namespace

void runRobust(World &w) {
  if (w.procs) {
    report("SKIP robust: single-process mode only (--mode=single)");
    return;
  }
  if (access(modulePath(kRobustModule).c_str(), R_OK) != 0) {
    report("FAIL robust: missing %s (scripts/gpu-prepare.sh makes it)",
           modulePath(kRobustModule).c_str());
    gTally.failed++;
    return;
  }
  auto want = [](const char *group) {
    return gOpt.robustGroups.empty() ||
           gOpt.robustGroups.find(group) != std::string::npos;
  };
  if (want("counts"))
    runCounts(w);
  if (want("streams"))
    runStreams(w);
  if (want("stall"))
    runStall();
  if (want("coresidency"))
    runCoresidency();
  if (want("concurrent"))
    runConcurrent(w);
  if (want("shapes"))
    runShapes(w);
}

} // namespace ct
