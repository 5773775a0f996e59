//===- harness.h - GPU test harness for collc collectives -------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What every suite of collc_gpu_tests shares: the options, the tally, the
/// "world" (the ranks this process drives: one in --mode=procs, all in
/// --mode=single, plus the bootstrap NCCL communicator in procs mode), host
/// element conversions and the deterministic input generator, and bounded
/// waits. Nothing here waits without a deadline.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_TEST_GPU_COLLECTIVES_HARNESS_H
#define COLLC_TEST_GPU_COLLECTIVES_HARNESS_H

#include "collc/collc.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace ct {

//===----------------------------------------------------------------------===//
// Options and tally
//===----------------------------------------------------------------------===//

struct Options {
  bool procs = true;           ///< --mode=procs (default) or --mode=single
  int nranks = 0;              ///< 0: every visible GPU (procs: at least 2)
  std::string modules = "out/modules";
  std::vector<std::string> suites; ///< empty: all
  std::string filter;          ///< substrings of collective names, comma-separated
  bool quick = false;          ///< small sizes, a few collectives (sanitizer)
  bool big = true;             ///< 256 MiB and 1 GiB bf16 cases
  int timeoutMs = 5000;        ///< collcConfig_t::timeoutMs of normal runs
  int stallTimeoutMs = 2000;   ///< bound in the timeout suite
  int replays = 1000;          ///< graph replays
  int watchdogS = 540;         ///< alarm() per process
  uint64_t seed = 1;
  std::string sm100Module;     ///< a real module built for sm_100 only
  std::string sm80Module;      ///< a module built for sm_80 only (optional)
  bool verbose = false;
  long shapes = 1000000;       ///< robust/shapes: distinct call shapes
  std::string robustGroups;    ///< robust groups to run (empty: all)
};

extern Options gOpt;

/// Cases passed and failed in this process (only rank 0's are reported in
/// procs mode: every case is agreed on by all ranks first).
struct Tally {
  long passed = 0, failed = 0;
};
extern Tally gTally;

/// Prefix of every line this process prints ("[rank 1] " in procs mode).
extern std::string gPrefix;

void log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/// Whether report() prints in this process.
void setReporting(bool reporting);

/// Prints a line only from the reporting process (rank 0 or single mode).
void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/// A group of cases: prints "PASS|FAIL <name> (<k> cases[, <f> failed])"
/// when it ends and adds to the tally.
class Group {
public:
  explicit Group(std::string name);
  ~Group();
  void pass() { ++passed_; }
  void fail() { ++failed_; }
  void result(bool ok) { ok ? pass() : fail(); }
  long failed() const { return failed_; }
  /// Distinct for every group of the process.
  long id() const { return id_; }

private:
  static long next_;
  long id_ = ++next_;
  std::string name_;
  long passed_ = 0, failed_ = 0;
};

//===----------------------------------------------------------------------===//
// Element types on the host
//===----------------------------------------------------------------------===//

int typeBytes(collcDataType_t t);
const char *typeName(collcDataType_t t);
bool isFloat8(collcDataType_t t);
collcDataType_t parseType(const std::string &name, bool *ok);

float bitsToFloat(collcDataType_t t, uint32_t bits);
/// Round to nearest even, once.
uint32_t floatToBits(collcDataType_t t, float v);
/// Clears NaN patterns (a copy must preserve every other bit pattern).
uint32_t deNaN(collcDataType_t t, uint32_t bits);

inline uint32_t loadBits(const uint8_t *p, int eb, size_t i) {
  const uint8_t *q = p + i * eb;
  switch (eb) {
  case 1:
    return q[0];
  case 2:
    return uint32_t(q[0]) | uint32_t(q[1]) << 8;
  default:
    return uint32_t(q[0]) | uint32_t(q[1]) << 8 | uint32_t(q[2]) << 16 |
           uint32_t(q[3]) << 24;
  }
}
inline void storeBits(uint8_t *p, int eb, size_t i, uint32_t v) {
  uint8_t *q = p + i * eb;
  for (int b = 0; b < eb; ++b)
    q[b] = uint8_t(v >> (8 * b));
}

//===----------------------------------------------------------------------===//
// Deterministic inputs
//===----------------------------------------------------------------------===//

inline uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

enum class Values {
  Integers,   ///< integers in [-8, 8]: sums of a few are exact in every type
  Reals,      ///< uniform in [-4, 4), rounded to the type
  RandomBits, ///< any bit pattern but NaN (copies)
};

/// Element `i` of rank `rank`'s input in case `seed`, as bits of `t`.
inline uint32_t inputBits(Values v, collcDataType_t t, uint64_t seed,
                          int rank, uint64_t i) {
  uint64_t h = mix64(seed * 0x100000001b3ull ^ mix64(uint64_t(rank) + 1) ^
                     (i * 0x9e3779b97f4a7c15ull));
  switch (v) {
  case Values::Integers:
    return floatToBits(t, float(int(h % 17) - 8));
  case Values::Reals:
    return floatToBits(t, float(double(h >> 11) * 0x1p-53 * 8.0 - 4.0));
  case Values::RandomBits:
  default:
    return deNaN(t, uint32_t(h >> 17));
  }
}

/// Runs fn(begin, end) over [0, n) on up to hardware_concurrency threads.
void parallelFor(size_t n, const std::function<void(size_t, size_t)> &fn);

//===----------------------------------------------------------------------===//
// Errors and bounded waits
//===----------------------------------------------------------------------===//

/// Aborts the process on a CUDA runtime error: the harness itself failing is
/// not a test result.
#define CT_CUDA(call)                                                          \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess)                                                     \
      ::ct::fatal("%s:%d: %s failed: %s", __FILE__, __LINE__, #call,           \
                  cudaGetErrorString(e_));                                     \
  } while (0)

[[noreturn]] void fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

const char *resultName(collcResult_t r);

double nowSeconds();

/// Waits until every stream is idle or `seconds` pass. Returns false on
/// expiry (the streams are then stuck: the caller fails and exits).
bool waitStreams(const std::vector<cudaStream_t> &streams,
                 const std::vector<int> &devices, double seconds);

/// The deadline every collective sync gets: three bounds plus slack.
double syncBoundSeconds();

//===----------------------------------------------------------------------===//
// World
//===----------------------------------------------------------------------===//

struct LocalRank {
  int rank = 0;
  int device = 0;
  cudaStream_t stream = nullptr;
};

/// An allgather of bytes between forked processes through host memory they
/// share (mapped before the fork): the bootstrap where ranks share a GPU,
/// which NCCL refuses. Two buffers used in turn, and one arrival counter: a
/// rank writes call g's part only after every rank arrived at call g - 1,
/// that is after every rank read call g - 2's parts from the same buffer.
class HostGather {
public:
  /// Maps the shared memory for `nranks` ranks of up to `capacity` bytes
  /// each per call; call before forking.
  HostGather(int nranks, size_t capacity);
  ~HostGather();
  /// This rank's part in, every rank's out (rank order). False when a part
  /// exceeds the capacity or a peer has not arrived within `seconds`.
  bool allgather(int rank, const void *send, void *recv, size_t bytes,
                 double seconds);

private:
  struct Shared;
  Shared *shared_ = nullptr;
  size_t mapped_ = 0;
  int nranks_ = 0;
  size_t capacity_ = 0;
  uint64_t calls_ = 0; ///< this process's calls so far
};

/// The ranks this process drives and how processes agree.
class World {
public:
  int nranks = 0;
  bool procs = false;
  std::vector<LocalRank> local;

  /// procs mode: this process is `rank`; bootstrapped through NCCL (`id`),
  /// or through `gather` where ranks share a GPU (NCCL refuses that).
  void initProcs(int nranks, int rank, const ncclUniqueId *id,
                 HostGather *gather);
  /// single mode: all ranks, devices 0..nranks-1.
  void initSingle(int nranks);
  void finalize();
  /// Skips the NCCL teardown (a peer was killed).
  void abandon();

  bool reporting() const { return !procs || local[0].rank == 0; }

  /// Max of `status` over all ranks (procs: over processes). Bounded.
  int agree(int status);
  /// Gathers `bytes` from every process (rank order) on the host. Bounded.
  void allgatherHost(const void *send, void *recv, size_t bytes);

  /// Creates one communicator per local rank for `module` with `config`
  /// (collcCommInitRank with the NCCL allgather, or collcCommInitAll).
  /// On failure returns the first error and leaves `comms` empty.
  collcResult_t initComms(collcModule_t module, const collcConfig_t *config,
                          std::vector<collcComm_t> &comms,
                          std::string *message);
  /// Destroys (or aborts) every communicator in `comms` and clears it.
  void destroyComms(std::vector<collcComm_t> &comms, bool abort = false);

  std::vector<cudaStream_t> streams() const;
  std::vector<int> devices() const;

  /// The bootstrap allgather collc calls during collcCommInitRank.
  static int allgatherCallback(const void *send, void *recv, size_t bytes,
                               void *userData);

private:
  HostGather *gather_ = nullptr;
  ncclComm_t nccl_ = nullptr;
  cudaStream_t ncclStream_ = nullptr;
  void *ncclBuf_ = nullptr;
  size_t ncclBufBytes_ = 0;
  bool ncclAllGatherBytes(const void *send, void *recv, size_t bytes);
  bool allgatherBytes(const void *send, void *recv, size_t bytes);
};

/// What a module's manifest says about one collective.
struct ManifestCollective {
  std::string name;
  std::vector<collcDataType_t> types;
  std::vector<int> worldSizes;
  std::vector<std::string> readyEvents, freeEvents;
};
/// Reads the manifest of module file `path` (nlohmann/json); fatal if
/// unreadable (collcModuleLoad accepted it already).
std::vector<ManifestCollective> readManifest(const std::string &path);
/// The module text reduced to its first target's kernels and images, with
/// every target label (top-level `targets`, kernels' and images' `target`)
/// set to `target`; the code itself is unchanged.
std::string relabelModule(const std::string &text, const std::string &target);
std::string readFile(const std::string &path);

/// The local ranks one layout of a suite runs: their ranks, devices and
/// streams (the world's own, or streams of the layout's making, in `own`).
struct LayoutRanks {
  int nranks = 0;
  std::vector<int> rank, device;
  std::vector<cudaStream_t> stream, own;
};
/// The layouts a suite that registers buffers runs: the world's ranks, and
/// in one process also 2 and 4 ranks sharing GPU 0 (unless the world is
/// that already).
std::vector<std::vector<int>> sharedGpuLayouts(const World &w);
/// Layout `k` of `layouts`: the world's local ranks (k == 0), else one rank
/// per device listed, each on a new non-blocking stream (the caller
/// destroys `own`).
LayoutRanks layoutRanks(const World &w,
                        const std::vector<std::vector<int>> &layouts,
                        size_t k);

/// A collcConfig_t with the given bound.
collcConfig_t makeConfig(int timeoutMs);

/// Loads `<modules>/<file>`; fatal if missing (the script checks first).
collcModule_t loadModule(const std::string &file);
std::string modulePath(const std::string &file);

//===----------------------------------------------------------------------===//
// Suites
//===----------------------------------------------------------------------===//

void runCorrectness(World &w);
void runGraphs(World &w);
void runMisuse(World &w);
/// Robustness (single mode): counts, streams, stall blame, co-residency,
/// concurrent use, distinct shapes.
void runRobust(World &w);
/// Registered buffers: register, find, map, refuse, deregister safely.
void runRegistration(World &w);
/// Zero-copy programs on registered buffers: picked, right, eager and
/// replayed, deregistration refused while a graph holds a window, the
/// chunked program after deregistration.
void runZeroCopy(World &w);
/// Stall: every rank takes a turn as the one that never launches.
void runTimeoutStall(World &w);
/// procs mode only: this rank is the survivor (rank 0) or the victim (1),
/// which the parent kills after `ready`; `ready`/`go` are pipe fds.
void runTimeoutKill(World &w, int readyFd, int goFd);

} // namespace ct

#endif // COLLC_TEST_GPU_COLLECTIVES_HARNESS_H
