//===- smoke.cpp - end-to-end check of collc on the GPUs -------*- C++ -*-===//
//
// One process drives every visible GPU (collcCommInitAll): each collective of
// the module, f32, a few sizes, against a host reference on small integers
// (exact), with poisoned outputs. Prints "N passed, M failed".
//
//===----------------------------------------------------------------------===//

#include "collc/collc.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CUDA_OK(x)                                                             \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_),         \
                  __FILE__, __LINE__);                                         \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

static int passed = 0, failed = 0;

static float value(int rank, size_t i, int salt) {
  return float((int)((i * 7 + rank * 13 + salt * 5) % 17) - 8);
}

struct Case {
  const char *name;
  size_t count;  // per partition
  int root;
};

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "out/modules/collectives.collcmod";
  int visible = 0;
  CUDA_OK(cudaGetDeviceCount(&visible));
  // One rank per GPU; with a single GPU, two ranks share it (their kernels
  // run concurrently on separate streams), which still checks the protocol.
  int ndev = visible > 1 ? visible : 2;
  if (const char *env = std::getenv("COLLC_SMOKE_RANKS"))
    ndev = std::atoi(env);
  std::vector<int> devs(ndev);
  for (int i = 0; i < ndev; ++i)
    devs[i] = i % visible;
  std::printf("%d ranks on %d visible GPU(s)\n", ndev, visible);
  collcModule_t module;
  if (collcModuleLoad(&module, path) != collcSuccess) {
    std::printf("load failed: %s\n", collcGetLastError());
    return 1;
  }
  std::vector<collcComm_t> comms(ndev);
  collcConfig_t config = COLLC_CONFIG_INITIALIZER;
  config.timeoutMs = 5000;
  if (collcCommInitAll(comms.data(), module, ndev, devs.data(), &config) !=
      collcSuccess) {
    std::printf("init failed: %s\n", collcGetLastError());
    return 1;
  }
  const int n = ndev;
  std::vector<cudaStream_t> streams(n);
  auto setDevice = [&](int r) { CUDA_OK(cudaSetDevice(devs[r])); };
  for (int r = 0; r < n; ++r) {
    setDevice(r);
    CUDA_OK(cudaStreamCreateWithFlags(&streams[r], cudaStreamNonBlocking));
  }
  std::vector<Case> cases;
  for (size_t count : {size_t(0), size_t(1), size_t(1000), size_t(65537),
                       size_t(1 << 20) + 3})
    for (const char *name : {"all_reduce", "all_gather", "reduce_scatter",
                             "all_to_all", "one_shot_all_reduce", "scatter",
                             "gather", "broadcast", "reduce"})
      for (int root = 0; root < n; ++root) {
        cases.push_back({name, count, root});
        if (std::strcmp(name, "scatter") && std::strcmp(name, "gather") &&
            std::strcmp(name, "broadcast") && std::strcmp(name, "reduce"))
          break;
      }
  for (int iter = 0; iter < 2; ++iter)
    for (const Case &c : cases) {
      std::string name = c.name;
      bool scatteredIn = name == "all_reduce" || name == "reduce_scatter" ||
                         name == "all_to_all" || name == "scatter" ||
                         name == "broadcast" || name == "reduce";
      size_t inElems = scatteredIn ? c.count * n : c.count;
      size_t outElems =
          (name == "reduce_scatter" || name == "one_shot_all_reduce" ||
           name == "scatter")
              ? c.count
              : c.count * n;
      std::vector<float *> in(n), out(n);
      std::vector<std::vector<float>> hin(n);
      for (int r = 0; r < n; ++r) {
        setDevice(r);
        CUDA_OK(cudaMalloc(&in[r], inElems * 4 + 16));
        CUDA_OK(cudaMalloc(&out[r], outElems * 4 + 16));
        hin[r].resize(inElems);
        for (size_t i = 0; i < inElems; ++i)
          hin[r][i] = value(r, i, iter);
        CUDA_OK(cudaMemcpy(in[r], hin[r].data(), inElems * 4,
                           cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemset(out[r], 0xFF, outElems * 4 + 16));
      }
      bool ok = true;
      for (int r = 0; r < n && ok; ++r) {
        setDevice(r);
        if (collcLaunch(comms[r], c.name, in[r], out[r], c.count, nullptr,
                        collcFloat32, c.root, streams[r]) != collcSuccess) {
          std::printf("launch %s failed: %s\n", c.name, collcGetLastError());
          ok = false;
        }
      }
      for (int r = 0; r < n; ++r) {
        setDevice(r);
        CUDA_OK(cudaStreamSynchronize(streams[r]));
        collcResult_t async;
        collcCommGetAsyncError(comms[r], &async);
        if (async != collcSuccess) {
          std::printf("%s: %s\n", c.name, collcGetLastError());
          return 1;
        }
      }
      // Host reference.
      for (int r = 0; r < n && ok; ++r) {
        std::vector<float> got(outElems);
        CUDA_OK(cudaMemcpy(got.data(), out[r], outElems * 4,
                           cudaMemcpyDeviceToHost));
        std::vector<float> want(outElems);
        bool untouched = false;
        for (size_t i = 0; i < outElems; ++i) {
          if (name == "all_reduce" || name == "one_shot_all_reduce") {
            float s = 0;
            for (int p = 0; p < n; ++p)
              s += hin[p][i];
            want[i] = s;
          } else if (name == "all_gather") {
            want[i] = hin[i / c.count][i % c.count];
          } else if (name == "reduce_scatter") {
            float s = 0;
            for (int p = 0; p < n; ++p)
              s += hin[p][r * c.count + i];
            want[i] = s;
          } else if (name == "all_to_all") {
            size_t p = i / c.count;
            want[i] = hin[p][r * c.count + i % c.count];
          } else if (name == "scatter") {
            want[i] = hin[c.root][r * c.count + i];
          } else if (name == "broadcast") {
            want[i] = hin[c.root][i];
          } else if (name == "gather") {
            untouched = r != c.root;
            want[i] = hin[i / c.count][i % c.count];
          } else if (name == "reduce") {
            untouched = r != c.root;
            float s = 0;
            for (int p = 0; p < n; ++p)
              s += hin[p][i];
            want[i] = s;
          }
        }
        for (size_t i = 0; i < outElems && ok; ++i) {
          uint32_t g, w;
          std::memcpy(&g, &got[i], 4);
          std::memcpy(&w, &want[i], 4);
          if (untouched)
            w = 0xFFFFFFFFu;
          if (g != w) {
            std::printf("FAIL %s count=%zu root=%d rank %d element %zu: got "
                        "%08x want %08x\n",
                        c.name, c.count, c.root, r, i, g, w);
            ok = false;
          }
        }
      }
      for (int r = 0; r < n; ++r) {
        setDevice(r);
        CUDA_OK(cudaFree(in[r]));
        CUDA_OK(cudaFree(out[r]));
      }
      (ok ? passed : failed)++;
    }
  for (int r = 0; r < n; ++r)
    collcCommDestroy(comms[r]);
  collcModuleDestroy(module);
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
