//===- main.cpp - collc_gpu_tests driver ------------------------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// collc_gpu_tests: the collectives of out/modules on real GPUs.
///
///   collc_gpu_tests [--mode=procs|single] [--suites=misuse,correctness,
///                   graphs,registration,zero_copy,timeout] [--modules=DIR]
///                   [--nranks=N] [--quick]
///                   [--no-big] [--filter=NAME,...] [--timeout-ms=MS]
///                   [--stall-timeout-ms=MS] [--replays=N] [--seed=N]
///                   [--watchdog=S] [--sm100-module=FILE]
///                   [--sm80-module=FILE] [--verbose]
///
/// --filter limits the correctness and zero_copy suites to collectives whose
/// names contain one of the comma-separated strings; --quick shrinks every
/// suite (sizes up to 1000 elements, bf16/f32/f8e5m2, 20 replays; zero_copy:
/// all_gather, all_reduce, broadcast, all_to_all_v and the spreads,
/// reduce_scatter_v and reduce, in bf16) for compute-sanitizer.
///
/// --mode=procs (default) forks one process per GPU for every suite (at
/// least two: with one GPU two processes share it); rank 0 makes the
/// ncclUniqueId and passes it through pipes (the parent never touches CUDA,
/// so forking is safe); each child bootstraps collc through ncclAllGather,
/// or through host memory shared by the forks where ranks share a GPU
/// (NCCL refuses that), and reports its tally to the parent. --mode=single drives
/// every GPU from one process (collcCommInitAll). Every process has an
/// alarm() watchdog, so a hang becomes a failure. The last line is exactly
/// "N passed, M failed"; the exit status is non-zero on any failure.
///
//===----------------------------------------------------------------------===//

#include "harness.h"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <poll.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using namespace ct;

namespace {

const char *kUsage =
    "usage: collc_gpu_tests [--mode=procs|single] "
    "[--suites=misuse,correctness,graphs,registration,zero_copy,timeout]\n"
    "  [--modules=DIR] [--nranks=N] [--quick] [--no-big] [--filter=NAME,...]\n"
    "  [--timeout-ms=MS] [--stall-timeout-ms=MS] [--replays=N] [--seed=N]\n"
    "  [--watchdog=S] [--sm100-module=FILE] [--sm80-module=FILE] "
    "[--verbose]\n"
    "  [--suites=robust [--robust=counts,streams,stall,coresidency,"
    "concurrent,shapes] [--shapes=N]]\n";

const std::vector<std::string> kSuites = {
    "misuse",    "correctness", "graphs", "registration",
    "zero_copy", "timeout",     "robust"};

/// robust runs only when asked for (its own phase of gpu-suite.sh).
bool wants(const std::string &suite) {
  return (gOpt.suites.empty() && suite != "robust") ||
         std::find(gOpt.suites.begin(), gOpt.suites.end(), suite) !=
             gOpt.suites.end();
}

void parseArgs(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&](const char *key, std::string *out) {
      std::string k = std::string(key) + "=";
      if (a.rfind(k, 0) == 0) {
        *out = a.substr(k.size());
        return true;
      }
      return false;
    };
    std::string v;
    if (val("--mode", &v)) {
      if (v != "procs" && v != "single") {
        std::fprintf(stderr, "unknown mode %s\n%s", v.c_str(), kUsage);
        std::exit(2);
      }
      gOpt.procs = v == "procs";
    } else if (val("--suites", &v)) {
      std::stringstream ss(v);
      std::string s;
      while (std::getline(ss, s, ',')) {
        if (std::find(kSuites.begin(), kSuites.end(), s) == kSuites.end()) {
          std::fprintf(stderr, "unknown suite %s\n%s", s.c_str(), kUsage);
          std::exit(2);
        }
        gOpt.suites.push_back(s);
      }
    } else if (val("--modules", &v)) {
      gOpt.modules = v;
    } else if (val("--nranks", &v)) {
      gOpt.nranks = std::atoi(v.c_str());
    } else if (a == "--quick") {
      gOpt.quick = true;
    } else if (a == "--no-big") {
      gOpt.big = false;
    } else if (val("--filter", &v)) {
      gOpt.filter = v;
    } else if (val("--timeout-ms", &v)) {
      gOpt.timeoutMs = std::atoi(v.c_str());
    } else if (val("--stall-timeout-ms", &v)) {
      gOpt.stallTimeoutMs = std::atoi(v.c_str());
    } else if (val("--replays", &v)) {
      gOpt.replays = std::atoi(v.c_str());
    } else if (val("--seed", &v)) {
      gOpt.seed = std::strtoull(v.c_str(), nullptr, 10);
    } else if (val("--watchdog", &v)) {
      gOpt.watchdogS = std::atoi(v.c_str());
    } else if (val("--sm100-module", &v)) {
      gOpt.sm100Module = v;
    } else if (val("--sm80-module", &v)) {
      gOpt.sm80Module = v;
    } else if (val("--shapes", &v)) {
      gOpt.shapes = std::atol(v.c_str());
    } else if (val("--robust", &v)) {
      gOpt.robustGroups = v;
    } else if (a == "--verbose") {
      gOpt.verbose = true;
    } else if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else {
      std::fprintf(stderr, "unknown argument %s\n%s", a.c_str(), kUsage);
      std::exit(2);
    }
  }
}

void onAlarm(int) {
  const char msg[] = "FATAL watchdog: the process ran past --watchdog "
                     "(a hang)\n";
  (void)!write(1, msg, sizeof msg - 1);
  _exit(124);
}

void armWatchdog() {
  std::signal(SIGALRM, onAlarm);
  alarm(unsigned(gOpt.watchdogS));
}

void printDevice(int device) {
  int driver = 0, count = 0, major = 0, minor = 0, version = 0;
  collcResult_t r = collcDriverInfo(&driver, &count);
  collcDeviceGetComputeCapability(device, &major, &minor);
  collcGetVersion(&version);
  report("collc %d (header %d), driver API %d, %d devices, device %d is "
         "sm_%d%d%s",
         version, COLLC_VERSION_CODE, driver, count, device, major, minor,
         r == collcSuccess ? "" : " (collcDriverInfo failed)");
}

void runSuite(World &w, const std::string &suite) {
  if (suite == "misuse")
    runMisuse(w);
  else if (suite == "correctness")
    runCorrectness(w);
  else if (suite == "graphs")
    runGraphs(w);
  else if (suite == "registration")
    runRegistration(w);
  else if (suite == "zero_copy")
    runZeroCopy(w);
  else if (suite == "timeout")
    runTimeoutStall(w);
  else if (suite == "robust")
    runRobust(w);
}

//===----------------------------------------------------------------------===//
// procs mode
//===----------------------------------------------------------------------===//

bool readAll(int fd, void *buf, size_t bytes) {
  uint8_t *p = static_cast<uint8_t *>(buf);
  while (bytes) {
    ssize_t k = read(fd, p, bytes);
    if (k <= 0)
      return false;
    p += k;
    bytes -= size_t(k);
  }
  return true;
}

/// Reads one byte from `fd` within `seconds`.
bool readByte(int fd, double seconds) {
  struct pollfd p = {fd, POLLIN, 0};
  if (poll(&p, 1, int(seconds * 1000)) <= 0)
    return false;
  char c;
  return read(fd, &c, 1) == 1 && c == 'r';
}

int probeDevices() {
  int fds[2];
  if (pipe(fds))
    fatal("pipe");
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess)
      n = 0;
    (void)!write(fds[1], &n, sizeof n);
    _exit(0);
  }
  close(fds[1]);
  int n = 0;
  if (!readAll(fds[0], &n, sizeof n))
    n = 0;
  close(fds[0]);
  waitpid(pid, nullptr, 0);
  return n;
}

/// Forks one child per rank to run `suite` ("kill" is the kill scenario).
/// With fewer GPUs than ranks the ranks share them and bootstrap through
/// host memory (NCCL refuses two ranks on one GPU): for correctness only,
/// since processes sharing a GPU take turns on it.
void runSuiteProcs(const std::string &suite, int n, int gpus, bool first) {
  // collc's bootstrap parts are small (handles, sizes); 1 MiB a rank.
  std::unique_ptr<HostGather> gather;
  if (n > gpus)
    gather = std::make_unique<HostGather>(n, size_t(1) << 20);
  std::vector<int> idPipe(2 * n), tallyPipe(2 * n), readyPipe(2 * n),
      goPipe(2 * n);
  for (int r = 0; r < n; ++r)
    if (pipe(&idPipe[2 * r]) || pipe(&tallyPipe[2 * r]) ||
        pipe(&readyPipe[2 * r]) || pipe(&goPipe[2 * r]))
      fatal("pipe");
  std::fflush(stdout);
  std::vector<pid_t> pids(n);
  for (int r = 0; r < n; ++r) {
    pid_t pid = fork();
    if (pid < 0)
      fatal("fork");
    if (pid == 0) {
      gPrefix = "[rank " + std::to_string(r) + "] ";
      // The child reports this suite's cases only: the parent's tally of the
      // suites before (copied by fork) is the parent's to count.
      gTally = Tally{};
      armWatchdog();
      ncclUniqueId id;
      if (gather) {
        // No NCCL: the ranks share a GPU.
      } else if (r == 0) {
        ncclResult_t e = ncclGetUniqueId(&id);
        if (e != ncclSuccess)
          fatal("ncclGetUniqueId: %s", ncclGetErrorString(e));
        for (int q = 1; q < n; ++q)
          if (write(idPipe[2 * q + 1], &id, sizeof id) != sizeof id)
            fatal("cannot pass the NCCL id");
      } else if (!readAll(idPipe[2 * r], &id, sizeof id)) {
        fatal("no NCCL id from rank 0");
      }
      World w;
      w.initProcs(n, r, gather ? nullptr : &id, gather.get());
      if (first)
        printDevice(r);
      if (suite == "kill")
        runTimeoutKill(w, readyPipe[2 * r + 1], goPipe[2 * r]);
      else
        runSuite(w, suite);
      long t[2] = {gTally.passed, gTally.failed};
      (void)!write(tallyPipe[2 * r + 1], t, sizeof t);
      if (suite == "kill") {
        std::fflush(stdout);
        _exit(gTally.failed ? 1 : 0);
      }
      w.finalize();
      std::fflush(stdout);
      _exit(gTally.failed ? 1 : 0);
    }
    pids[r] = pid;
  }
  for (int r = 0; r < n; ++r) {
    close(idPipe[2 * r]);
    close(idPipe[2 * r + 1]);
    close(tallyPipe[2 * r + 1]);
    close(readyPipe[2 * r + 1]);
    close(goPipe[2 * r]);
  }
  int victim = n - 1;
  bool killed = false;
  if (suite == "kill") {
    bool ready = true;
    for (int r = 0; r < n; ++r)
      ready &= readByte(readyPipe[2 * r], 180);
    if (ready) {
      kill(pids[victim], SIGKILL);
      waitpid(pids[victim], nullptr, 0);
      killed = true;
      std::printf("[parent] killed rank %d (pid %d) after communicator "
                  "setup\n",
                  victim, int(pids[victim]));
      std::fflush(stdout);
      for (int r = 0; r < n; ++r)
        if (r != victim)
          (void)!write(goPipe[2 * r + 1], "g", 1);
    } else {
      std::printf("[parent] FAIL timeout/kill: the ranks did not report "
                  "communicator setup; stopping them\n");
      gTally.failed++;
      for (int r = 0; r < n; ++r)
        kill(pids[r], SIGKILL);
    }
  }
  // Wait for the children, bounded by their watchdog plus slack.
  double deadline = nowSeconds() + gOpt.watchdogS + 30;
  std::vector<int> status(n, 0);
  std::vector<bool> done(n, false);
  if (killed)
    done[victim] = true;
  bool crashed = false;
  for (;;) {
    bool all = true;
    for (int r = 0; r < n; ++r) {
      if (done[r])
        continue;
      pid_t p = waitpid(pids[r], &status[r], WNOHANG);
      if (p == pids[r]) {
        done[r] = true;
        int s = status[r];
        if (!crashed &&
            !(WIFEXITED(s) && (WEXITSTATUS(s) == 0 || WEXITSTATUS(s) == 1))) {
          // A rank died: its peers may wait for it in NCCL; give them a
          // little time to finish on their own, then stop them.
          crashed = true;
          deadline = std::min(deadline, nowSeconds() + 20);
        }
      } else {
        all = false;
      }
    }
    if (all)
      break;
    if (nowSeconds() > deadline) {
      for (int r = 0; r < n; ++r)
        if (!done[r]) {
          std::printf("[parent] FAIL %s: rank %d still running at the "
                      "deadline (watchdog, or 20 s after a peer died); killing it\n",
                      suite.c_str(), r);
          kill(pids[r], SIGKILL);
          waitpid(pids[r], &status[r], 0);
          done[r] = true;
          gTally.failed++;
        }
      break;
    }
    usleep(10000);
  }
  // The tally of the reporting rank (rank 0: cases are agreed by all).
  long t[2] = {0, 0};
  if (readAll(tallyPipe[0], t, sizeof t)) {
    gTally.passed += t[0];
    gTally.failed += t[1];
  } else {
    std::printf("[parent] FAIL %s: rank 0 reported no results\n",
                suite.c_str());
    gTally.failed++;
  }
  for (int r = 0; r < n; ++r) {
    if (killed && r == victim)
      continue;
    int s = status[r];
    bool clean = WIFEXITED(s) && (WEXITSTATUS(s) == 0 || WEXITSTATUS(s) == 1);
    if (!clean) {
      if (WIFSIGNALED(s))
        std::printf("[parent] FAIL %s: rank %d died of signal %d\n",
                    suite.c_str(), r, WTERMSIG(s));
      else
        std::printf("[parent] FAIL %s: rank %d exited with status %d%s\n",
                    suite.c_str(), r, WEXITSTATUS(s),
                    WEXITSTATUS(s) == 124 ? " (watchdog)" : "");
      gTally.failed++;
    }
  }
  for (int r = 0; r < n; ++r) {
    close(tallyPipe[2 * r]);
    close(readyPipe[2 * r]);
    close(goPipe[2 * r + 1]);
  }
  std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv) {
  // Never NVLink multicast on the shared machines (DESIGN.md).
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  setenv("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1", 1);
  setenv("NVSHMEM_DISABLE_NVLS", "1", 1);
  parseArgs(argc, argv);
  for (const char *f : {"collectives.collcmod", "variable.collcmod"})
    if (access(modulePath(f).c_str(), R_OK) != 0) {
      std::printf("FATAL missing module %s: build the modules on the CPU "
                  "machine (collc --emit=module --target=sm_90 -o %s)\n",
                  modulePath(f).c_str(), gOpt.modules.c_str());
      return 2;
    }
  std::printf("collc_gpu_tests: mode %s, modules %s, seed %llu%s\n",
              gOpt.procs ? "procs" : "single", gOpt.modules.c_str(),
              (unsigned long long)gOpt.seed, gOpt.quick ? ", quick" : "");
  std::fflush(stdout);

  if (gOpt.procs) {
    int gpus = probeDevices();
    if (gpus < 1) {
      std::printf("FATAL procs mode: no GPU\n");
      return 2;
    }
    // One process per GPU; two sharing the GPU where there is one.
    int n = gOpt.nranks ? gOpt.nranks : std::max(gpus, 2);
    if (n > gpus)
      std::printf("procs mode: %d processes sharing %d GPU(s), bootstrapped "
                  "through shared host memory (correctness only: processes "
                  "take turns on a GPU)\n", n, gpus);
    bool first = true;
    for (const std::string &s : kSuites)
      if (wants(s)) {
        runSuiteProcs(s, n, gpus, first);
        first = false;
      }
    if (wants("timeout"))
      runSuiteProcs("kill", n, gpus, false);
  } else {
    armWatchdog();
    int n = gOpt.nranks;
    if (!n)
      CT_CUDA(cudaGetDeviceCount(&n));
    if (n < 2)
      n = 2; // Two ranks share the one GPU.
    World w;
    w.initSingle(n);
    printDevice(0);
    for (const std::string &s : kSuites)
      if (wants(s))
        runSuite(w, s);
    if (wants("timeout"))
      report("SKIP timeout/kill: needs --mode=procs");
    w.finalize();
  }
  std::printf("%ld passed, %ld failed\n", gTally.passed, gTally.failed);
  std::fflush(stdout);
  return gTally.failed ? 1 : 0;
}
