//===- ablation.cpp - what each technique of the programs contributes ----===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// The ablation of issue 10 (SiFAR figure 22 style): AllReduce, bf16, one row
// per technique, every row a module of its own (or the runtime's forcing,
// COLLC_FORCE_VARIANT) listed in a rows file that scripts/gpu-ablation.sh
// writes. Every row and size is measured in the same process, the same way
// as bench/README.md and test/gpu/programs: ranks in one process sharing
// GPU 0 (collcCommInitAll, one stream each), 64 calls per rank captured in
// one CUDA graph per rank, 3 warm-up replays, 8 timed with CUDA events,
// per-call time = the slowest rank's elapsed / 512. Before it is timed, each
// (row, ranks, size) runs once eagerly on fresh inputs (random bf16 bits
// with the sentinel pattern, -0.0, NaN payloads, infinities, subnormals)
// and is checked bitwise against a host reference (FP32 in rank order, one
// rounding); a row that fails is reported and not timed.
//
// usage: collc_ablation ROWS [--ranks=2,8] [--sizes=0,1024,...]
//          [--json=FILE --machine=M --date=D]
// ROWS: one row per line, tab-separated: label, module file, the
// COLLC_FORCE_VARIANT value or '-' for none. Lines starting with '#' are
// skipped. World sizes a row's module has no kernel for are skipped (SKIP
// lines). The last line is "N passed, M failed".
//
//===----------------------------------------------------------------------===//

#include "collc/collc.h"
#include "graph_timing.h"
#include "rows.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

// A CUDA error is fatal: "FATAL file:line: call: error", exit 2.
#define CUDA(x) COLLC_CUDA_CHECK(x)

int passed = 0, failed = 0;
std::mt19937_64 rng(11);

using collc::bench::Row;

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
/// Mostly ordinary values, with the edge cases every encoding must carry.
uint16_t randomBf16() {
  switch (rng() % 16) {
  case 0:
    return 0xFFFF; // the sentinel pattern (a NaN)
  case 1:
    return 0x8000; // -0.0
  case 2:
    return 0x7F80 | (rng() % 2 ? 0x8000 : 0); // infinities
  case 3:
    return static_cast<uint16_t>((rng() % 0x7F) + 1); // subnormals
  case 4:
    return static_cast<uint16_t>(0x7FC1 + rng() % 8); // NaN payloads
  default:
    return static_cast<uint16_t>(((rng() & 1) << 15) |
                                 ((120 + rng() % 16) << 7) | (rng() & 0x7F));
  }
}

struct Ranks {
  int n = 0;
  std::vector<collcComm_t> comms;
  std::vector<cudaStream_t> streams;
  std::vector<uint16_t *> in, out;
};

/// Fresh inputs, one eager call per rank, every output bitwise.
bool checkOnce(Ranks &r, size_t count, std::string &why) {
  const int n = r.n;
  std::vector<std::vector<uint16_t>> in(n, std::vector<uint16_t>(count));
  for (int q = 0; q < n; ++q) {
    for (auto &x : in[q])
      x = randomBf16();
    if (count)
      CUDA(cudaMemcpy(r.in[q], in[q].data(), count * 2,
                      cudaMemcpyHostToDevice));
    CUDA(cudaMemset(r.out[q], 0xEE, count * 2 + 256));
  }
  for (int q = 0; q < n; ++q)
    if (collcAllReduce(r.in[q], r.out[q], count, collcBfloat16, collcSum,
                       r.comms[q], r.streams[q]) != collcSuccess) {
      why = "rank " + std::to_string(q) + " call: " + collcGetLastError();
      CUDA(cudaDeviceSynchronize());
      return false;
    }
  CUDA(cudaDeviceSynchronize());
  std::vector<uint16_t> want(count);
  for (size_t i = 0; i < count; ++i) {
    float acc = toFloat(in[0][i]);
    for (int p = 1; p < n; ++p)
      acc = acc + toFloat(in[p][i]);
    want[i] = bf16FromFloat(acc);
  }
  for (int q = 0; q < n; ++q) {
    collcResult_t async = collcSuccess;
    collcCommGetAsyncError(r.comms[q], &async);
    if (async != collcSuccess) {
      why = "rank " + std::to_string(q) + ": " + collcGetLastError();
      return false;
    }
    std::vector<uint16_t> out(count + 128);
    CUDA(cudaMemcpy(out.data(), r.out[q], out.size() * 2,
                    cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < out.size(); ++i) {
      const uint16_t w = i < count ? want[i] : 0xEEEE; // guard band
      if (out[i] != w) {
        char msg[160];
        std::snprintf(msg, sizeof msg,
                      "rank %d element %zu of %zu: got 0x%04x, want 0x%04x", q,
                      i, count, out[i], w);
        why = msg;
        return false;
      }
    }
  }
  return true;
}

/// Per-call microseconds: 64 calls per rank in a graph of its own stream,
/// the graphs launched together, the slowest rank's span / (8 x 64).
double timeGraph(Ranks &r, size_t count) {
  const double us = collc::bench::timeCalls(r.streams, [&](int q) {
    return collcAllReduce(r.in[q], r.out[q], count, collcBfloat16, collcSum,
                          r.comms[q], r.streams[q]) == collcSuccess;
  });
  if (us < 0) {
    std::printf("FAIL capture: %s\n", collcGetLastError());
    ++failed;
    return -1;
  }
  // A wait that expired inside the graph leaves an error, not a time.
  for (int q = 0; q < r.n; ++q) {
    collcResult_t async = collcSuccess;
    collcCommGetAsyncError(r.comms[q], &async);
    if (async != collcSuccess) {
      std::printf("FAIL graph replay: rank %d: %s\n", q, collcGetLastError());
      ++failed;
      return -1;
    }
  }
  return us;
}

std::vector<long long> parseList(const std::string &text) {
  std::vector<long long> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty())
      out.push_back(std::atoll(item.c_str()));
  return out;
}

} // namespace

int main(int argc, char **argv) {
  alarm(540); // a hang is reported by the process's end, not the caller's
  if (argc < 2) {
    std::printf("usage: collc_ablation ROWS [--ranks=2,8] [--sizes=...] "
                "[--json=FILE --machine=M --date=D]\n");
    return 2;
  }
  std::vector<long long> ranks = {2, 8};
  std::vector<long long> sizes = {0,     1024,   4096,  16384,
                                  65536, 262144, 1048576};
  FILE *json = nullptr;
  std::string machine = "unknown", date = "unknown";
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--ranks=", 0) == 0)
      ranks = parseList(a.substr(8));
    else if (a.rfind("--sizes=", 0) == 0)
      sizes = parseList(a.substr(8));
    else if (a.rfind("--json=", 0) == 0)
      json = std::fopen(a.c_str() + 7, "w");
    else if (a.rfind("--machine=", 0) == 0)
      machine = a.substr(10);
    else if (a.rfind("--date=", 0) == 0)
      date = a.substr(7);
    else {
      std::printf("FATAL unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  std::vector<Row> rows;
  if (!collc::bench::readRows(argv[1], rows)) {
    std::printf("FATAL cannot read rows file %s\n", argv[1]);
    return 2;
  }
  long long most = 0;
  for (long long s : sizes)
    most = s > most ? s : most;
  const size_t capacity = (size_t)most / 2 + 128;

  for (const Row &row : rows) {
    collcModule_t module = nullptr;
    if (collcModuleLoad(&module, row.module.c_str()) != collcSuccess) {
      std::printf("FAIL %s: %s\n", row.label.c_str(), collcGetLastError());
      ++failed;
      continue;
    }
    // Read at communicator creation (docs/runtime.md).
    if (row.force.empty() || row.force == "-")
      unsetenv("COLLC_FORCE_VARIANT");
    else
      setenv("COLLC_FORCE_VARIANT", row.force.c_str(), 1);
    for (long long n : ranks) {
      Ranks r;
      r.n = (int)n;
      r.comms.assign(n, nullptr);
      std::vector<int> devices(n, 0);
      collcConfig_t config = COLLC_CONFIG_INITIALIZER;
      config.timeoutMs = 2000; // a graph of 64 stuck calls: minutes, not hours
      if (collcCommInitAll(r.comms.data(), module, (int)n, devices.data(),
                           &config) != collcSuccess) {
        const std::string error = collcGetLastError();
        if (error.find("has no kernel for " + std::to_string(n) + " ranks") !=
            std::string::npos) {
          std::printf("SKIP %s n%lld: %s\n", row.label.c_str(), n,
                      error.c_str());
          continue;
        }
        std::printf("FAIL %s n%lld: collcCommInitAll: %s\n", row.label.c_str(),
                    n, error.c_str());
        ++failed;
        continue;
      }
      r.streams.resize(n);
      r.in.resize(n);
      r.out.resize(n);
      for (int q = 0; q < n; ++q) {
        CUDA(cudaStreamCreateWithFlags(&r.streams[q], cudaStreamNonBlocking));
        CUDA(cudaMalloc(&r.in[q], capacity * 2));
        CUDA(cudaMalloc(&r.out[q], capacity * 2 + 512));
      }
      bool dead = false;
      for (long long bytes : sizes) {
        if (dead)
          break;
        const size_t count = (size_t)bytes / 2;
        std::string why;
        const std::string what = row.label + " n" + std::to_string(n) + " " +
                                 std::to_string(bytes) + " bytes";
        if (!checkOnce(r, count, why)) {
          std::printf("FAIL %s: %s\n", what.c_str(), why.c_str());
          ++failed;
          dead = true; // the communicator refuses later calls
          break;
        }
        ++passed;
        const double us = timeGraph(r, count);
        if (us < 0) {
          dead = true;
          break;
        }
        std::printf("ablation %s n%lld %lld bytes: %.3f us\n",
                    row.label.c_str(), n, bytes, us);
        if (json)
          std::fprintf(
              json,
              "{\"collective\": \"all_reduce\", \"dtype\": \"bf16\", "
              "\"bytes\": %lld, \"nranks\": %lld, \"implementation\": "
              "\"collc\", \"variant\": \"%s\", \"us\": %.4f, \"algbw_gbs\": "
              "%.4f, \"machine\": \"%s\", \"date\": \"%s\", \"module\": "
              "\"%s\", \"force\": \"%s\", \"checked\": \"bitwise\", "
              "\"method\": \"one GPU, ranks in one process "
              "(collcCommInitAll), one stream each, graph of 64 calls per "
              "rank, 3 warm-up and 8 timed replays, max over ranks\"}\n",
              bytes, n, row.label.c_str(), us, bytes / us / 1e3,
              machine.c_str(), date.c_str(), row.module.c_str(),
              row.force.c_str());
      }
      CUDA(cudaDeviceSynchronize());
      for (int q = 0; q < n; ++q) {
        dead ? collcCommAbort(r.comms[q]) : collcCommDestroy(r.comms[q]);
        CUDA(cudaFree(r.in[q]));
        CUDA(cudaFree(r.out[q]));
        CUDA(cudaStreamDestroy(r.streams[q]));
      }
    }
    collcModuleDestroy(module);
  }
  if (json)
    std::fclose(json);
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
