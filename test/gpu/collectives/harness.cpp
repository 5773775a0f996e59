//===- harness.cpp - GPU test harness for collc collectives -----*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//

#include "harness.h"

#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstring>
#include <new>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>

namespace ct {

Options gOpt;
Tally gTally;
std::string gPrefix;
static bool gReporting = true;

void setReporting(bool r) { gReporting = r; }

static void vlog(const char *fmt, va_list ap) {
  char buf[4096];
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  std::fprintf(stdout, "%s%s\n", gPrefix.c_str(), buf);
  std::fflush(stdout);
}

void log(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vlog(fmt, ap);
  va_end(ap);
}

void report(const char *fmt, ...) {
  if (!gReporting)
    return;
  va_list ap;
  va_start(ap, fmt);
  vlog(fmt, ap);
  va_end(ap);
}

void fatal(const char *fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  std::fprintf(stdout, "%sFATAL %s\n", gPrefix.c_str(), buf);
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(2);
}

long Group::next_ = 0;

Group::Group(std::string name) : name_(std::move(name)) {}

Group::~Group() {
  gTally.passed += passed_;
  gTally.failed += failed_;
  if (failed_)
    report("FAIL %s (%ld cases, %ld failed)", name_.c_str(),
           passed_ + failed_, failed_);
  else
    report("PASS %s (%ld cases)", name_.c_str(), passed_);
}

const char *resultName(collcResult_t r) {
  switch (r) {
  case collcSuccess:
    return "collcSuccess";
  case collcUnhandledCudaError:
    return "collcUnhandledCudaError";
  case collcSystemError:
    return "collcSystemError";
  case collcInternalError:
    return "collcInternalError";
  case collcInvalidArgument:
    return "collcInvalidArgument";
  case collcInvalidUsage:
    return "collcInvalidUsage";
  case collcTimeout:
    return "collcTimeout";
  case collcInProgress:
    return "collcInProgress";
  default:
    return "collcResult(?)";
  }
}

double nowSeconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

double syncBoundSeconds() { return 3.0 * gOpt.timeoutMs / 1000.0 + 5.0; }

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

int typeBytes(collcDataType_t t) {
  switch (t) {
  case collcBfloat16:
  case collcFloat16:
    return 2;
  case collcFloat32:
    return 4;
  default:
    return 1;
  }
}

const char *typeName(collcDataType_t t) {
  switch (t) {
  case collcBfloat16:
    return "bf16";
  case collcFloat16:
    return "f16";
  case collcFloat32:
    return "f32";
  case collcFloat8e4m3:
    return "f8e4m3";
  case collcFloat8e5m2:
    return "f8e5m2";
  default:
    return "?";
  }
}

bool isFloat8(collcDataType_t t) {
  return t == collcFloat8e4m3 || t == collcFloat8e5m2;
}

collcDataType_t parseType(const std::string &name, bool *ok) {
  *ok = true;
  for (int t = 0; t < collcNumTypes; ++t)
    if (name == typeName(collcDataType_t(t)))
      return collcDataType_t(t);
  *ok = false;
  return collcBfloat16;
}

static uint32_t f2u(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
static float u2f(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

static uint32_t floatToHalf(float f) {
  uint32_t x = f2u(f);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t fexp = (x >> 23) & 0xff, mant = x & 0x7fffff;
  if (fexp == 0xff)
    return sign | 0x7c00 | (mant ? 0x200 : 0);
  int exp = int(fexp) - 127 + 15;
  if (exp >= 31)
    return sign | 0x7c00;
  if (exp <= 0) {
    if (exp < -10)
      return sign;
    mant |= 0x800000;
    int shift = 14 - exp;
    uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1),
             half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1)))
      ++h;
    return sign | h;
  }
  uint32_t h = (uint32_t(exp) << 10) | (mant >> 13), rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
    ++h; // may carry into the exponent, up to infinity: correct
  return sign | h;
}

static float halfToFloat(uint32_t h) {
  uint32_t sign = (h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e == 0) {
    float v = std::ldexp(float(m), -24);
    return sign ? -v : v;
  }
  if (e == 31)
    return u2f(sign | 0x7f800000 | (m << 13));
  return u2f(sign | ((e - 15 + 127) << 23) | (m << 13));
}

float bitsToFloat(collcDataType_t t, uint32_t bits) {
  switch (t) {
  case collcBfloat16:
    return u2f(bits << 16);
  case collcFloat16:
    return halfToFloat(bits);
  case collcFloat32:
    return u2f(bits);
  default:
    fatal("bitsToFloat: no arithmetic on %s in the tests", typeName(t));
  }
}

uint32_t floatToBits(collcDataType_t t, float v) {
  switch (t) {
  case collcBfloat16: {
    uint32_t u = f2u(v);
    if ((u & 0x7fffffff) > 0x7f800000)
      return 0x7fc0;
    return (u + 0x7fff + ((u >> 16) & 1)) >> 16;
  }
  case collcFloat16:
    return floatToHalf(v);
  case collcFloat32:
    return f2u(v);
  default:
    fatal("floatToBits: no arithmetic on %s in the tests", typeName(t));
  }
}

uint32_t deNaN(collcDataType_t t, uint32_t b) {
  switch (t) {
  case collcFloat32:
    if ((b & 0x7f800000) == 0x7f800000 && (b & 0x7fffff))
      b ^= 0x40000000;
    return b;
  case collcBfloat16:
    b &= 0xffff;
    if ((b & 0x7f80) == 0x7f80 && (b & 0x7f))
      b ^= 0x4000;
    return b;
  case collcFloat16:
    b &= 0xffff;
    if ((b & 0x7c00) == 0x7c00 && (b & 0x3ff))
      b ^= 0x4000;
    return b;
  case collcFloat8e4m3: // NaN: S.1111.111
    b &= 0xff;
    if ((b & 0x7f) == 0x7f)
      b ^= 0x40;
    return b;
  case collcFloat8e5m2: // NaN: S.11111.xx, xx != 0
    b &= 0xff;
    if ((b & 0x7c) == 0x7c && (b & 0x3))
      b ^= 0x40;
    return b;
  default:
    return b;
  }
}

void parallelFor(size_t n, const std::function<void(size_t, size_t)> &fn) {
  size_t threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<size_t>(threads, 16);
  if (n < (1u << 16) || threads == 1) {
    fn(0, n);
    return;
  }
  std::vector<std::thread> pool;
  size_t step = (n + threads - 1) / threads;
  for (size_t b = 0; b < n; b += step)
    pool.emplace_back(fn, b, std::min(n, b + step));
  for (std::thread &t : pool)
    t.join();
}

//===----------------------------------------------------------------------===//
// Bounded waits
//===----------------------------------------------------------------------===//

bool waitStreams(const std::vector<cudaStream_t> &streams,
                 const std::vector<int> &devices, double seconds) {
  double deadline = nowSeconds() + seconds;
  std::vector<bool> done(streams.size(), false);
  for (;;) {
    bool all = true;
    for (size_t i = 0; i < streams.size(); ++i) {
      if (done[i])
        continue;
      CT_CUDA(cudaSetDevice(devices[i]));
      cudaError_t e = cudaStreamQuery(streams[i]);
      if (e == cudaSuccess)
        done[i] = true;
      else if (e == cudaErrorNotReady)
        all = false;
      else
        fatal("stream of device %d: %s (a kernel faulted)", devices[i],
              cudaGetErrorString(e));
    }
    if (all)
      return true;
    if (nowSeconds() > deadline)
      return false;
    usleep(20);
  }
}

//===----------------------------------------------------------------------===//
// HostGather
//===----------------------------------------------------------------------===//

struct HostGather::Shared {
  std::atomic<uint64_t> arrived;
  alignas(64) unsigned char data[1]; // 2 buffers x nranks x capacity
};

HostGather::HostGather(int nranks, size_t capacity)
    : nranks_(nranks), capacity_(capacity) {
  mapped_ = offsetof(Shared, data) + 2 * size_t(nranks) * capacity;
  void *p = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    fatal("mmap of %zu bytes for the host allgather", mapped_);
  shared_ = static_cast<Shared *>(p);
  new (&shared_->arrived) std::atomic<uint64_t>(0);
}

HostGather::~HostGather() { munmap(shared_, mapped_); }

bool HostGather::allgather(int rank, const void *send, void *recv,
                           size_t bytes, double seconds) {
  if (bytes > capacity_) {
    log("host allgather: %zu bytes a rank, capacity %zu", bytes, capacity_);
    return false;
  }
  unsigned char *buf =
      shared_->data + (calls_ % 2) * size_t(nranks_) * capacity_;
  std::memcpy(buf + size_t(rank) * capacity_, send, bytes);
  shared_->arrived.fetch_add(1, std::memory_order_acq_rel);
  uint64_t all = uint64_t(nranks_) * (calls_ + 1);
  double deadline = nowSeconds() + seconds;
  while (shared_->arrived.load(std::memory_order_acquire) < all) {
    if (nowSeconds() > deadline) {
      log("host allgather: no answer from the peers in %.0f s", seconds);
      return false;
    }
    usleep(50);
  }
  for (int q = 0; q < nranks_; ++q)
    std::memcpy(static_cast<unsigned char *>(recv) + size_t(q) * bytes,
                buf + size_t(q) * capacity_, bytes);
  ++calls_;
  return true;
}

//===----------------------------------------------------------------------===//
// World
//===----------------------------------------------------------------------===//

int visibleDevices() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1)
    n = 1;
  return n;
}

void World::initProcs(int n, int rank, const ncclUniqueId *id,
                      HostGather *gather) {
  nranks = n;
  procs = true;
  gather_ = gather;
  LocalRank lr;
  lr.rank = rank;
  lr.device = rank % visibleDevices();
  CT_CUDA(cudaSetDevice(lr.device));
  CT_CUDA(cudaStreamCreateWithFlags(&lr.stream, cudaStreamNonBlocking));
  local.push_back(lr);
  if (!gather_) {
    CT_CUDA(cudaStreamCreateWithFlags(&ncclStream_, cudaStreamNonBlocking));
    ncclResult_t r = ncclCommInitRank(&nccl_, n, *id, rank);
    if (r != ncclSuccess)
      fatal("ncclCommInitRank: %s", ncclGetErrorString(r));
  }
  setReporting(rank == 0);
}

void World::initSingle(int n) {
  nranks = n;
  procs = false;
  for (int r = 0; r < n; ++r) {
    LocalRank lr;
    lr.rank = r;
    // More ranks than GPUs share them (their kernels run concurrently on
    // separate streams): the protocol is the same, only the links differ.
    lr.device = r % visibleDevices();
    CT_CUDA(cudaSetDevice(lr.device));
    CT_CUDA(cudaStreamCreateWithFlags(&lr.stream, cudaStreamNonBlocking));
    local.push_back(lr);
  }
  setReporting(true);
}

void World::finalize() {
  if (nccl_) {
    ncclCommDestroy(nccl_);
    nccl_ = nullptr;
  }
  if (ncclBuf_) {
    cudaSetDevice(local[0].device);
    cudaFree(ncclBuf_);
    ncclBuf_ = nullptr;
  }
  for (LocalRank &lr : local) {
    cudaSetDevice(lr.device);
    cudaStreamDestroy(lr.stream);
  }
  local.clear();
}

void World::abandon() { nccl_ = nullptr; }

std::vector<cudaStream_t> World::streams() const {
  std::vector<cudaStream_t> s;
  for (const LocalRank &lr : local)
    s.push_back(lr.stream);
  return s;
}

std::vector<int> World::devices() const {
  std::vector<int> d;
  for (const LocalRank &lr : local)
    d.push_back(lr.device);
  return d;
}

std::vector<std::vector<int>> sharedGpuLayouts(const World &w) {
  std::vector<std::vector<int>> layouts = {w.devices()};
  if (!w.procs)
    for (std::vector<int> d : {std::vector<int>(2, 0), std::vector<int>(4, 0)})
      if (d != layouts[0])
        layouts.push_back(d);
  return layouts;
}

LayoutRanks layoutRanks(const World &w,
                        const std::vector<std::vector<int>> &layouts,
                        size_t k) {
  LayoutRanks r;
  r.nranks = w.procs ? w.nranks : (int)layouts[k].size();
  if (k == 0) {
    for (const LocalRank &lr : w.local) {
      r.rank.push_back(lr.rank);
      r.device.push_back(lr.device);
      r.stream.push_back(lr.stream);
    }
    return r;
  }
  for (size_t i = 0; i < layouts[k].size(); ++i) {
    cudaStream_t s;
    CT_CUDA(cudaSetDevice(layouts[k][i]));
    CT_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    r.own.push_back(s);
    r.rank.push_back((int)i);
    r.device.push_back(layouts[k][i]);
    r.stream.push_back(s);
  }
  return r;
}

bool World::ncclAllGatherBytes(const void *send, void *recv, size_t bytes) {
  if (bytes == 0)
    return true;
  int dev = local[0].device;
  if (cudaSetDevice(dev) != cudaSuccess)
    return false;
  size_t need = bytes * nranks;
  if (need > ncclBufBytes_) {
    if (ncclBuf_)
      cudaFree(ncclBuf_);
    ncclBuf_ = nullptr;
    if (cudaMalloc(&ncclBuf_, need) != cudaSuccess)
      return false;
    ncclBufBytes_ = need;
  }
  uint8_t *slot = static_cast<uint8_t *>(ncclBuf_) + bytes * local[0].rank;
  if (cudaMemcpy(slot, send, bytes, cudaMemcpyHostToDevice) != cudaSuccess)
    return false;
  if (ncclAllGather(slot, ncclBuf_, bytes, ncclUint8, nccl_, ncclStream_) !=
      ncclSuccess)
    return false;
  // Bounded: a peer that never joins makes this fail, not hang.
  if (!waitStreams({ncclStream_}, {dev}, 120.0)) {
    log("bootstrap allgather: no answer from the peers in 120 s");
    return false;
  }
  return cudaMemcpy(recv, ncclBuf_, need, cudaMemcpyDeviceToHost) ==
         cudaSuccess;
}

bool World::allgatherBytes(const void *send, void *recv, size_t bytes) {
  if (gather_)
    return gather_->allgather(local[0].rank, send, recv, bytes, 120.0);
  return ncclAllGatherBytes(send, recv, bytes);
}

int World::allgatherCallback(const void *send, void *recv, size_t bytes,
                             void *userData) {
  World *w = static_cast<World *>(userData);
  // collc may have its own context current; leave it as it was.
  CUcontext saved = nullptr;
  cuCtxGetCurrent(&saved);
  bool ok = w->allgatherBytes(send, recv, bytes);
  cuCtxSetCurrent(saved);
  return ok ? 0 : 1;
}

void World::allgatherHost(const void *send, void *recv, size_t bytes) {
  if (!procs) {
    // Single process: every local rank's part is in `send` already.
    std::memcpy(recv, send, bytes * local.size());
    return;
  }
  if (!allgatherBytes(send, recv, bytes))
    fatal("harness allgather failed");
}

int World::agree(int status) {
  if (!procs)
    return status;
  std::vector<int> all(nranks, 0);
  allgatherHost(&status, all.data(), sizeof(int));
  return *std::max_element(all.begin(), all.end());
}

collcResult_t World::initComms(collcModule_t module,
                               const collcConfig_t *config,
                               std::vector<collcComm_t> &comms,
                               std::string *message) {
  comms.assign(local.size(), nullptr);
  collcResult_t r;
  if (procs) {
    CT_CUDA(cudaSetDevice(local[0].device));
    r = collcCommInitRank(&comms[0], module, nranks, local[0].rank,
                          local[0].device, &World::allgatherCallback, this,
                          config);
  } else {
    std::vector<int> devs = devices();
    r = collcCommInitAll(comms.data(), module, int(devs.size()), devs.data(),
                         config);
  }
  if (message)
    *message = r == collcSuccess ? "" : collcGetLastError();
  int worst = agree(r == collcSuccess ? 0 : 1);
  if (r == collcSuccess && worst) {
    // A peer failed: drop ours too so every rank is in the same state.
    destroyComms(comms, true);
    if (message)
      *message = "a peer rank failed collc communicator setup";
    return collcInvalidUsage;
  }
  if (r != collcSuccess)
    comms.clear();
  return r;
}

void World::destroyComms(std::vector<collcComm_t> &comms, bool abort) {
  for (collcComm_t c : comms) {
    if (!c)
      continue;
    collcResult_t r = abort ? collcCommAbort(c) : collcCommDestroy(c);
    if (r != collcSuccess)
      log("%s failed: %s: %s", abort ? "collcCommAbort" : "collcCommDestroy",
          resultName(r), collcGetLastError());
  }
  comms.clear();
}

collcConfig_t makeConfig(int timeoutMs) {
  collcConfig_t c = COLLC_CONFIG_INITIALIZER;
  c.timeoutMs = timeoutMs;
  return c;
}

std::string modulePath(const std::string &file) {
  return gOpt.modules + "/" + file;
}

collcModule_t loadModule(const std::string &file) {
  collcModule_t m = nullptr;
  std::string path = modulePath(file);
  collcResult_t r = collcModuleLoad(&m, path.c_str());
  if (r != collcSuccess)
    fatal("collcModuleLoad(%s): %s: %s", path.c_str(), resultName(r),
          collcGetLastError());
  return m;
}

} // namespace ct
