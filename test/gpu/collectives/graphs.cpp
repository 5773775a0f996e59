//===- graphs.cpp - CUDA graph replays and interleaved calls ----*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The graphs suite. (1) One call captured in a CUDA graph (global capture
/// mode, as PyTorch captures) and replayed --replays times (1000), with
/// fresh inputs copied in and the output poisoned before every replay and
/// checked after it; eager calls of another collective on the same
/// communicator between some replays. (2) A sequence of different
/// collectives, types, sizes and roots on two communicators (both modules),
/// back to back on one stream without synchronizing: eagerly, then
/// captured as one graph and replayed with fresh inputs.
///
//===----------------------------------------------------------------------===//

#include "cases.h"

#include <memory>

namespace ct {

namespace {

struct Comms {
  collcModule_t module = nullptr;
  std::vector<collcComm_t> comms;
};

bool setup(World &w, const std::string &file, Comms &c) {
  collcConfig_t config = makeConfig(gOpt.timeoutMs);
  c.module = loadModule(file);
  std::string msg;
  collcResult_t r = w.initComms(c.module, &config, c.comms, &msg);
  if (r != collcSuccess) {
    log("FAIL communicator setup for %s: %s: %s", file.c_str(),
        resultName(r), msg.c_str());
    return false;
  }
  return true;
}

void teardown(World &w, Comms &c, bool abort) {
  w.destroyComms(c.comms, abort);
  if (c.module)
    collcModuleDestroy(c.module);
  c.module = nullptr;
}

struct Op {
  std::unique_ptr<Case> c;
  Comms *comms;
};

/// Checks async errors of every communicator used and verifies every op.
/// Returns the agreed status (0 ok, 1 wrong, 2 broken).
int finish(World &w, std::vector<Op> &ops, const char *what,
           std::string *why) {
  if (!waitStreams(w.streams(), w.devices(), syncBoundSeconds() * 4))
    fatal("%s: streams did not finish (runtime hang)", what);
  int status = 0;
  std::string local;
  for (Op &op : ops)
    for (size_t l = 0; l < w.local.size(); ++l) {
      collcResult_t async = collcSuccess;
      if (collcCommGetAsyncError(op.comms->comms[l], &async) != collcSuccess ||
          async != collcSuccess) {
        if (status < 2)
          local = std::string("asynchronous error ") + resultName(async) +
                  ": " + collcGetLastError();
        status = 2;
      }
    }
  if (status == 0)
    for (Op &op : ops) {
      std::string d;
      if (!op.c->verify(&d)) {
        if (!status)
          local = op.c->spec().label() + ": " + d;
        status = 1;
      }
    }
  if (why)
    *why = local;
  return w.agree(status);
}

/// Captures the ops, in order, into one graph per local rank.
bool capture(World &w, std::vector<Op> &ops,
             std::vector<cudaGraphExec_t> &execs, std::string *why) {
  bool ok = true;
  execs.assign(w.local.size(), nullptr);
  for (size_t l = 0; l < w.local.size(); ++l) {
    CT_CUDA(cudaSetDevice(w.local[l].device));
    CT_CUDA(cudaStreamBeginCapture(w.local[l].stream,
                                   cudaStreamCaptureModeGlobal));
  }
  for (Op &op : ops)
    for (size_t l = 0; l < w.local.size(); ++l) {
      CT_CUDA(cudaSetDevice(w.local[l].device));
      collcResult_t r = op.c->launch(l, op.comms->comms[l]);
      if (r != collcSuccess && ok) {
        *why = op.c->spec().label() + ": launch during capture returned " +
               resultName(r) + ": " + collcGetLastError();
        ok = false;
      }
    }
  // End every capture before instantiating any graph: in global capture
  // mode, instantiation is refused while another stream still captures.
  std::vector<cudaGraph_t> graphs(w.local.size(), nullptr);
  for (size_t l = 0; l < w.local.size(); ++l) {
    CT_CUDA(cudaSetDevice(w.local[l].device));
    cudaError_t e = cudaStreamEndCapture(w.local[l].stream, &graphs[l]);
    if (e != cudaSuccess) {
      if (ok)
        *why = std::string("cudaStreamEndCapture: ") + cudaGetErrorString(e) +
               " (a call during capture was not capturable)";
      ok = false;
      cudaGetLastError();
      graphs[l] = nullptr;
    }
  }
  for (size_t l = 0; l < w.local.size(); ++l) {
    CT_CUDA(cudaSetDevice(w.local[l].device));
    cudaGraph_t graph = graphs[l];
    if (!graph)
      continue;
    cudaError_t e;
    e = cudaGraphInstantiate(&execs[l], graph, 0);
    cudaGraphDestroy(graph);
    if (e != cudaSuccess) {
      if (ok)
        *why = std::string("cudaGraphInstantiate: ") + cudaGetErrorString(e);
      ok = false;
      execs[l] = nullptr;
    }
  }
  return ok;
}

void destroyExecs(World &w, std::vector<cudaGraphExec_t> &execs) {
  for (size_t l = 0; l < execs.size(); ++l)
    if (execs[l]) {
      cudaSetDevice(w.local[l].device);
      cudaGraphExecDestroy(execs[l]);
    }
  execs.clear();
}

/// Replays `graphOps` (captured once) `replays` times with fresh inputs;
/// every `eagerEvery`th replay is followed by an eager launch of `eager`.
/// Returns the number of wrong replays (or -1: the communicator broke).
long replayLoop(World &w, std::vector<Op> &graphOps, std::vector<Op> &eager,
                int eagerEvery, int replays, const std::string &name,
                uint64_t seed0) {
  std::vector<cudaGraphExec_t> execs;
  std::string why;
  bool ok = capture(w, graphOps, execs, &why);
  if (!ok)
    log("FAIL %s: %s", name.c_str(), why.c_str());
  if (w.agree(ok ? 0 : 1)) {
    destroyExecs(w, execs);
    return replays;
  }
  long wrong = 0;
  double t0 = nowSeconds();
  for (int it = 0; it < replays; ++it) {
    for (Op &op : graphOps)
      op.c->upload(mix64(seed0 + it * 7919ull + uint64_t(&op - &graphOps[0])),
                   true);
    for (size_t l = 0; l < w.local.size(); ++l) {
      CT_CUDA(cudaSetDevice(w.local[l].device));
      CT_CUDA(cudaGraphLaunch(execs[l], w.local[l].stream));
    }
    bool withEager = eagerEvery > 0 && it % eagerEvery == eagerEvery - 1;
    if (withEager) {
      for (Op &op : eager) {
        op.c->upload(mix64(seed0 ^ (0xeaull << 40) ^ uint64_t(it)), true);
        for (size_t l = 0; l < w.local.size(); ++l) {
          CT_CUDA(cudaSetDevice(w.local[l].device));
          collcResult_t r = op.c->launch(l, op.comms->comms[l]);
          if (r != collcSuccess)
            log("eager %s: %s: %s", op.c->spec().label().c_str(),
                resultName(r), collcGetLastError());
        }
      }
    }
    int st = finish(w, graphOps, name.c_str(), &why);
    if (st == 0 && withEager)
      st = finish(w, eager, name.c_str(), &why);
    if (st) {
      if (wrong < 5 && !why.empty())
        log("FAIL %s replay %d: %s", name.c_str(), it, why.c_str());
      ++wrong;
      if (st == 2) {
        destroyExecs(w, execs);
        return -1;
      }
    }
  }
  report("  %s: %d replays in %.2f s, %ld wrong", name.c_str(), replays,
         nowSeconds() - t0, wrong);
  destroyExecs(w, execs);
  return wrong;
}

/// Launches `ops` eagerly on every local rank; false if one was refused.
bool launchEager(World &w, std::vector<Op> &ops) {
  bool ok = true;
  for (Op &op : ops)
    for (size_t l = 0; l < w.local.size(); ++l) {
      CT_CUDA(cudaSetDevice(w.local[l].device));
      collcResult_t r = op.c->launch(l, op.comms->comms[l]);
      if (r != collcSuccess && ok) {
        log("FAIL %s: launch: %s: %s", op.c->spec().label().c_str(),
            resultName(r), collcGetLastError());
        ok = false;
      }
    }
  return ok;
}

Op makeOp(World &w, Comms &comms, const char *name, collcDataType_t type,
          size_t count, int root = 0, bool inplace = false,
          const char *pattern = nullptr) {
  CaseSpec s;
  s.coll = findCollective(name);
  if (!s.coll)
    fatal("unknown collective %s", name);
  s.type = type;
  s.count = count;
  s.root = root;
  s.inplace = inplace;
  s.values = s.coll->reduce ? Values::Integers : Values::RandomBits;
  if (pattern)
    s.matrix = makePartitions(s.coll->kind, w.nranks, count, pattern,
                              mix64(count ^ type));
  Op op{std::make_unique<Case>(w, s), &comms};
  op.c->allocate();
  return op;
}

} // namespace

void runGraphs(World &w) {
  Comms fixed, variable;
  bool ok = setup(w, "collectives.collcmod", fixed) &&
            setup(w, "variable.collcmod", variable);
  if (!ok) {
    Group g("graphs/setup");
    g.fail();
    teardown(w, fixed, true);
    teardown(w, variable, true);
    return;
  }
  int n = w.nranks;
  int replays = gOpt.quick ? 20 : gOpt.replays;
  bool broken = false;

  struct Single {
    std::string name;
    std::vector<Op> graph, eager;
  };
  std::vector<Single> singles;
  {
    Single s{"graphs/all_reduce-bf16-replays", {}, {}};
    s.graph.push_back(makeOp(w, fixed, "all_reduce", collcBfloat16, 65539));
    s.eager.push_back(makeOp(w, fixed, "all_gather", collcFloat16, 1001));
    singles.push_back(std::move(s));
  }
  {
    Single s{"graphs/all_gather-f32-replays", {}, {}};
    s.graph.push_back(makeOp(w, fixed, "all_gather", collcFloat32, 4097));
    s.eager.push_back(
        makeOp(w, fixed, "reduce_scatter", collcBfloat16, 3000));
    singles.push_back(std::move(s));
  }
  {
    Single s{"graphs/all_reduce-f16-in-place-replays", {}, {}};
    s.graph.push_back(
        makeOp(w, fixed, "all_reduce", collcFloat16, 777, 0, true));
    singles.push_back(std::move(s));
  }
  {
    Single s{"graphs/all_to_all_v-f16-replays", {}, {}};
    s.graph.push_back(makeOp(w, variable, "all_to_all_v", collcFloat16, 3000,
                             0, false, "random"));
    s.eager.push_back(makeOp(w, variable, "reduce_scatter_v", collcFloat32,
                             2000, 0, false, "random"));
    singles.push_back(std::move(s));
  }
  // Capturing a call must not leave state that an eager call of the same
  // shape then uses before any replay (e.g. a size matrix whose upload is
  // a node of a graph that never ran).
  {
    Group g("graphs/eager-after-capture");
    struct Shape {
      const char *what;
      Op op;
      bool replay;
    };
    std::vector<Shape> shapes;
    shapes.push_back({"graph discarded unlaunched, then eager",
                      makeOp(w, variable, "all_gather_v", collcBfloat16, 4321,
                             0, false, "random"),
                      false});
    shapes.push_back({"eager before the first replay, then replay",
                      makeOp(w, fixed, "all_reduce", collcFloat32, 12345),
                      true});
    shapes.push_back({"eager before the first replay (reduce_scatter_v)",
                      makeOp(w, variable, "reduce_scatter_v", collcFloat16,
                             3333, 0, false, "random"),
                      true});
    for (Shape &sh : shapes) {
      if (broken) {
        g.fail();
        continue;
      }
      std::vector<Op> ops;
      ops.push_back(std::move(sh.op));
      std::vector<cudaGraphExec_t> execs;
      std::string why;
      bool ok = capture(w, ops, execs, &why);
      if (!ok)
        log("FAIL %s: %s", sh.what, why.c_str());
      if (w.agree(ok ? 0 : 1)) {
        destroyExecs(w, execs);
        g.fail();
        continue;
      }
      if (!sh.replay)
        destroyExecs(w, execs);
      ops[0].c->upload(mix64(gOpt.seed ^ 0xca97), true);
      launchEager(w, ops);
      int st = finish(w, ops, sh.what, &why);
      if (st && !why.empty())
        log("FAIL %s: eager call: %s", sh.what, why.c_str());
      if (st == 0 && sh.replay) {
        ops[0].c->upload(mix64(gOpt.seed ^ 0xca98), true);
        for (size_t l = 0; l < w.local.size(); ++l) {
          CT_CUDA(cudaSetDevice(w.local[l].device));
          CT_CUDA(cudaGraphLaunch(execs[l], w.local[l].stream));
        }
        st = finish(w, ops, sh.what, &why);
        if (st && !why.empty())
          log("FAIL %s: replay: %s", sh.what, why.c_str());
      }
      destroyExecs(w, execs);
      if (st == 0)
        report("  ok   %s", sh.what);
      g.result(st == 0);
      broken |= st == 2;
    }
  }

  for (Single &s : singles) {
    Group g(s.name);
    if (broken) {
      g.fail();
      continue;
    }
    long wrong = replayLoop(w, s.graph, s.eager, 10, replays, s.name,
                            mix64(gOpt.seed + singles.size()));
    g.result(wrong == 0);
    broken |= wrong < 0;
  }

  // Different collectives interleaved on one stream, two communicators.
  std::vector<Op> seq;
  seq.push_back(makeOp(w, fixed, "all_reduce", collcBfloat16, 1000));
  seq.push_back(makeOp(w, variable, "all_gather_v", collcBfloat16, 500, 0,
                       false, "random"));
  seq.push_back(makeOp(w, fixed, "all_gather", collcFloat16, 777));
  seq.push_back(makeOp(w, fixed, "reduce_scatter", collcFloat32, 513));
  seq.push_back(makeOp(w, variable, "reduce_scatter_v", collcFloat32, 700, 0,
                       false, "random"));
  seq.push_back(makeOp(w, fixed, "all_to_all", collcBfloat16, 300));
  seq.push_back(makeOp(w, fixed, "broadcast", collcFloat32, 100, n - 1));
  seq.push_back(makeOp(w, variable, "all_to_all_v", collcFloat8e5m2, 300, 0,
                       false, "random"));
  seq.push_back(makeOp(w, fixed, "reduce", collcBfloat16, 64, 0));
  seq.push_back(makeOp(w, fixed, "one_shot_all_reduce", collcFloat16, 4096));
  seq.push_back(makeOp(w, fixed, "scatter", collcBfloat16, 129, 0));
  seq.push_back(makeOp(w, fixed, "gather", collcFloat32, 33, n - 1));
  seq.push_back(makeOp(w, fixed, "all_reduce", collcFloat32,
                       gOpt.quick ? 4099 : (size_t(1) << 20) + 3, 0, true));
  seq.push_back(makeOp(w, fixed, "all_gather", collcFloat8e4m3, 1001));
  {
    Group g("graphs/interleaved-eager");
    for (int round = 0; round < 3 && !broken; ++round) {
      for (Op &op : seq)
        op.c->upload(mix64(gOpt.seed * 31 + round * 101 +
                           uint64_t(&op - &seq[0])),
                     true);
      std::string why;
      launchEager(w, seq);
      int st = finish(w, seq, "interleaved", &why);
      if (st && !why.empty())
        log("FAIL interleaved round %d: %s", round, why.c_str());
      g.result(st == 0);
      broken |= st == 2;
    }
    if (broken)
      g.fail();
  }
  {
    Group g("graphs/interleaved-graph-replays");
    if (broken) {
      g.fail();
    } else {
      std::vector<Op> none;
      long wrong = replayLoop(w, seq, none, 0, gOpt.quick ? 5 : 100,
                              "graphs/interleaved-graph-replays",
                              mix64(gOpt.seed * 97));
      g.result(wrong == 0);
      broken |= wrong < 0;
    }
  }
  singles.clear();
  seq.clear();
  teardown(w, fixed, broken);
  teardown(w, variable, broken);
}

} // namespace ct
