//===- allreduce_probe.cu - hand-written one-shot AllReduce programs ------===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// The speed proof of issue 10 before the emitter lands: a one-shot AllReduce
// (bf16, 2 ranks) written in exactly the form the emitter prints
// (v2-contract.md, runtime/include/collc/device/snac/program.cuh), one kernel
// per encoding and grain, both ranks in one process on one GPU, one stream
// each, peer pointers local.
//
//  - correctness: fresh random bf16 bits every round (the sentinel pattern,
//    -0.0, NaNs, infinities and subnormals among them), poisoned outputs
//    (0xFFFF), counts 0, 1, 3, 1023, 32768 and the band's top, an input one
//    element off 8-byte alignment; bitwise against a host reference (FP32 sum
//    in rank order, one rounding to nearest even, NaN -> 0x7FFF) on both ranks,
//    after eager calls and after graph replays; error records must stay 0;
//  - a timeout (rank 1 never launches) and a sequence mismatch (rank 1 ahead
//    by two calls) must be recorded with their codes;
//  - speed: 64 calls per rank captured in one CUDA graph, 3 warm-up replays, 8
//    timed, per-call time = elapsed / (8 * 64) (both ranks' chains are in the
//    graph, so the time is the slower rank's), for each (encoding, CTAs,
//    threads, grain) and size, against an empty kernel of the same grid with
//    PDL.
//
// Build and run on the GPU machine: scripts/gpu-programs.sh.
// Output: one line per measurement, and JSON records (--json=FILE).
//
//===----------------------------------------------------------------------===//

#include "collc/device/snac/program.cuh"

#include <cuda_runtime.h>

#include "graph_timing.h"
#include "host_helpers.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

using namespace collc::prog;

namespace {

constexpr int kRanks = 2;
constexpr int kSlots = 2;
/// The band's top: the largest per-rank input of the probe.
constexpr unsigned long long kMaxBytes = 256 * 1024;
/// Most warps of any grid the probe launches (the FLAG ready words).
constexpr int kMaxSegments = 64 * 512 / 32;
constexpr int kMaxCtas = 64;

/// collcRxRegionBytes(Enc, kMaxBytes, kMaxSegments), as the emitter prints it
/// (a literal); main() checks it against abi.h.
template <Encoding Enc> __host__ __device__ constexpr unsigned long long
regionBytes() {
  return Enc == Encoding::ll16       ? 2 * kMaxBytes
         : Enc == Encoding::sentinel ? kMaxBytes
                                     : kMaxBytes + kMaxSegments * 8;
}

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t err_ = (x);                                                    \
    if (err_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,         \
                   cudaGetErrorString(err_));                                  \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

} // namespace

// The contract's kernel, verbatim but for the template parameters.
template <Encoding Enc, int Grain>
__global__ void __launch_bounds__(512, 1)
    collc_all_reduce__one_shot_bf16_n2(collcProgramParams p,
                                       const __grid_constant__ Peers<2> rx,
                                       const __grid_constant__ Sizes<2> sizes) {
  Program<__nv_bfloat16, 2, Enc, kSlots, regionBytes<Enc>(), true, Grain> g(
      p, rx, sizes);
  g.wait_previous();
  const Epoch e = g.epoch();
  g.put(/*op=*/0, e, g.input(0), g.count(g.rank(), 0), kAllRanks);
  g.launch_dependents();
  // `template`: g's type depends on Enc here (the emitter's kernels are not
  // templates and spell it as the contract does).
  g.template reduce_take<RedOp::Sum>(/*op=*/1, e, g.output(0),
                                         g.count(g.rank(), 0));
  g.finish(e);
}

// The launch floor: the same grid and parameters, PDL, nothing else.
__global__ void __launch_bounds__(512, 1)
    empty_program(collcProgramParams p, Peers<2> rx, Sizes<2> sizes) {
  Program<__nv_bfloat16, 2, Encoding::ll16, kSlots, 16, true> g(p, rx, sizes);
  g.wait_previous();
  g.launch_dependents();
}

// The frame, taken apart: the call counter alone (wait, the one dependent
// load, the store), then a put of 0 elements and its padding packet's wait.
__global__ void __launch_bounds__(512, 1)
    frame_counter(collcProgramParams p, Peers<2> rx, Sizes<2> sizes) {
  Program<__nv_bfloat16, 2, Encoding::ll16, kSlots,
          regionBytes<Encoding::ll16>(), true>
      g(p, rx, sizes);
  g.wait_previous();
  const Epoch e = g.epoch();
  g.launch_dependents();
  g.finish(e);
}

// The frame's experiments (--frame; issue 10's count-0 target), neither in
// the emitter's form:
// The call counter off the critical path: loaded before griddepcontrol.wait
// and stored before launch_dependents (then a fence and a CTA barrier, so
// the store precedes every thread's trigger): the next call of this
// program on the stream starts only after every CTA triggered, so its load
// sees the store (the hardware's order of trigger and launch; the PTX
// memory model promises visibility only after griddepcontrol.wait).
template <Encoding Enc>
__global__ void __launch_bounds__(512, 1)
    early_counter_bf16_n2(collcProgramParams p, Peers<2> rx, Sizes<2> sizes) {
  Program<__nv_bfloat16, 2, Enc, kSlots, regionBytes<Enc>(), true> g(p, rx,
                                                                     sizes);
  const Epoch e = g.epoch();
  g.wait_previous();
  g.put(/*op=*/0, e, g.input(0), g.count(g.rank(), 0), kAllRanks);
  g.finish(e);
  __threadfence();
  __syncthreads();
  g.launch_dependents();
  g.template reduce_take<RedOp::Sum>(/*op=*/1, e, g.output(0),
                                         g.count(g.rank(), 0));
}

// Count 0 only: the padding packet (it reads no input) put before
// griddepcontrol.wait as well, so the exchange overlaps the kernel boundary.
// Needs 4 slots: p writes slot (e + 1) mod S once its call e passed its
// wait, i.e. once its call e - 1 ended, which read q's call-(e - 1) padding,
// put once q's call e - 2 passed its wait, i.e. after q's call e - 3 ended:
// q may still read slots of calls e - 2 and later.
__global__ void __launch_bounds__(512, 1)
    frame_early_padding(collcProgramParams p, Peers<2> rx, Sizes<2> sizes) {
  Program<__nv_bfloat16, 2, Encoding::ll16, 4, regionBytes<Encoding::ll16>(),
          true>
      g(p, rx, sizes);
  const Epoch e = g.epoch();
  g.put(/*op=*/0, e, g.input(0), 0, kAllRanks);
  g.wait_previous();
  g.finish(e);
  __threadfence();
  __syncthreads();
  g.launch_dependents();
  g.reduce_take<RedOp::Sum>(/*op=*/1, e, g.output(0), 0);
}

namespace {

using Kernel = void (*)(collcProgramParams, Peers<2>, Sizes<2>);

struct Config {
  const char *encoding;
  int encodingId;
  Kernel kernel;
  int grain;
};

struct Rank {
  __nv_bfloat16 *input = nullptr, *output = nullptr;
  void *rx = nullptr;
  unsigned long long *counters = nullptr;
  unsigned long long *error = nullptr; // host-mapped
  unsigned long long *errorDevice = nullptr;
  cudaStream_t stream = nullptr;
};

Rank ranks[kRanks];
unsigned long long rxBytes = 0;
std::mt19937_64 rng(20261201);
int failures = 0;
ResultOptions results;

void resetState(const Config &c, int ctas) {
  CHECK(cudaDeviceSynchronize());
  for (Rank &r : ranks) {
    CHECK(cudaMemset(r.rx, collcRxFillByte(c.encodingId), rxBytes));
    CHECK(cudaMemset(r.counters, 0, kMaxCtas * 8));
    std::memset(r.error, 0, COLLC_ERROR_WORDS * 8);
  }
  (void)ctas;
  CHECK(cudaDeviceSynchronize());
}

void launch(Kernel k, int rank, int ctas, int threads, long long count,
            long long inputOffset, unsigned long long timeoutNs, bool pdl) {
  Rank &r = ranks[rank];
  collcProgramParams p{};
  p.input = r.input + inputOffset;
  p.output = r.output;
  p.counters = r.counters;
  p.error = r.errorDevice;
  p.timeoutNs = timeoutNs;
  p.rank = rank;
  p.worldSize = kRanks;
  Peers<2> rx{{ranks[0].rx, ranks[1].rx}};
  Sizes<2> sizes{};
  std::vector<long long> m(kRanks, count);
  collcFillSizeVector(m.data(), kRanks, 1, rank, sizes.v);
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(ctas);
  cfg.blockDim = dim3(threads);
  cfg.stream = r.stream;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = pdl ? 1 : 0;
  CHECK(cudaLaunchKernelEx(&cfg, k, p, rx, sizes));
}

void fillInputs(long long count, std::vector<uint16_t> (&in)[kRanks]) {
  for (int q = 0; q < kRanks; ++q) {
    in[q].resize(count + 1);
    for (auto &x : in[q])
      x = randomBf16(rng);
    CHECK(cudaMemcpy(ranks[q].input, in[q].data(), in[q].size() * 2,
                     cudaMemcpyHostToDevice));
  }
}

void poisonOutputs(long long count) {
  for (Rank &r : ranks)
    CHECK(cudaMemset(r.output, 0xFF, (count + 64) * 2));
}

/// Bitwise check of both ranks' outputs against the host reference, plus the
/// poison just past the end, plus clean error records.
bool verify(const std::string &what, long long count, long long inputOffset,
            const std::vector<uint16_t> (&in)[kRanks]) {
  std::vector<uint16_t> ref(count);
  for (long long i = 0; i < count; ++i) {
    float acc = floatFromBf16(in[0][inputOffset + i]);
    if ((in[0][inputOffset + i] & 0x7FFF) > 0x7F80)
      acc = NAN;
    for (int q = 1; q < kRanks; ++q)
      acc = acc + floatFromBf16(in[q][inputOffset + i]);
    ref[i] = bf16FromFloat(acc);
  }
  bool ok = true;
  for (int q = 0; q < kRanks && ok; ++q) {
    std::vector<uint16_t> out(count + 64);
    CHECK(cudaMemcpy(out.data(), ranks[q].output, out.size() * 2,
                     cudaMemcpyDeviceToHost));
    for (long long i = 0; i < count; ++i)
      if (out[i] != ref[i]) {
        std::printf("FAIL %s: rank %d element %lld: got 0x%04x, want 0x%04x "
                    "(inputs 0x%04x 0x%04x)\n",
                    what.c_str(), q, i, out[i], ref[i], in[0][inputOffset + i],
                    in[1][inputOffset + i]);
        ok = false;
        break;
      }
    for (long long i = count; i < count + 64 && ok; ++i)
      if (out[i] != 0xFFFF) {
        std::printf("FAIL %s: rank %d wrote past the end (element %lld)\n",
                    what.c_str(), q, i);
        ok = false;
      }
    if (ranks[q].error[0] || ranks[q].error[COLLC_ERROR_REMOTE]) {
      std::printf("FAIL %s: rank %d error record %llu/%llu\n", what.c_str(), q,
                  ranks[q].error[0], ranks[q].error[COLLC_ERROR_REMOTE]);
      ok = false;
    }
  }
  if (!ok)
    ++failures;
  return ok;
}

/// Eager calls on both ranks, fresh data each round, then a check.
void correctness(const Config &c, int ctas, int threads) {
  resetState(c, ctas);
  const long long counts[] = {0, 1, 3, 1023, 32768, (long long)kMaxBytes / 2};
  int round = 0;
  for (long long count : counts)
    for (long long offset : {0ll, 1ll}) {
      std::vector<uint16_t> in[kRanks];
      fillInputs(count, in);
      poisonOutputs(count);
      for (int q = 0; q < kRanks; ++q)
        launch(c.kernel, q, ctas, threads, count, offset, 2000000000ull, true);
      CHECK(cudaDeviceSynchronize());
      char what[160];
      std::snprintf(what, sizeof what, "%s g%d %dx%d count %lld offset %lld "
                    "(call %d)", c.encoding, c.grain, ctas, threads, count,
                    offset, ++round);
      verify(what, count, offset, in);
    }
}

void record(const char *impl, const char *variant, int ctas, int threads,
            int grain, long long bytes, double us) {
  std::printf("%-8s %-10s ctas %3d threads %3d grain %d bytes %7lld  %7.3f us"
              "  %7.2f GB/s\n",
              impl, variant, ctas, threads, grain, bytes, us,
              us > 0 ? bytes / us / 1e3 : 0.0);
  if (results.json)
    std::fprintf(results.json,
                 "{\"collective\": \"all_reduce\", \"dtype\": \"bf16\", "
                 "\"bytes\": %lld, \"nranks\": %d, \"implementation\": \"%s\", "
                 "\"variant\": \"%s\", \"ctas\": %d, \"threads\": %d, "
                 "\"grain\": %d, \"us\": %.4f, \"algbw_gbs\": %.4f, "
                 "\"machine\": \"%s\", \"date\": \"%s\", \"method\": \"one "
                 "GPU, ranks in one process, one stream each, graph of 64 "
                 "calls per rank, 8 timed replays\"}\n",
                 bytes, kRanks, impl, variant, ctas, threads, grain, us,
                 us > 0 ? bytes / us / 1e3 : 0.0, results.machine.c_str(),
                 results.date.c_str());
}

/// Per-call microseconds of `kernel` at `count` elements: 64 calls per rank
/// in one graph, both ranks' chains in it.
double timeGraph(Kernel k, int ctas, int threads, long long count) {
  cudaEvent_t fork, join;
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  cudaStream_t s0 = ranks[0].stream, s1 = ranks[1].stream;
  cudaGraphExec_t exec = collc::bench::captureGraph(
      s0, cudaStreamCaptureModeThreadLocal, [&] {
        CHECK(cudaEventRecord(fork, s0));
        CHECK(cudaStreamWaitEvent(s1, fork, 0));
        for (int i = 0; i < collc::bench::kCalls; ++i) {
          launch(k, 0, ctas, threads, count, 0, 2000000000ull, true);
          launch(k, 1, ctas, threads, count, 0, 2000000000ull, true);
        }
        CHECK(cudaEventRecord(join, s1));
        CHECK(cudaStreamWaitEvent(s0, join, 0));
        return true;
      });
  const double us = collc::bench::replayTimed({s0}, {exec});
  for (cudaEvent_t ev : {fork, join})
    CHECK(cudaEventDestroy(ev));
  return us;
}

/// Times every size, then checks the outputs the graph left behind.
void bench(const Config &c, int ctas, int threads,
           const std::vector<long long> &sizes) {
  resetState(c, ctas);
  for (long long bytes : sizes) {
    const long long count = bytes / 2;
    std::vector<uint16_t> in[kRanks];
    fillInputs(count, in);
    poisonOutputs(count);
    const double us = timeGraph(c.kernel, ctas, threads, count);
    char what[160];
    std::snprintf(what, sizeof what, "%s g%d %dx%d graph, %lld bytes",
                  c.encoding, c.grain, ctas, threads, bytes);
    if (verify(what, count, 0, in))
      record("program", c.encoding, ctas, threads, c.grain, bytes, us);
  }
}

/// The launch floor at one grid: the empty program's time and the frame's
/// (the call counter alone, count 0).
void timeFrames(int ctas, int threads) {
  Config empty{"empty", COLLC_ENCODING_LL16, empty_program, 1};
  resetState(empty, ctas);
  record("empty", "pdl", ctas, threads, 1, 0,
         timeGraph(empty_program, ctas, threads, 0));
  resetState(empty, ctas);
  record("frame", "counter", ctas, threads, 1, 0,
         timeGraph(frame_counter, ctas, threads, 0));
}

/// A rank that never launches: the other records a timeout naming it; a rank
/// two calls ahead: the other records a sequence mismatch.
void faults(const Config &c) {
  const int ctas = 16, threads = 512;
  resetState(c, ctas);
  launch(c.kernel, 0, ctas, threads, 4096, 0, 1000000ull, true);
  CHECK(cudaDeviceSynchronize());
  const unsigned long long *e = ranks[0].error + COLLC_ERROR_REMOTE;
  if (e[0] != COLLC_KERNEL_TIMEOUT || e[5] != 1 || e[1] != 1 || e[3] != 1) {
    std::printf("FAIL %s timeout: record code %llu call %llu op %llu peer "
                "%lld\n",
                c.encoding, e[0], e[1], e[3], (long long)e[5]);
    ++failures;
  } else {
    std::printf("PASS %s timeout: rank 0 recorded a timeout waiting for rank "
                "1 (call 1, op 1, slot %llu, element %llu)\n",
                c.encoding, e[6], e[7]);
  }
  if (c.encodingId == COLLC_ENCODING_SENTINEL)
    return; // no call number in the data: nothing to compare
  resetState(c, ctas);
  std::vector<unsigned long long> ahead(kMaxCtas, 2);
  CHECK(cudaMemcpy(ranks[1].counters, ahead.data(), kMaxCtas * 8,
                   cudaMemcpyHostToDevice));
  for (int q = 0; q < kRanks; ++q)
    launch(c.kernel, q, ctas, threads, 4096, 0, 20000000ull, true);
  CHECK(cudaDeviceSynchronize());
  if (e[0] != COLLC_KERNEL_SEQUENCE || e[5] != 1) {
    std::printf("FAIL %s sequence: record code %llu peer %lld\n", c.encoding,
                e[0], (long long)e[5]);
    ++failures;
  } else {
    std::printf("PASS %s sequence: rank 0 recorded a later call from rank 1 "
                "(call %llu, slot %llu)\n",
                c.encoding, e[1], e[6]);
  }
}

} // namespace

int main(int argc, char **argv) {
  alarm(500); // a hang is a failure, not a stuck machine
  bool quick = false, frame = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (results.parse(a))
      continue;
    if (a == "--quick")
      quick = true;
    else if (a == "--frame")
      frame = true;
  }
  CHECK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  if (regionBytes<Encoding::ll16>() !=
          collcRxRegionBytes(COLLC_ENCODING_LL16, kMaxBytes, kMaxSegments) ||
      regionBytes<Encoding::sentinel>() !=
          collcRxRegionBytes(COLLC_ENCODING_SENTINEL, kMaxBytes,
                             kMaxSegments) ||
      regionBytes<Encoding::flag>() !=
          collcRxRegionBytes(COLLC_ENCODING_FLAG, kMaxBytes, kMaxSegments)) {
    std::printf("FAIL: region sizes differ from collcRxRegionBytes\n");
    return 1;
  }
  // Room for frame_early_padding's 4 slots.
  rxBytes = collcRxBytes(4, kRanks, regionBytes<Encoding::ll16>());
  for (Rank &r : ranks) {
    CHECK(cudaMalloc(&r.input, kMaxBytes + 256));
    CHECK(cudaMalloc(&r.output, kMaxBytes + 256));
    CHECK(cudaMalloc(&r.rx, rxBytes));
    CHECK(cudaMalloc(&r.counters, kMaxCtas * 8));
    CHECK(cudaHostAlloc(&r.error, COLLC_ERROR_WORDS * 8, cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer(&r.errorDevice, r.error, 0));
    CHECK(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking));
  }

  const Config configs[] = {
      {"ll16", COLLC_ENCODING_LL16,
       collc_all_reduce__one_shot_bf16_n2<Encoding::ll16, 1>, 1},
      {"ll16", COLLC_ENCODING_LL16,
       collc_all_reduce__one_shot_bf16_n2<Encoding::ll16, 2>, 2},
      {"ll16", COLLC_ENCODING_LL16,
       collc_all_reduce__one_shot_bf16_n2<Encoding::ll16, 4>, 4},
      {"sentinel", COLLC_ENCODING_SENTINEL,
       collc_all_reduce__one_shot_bf16_n2<Encoding::sentinel, 1>, 1},
      {"sentinel", COLLC_ENCODING_SENTINEL,
       collc_all_reduce__one_shot_bf16_n2<Encoding::sentinel, 2>, 2},
      {"flag", COLLC_ENCODING_FLAG,
       collc_all_reduce__one_shot_bf16_n2<Encoding::flag, 1>, 1},
  };
  const int grids[][2] = {{8, 256},  {16, 256}, {16, 512}, {32, 256},
                          {32, 512}, {64, 256}, {64, 512}, {4, 512}};
  const std::vector<long long> sizes = {0,         1024,      4096,
                                        16 * 1024, 64 * 1024, 256 * 1024};

  for (const Config &c : configs) {
    correctness(c, 16, 512);
    correctness(c, 5, 96); // odd grid: segments and strides not powers of 2
    if (c.grain == 1)
      faults(c);
  }
  if (frame) {
    // The frame's experiments: the contract's program against the counter
    // moved off the critical path (bitwise, every size) and the padding
    // put before the wait (count 0), each against the empty kernel.
    const Config early{"ll16-early-counter", COLLC_ENCODING_LL16,
                       early_counter_bf16_n2<Encoding::ll16>, 1};
    const Config padding{"ll16-early-padding", COLLC_ENCODING_LL16,
                         frame_early_padding, 1};
    correctness(early, 16, 512);
    correctness(early, 5, 96);
    for (const auto &g : {std::array<int, 2>{2, 256}, {16, 256}, {32, 256}}) {
      timeFrames(g[0], g[1]);
      bench(configs[0], g[0], g[1], {0, 1024, 65536});
      bench(early, g[0], g[1], {0, 1024, 65536});
      bench(padding, g[0], g[1], {0});
    }
    std::printf("%d failures\n", failures);
    if (results.json)
      std::fclose(results.json);
    return failures ? 1 : 0;
  }
  std::printf("correctness: %d failures\n", failures);

  for (const auto &g : grids) {
    timeFrames(g[0], g[1]);
  }
  // The smallest grids, for the frame (count 0) and 1 KiB.
  for (const auto &g : {std::array<int, 2>{1, 256}, {2, 256}, {1, 32}}) {
    bench(configs[0], g[0], g[1], {0, 1024, 4096});
  }
  for (const Config &c : configs)
    for (const auto &g : grids) {
      if (quick && !(g[0] == 16 && g[1] == 512))
        continue;
      bench(c, g[0], g[1], sizes);
    }
  std::printf("%d failures\n", failures);
  if (results.json)
    std::fclose(results.json);
  return failures ? 1 : 0;
}
