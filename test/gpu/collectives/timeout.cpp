//===- timeout.cpp - a stuck or dead peer becomes an error ------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The timeout suite. With collcConfig_t::timeoutMs = --stall-timeout-ms
/// (2000), one rank (the victim) never launches, or (procs mode) is killed
/// after communicator setup, while the others launch. Each survivor's
/// stream must finish, no earlier than 0.8 and no later than 3 bounds
/// after the launch; collcCommGetAsyncError must report collcTimeout with a
/// message naming the collective, "rank <victim>" and one of the
/// collective's events (from the manifest), or, where the call runs a SNAC v2
/// program, the rank whose data it waited for; collcCommAbort must return.
/// Then a fresh communicator must work again. Times are printed.
///
//===----------------------------------------------------------------------===//

#include "cases.h"

#include <algorithm>
#include <unistd.h>

namespace ct {

namespace {

std::vector<std::string> eventsOf(const std::string &collective) {
  for (const ManifestCollective &mc :
       readManifest(modulePath("collectives.collcmod")))
    if (mc.name == collective) {
      std::vector<std::string> ev = mc.readyEvents;
      ev.insert(ev.end(), mc.freeEvents.begin(), mc.freeEvents.end());
      return ev;
    }
  return {};
}

/// Launches `c` on every local rank but `victim`, waits, checks. Returns
/// this process's status (0 ok, 1 failed).
int expectTimeout(World &w, const std::vector<collcComm_t> &comms, Case &c,
                  int victim, const std::string &scenario) {
  const std::string coll = c.spec().coll->name;
  double bound = gOpt.stallTimeoutMs / 1000.0;
  std::vector<std::string> events = eventsOf(coll);
  int status = 0;
  std::vector<size_t> launched;
  double t0 = nowSeconds();
  for (size_t l = 0; l < w.local.size(); ++l) {
    if (w.local[l].rank == victim)
      continue;
    CT_CUDA(cudaSetDevice(w.local[l].device));
    collcResult_t r = c.launch(l, comms[l]);
    if (r != collcSuccess) {
      log("FAIL %s: launch: %s: %s", scenario.c_str(), resultName(r),
          collcGetLastError());
      status = 1;
    } else {
      launched.push_back(l);
    }
  }
  // Poll the streams and the async error together, with a deadline.
  std::vector<double> doneAt(w.local.size(), -1), errAt(w.local.size(), -1);
  double deadline = t0 + 3 * bound;
  for (;;) {
    bool all = true;
    for (size_t l : launched) {
      CT_CUDA(cudaSetDevice(w.local[l].device));
      if (errAt[l] < 0) {
        collcResult_t e = collcSuccess;
        if (collcCommGetAsyncError(comms[l], &e) == collcSuccess &&
            e != collcSuccess)
          errAt[l] = nowSeconds() - t0;
      }
      if (doneAt[l] < 0) {
        cudaError_t q = cudaStreamQuery(w.local[l].stream);
        if (q == cudaSuccess)
          doneAt[l] = nowSeconds() - t0;
        else if (q != cudaErrorNotReady)
          fatal("%s: stream error %s", scenario.c_str(),
                cudaGetErrorString(q));
        else
          all = false;
      }
    }
    if (all || nowSeconds() > deadline)
      break;
    usleep(200);
  }
  for (size_t l : launched) {
    int r = w.local[l].rank;
    if (doneAt[l] < 0) {
      log("FAIL %s: rank %d: the stream has not finished %.1f s after the "
          "launch (3x the %.1f s bound): no timeout, a hang",
          scenario.c_str(), r, 3 * bound, bound);
      fatal("cannot continue with a stuck stream");
    }
    CT_CUDA(cudaSetDevice(w.local[l].device));
    collcResult_t e = collcSuccess;
    collcResult_t q = collcCommGetAsyncError(comms[l], &e);
    std::string msg = collcGetLastError();
    std::string problem;
    std::string victimName = "rank " + std::to_string(victim);
    if (q != collcSuccess)
      problem = std::string("collcCommGetAsyncError returned ") +
                resultName(q);
    else if (e != collcTimeout)
      problem = std::string("async error is ") + resultName(e) +
                ", expected collcTimeout";
    else if (msg.find(coll) == std::string::npos)
      problem = "message does not name the collective '" + coll + "'";
    else if (w.nranks == 2 && msg.find(victimName) == std::string::npos)
      problem = "message does not name '" + victimName + "'";
    else if (msg.find("rank ") == std::string::npos)
      problem = "message names no rank";
    else if (msg.find(", program ") != std::string::npos) {
      // A SNAC v2 program (the call's size is in a program's band) has no
      // named events: its waits name the op, the source rank and the slot.
      // At more than 2 ranks that source may be a peer stuck on the victim.
      // A V exchange's ranks wait for the victim before the first step,
      // in the agreement on the call's steps (policy agree), or with pair
      // steps (policy pairs) at step 0's data, naming the op.
      if (msg.find("waiting for rank ") == std::string::npos ||
          msg.find("'s data") == std::string::npos)
        problem = "a program's message does not say whose data it waited for";
      else if (c.spec().coll->kind == Kind::AllToAllV &&
               msg.find("agreeing on the call's steps") == std::string::npos &&
               msg.find("'s data (op ") == std::string::npos)
        problem = "an all_to_all_v message says neither that it waited in "
                  "the agreement on the call's steps nor at which op";
    } else {
      bool named = false;
      for (const std::string &ev : events)
        named |= msg.find(ev) != std::string::npos;
      if (events.empty())
        named = msg.find("event") != std::string::npos;
      if (!named) {
        problem = "message names none of the events:";
        for (const std::string &ev : events)
          problem += " " + ev;
      }
    }
    if (doneAt[l] < 0.8 * bound)
      problem += (problem.empty() ? "" : "; ") +
                 std::string("finished before the bound (") +
                 std::to_string(doneAt[l]) + " s)";
    log("%s: rank %d: stream finished %.3f s after the launch (bound %.1f "
        "s), async error first seen at %.3f s: %s",
        scenario.c_str(), r, doneAt[l], bound, errAt[l], msg.c_str());
    if (!problem.empty()) {
      log("FAIL %s: rank %d: %s", scenario.c_str(), r, problem.c_str());
      status = 1;
    }
  }
  return status;
}

CaseSpec spec(const char *name, size_t count) {
  CaseSpec s;
  s.coll = findCollective(name);
  s.type = collcBfloat16;
  s.count = count;
  s.values = s.coll->reduce ? Values::Integers : Values::RandomBits;
  s.seed = 77;
  return s;
}

void abortAll(std::vector<collcComm_t> &comms, Group &g,
              const std::string &scenario) {
  double t0 = nowSeconds();
  int status = 0;
  for (collcComm_t c : comms) {
    collcResult_t r = collcCommAbort(c);
    if (r != collcSuccess) {
      log("FAIL %s: collcCommAbort: %s: %s", scenario.c_str(), resultName(r),
          collcGetLastError());
      status = 1;
    }
  }
  comms.clear();
  log("%s: collcCommAbort took %.3f s", scenario.c_str(), nowSeconds() - t0);
  g.result(status == 0);
}

} // namespace

void runTimeoutStall(World &w) {
  collcModule_t module = loadModule("collectives.collcmod");
  collcModule_t variable = loadModule("variable.collcmod");
  collcConfig_t config = makeConfig(gOpt.stallTimeoutMs);
  struct Scenario {
    int victim;
    const char *coll;
    size_t count;
  };
  int n = w.nranks;
  // The last rank stalls an all_reduce; rank 0, the root, stalls a
  // broadcast; rank 0 an all_to_all_v (random sizes up to `count`).
  std::vector<Scenario> scenarios = {{n - 1, "all_reduce", 65536},
                                     {0, "broadcast", 4096},
                                     {0, "all_to_all_v", 4096}};
  Group g("timeout/stall");
  for (const Scenario &sc : scenarios) {
    std::string name = std::string("stall: rank ") + std::to_string(sc.victim) +
                       " never calls " + sc.coll;
    CaseSpec s = spec(sc.coll, sc.count);
    const bool isVariable = s.coll->kind == Kind::AllToAllV;
    if (isVariable)
      s.matrix = makePartitions(Kind::AllToAllV, n, sc.count, "random", 77);
    std::vector<collcComm_t> comms;
    std::string msg;
    if (w.initComms(isVariable ? variable : module, &config, comms, &msg) !=
        collcSuccess) {
      log("FAIL %s: communicator setup: %s", name.c_str(), msg.c_str());
      g.fail();
      continue;
    }
    Case c(w, s);
    c.allocate();
    c.upload(77, false);
    int st = expectTimeout(w, comms, c, sc.victim, name);
    g.result(w.agree(st) == 0);
    abortAll(comms, g, name);
    w.agree(0); // everyone has aborted before the next setup
  }
  // A new communicator works after the aborts.
  {
    collcConfig_t normal = makeConfig(gOpt.timeoutMs);
    std::vector<collcComm_t> comms;
    std::string msg;
    if (w.initComms(module, &normal, comms, &msg) != collcSuccess) {
      log("FAIL new communicator after abort: %s", msg.c_str());
      g.fail();
    } else {
      Case c(w, spec("all_reduce", 1000));
      std::string why;
      int st = runCase(w, comms, c, &why);
      if (st)
        log("FAIL all_reduce on a new communicator after abort: %s",
            why.c_str());
      g.result(st == 0);
      w.destroyComms(comms);
    }
  }
  collcModuleDestroy(variable);
  collcModuleDestroy(module);
}

void runTimeoutKill(World &w, int readyFd, int goFd) {
  collcModule_t module = loadModule("collectives.collcmod");
  collcConfig_t config = makeConfig(gOpt.stallTimeoutMs);
  int victim = w.nranks - 1;
  int me = w.local[0].rank;
  std::string name =
      "kill: rank " + std::to_string(victim) + " killed before all_reduce";
  Group g("timeout/kill");
  std::vector<collcComm_t> comms;
  std::string msg;
  if (w.initComms(module, &config, comms, &msg) != collcSuccess) {
    log("FAIL %s: communicator setup: %s", name.c_str(), msg.c_str());
    g.fail();
    char x = 'f';
    (void)!write(readyFd, &x, 1);
    return;
  }
  Case c(w, spec("all_reduce", 65536));
  c.allocate();
  c.upload(77, false);
  // Every rank has finished setup (peer memory mapped) before the kill.
  w.agree(0);
  char x = 'r';
  if (write(readyFd, &x, 1) != 1)
    fatal("cannot signal the parent");
  if (me == victim) {
    for (;;)
      pause(); // the parent sends SIGKILL
  }
  if (read(goFd, &x, 1) != 1)
    fatal("no go from the parent");
  int st = expectTimeout(w, comms, c, victim, name);
  g.result(st == 0);
  abortAll(comms, g, name);
  // NCCL's communicator lost a peer: do not tear it down.
  w.abandon();
  collcModuleDestroy(module);
}

} // namespace ct
