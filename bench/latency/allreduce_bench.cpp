//===- allreduce_bench.cpp - collc vs NCCL AllReduce -------------*- C++ -*-===//
//
// Two (or more) processes, one GPU each, bootstrapped through NCCL. For each
// size: collc's all_reduce (ReduceScatter then AllGather, one kernel),
// collc's one_shot_all_reduce, and ncclAllReduce, each as 64 calls captured
// in one CUDA graph; the graph is replayed twice to warm up, then 8 replays
// are timed with CUDA events; per-call time = elapsed / 512. Every rank
// reports its time to rank 0 through NCCL and the maximum is printed as CSV.
// Size = per-rank input bytes. Outputs of the timed calls are not checked
// here (test/gpu/collectives does that); the first call of each kind is.
//
//===----------------------------------------------------------------------===//

#include "collc/collc.h"
#include "collc/collc_nccl.h"
#include "graph_timing.h"

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::fprintf(stderr, "rank %d: ", gRank);                               \
      std::fprintf(stderr, __VA_ARGS__);                                      \
      std::fprintf(stderr, " (%s:%d)\n", __FILE__, __LINE__);                \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)
#define CUDA(x) CHECK((x) == cudaSuccess, "%s: %s", #x, cudaGetErrorString(x))
#define NCCL(x) CHECK((x) == ncclSuccess, "%s failed", #x)
#define COLLC(x) CHECK((x) == collcSuccess, "%s: %s", #x, collcGetLastError())

static int gRank = -1;

/// Per-call microseconds of `call` on `stream` (graph_timing.h).
static float timeGraph(cudaStream_t stream, const std::function<void()> &call) {
  return collc::bench::timeCalls(
      {stream},
      [&](int) {
        call();
        return true;
      },
      cudaStreamCaptureModeGlobal);
}

static int runRank(int rank, int n, const ncclUniqueId &id,
                   const char *modulePath) {
  gRank = rank;
  CUDA(cudaSetDevice(rank));
  cudaStream_t stream;
  CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  ncclComm_t nccl;
  NCCL(ncclCommInitRank(&nccl, n, id, rank));
  collcModule_t module;
  COLLC(collcModuleLoad(&module, modulePath));
  collcNcclBootstrap boot = {nccl, stream};
  collcConfig_t config = COLLC_CONFIG_INITIALIZER;
  collcComm_t comm;
  COLLC(collcCommInitRank(&comm, module, n, rank, rank, collcNcclAllGather,
                          &boot, &config));
  float *times = nullptr;
  CUDA(cudaMalloc(&times, sizeof(float) * n));

  const size_t maxBytes = size_t(256) << 20;
  void *send, *recv;
  CUDA(cudaMalloc(&send, maxBytes));
  CUDA(cudaMalloc(&recv, maxBytes));
  // Inputs: small integers, so every method's result is exact and the
  // first call of each can be checked.
  {
    std::vector<__nv_bfloat16> h(maxBytes / 2);
    for (size_t i = 0; i < h.size(); ++i)
      h[i] = __float2bfloat16(float(int((i + rank) % 5) - 2));
    CUDA(cudaMemcpy(send, h.data(), maxBytes, cudaMemcpyHostToDevice));
  }
  if (rank == 0)
    std::printf("bytes,method,us_per_call,algbw_GBps\n");
  for (size_t bytes = 1024; bytes <= maxBytes; bytes *= 4) {
    size_t count = bytes / 2;
    struct Method {
      const char *name;
      std::function<void()> call;
    };
    std::vector<Method> methods = {
        {"collc_all_reduce",
         [&] {
           COLLC(collcAllReduce(send, recv, count, collcBfloat16, collcSum,
                                comm, (collcStream_t)stream));
         }},
        {"collc_one_shot",
         [&] {
           COLLC(collcLaunch(comm, "one_shot_all_reduce", send, recv, count,
                             nullptr, collcBfloat16, 0,
                             (collcStream_t)stream));
         }},
        {"nccl_all_reduce", [&] {
           NCCL(ncclAllReduce(send, recv, count, ncclBfloat16, ncclSum, nccl,
                              stream));
         }}};
    for (Method &m : methods) {
      // One checked call first: element i must be the sum over ranks.
      CUDA(cudaMemset(recv, 0xFF, bytes));
      m.call();
      CUDA(cudaStreamSynchronize(stream));
      collcResult_t async;
      collcCommGetAsyncError(comm, &async);
      CHECK(async == collcSuccess, "%s: %s", m.name, collcGetLastError());
      std::vector<__nv_bfloat16> out(std::min<size_t>(count, 4096));
      CUDA(cudaMemcpy(out.data(), recv, out.size() * 2,
                      cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < out.size(); ++i) {
        float want = 0;
        for (int p = 0; p < n; ++p)
          want += float(int((i + p) % 5) - 2);
        CHECK(__bfloat162float(out[i]) == want,
              "%s at %zu bytes: element %zu is %f, expected %f", m.name,
              bytes, i, __bfloat162float(out[i]), want);
      }
      float us = timeGraph(stream, m.call);
      // The maximum over ranks.
      CUDA(cudaMemcpy(times + rank, &us, sizeof(float),
                      cudaMemcpyHostToDevice));
      NCCL(ncclAllGather(times + rank, times, 1, ncclFloat, nccl, stream));
      std::vector<float> all(n);
      CUDA(cudaStreamSynchronize(stream));
      CUDA(cudaMemcpy(all.data(), times, sizeof(float) * n,
                      cudaMemcpyDeviceToHost));
      float worst = 0;
      for (float t : all)
        worst = std::max(worst, t);
      if (rank == 0)
        std::printf("%zu,%s,%.2f,%.1f\n", bytes, m.name, worst,
                    bytes / (worst * 1e-6) / 1e9);
      std::fflush(stdout);
    }
  }
  COLLC(collcCommDestroy(comm));
  collcModuleDestroy(module);
  ncclCommDestroy(nccl);
  return 0;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "out/modules/collectives.collcmod";
  int n = argc > 2 ? std::atoi(argv[2]) : 2;
  // Rank 0 makes the NCCL id and hands it to the others through a pipe:
  // the parent never initializes CUDA, so forking is safe.
  std::vector<int> fds(2 * n);
  for (int r = 1; r < n; ++r)
    if (pipe(&fds[2 * r]) != 0)
      return 2;
  std::vector<pid_t> pids;
  for (int r = 0; r < n; ++r) {
    pid_t pid = fork();
    if (pid == 0) {
      alarm(600); // A hang becomes a failure.
      ncclUniqueId id;
      if (r == 0) {
        if (ncclGetUniqueId(&id) != ncclSuccess)
          std::exit(1);
        for (int p = 1; p < n; ++p)
          if (write(fds[2 * p + 1], &id, sizeof(id)) != sizeof(id))
            std::exit(1);
      } else if (read(fds[2 * r], &id, sizeof(id)) != sizeof(id)) {
        std::exit(1);
      }
      std::exit(runRank(r, n, id, path));
    }
    pids.push_back(pid);
  }
  int failed = 0;
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    failed |= !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  return failed;
}
