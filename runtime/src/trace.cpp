//===- trace.cpp - Device timelines: the runtime's side ---------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// COLLC_TRACE=FILE (docs/runtime.md, "Device timelines"): a module compiled
/// with --device-trace gets, per communicator, a buffer its kernels record
/// into (abi.h, collcTraceBuffer) and a clock offset; when the communicator
/// is destroyed its events join the process's and FILE is rewritten with
/// them all (one file per process; "%p" in FILE is the process id).
/// COLLC_TRACE with a module without the hooks is refused: it would record
/// nothing. COLLC_TRACE_EVENTS sets the capacity (default 1048576 events
/// of 32 bytes per communicator).
///
//===----------------------------------------------------------------------===//

#include "trace.h"

#include "checks.h"
#include "cudawrap.h"
#include "debug.h"
#include "runtime.h"
#include "trace_json.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <string>
#include <unistd.h>
#include <vector>

namespace collc {
namespace {

const char *tracePath() {
  const char *path = std::getenv("COLLC_TRACE");
  return path && *path ? path : nullptr;
}

long long realtimeNs() {
  timespec t{};
  clock_gettime(CLOCK_REALTIME, &t);
  return (long long)t.tv_sec * 1000000000ll + t.tv_nsec;
}

std::mutex collectedMutex;
std::vector<TraceSource> &collected() {
  static std::vector<TraceSource> sources;
  return sources;
}

/// The host's CLOCK_REALTIME minus the device's %globaltimer: the kernel
/// collc_trace_clock (trace.cuh) stamps between two host readings; the
/// closest of five pairs counts.
collcResult_t measureOffset(collcComm *comm, long long &offset) {
  CUfunction clock = nullptr;
  CU_CHECK(cuModuleGetFunction(&clock, comm->cuModule, "collc_trace_clock"));
  CUdeviceptr stamp = 0;
  CU_CHECK(cuMemAlloc(&stamp, 8));
  long long best = -1;
  collcResult_t res = collcSuccess;
  for (int i = 0; i < 5 && res == collcSuccess; ++i) {
    CUlaunchConfig config{};
    config.gridDimX = config.gridDimY = config.gridDimZ = 1;
    config.blockDimX = config.blockDimY = config.blockDimZ = 1;
    void *args[] = {&stamp};
    const long long before = realtimeNs();
    CU_CHECK_GOTO(cuLaunchKernelEx(&config, clock, args, nullptr), res, done);
    CU_CHECK_GOTO(cuCtxSynchronize(), res, done);
    {
      const long long after = realtimeNs();
      unsigned long long device = 0;
      CU_CHECK_GOTO(cuMemcpyDtoH(&device, stamp, 8), res, done);
      if (best < 0 || after - before < best) {
        best = after - before;
        offset = before + (after - before) / 2 - (long long)device;
      }
    }
  }
done:
  drv::pfn_cuMemFree(stamp);
  return res;
}

} // namespace

collcResult_t traceCheck(collcModule_t module) {
  const char *path = tracePath();
  if (path && !module->deviceTrace)
    return COLLC_FAIL(collcInvalidUsage,
                      "COLLC_TRACE=%s is set, but the module (%s) was "
                      "compiled without --device-trace, so its kernels record "
                      "nothing; rebuild it with collc --emit=module "
                      "--device-trace, or unset COLLC_TRACE",
                      path, module->specFile.c_str());
  return collcSuccess;
}

collcResult_t traceSetup(collcComm *comm) {
  if (!tracePath())
    return collcSuccess;
  unsigned long long capacity = 1ull << 20;
  if (const char *env = std::getenv("COLLC_TRACE_EVENTS")) {
    char *end = nullptr;
    capacity = std::strtoull(env, &end, 10);
    if (!*env || *end || capacity == 0 || capacity > (1ull << 32))
      return COLLC_FAIL(collcInvalidArgument,
                        "COLLC_TRACE_EVENTS=%s: expected events per "
                        "communicator, 1 to 4294967296",
                        env);
  }
  CUdeviceptr symbol = 0;
  size_t symbolBytes = 0;
  CU_CHECK(cuModuleGetGlobal(&symbol, &symbolBytes, comm->cuModule,
                             COLLC_TRACE_SYMBOL));
  if (symbolBytes != sizeof(CUdeviceptr))
    return COLLC_FAIL(collcInvalidUsage,
                      "the module's %s is %zu bytes, expected a pointer",
                      COLLC_TRACE_SYMBOL, symbolBytes);
  CU_CHECK(cuMemAlloc(&comm->traceBuffer, collcTraceBufferBytes(capacity)));
  const unsigned long long header[2] = {capacity, 0};
  CU_CHECK(cuMemcpyHtoD(comm->traceBuffer, header, sizeof header));
  CU_CHECK(cuMemcpyHtoD(symbol, &comm->traceBuffer, sizeof(CUdeviceptr)));
  comm->traceCapacity = capacity;
  return measureOffset(comm, comm->traceOffsetNs);
}

void traceCollect(collcComm *comm) {
  const char *path = tracePath();
  if (!comm->traceBuffer || !path)
    return;
  TraceSource s;
  s.rank = comm->rank;
  s.device = comm->device;
  s.offsetNs = comm->traceOffsetNs;
  unsigned long long header[2] = {0, 0};
  if (drv::pfn_cuMemcpyDtoH(header, comm->traceBuffer, sizeof header) !=
      CUDA_SUCCESS) {
    COLLC_WARN("COLLC_TRACE: rank %d: cannot read its trace buffer",
               comm->rank);
    return;
  }
  s.recorded = header[1];
  s.events.resize(std::min(header[1], comm->traceCapacity));
  if (!s.events.empty() &&
      drv::pfn_cuMemcpyDtoH(s.events.data(), comm->traceBuffer + 16,
                            s.events.size() * sizeof(collcTraceEvent)) !=
          CUDA_SUCCESS) {
    COLLC_WARN("COLLC_TRACE: rank %d: cannot read its events", comm->rank);
    return;
  }
  // The key of a program's events is its call counters, of a v1 kernel's
  // its state words: `state` of both.
  for (const Workspace &w : comm->workspaces)
    s.kernels.emplace_back(w.state, w.kernel->name);
  if (s.recorded > s.events.size())
    COLLC_WARN("COLLC_TRACE: rank %d: %llu of %llu events dropped (buffer "
               "full; raise COLLC_TRACE_EVENTS)",
               comm->rank, s.recorded - s.events.size(), s.recorded);

  std::lock_guard<std::mutex> lock(collectedMutex);
  collected().push_back(std::move(s));
  std::string file(path);
  if (size_t at = file.find("%p"); at != std::string::npos)
    file.replace(at, 2, std::to_string(getpid()));
  const std::string text = traceJson(collected());
  FILE *f = std::fopen(file.c_str(), "w");
  if (!f || std::fwrite(text.data(), 1, text.size(), f) != text.size())
    COLLC_WARN("COLLC_TRACE: cannot write %s: %s", file.c_str(),
               std::strerror(errno));
  if (f)
    std::fclose(f);
}

} // namespace collc
