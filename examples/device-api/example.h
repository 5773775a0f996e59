//===- example.h - Host side shared by the device-API examples --*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What both device-API examples do on the host: every rank in this
/// process (collcCommInitAll over --devices, a device may repeat: ranks
/// sharing one GPU), one stream each, a registered window per rank and its
/// device handle (collcCommGetDeviceHandle), errors checked and reported
/// with the library's message, the launches of all ranks issued before any
/// is waited for (a rank's kernel waits for its peers'), and the async
/// error polled, so that a hang shows as collc's timeout message.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_EXAMPLES_DEVICE_API_EXAMPLE_H
#define COLLC_EXAMPLES_DEVICE_API_EXAMPLE_H

#include "collc/collc.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CUDA_OK(call)                                                          \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,       \
                   cudaGetErrorString(e_));                                    \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

#define COLLC_OK(call)                                                         \
  do {                                                                         \
    collcResult_t r_ = (call);                                                 \
    if (r_ != collcSuccess) {                                                  \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,       \
                   collcGetLastError());                                       \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

namespace example {

struct Options {
  std::string module = "out/modules/collectives.collcmod";
  std::vector<int> devices = {0, 0};
  int iterations = 3;
  int timeoutMs = 5000;
  /// --stall R: rank R's kernel is never launched; the others' waits must
  /// time out with collc's message naming rank R (the bounded-wait check).
  int stall = -1;
};

inline Options parse(int argc, char **argv, const char *usage) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n%s", a.c_str(), usage);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--module") {
      o.module = value();
    } else if (a == "--devices") {
      o.devices.clear();
      const std::string v = value();
      for (size_t b = 0; b <= v.size();) {
        size_t e = v.find(',', b);
        if (e == std::string::npos)
          e = v.size();
        o.devices.push_back(std::atoi(v.substr(b, e - b).c_str()));
        b = e + 1;
      }
    } else if (a == "--iterations") {
      o.iterations = std::atoi(value().c_str());
    } else if (a == "--stall") {
      o.stall = std::atoi(value().c_str());
      o.timeoutMs = 500;
    } else {
      std::fprintf(stderr, "unknown argument %s\n%s", a.c_str(), usage);
      std::exit(2);
    }
  }
  if (o.devices.size() < 2 || o.iterations < 1 ||
      o.stall >= (int)o.devices.size()) {
    std::fprintf(stderr, "need at least 2 ranks and 1 iteration\n%s", usage);
    std::exit(2);
  }
  return o;
}

/// Every rank of the process: communicator, stream, a registered window
/// of `windowBytes` (cudaMalloc) and its device handle.
struct Ranks {
  collcModule_t module = nullptr;
  std::vector<int> devices;
  std::vector<collcComm_t> comms;
  std::vector<cudaStream_t> streams;
  std::vector<void *> windows;
  std::vector<collcWindow_t> handles;
  std::vector<collcDeviceComm> dev;
  size_t windowBytes = 0;

  Ranks(const Options &o, size_t bytes) : devices(o.devices), windowBytes(bytes) {
    const int n = size();
    COLLC_OK(collcModuleLoad(&module, o.module.c_str()));
    collcConfig_t config = COLLC_CONFIG_INITIALIZER;
    config.timeoutMs = o.timeoutMs;
    comms.resize(n);
    COLLC_OK(collcCommInitAll(comms.data(), module, n, devices.data(), &config));
    streams.resize(n);
    windows.resize(n);
    handles.resize(n);
    dev.assign(n, collcDeviceComm COLLC_DEVICE_COMM_INITIALIZER);
    for (int r = 0; r < n; ++r) {
      CUDA_OK(cudaSetDevice(devices[r]));
      CUDA_OK(cudaStreamCreateWithFlags(&streams[r], cudaStreamNonBlocking));
      CUDA_OK(cudaMalloc(&windows[r], bytes));
      // Registration is collective: every rank's call, then the handles.
      COLLC_OK(collcCommRegister(comms[r], windows[r], bytes, &handles[r]));
    }
    for (int r = 0; r < n; ++r)
      COLLC_OK(collcCommGetDeviceHandle(comms[r], handles[r], &dev[r]));
  }
  int size() const { return (int)devices.size(); }

  /// Waits for every rank's stream; a collc timeout in a kernel (a wait of
  /// the device API) is reported with its message and ends the example.
  void finish() {
    for (int r = 0; r < size(); ++r) {
      CUDA_OK(cudaSetDevice(devices[r]));
      CUDA_OK(cudaStreamSynchronize(streams[r]));
      collcResult_t async = collcSuccess;
      COLLC_OK(collcCommGetAsyncError(comms[r], &async));
      if (async != collcSuccess) {
        std::fprintf(stderr, "rank %d: %s\n", r, collcGetLastError());
        std::exit(1);
      }
    }
  }

  /// Every rank's launch(r) (on its device), all issued before any is
  /// waited for: a rank's kernel waits for its peers'.
  template <typename Launch> void launchAll(Launch &&launch) {
    for (int r = 0; r < size(); ++r) {
      CUDA_OK(cudaSetDevice(devices[r]));
      launch(r);
    }
  }

  /// The example's checked runs: `iterations` eager rounds, then as many
  /// replays of a CUDA graph per rank that captured launch(r) once;
  /// prepare(round) before each (fresh inputs, poisoned outputs; graph
  /// rounds are numbered from 100), check(how, round) after.
  template <typename Prepare, typename Launch, typename Check>
  void rounds(int iterations, Prepare &&prepare, Launch &&launch,
              Check &&check) {
    for (int it = 0; it < iterations; ++it) {
      prepare(it);
      launchAll(launch);
      finish();
      check("eager", it);
    }
    std::vector<cudaGraphExec_t> exec(size());
    for (int r = 0; r < size(); ++r) {
      CUDA_OK(cudaSetDevice(devices[r]));
      cudaGraph_t g;
      CUDA_OK(cudaStreamBeginCapture(streams[r],
                                     cudaStreamCaptureModeThreadLocal));
      launch(r);
      CUDA_OK(cudaStreamEndCapture(streams[r], &g));
      CUDA_OK(cudaGraphInstantiate(&exec[r], g, 0));
      CUDA_OK(cudaGraphDestroy(g));
    }
    for (int it = 0; it < iterations; ++it) {
      prepare(100 + it);
      launchAll([&](int r) {
        CUDA_OK(cudaGraphLaunch(exec[r], streams[r]));
      });
      finish();
      check("graph", it);
    }
    for (int r = 0; r < size(); ++r) {
      CUDA_OK(cudaSetDevice(devices[r]));
      CUDA_OK(cudaGraphExecDestroy(exec[r]));
    }
  }

  /// "N ranks on devices d0 d1 ...".
  std::string layout() const {
    std::string s = std::to_string(size()) + " ranks on devices";
    for (int d : devices)
      s += " " + std::to_string(d);
    return s;
  }

  /// --stall: launches every rank's kernel but `stalled`'s (launch(r)),
  /// then expects every other rank's wait to have timed out, reported by
  /// collcCommGetAsyncError with rank `stalled` named. Returns the exit
  /// status; the communicators are aborted afterwards.
  template <typename Launch> int stall(int stalled, Launch &&launch) {
    for (int r = 0; r < size(); ++r)
      if (r != stalled) {
        cudaSetDevice(devices[r]);
        launch(r);
      }
    const std::string want = "waiting for rank " + std::to_string(stalled);
    int failures = 0;
    for (int r = 0; r < size(); ++r) {
      if (r == stalled)
        continue;
      cudaSetDevice(devices[r]);
      CUDA_OK(cudaStreamSynchronize(streams[r])); // ends: every wait is bounded
      collcResult_t async = collcSuccess;
      COLLC_OK(collcCommGetAsyncError(comms[r], &async));
      const std::string msg = async == collcSuccess ? "" : collcGetLastError();
      const bool ok = async == collcTimeout && msg.find(want) != std::string::npos;
      failures += !ok;
      std::printf("%s stall: rank %d: %s\n", ok ? "PASS" : "FAIL", r,
                  ok ? msg.c_str() : "expected a timeout naming the stalled rank");
    }
    aborted = true;
    return failures ? 1 : 0;
  }
  bool aborted = false;

  ~Ranks() {
    for (int r = 0; r < size(); ++r) {
      cudaSetDevice(devices[r]);
      cudaStreamSynchronize(streams[r]);
    }
    for (int r = 0; r < size() && !aborted; ++r)
      collcCommDeregister(comms[r], handles[r]);
    for (int r = 0; r < size(); ++r) {
      cudaSetDevice(devices[r]);
      if (aborted)
        collcCommAbort(comms[r]);
      else
        collcCommDestroy(comms[r]);
      cudaFree(windows[r]);
      cudaStreamDestroy(streams[r]);
    }
    collcModuleDestroy(module);
  }
};

/// A deterministic generator of small integers (exact in float and bf16
/// sums), seeded per rank and iteration.
struct Random {
  unsigned long long s;
  explicit Random(unsigned long long seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
  int next(int lo, int hi) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    return lo + (int)(s % (unsigned long long)(hi - lo + 1));
  }
};

} // namespace example

#endif // COLLC_EXAMPLES_DEVICE_API_EXAMPLE_H
