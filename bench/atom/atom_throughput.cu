//===- atom_throughput.cu - per-CTA throughput of the Atom's paths --------===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// How many bytes per second one CTA of the Atom's copy and reduce moves, per
// datapath (issue 11: what a channel of the bandwidth regime can count on),
// against a plain vectorized device-to-device copy with the same number of
// CTAs, measured in the same run. The kernels run on GPU 0; the sources
// live on --src-device and the output on --dst-device (default 0: local
// memory; 1 on a machine with two GPUs linked by NVLink: a CTA reading its
// peer's memory, as a zero-copy consumer does, or writing into it, as a
// push does; peer access is enabled from GPU 0 first):
//  - copy: `plain` (16-byte grid-stride loop), `register` (dev::copy with no
//    shared memory: common/copy.cuh), `cp.async` (dev::copy with its 32 KiB
//    workspace: sm80/copy_sm80.cuh), and cudaMemcpyPeerAsync (every SM,
//    the driver's copy engines or kernels) once;
//  - reduce (bf16, sum, 2 / 4 / 8 sources): `register` (dev::reduce with no
//    shared memory: common/reduce.cuh) and `cp.async` (sm80/reduce_sm80.cuh).
// Each CTA takes one contiguous slice (the v1 schedules' chunk-per-CTA
// shape), 512 threads (COLLC_KERNEL_THREADS). Every configuration is run
// once on a poisoned output and checked first (copy: every byte; reduce:
// 65536 random elements and both ends against a host FP32 fold in source
// order, rounded once), then timed: CUDA events around repeated launches
// (enough for about 0.2 s, at least 3), after 2 warm-up launches.
// Traffic = bytes read + bytes written; GB/s = 1e9 bytes per second.
//
// usage: atom_throughput [--bytes=N] [--ctas=1,2,...] [--src-device=D]
//          [--dst-device=D] [--json=FILE --machine=M --date=D]
// Last line: "N passed, M failed".
//
//===----------------------------------------------------------------------===//

#include "collc/device/atom.cuh"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace collc::dev;

#define CUDA(x)                                                                \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      std::printf("FATAL %s:%d: %s: %s\n", __FILE__, __LINE__, #x,            \
                  cudaGetErrorString(e_));                                     \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

namespace {

constexpr int kThreads = 512;
constexpr int kMaxSources = 8;

/// This CTA's slice [lo, hi) of n units, slices a multiple of `align`.
__device__ void sliceOf(size_t n, size_t align, size_t &lo, size_t &hi) {
  size_t per = (n + gridDim.x - 1) / gridDim.x;
  per = (per + align - 1) / align * align;
  lo = min(n, (size_t)blockIdx.x * per);
  hi = min(n, lo + per);
}

/// The reference: a plain vectorized device-to-device copy.
__global__ void __launch_bounds__(kThreads)
    plainCopy(uint4 *d, const uint4 *s, size_t n16) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n16;
       i += stride)
    d[i] = s[i];
}

template <bool Pipelined>
__global__ void __launch_bounds__(kThreads)
    atomCopy(char *d, const char *s, size_t bytes) {
  __shared__ __align__(16) char smem[kCopySmemBytesDefault];
  size_t lo, hi;
  sliceOf(bytes, 16, lo, hi);
  copy(d + lo, s + lo, hi - lo, Pipelined ? smem : nullptr);
}

struct Sources {
  const __nv_bfloat16 *p[kMaxSources];
};

template <bool Pipelined>
__global__ void __launch_bounds__(kThreads)
    atomReduce(__nv_bfloat16 *d, Sources s, int nsrc, size_t elems) {
  __shared__ __align__(16) char smem[kReduceSmemBytesDefault];
  size_t lo, hi;
  sliceOf(elems, 8, lo, hi);
  reduce<__nv_bfloat16, RedOp::Sum>(
      d + lo, [=](int p) { return s.p[p] + lo; }, nsrc, hi - lo,
      Pipelined ? smem : nullptr);
}

int passed = 0, failed = 0;
std::string machine = "unknown", date = "unknown";
FILE *json = nullptr;
/// Where the sources and the output live (the kernels run on GPU 0).
int srcDevice = 0, dstDevice = 0;

/// "local", "peer read (sources on GPU 1)", ...: the records' placement.
std::string placement() {
  if (srcDevice == 0 && dstDevice == 0)
    return "local";
  std::string p = "peer";
  if (srcDevice != 0)
    p += " read (sources on GPU " + std::to_string(srcDevice) + ")";
  if (dstDevice != 0)
    p += std::string(srcDevice != 0 ? "," : "") + " write (output on GPU " +
         std::to_string(dstDevice) + ")";
  return p;
}

void check(bool ok, const std::string &what) {
  ok ? ++passed : ++failed;
  if (!ok)
    std::printf("FAIL %s\n", what.c_str());
}

uint16_t bf16FromFloat(float f) { // RNE; the inputs are finite
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
float floatFromBf16(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Milliseconds per launch of `launch`: 2 warm-up launches, then enough
/// timed ones for about 0.2 s (at least 3).
template <class F> double timeLaunches(F launch) {
  cudaEvent_t a, b;
  CUDA(cudaEventCreate(&a));
  CUDA(cudaEventCreate(&b));
  launch();
  launch();
  CUDA(cudaEventRecord(a));
  launch();
  CUDA(cudaEventRecord(b));
  CUDA(cudaEventSynchronize(b));
  float one = 0;
  CUDA(cudaEventElapsedTime(&one, a, b));
  const int reps = std::max(3, std::min(200, (int)(200.0f / std::max(one, 1e-3f))));
  CUDA(cudaEventRecord(a));
  for (int i = 0; i < reps; ++i)
    launch();
  CUDA(cudaEventRecord(b));
  CUDA(cudaEventSynchronize(b));
  float ms = 0;
  CUDA(cudaEventElapsedTime(&ms, a, b));
  CUDA(cudaGetLastError());
  CUDA(cudaEventDestroy(a));
  CUDA(cudaEventDestroy(b));
  return ms / reps;
}

void record(const char *op, const char *path, int nsrc, int ctas, size_t bytes,
            size_t traffic, double ms) {
  const double us = ms * 1e3;
  const double gbs = traffic / (ms * 1e-3) / 1e9;
  std::printf("%-6s %-9s nsrc %d ctas %3d: %9.1f us, %7.1f GB/s traffic, "
              "%6.2f GB/s per CTA\n",
              op, path, nsrc, ctas, us, gbs, gbs / ctas);
  if (json)
    std::fprintf(json,
                 "{\"collective\": \"atom_%s\", \"dtype\": \"bf16\", "
                 "\"bytes\": %zu, \"nranks\": 1, \"implementation\": \"%s\", "
                 "\"variant\": \"%s nsrc=%d ctas=%d\", \"us\": %.3f, "
                 "\"algbw_gbs\": %.3f, \"traffic_gbs\": %.3f, "
                 "\"per_cta_gbs\": %.3f, \"ctas\": %d, \"sources\": %d, "
                 "\"placement\": \"%s\", "
                 "\"machine\": \"%s\", \"date\": \"%s\", \"method\": \"kernels "
                 "on GPU 0, sources on GPU %d, output on GPU %d, 512 threads "
                 "per CTA, a contiguous slice "
                 "per CTA, CUDA events around repeated launches (about 0.2 "
                 "s) after 2 warm-up launches; traffic = bytes read + "
                 "written\"}\n",
                 op, bytes,
                 std::strcmp(path, "plain") == 0 ||
                         std::strcmp(path, "memcpy") == 0
                     ? "cuda"
                     : "collc-atom",
                 path, nsrc, ctas, us, bytes / (ms * 1e-3) / 1e9, gbs,
                 gbs / ctas, ctas, nsrc, placement().c_str(), machine.c_str(),
                 date.c_str(), srcDevice, dstDevice);
}

} // namespace

int main(int argc, char **argv) {
  size_t bytes = 256ull << 20;
  std::vector<int> ctaCounts = {1, 2, 4, 8, 16, 32, 64, 132};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--bytes=", 0) == 0)
      bytes = std::strtoull(a.c_str() + 8, nullptr, 10) / 16 * 16;
    else if (a.rfind("--ctas=", 0) == 0) {
      ctaCounts.clear();
      for (size_t at = 7; at < a.size();) {
        size_t comma = a.find(',', at);
        if (comma == std::string::npos)
          comma = a.size();
        ctaCounts.push_back(std::atoi(a.substr(at, comma - at).c_str()));
        at = comma + 1;
      }
    } else if (a.rfind("--src-device=", 0) == 0) {
      srcDevice = std::atoi(a.c_str() + 13);
    } else if (a.rfind("--dst-device=", 0) == 0) {
      dstDevice = std::atoi(a.c_str() + 13);
    } else if (a.rfind("--json=", 0) == 0) {
      json = std::fopen(a.c_str() + 7, "w");
    } else if (a.rfind("--machine=", 0) == 0) {
      machine = a.substr(10);
    } else if (a.rfind("--date=", 0) == 0) {
      date = a.substr(7);
    } else {
      std::printf("usage: atom_throughput [--bytes=N] [--ctas=1,2,...] "
                  "[--src-device=D] [--dst-device=D] "
                  "[--json=FILE --machine=M --date=D]\n");
      return 2;
    }
  }
  int devices = 0;
  CUDA(cudaGetDeviceCount(&devices));
  for (int d : {srcDevice, dstDevice}) {
    if (d < 0 || d >= devices) {
      std::printf("FATAL device %d: this machine has %d GPU(s) (0 to %d)\n", d,
                  devices, devices - 1);
      return 2;
    }
    if (d == 0)
      continue;
    int can = 0;
    CUDA(cudaDeviceCanAccessPeer(&can, 0, d));
    if (!can) {
      std::printf("FATAL GPU 0 cannot access GPU %d's memory (no peer "
                  "access between them)\n",
                  d);
      return 2;
    }
    CUDA(cudaSetDevice(0));
    const cudaError_t e = cudaDeviceEnablePeerAccess(d, 0);
    if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled)
      CUDA(e);
    (void)cudaGetLastError(); // clears "already enabled"
  }
  CUDA(cudaSetDevice(0));
  const size_t elems = bytes / 2;
  std::mt19937_64 rng(11);

  // Sources of random finite bf16 values (|x| in [2^-8, 2^8)), the output.
  std::vector<std::vector<uint16_t>> host(kMaxSources,
                                          std::vector<uint16_t>(elems));
  Sources srcs{};
  for (int p = 0; p < kMaxSources; ++p) {
    for (uint16_t &x : host[p])
      x = static_cast<uint16_t>(((rng() & 1) << 15) |
                                ((119 + rng() % 16) << 7) | (rng() & 0x7F));
    __nv_bfloat16 *d = nullptr;
    CUDA(cudaSetDevice(srcDevice));
    CUDA(cudaMalloc(&d, bytes));
    CUDA(cudaMemcpy(d, host[p].data(), bytes, cudaMemcpyDefault));
    srcs.p[p] = d;
  }
  char *out = nullptr;
  CUDA(cudaSetDevice(dstDevice));
  CUDA(cudaMalloc(&out, bytes));
  CUDA(cudaSetDevice(0));
  const char *in = reinterpret_cast<const char *>(srcs.p[0]);
  // The output poisoned on its own device, so an unwritten byte fails.
  auto poison = [&] {
    CUDA(cudaDeviceSynchronize());
    CUDA(cudaSetDevice(dstDevice));
    CUDA(cudaMemset(out, 0xFF, bytes));
    CUDA(cudaDeviceSynchronize());
    CUDA(cudaSetDevice(0));
  };
  std::vector<uint16_t> got(elems);

  auto copyCorrect = [&](const std::string &what) {
    CUDA(cudaDeviceSynchronize());
    CUDA(cudaMemcpy(got.data(), out, bytes, cudaMemcpyDefault));
    check(std::memcmp(got.data(), host[0].data(), bytes) == 0, what);
  };
  std::vector<size_t> sample;
  for (size_t i = 0; i < 4096 && i < elems; ++i) {
    sample.push_back(i);
    sample.push_back(elems - 1 - i);
  }
  for (int i = 0; i < 65536; ++i)
    sample.push_back(rng() % elems);
  auto reduceCorrect = [&](int nsrc, const std::string &what) {
    CUDA(cudaDeviceSynchronize());
    CUDA(cudaMemcpy(got.data(), out, bytes, cudaMemcpyDefault));
    for (size_t i : sample) {
      float acc = floatFromBf16(host[0][i]);
      for (int p = 1; p < nsrc; ++p)
        acc += floatFromBf16(host[p][i]);
      if (got[i] != bf16FromFloat(acc)) {
        char msg[160];
        std::snprintf(msg, sizeof msg, ": element %zu: got 0x%04x, want 0x%04x",
                      i, got[i], bf16FromFloat(acc));
        check(false, what + msg);
        return;
      }
    }
    check(true, what);
  };

  cudaDeviceProp prop{};
  CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs, %zu bytes per buffer, %s\n", prop.name,
              prop.multiProcessorCount, bytes, placement().c_str());

  // cudaMemcpyPeerAsync: the driver's copy (local: cudaMemcpyAsync's).
  auto memcpy_ = [&] {
    CUDA(cudaMemcpyPeerAsync(out, dstDevice, in, srcDevice, bytes));
  };
  poison();
  memcpy_();
  copyCorrect("memcpy");
  record("copy", "memcpy", 1, prop.multiProcessorCount, bytes, 2 * bytes,
         timeLaunches(memcpy_));

  for (int ctas : ctaCounts) {
    const std::string at = " ctas " + std::to_string(ctas);
    auto plain = [&] {
      plainCopy<<<ctas, kThreads>>>(reinterpret_cast<uint4 *>(out),
                                    reinterpret_cast<const uint4 *>(in),
                                    bytes / 16);
    };
    auto reg = [&] { atomCopy<false><<<ctas, kThreads>>>(out, in, bytes); };
    auto pipe = [&] { atomCopy<true><<<ctas, kThreads>>>(out, in, bytes); };
    struct {
      const char *path;
      std::function<void()> launch;
    } copies[] = {{"plain", plain}, {"register", reg}, {"cp.async", pipe}};
    for (auto &c : copies) {
      poison();
      c.launch();
      copyCorrect(std::string("copy ") + c.path + at);
      record("copy", c.path, 1, ctas, bytes, 2 * bytes,
             timeLaunches(c.launch));
    }
    for (int nsrc : {2, 4, 8}) {
      __nv_bfloat16 *d = reinterpret_cast<__nv_bfloat16 *>(out);
      auto rreg = [&] {
        atomReduce<false><<<ctas, kThreads>>>(d, srcs, nsrc, elems);
      };
      auto rpipe = [&] {
        atomReduce<true><<<ctas, kThreads>>>(d, srcs, nsrc, elems);
      };
      struct {
        const char *path;
        std::function<void()> launch;
      } reduces[] = {{"register", rreg}, {"cp.async", rpipe}};
      for (auto &r : reduces) {
        poison();
        r.launch();
        reduceCorrect(nsrc, std::string("reduce ") + r.path + " nsrc " +
                                std::to_string(nsrc) + at);
        record("reduce", r.path, nsrc, ctas, bytes, (nsrc + 1) * bytes,
               timeLaunches(r.launch));
      }
    }
  }
  if (json)
    std::fclose(json);
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
