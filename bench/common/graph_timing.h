//===- graph_timing.h - per-call time of captured CUDA graphs ---*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// The one timing method of the GPU benchmarks and program tests
// (bench/ablation, bench/latency, test/gpu/programs): calls captured into a
// CUDA graph per stream, the graphs replayed together to warm up, then
// replayed kTimed times between CUDA events on each stream; the per-call
// time is the slowest stream's span over the calls it replayed. Host code,
// CUDA runtime API only. A CUDA error is fatal (exit 2).
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_BENCH_COMMON_GRAPH_TIMING_H
#define COLLC_BENCH_COMMON_GRAPH_TIMING_H

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

namespace collc::bench {

/// Calls per graph, warm-up replays and timed replays.
constexpr int kCalls = 64, kWarm = 3, kTimed = 8;

/// A CUDA error is fatal: "FATAL file:line: call: error", exit 2
/// (COLLC_CUDA_CHECK names the call and where it is).
inline void cudaCheck(cudaError_t err, const char *what, const char *file,
                      int line) {
  if (err == cudaSuccess)
    return;
  std::printf("FATAL %s:%d: %s: %s\n", file, line, what,
              cudaGetErrorString(err));
  std::exit(2);
}
#define COLLC_CUDA_CHECK(x)                                                    \
  ::collc::bench::cudaCheck((x), #x, __FILE__, __LINE__)

/// Captures on `stream` the graph of what `record()` issues and
/// instantiates it; null when `record` fails (returns false).
inline cudaGraphExec_t captureGraph(cudaStream_t stream,
                                    cudaStreamCaptureMode mode,
                                    const std::function<bool()> &record) {
  cudaGraph_t graph;
  COLLC_CUDA_CHECK(cudaStreamBeginCapture(stream, mode));
  bool ok = record();
  COLLC_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  if (!ok)
    return nullptr;
  cudaGraphExec_t exec;
  COLLC_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  COLLC_CUDA_CHECK(cudaGraphDestroy(graph));
  return exec;
}

/// Replays `execs[q]` on `streams[q]`, all together: kWarm times, then
/// kTimed times between events on each stream. Returns the per-call
/// microseconds of graphs of `calls` calls each: the slowest stream's span
/// (the streams start within microseconds of each other) over kTimed x
/// `calls`. Destroys the graphs.
inline double replayTimed(const std::vector<cudaStream_t> &streams,
                          const std::vector<cudaGraphExec_t> &execs,
                          int calls = kCalls) {
  const size_t n = streams.size();
  std::vector<cudaEvent_t> start(n), stop(n);
  for (size_t q = 0; q < n; ++q) {
    COLLC_CUDA_CHECK(cudaEventCreate(&start[q]));
    COLLC_CUDA_CHECK(cudaEventCreate(&stop[q]));
  }
  auto replay = [&](int times, bool timed) {
    COLLC_CUDA_CHECK(cudaDeviceSynchronize());
    for (size_t q = 0; q < n; ++q) {
      if (timed)
        COLLC_CUDA_CHECK(cudaEventRecord(start[q], streams[q]));
      for (int i = 0; i < times; ++i)
        COLLC_CUDA_CHECK(cudaGraphLaunch(execs[q], streams[q]));
      if (timed)
        COLLC_CUDA_CHECK(cudaEventRecord(stop[q], streams[q]));
    }
    COLLC_CUDA_CHECK(cudaDeviceSynchronize());
  };
  replay(kWarm, false);
  replay(kTimed, true);
  float most = 0;
  for (size_t q = 0; q < n; ++q) {
    float ms = 0;
    COLLC_CUDA_CHECK(cudaEventElapsedTime(&ms, start[q], stop[q]));
    most = ms > most ? ms : most;
    COLLC_CUDA_CHECK(cudaGraphExecDestroy(execs[q]));
    COLLC_CUDA_CHECK(cudaEventDestroy(start[q]));
    COLLC_CUDA_CHECK(cudaEventDestroy(stop[q]));
  }
  return most * 1000.0 / (kTimed * calls);
}

/// Per-call microseconds of `call(q)` on each of `streams`: kCalls calls a
/// stream captured into a graph of its own (`mode`), replayed together
/// (replayTimed); -1 when a call fails in the capture (`call` returns false).
inline double timeCalls(
    const std::vector<cudaStream_t> &streams,
    const std::function<bool(int q)> &call,
    cudaStreamCaptureMode mode = cudaStreamCaptureModeThreadLocal) {
  std::vector<cudaGraphExec_t> execs(streams.size());
  for (size_t q = 0; q < streams.size(); ++q) {
    execs[q] = captureGraph(streams[q], mode, [&] {
      for (int i = 0; i < kCalls; ++i)
        if (!call(static_cast<int>(q)))
          return false;
      return true;
    });
    if (!execs[q]) {
      for (size_t p = 0; p < q; ++p)
        COLLC_CUDA_CHECK(cudaGraphExecDestroy(execs[p]));
      return -1;
    }
  }
  return replayTimed(streams, execs);
}

} // namespace collc::bench

#endif // COLLC_BENCH_COMMON_GRAPH_TIMING_H
