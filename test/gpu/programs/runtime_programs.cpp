//===- runtime_programs.cpp - programs through the runtime's C API --------===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// The runtime's program path on a GPU (issue 10): a module of hand-written
// programs (kernels.cu, make_module.py: every unrooted collective, bf16, 2,
// 3, 5 and 8 ranks, each encoding, band [0, 64 KiB]; or a module collc
// wrote, with v1 kernels beside its programs, the rooted collectives too)
// loaded with collcModuleLoad,
// ranks in one process sharing GPU 0 (collcCommInitAll, one stream each),
// each encoding forced with COLLC_FORCE_VARIANT:
//  - correctness: fresh random bf16 bits each call (the sentinel pattern,
//    -0.0, NaNs, infinities, subnormals), poisoned outputs and a guard band,
//    counts from 0 to the band's top, bitwise against a host reference
//    (FP32 in rank order, one rounding), eager and after graph replay; a
//    rooted collective's root moves every call, and a rank that is not the
//    root of a gather or reduce must leave its output untouched;
//  - a call beyond every band runs the v1 kernel, bitwise, or where the
//    module has none is refused;
//  - a timeout (one rank never calls) is reported by collcCommGetAsyncError
//    and refuses later calls;
//  - per-call time through the runtime: 64 calls per rank in one CUDA graph.
//
// usage: runtime_programs MODULE [--ranks=2,3,5,8] [--encodings=ll16,...]
//          (encodings: ll16, sentinel, flag (the one_shot program of it),
//          variant:encoding (e.g. two_shot:ll16), or v1 for the v1 kernels)
//          [--band-top=BYTES] [--band-bottom=BYTES]
//          [--json=FILE --machine=M --date=D]
// The band (default [0, 64 KiB]) is the forced program's, in bytes of a
// rank's input: eager calls span it, and it is what the timings measure. A
// chunked program's band has no top (2^63 - 1): its calls span up to
// kUnboundedTop bytes (several steps of 16 CTAs at every world size), and
// no call lies beyond it.
// World sizes the module has no kernel for are skipped (SKIP lines).
// The last line is "N passed, M failed".
//
//===----------------------------------------------------------------------===//

#include "collc/collc.h"

#include <cuda_runtime.h>

#include "graph_timing.h"
#include "host_helpers.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

// A CUDA error is fatal: "FATAL file:line: call: error", exit 2.
#define CUDA(x) COLLC_CUDA_CHECK(x)

int passed = 0, failed = 0;
std::vector<int> worldSizes = {2, 3, 5, 8};
std::vector<std::string> encodings = {"ll16", "sentinel", "flag"};
size_t bandTop = 65536, bandBottom = 0;
/// The top the test spans of a band that has none (a chunked program's).
constexpr size_t kUnboundedTop = size_t(8) << 20;
bool unbounded = false;
/// The collectives that have a program of the forced variant and encoding
/// (--programs-of; empty: all). The others run v1, whose copies keep the
/// sentinel pattern instead of canonicalizing it.
std::set<std::string> programsOf;
std::mt19937_64 rng(7);
/// The root of the next call of a rooted collective (runOnce moves it).
int root = 0;
ResultOptions results;

void check(bool ok, const std::string &what) {
  ok ? ++passed : ++failed;
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", what.c_str());
}

/// A copy moves bits; the sentinel encoding canonicalizes its pattern to
/// the positive quiet NaN (numerically the same value).
uint16_t copied(uint16_t x, bool sentinel) {
  return sentinel && x == 0xFFFF ? 0x7FFF : x;
}

struct Ranks {
  int n = 0;
  std::vector<collcComm_t> comms;
  std::vector<cudaStream_t> streams;
  std::vector<uint16_t *> in, out;
  size_t capacity = 0; // elements of each buffer
};

collcModule_t module = nullptr;

bool init(Ranks &r, int n, int timeoutMs) {
  r.n = n;
  r.comms.assign(n, nullptr);
  std::vector<int> devices(n, 0);
  collcConfig_t config = COLLC_CONFIG_INITIALIZER;
  config.timeoutMs = timeoutMs;
  if (collcCommInitAll(r.comms.data(), module, n, devices.data(), &config) !=
      collcSuccess) {
    const std::string error = collcGetLastError();
    if (error.find("has no kernel for " + std::to_string(n) + " ranks") !=
        std::string::npos) {
      std::printf("SKIP %d ranks: %s\n", n, error.c_str());
      return false;
    }
    std::printf("FAIL collcCommInitAll(%d): %s\n", n, error.c_str());
    ++failed;
    return false;
  }
  // The largest buffer: an all-gather's output of n band-top inputs, or a
  // call beyond the band (2 x band-top bytes of input).
  r.capacity = (n + 2) * (bandTop / 2) + 256;
  r.streams.resize(n);
  r.in.resize(n);
  r.out.resize(n);
  for (int q = 0; q < n; ++q) {
    CUDA(cudaStreamCreateWithFlags(&r.streams[q], cudaStreamNonBlocking));
    CUDA(cudaMalloc(&r.in[q], r.capacity * 2));
    CUDA(cudaMalloc(&r.out[q], r.capacity * 2));
  }
  return true;
}

void finish(Ranks &r, bool abort) {
  CUDA(cudaDeviceSynchronize());
  for (int q = 0; q < r.n; ++q) {
    abort ? collcCommAbort(r.comms[q]) : collcCommDestroy(r.comms[q]);
    CUDA(cudaFree(r.in[q]));
    CUDA(cudaFree(r.out[q]));
    CUDA(cudaStreamDestroy(r.streams[q]));
  }
}

/// One collective: how a rank calls it with `count` (and `root`), its input
/// and output extents in elements, and the host reference of a rank's
/// output.
struct Coll {
  const char *name;
  /// Takes a root; `rootOutput`: only the root writes its output.
  bool rooted = false, rootOutput = false;
  std::function<collcResult_t(const Ranks &, int q, size_t count)> call;
  std::function<size_t(int n, size_t count)> inElems, outElems;
  /// Output element i of rank q from every rank's input.
  std::function<uint16_t(const std::vector<std::vector<uint16_t>> &in, int n,
                         int q, size_t count, size_t i, bool sentinel)>
      ref;
};

uint16_t sum(const std::vector<std::vector<uint16_t>> &in, int n, size_t at) {
  float acc = floatFromBf16(in[0][at]);
  for (int p = 1; p < n; ++p)
    acc = acc + floatFromBf16(in[p][at]);
  return bf16FromFloat(acc);
}

std::vector<Coll> collectives() {
  return {
      {"all_reduce", false, false,
       [](const Ranks &r, int q, size_t c) {
         return collcAllReduce(r.in[q], r.out[q], c, collcBfloat16, collcSum,
                               r.comms[q], r.streams[q]);
       },
       [](int, size_t c) { return c; }, [](int, size_t c) { return c; },
       [](const std::vector<std::vector<uint16_t>> &in, int n, int, size_t,
          size_t i, bool) { return sum(in, n, i); }},
      {"all_gather", false, false,
       [](const Ranks &r, int q, size_t c) {
         return collcAllGather(r.in[q], r.out[q], c, collcBfloat16,
                               r.comms[q], r.streams[q]);
       },
       [](int, size_t c) { return c; }, [](int n, size_t c) { return n * c; },
       [](const std::vector<std::vector<uint16_t>> &in, int, int, size_t c,
          size_t i, bool s) { return copied(in[i / c][i % c], s); }},
      {"reduce_scatter", false, false,
       [](const Ranks &r, int q, size_t c) {
         return collcReduceScatter(r.in[q], r.out[q], c, collcBfloat16,
                                   collcSum, r.comms[q], r.streams[q]);
       },
       [](int n, size_t c) { return n * c; }, [](int, size_t c) { return c; },
       [](const std::vector<std::vector<uint16_t>> &in, int n, int q, size_t c,
          size_t i, bool) { return sum(in, n, q * c + i); }},
      {"all_to_all", false, false,
       [](const Ranks &r, int q, size_t c) {
         return collcAllToAll(r.in[q], r.out[q], c, collcBfloat16, r.comms[q],
                              r.streams[q]);
       },
       [](int n, size_t c) { return n * c; },
       [](int n, size_t c) { return n * c; },
       [](const std::vector<std::vector<uint16_t>> &in, int, int q, size_t c,
          size_t i, bool s) { return copied(in[i / c][q * c + i % c], s); }},
      {"broadcast", true, false,
       [](const Ranks &r, int q, size_t c) {
         return collcBroadcast(r.in[q], r.out[q], c, collcBfloat16, root,
                               r.comms[q], r.streams[q]);
       },
       [](int, size_t c) { return c; }, [](int, size_t c) { return c; },
       [](const std::vector<std::vector<uint16_t>> &in, int, int, size_t,
          size_t i, bool s) { return copied(in[root][i], s); }},
      {"reduce", true, true,
       [](const Ranks &r, int q, size_t c) {
         return collcReduce(r.in[q], r.out[q], c, collcBfloat16, collcSum, root,
                            r.comms[q], r.streams[q]);
       },
       [](int, size_t c) { return c; }, [](int, size_t c) { return c; },
       [](const std::vector<std::vector<uint16_t>> &in, int n, int, size_t,
          size_t i, bool) { return sum(in, n, i); }},
      {"scatter", true, false,
       [](const Ranks &r, int q, size_t c) {
         return collcScatter(r.in[q], r.out[q], c, collcBfloat16, root,
                             r.comms[q], r.streams[q]);
       },
       [](int n, size_t c) { return n * c; }, [](int, size_t c) { return c; },
       [](const std::vector<std::vector<uint16_t>> &in, int, int q, size_t c,
          size_t i, bool s) { return copied(in[root][q * c + i], s); }},
      {"gather", true, true,
       [](const Ranks &r, int q, size_t c) {
         return collcGather(r.in[q], r.out[q], c, collcBfloat16, root,
                            r.comms[q], r.streams[q]);
       },
       [](int, size_t c) { return c; }, [](int n, size_t c) { return n * c; },
       [](const std::vector<std::vector<uint16_t>> &in, int, int, size_t c,
          size_t i, bool s) { return copied(in[i / c][i % c], s); }},
  };
}

/// Whether `error` says the module has no such collective (a module of the
/// unrooted ones only): its calls are skipped, not failed.
bool absent(const std::string &error) {
  return error.find("the module has no collective") != std::string::npos;
}

/// Fresh inputs, poisoned outputs, one call on every rank, a bitwise check.
bool runOnce(Ranks &r, const Coll &c, size_t count, bool sentinel,
             const std::string &what, bool launch = true) {
  const int n = r.n;
  static std::vector<std::vector<uint16_t>> in;
  static int turn = 0;
  if (launch) {
    // Consecutive calls have different roots: a slot is then reused by
    // another producer, or for another consumer.
    root = c.rooted ? turn++ % n : 0;
    in.assign(n, {});
    for (int q = 0; q < n; ++q) {
      in[q].resize(c.inElems(n, count));
      for (auto &x : in[q])
        x = randomBf16(rng);
      CUDA(cudaMemcpy(r.in[q], in[q].data(), in[q].size() * 2,
                      cudaMemcpyHostToDevice));
      CUDA(cudaMemset(r.out[q], 0xFF, r.capacity * 2));
    }
    for (int q = 0; q < n; ++q) {
      collcResult_t res = c.call(r, q, count);
      if (res != collcSuccess) {
        const std::string error = collcGetLastError();
        if (absent(error)) {
          std::printf("SKIP %s: %s\n", what.c_str(), error.c_str());
          return false;
        }
        check(false, what + ": rank " + std::to_string(q) + " call: " + error);
        CUDA(cudaDeviceSynchronize());
        return false;
      }
    }
  }
  CUDA(cudaDeviceSynchronize());
  for (int q = 0; q < n; ++q) {
    collcResult_t async = collcSuccess;
    collcCommGetAsyncError(r.comms[q], &async);
    if (async != collcSuccess) {
      check(false, what + ": rank " + std::to_string(q) + ": " +
                       collcGetLastError());
      return false;
    }
    const size_t outN =
        c.rootOutput && q != root ? 0 : c.outElems(n, count);
    std::vector<uint16_t> out(outN + 128);
    CUDA(cudaMemcpy(out.data(), r.out[q], out.size() * 2,
                    cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < outN + 128; ++i) {
      const uint16_t want =
          i < outN ? c.ref(in, n, q, count, i, sentinel) : 0xFFFF;
      if (out[i] != want) {
        char msg[200];
        std::snprintf(msg, sizeof msg,
                      ": rank %d element %zu of %zu: got 0x%04x, want 0x%04x",
                      q, i, outN, out[i], want);
        check(false, what + msg);
        return false;
      }
    }
  }
  return true;
}

/// Per-call microseconds of 64 calls per rank, each rank's calls captured in
/// a graph of its own stream (the runtime refuses one capture across the
/// ranks' streams: it cannot tell their streams apart), the graphs launched
/// together, the time the slowest takes.
double timeGraph(Ranks &r, const Coll &c, size_t count) {
  const double us = collc::bench::timeCalls(
      r.streams, [&](int q) { return c.call(r, q, count) == collcSuccess; });
  if (us < 0) {
    std::printf("FAIL capture: %s\n", collcGetLastError());
    ++failed;
  }
  return us;
}

/// "v1" forces the v1 kernels (the baseline of the same run); a bare
/// encoding forces the one-shot program of it, "variant:encoding" that
/// program.
std::string forceOf(const char *encoding) {
  const std::string e = encoding;
  return e == "v1" || e.find(':') != std::string::npos ? e
                                                        : "one_shot:" + e;
}

/// Whether the forced program carries sentinel readiness (copies then
/// canonicalize the pattern).
bool isSentinel(const std::string &force) {
  return force.size() >= 9 && force.compare(force.size() - 9, 9, ":sentinel") == 0;
}

void encodingSuite(const char *encoding) {
  const std::string force = forceOf(encoding);
  setenv("COLLC_FORCE_VARIANT", force.c_str(), 1);
  const bool forcedSentinel = isSentinel(force);
  for (int n : worldSizes) {
    Ranks r;
    if (!init(r, n, 5000))
      continue;
    for (const Coll &c : collectives()) {
      const bool sentinel =
          forcedSentinel && (programsOf.empty() || programsOf.count(c.name));
      // Counts per rank that keep a rank's input within the band.
      const size_t top = bandTop / 2 / c.inElems(n, 1);
      // The band's bottom as a count (rounded up into the band).
      const size_t bottom =
          (bandBottom / 2 + c.inElems(n, 1) - 1) / c.inElems(n, 1);
      std::vector<size_t> counts = {0, 1, 7, 1000, top / 2 + 3, top};
      if (bottom > 0)
        counts = {bottom, bottom + 1, bottom + 7, (bottom + top) / 2 + 3, top};
      bool ok = true;
      int calls = 0;
      for (size_t count : counts)
        for (int rep = 0; rep < 2 && ok; ++rep, ++calls)
          ok = runOnce(r, c, count, sentinel,
                       force + " " + c.name + " n" + std::to_string(n) +
                           " count " + std::to_string(count));
      if (ok)
        check(true, force + " " + c.name + " n" + std::to_string(n) + ": " +
                        std::to_string(calls) + " eager calls bitwise");
      // Graph replay, then the outputs it left (half an unbounded band's
      // span: still two steps or more, at a quarter of the phase's time).
      if (ok) {
        const size_t count = unbounded ? top / 2 : top;
        runOnce(r, c, count, sentinel, "pre-graph");
        for (int q = 0; q < n; ++q)
          CUDA(cudaMemset(r.out[q], 0xFF, r.capacity * 2));
        const double us = timeGraph(r, c, count);
        ok = runOnce(r, c, count, sentinel,
                     force + " " + c.name + " n" + std::to_string(n) +
                         " after graph replay",
                     false);
        if (ok)
          check(true, force + " " + c.name + " n" + std::to_string(n) +
                          ": 704 graph calls, outputs bitwise");
        // Sizes as the bench counts them (bench/README.md): a rank's input
        // (all_reduce, reduce_scatter, all_to_all), the gathered output
        // (all_gather).
        const bool gather = c.name == std::string("all_gather") ||
                            c.name == std::string("gather");
        for (size_t bytes : {size_t(1024), size_t(4096), size_t(16384),
                             size_t(65536), size_t(262144),
                             size_t(1048576)}) {
          if (!ok || !results.json)
            break;
          // The sizes of the forced program's band (1-64 KiB by default).
          if ((bytes > 65536 && bytes > bandTop) ||
              (bandBottom > 0 && bytes < bandBottom))
            continue;
          const size_t count =
              bytes / 2 / (gather ? c.outElems(n, 1) : c.inElems(n, 1));
          const double t = timeGraph(r, c, count);
          std::printf("runtime %s %s n%d %zu bytes: %.3f us\n", c.name,
                      force.c_str(), n, bytes, t);
          std::fprintf(results.json,
                       "{\"collective\": \"%s\", \"dtype\": \"bf16\", "
                       "\"bytes\": %zu, \"nranks\": %d, "
                       "\"implementation\": \"collc-runtime\", "
                       "\"variant\": \"%s\", \"us\": %.4f, "
                       "\"algbw_gbs\": %.4f, \"machine\": \"%s\", "
                       "\"date\": \"%s\", \"method\": \"one GPU, ranks "
                       "in one process (collcCommInitAll), one stream "
                       "each, graph of 64 calls per rank, 8 timed "
                       "replays\"}\n",
                       c.name, bytes, n, force.c_str(), t, bytes / t / 1e3,
                       results.machine.c_str(), results.date.c_str());
        }
        (void)us;
      }
    }
    // Beyond every band: the v1 kernel, or a refusal where there is none.
    if (unbounded) {
      finish(r, false);
      continue;
    }
    const std::vector<Coll> all = collectives();
    const Coll &ar = all.front(); // all_reduce
    const size_t beyond = bandTop / 2 + 8;
    const collcResult_t res = collcAllReduce(r.in[0], r.out[0], beyond,
                                             collcBfloat16, collcSum,
                                             r.comms[0], r.streams[0]);
    if (res == collcSuccess) {
      // Rank 0 already launched: run every rank through runOnce afresh
      // after the others have matched that call.
      for (int q = 1; q < n; ++q)
        ar.call(r, q, beyond);
      CUDA(cudaDeviceSynchronize());
      if (runOnce(r, ar, beyond, false,
                  force + " n" + std::to_string(n) + " beyond the band (v1)"))
        check(true, force + " n" + std::to_string(n) +
                        ": a call beyond every band runs v1, bitwise");
    } else {
      check(res == collcInvalidArgument &&
                std::strstr(collcGetLastError(), "no kernel of the module"),
            force + " n" + std::to_string(n) +
                ": a call beyond every band is refused (no v1 kernel): " +
                collcGetLastError());
    }
    finish(r, false);
  }
}

/// One rank calls, the others never do: that rank's program times out and
/// the communicator refuses later calls.
void timeoutSuite(const char *encoding) {
  const std::string force = forceOf(encoding);
  // The call below is an AllReduce: without the forced program it would
  // run v1, whose timeout reads otherwise (the chunked one_shot:flag of
  // the library has no AllReduce; its two_shot:flag does).
  if (!programsOf.empty() && !programsOf.count("all_reduce")) {
    std::printf("SKIP %s timeout: all_reduce has no such program\n",
                force.c_str());
    return;
  }
  setenv("COLLC_FORCE_VARIANT", force.c_str(), 1);
  Ranks r;
  if (!init(r, 2, 200))
    return;
  // A count in the forced program's band.
  const size_t count = bandBottom > 0 ? bandBottom / 2 + 8 : 4096;
  collcAllReduce(r.in[0], r.out[0], count, collcBfloat16, collcSum, r.comms[0],
                 r.streams[0]);
  CUDA(cudaStreamSynchronize(r.streams[0]));
  collcResult_t async = collcSuccess;
  collcCommGetAsyncError(r.comms[0], &async);
  const std::string msg = collcGetLastError();
  check(async == collcTimeout &&
            msg.find("program " + force + ", call 1") != std::string::npos &&
            msg.find("waiting for rank 1's data") != std::string::npos,
        force + " timeout reported: " + msg);
  const collcResult_t later =
      collcAllReduce(r.in[0], r.out[0], 16, collcBfloat16, collcSum,
                     r.comms[0], r.streams[0]);
  check(later == collcInvalidUsage, force + " later call refused: " +
                                        std::string(collcGetLastError()));
  finish(r, true);
}

} // namespace

int main(int argc, char **argv) {
  alarm(300);
  if (argc < 2) {
    std::printf("usage: runtime_programs MODULE [--json=FILE]\n");
    return 2;
  }
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (results.parse(a))
      continue;
    if (a.rfind("--band-top=", 0) == 0) {
      bandTop = std::strtoull(a.c_str() + 11, nullptr, 10);
      unbounded = bandTop > kUnboundedTop;
      if (unbounded)
        bandTop = kUnboundedTop;
    }
    else if (a.rfind("--band-bottom=", 0) == 0)
      bandBottom = std::strtoull(a.c_str() + 14, nullptr, 10);
    else if (a.rfind("--programs-of=", 0) == 0) {
      std::string list = a.substr(14);
      for (size_t at = 0; at < list.size();) {
        size_t end = list.find(',', at);
        if (end == std::string::npos)
          end = list.size();
        if (end > at)
          programsOf.insert(list.substr(at, end - at));
        at = end + 1;
      }
    }
    else if (a.rfind("--ranks=", 0) == 0 || a.rfind("--encodings=", 0) == 0) {
      const bool ranks = a[2] == 'r';
      std::string list = a.substr(a.find('=') + 1);
      ranks ? worldSizes.clear() : encodings.clear();
      for (size_t at = 0; at <= list.size();) {
        size_t comma = list.find(',', at);
        if (comma == std::string::npos)
          comma = list.size();
        const std::string item = list.substr(at, comma - at);
        if (!item.empty())
          ranks ? worldSizes.push_back(std::atoi(item.c_str()))
                : encodings.push_back(item);
        at = comma + 1;
      }
    }
  }
  if (collcModuleLoad(&module, argv[1]) != collcSuccess) {
    std::printf("FATAL %s\n", collcGetLastError());
    return 2;
  }
  for (const std::string &e : encodings)
    encodingSuite(e.c_str());
  for (const std::string &e : encodings)
    if (!isSentinel(forceOf(e.c_str())) && e != "v1") // v1: its own timeouts
      timeoutSuite(e.c_str());
  collcModuleDestroy(module);
  if (results.json)
    std::fclose(results.json);
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
