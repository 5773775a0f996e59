//===- correctness.cpp - every collective, type, size and root --*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The correctness suite: for both modules, every collective the manifest
/// lists, every element type it has, sizes from 0 and 1 element through odd
/// counts to 1 MiB + 3 (and 256 MiB / 1 GiB for bf16 all_reduce and
/// all_gather), in and out of place where NCCL defines it, every root, V
/// variants with random partitions including empty ones. Reductions get
/// integers in [-8, 8] (exact sums), copies random non-NaN bit patterns;
/// outputs are poisoned and guarded and compared bit for bit with the host
/// reference. Then element-aligned (not 16-byte aligned) buffers, the typed
/// entry points, and non-integer inputs (rounding must match the reference
/// at two ranks and be identical on every rank).
///
//===----------------------------------------------------------------------===//

#include "cases.h"

#include <algorithm>
#include <iterator>

namespace ct {

namespace {

struct Runner {
  World &w;
  collcModule_t module = nullptr;
  std::vector<collcComm_t> comms;
  collcConfig_t config;
  uint64_t serial = 0;
  bool broken = false;
  /// Cases of the current group that broke the communicator: each costs a
  /// timeout, so a group stops after a few.
  int brokenInGroup = 0;
  /// The same over the whole suite: past 10, every remaining case is
  /// counted as failed without running (the run must end in bounded time).
  static int brokenTotal;
  long group = 0;

  Runner(World &w, const std::string &file)
      : w(w), config(makeConfig(gOpt.timeoutMs)) {
    module = loadModule(file);
    std::string msg;
    collcResult_t r = w.initComms(module, &config, comms, &msg);
    if (r != collcSuccess) {
      log("FAIL communicator setup for %s: %s: %s", file.c_str(),
          resultName(r), msg.c_str());
      broken = true;
    }
  }
  ~Runner() {
    w.destroyComms(comms);
    collcModuleDestroy(module);
  }

  uint64_t nextSeed() { return mix64(gOpt.seed * 1000003ull + ++serial); }

  /// Runs one case; re-creates the communicators if it broke them.
  void run(Group &g, CaseSpec s) {
    if (group != g.id()) {
      group = g.id();
      brokenInGroup = 0;
    }
    if (broken || brokenInGroup >= 2 || brokenTotal >= 10) {
      if (gOpt.verbose || brokenInGroup == 2)
        report("  skipped (counted as failed) after %d cases of the group "
               "broke the communicator: %s",
               brokenInGroup, s.label().c_str());
      brokenInGroup += brokenInGroup == 2;
      g.fail();
      return;
    }
    s.seed = nextSeed();
    Case c(w, s);
    std::string why;
    int st = runCase(w, comms, c, &why);
    g.result(st == 0);
    if (gOpt.verbose)
      report("  %s %s", st == 0 ? "ok  " : "FAIL", s.label().c_str());
    if (st == 2) {
      ++brokenInGroup;
      ++brokenTotal;
      log("the communicator reported an asynchronous error; aborting and "
          "re-creating it");
      w.destroyComms(comms, true);
      std::string msg;
      if (w.initComms(module, &config, comms, &msg) != collcSuccess) {
        log("FAIL re-creating the communicator: %s", msg.c_str());
        broken = true;
      }
    }
  }

  /// Whether every rank has room for `c` (agreed, so all skip together).
  bool fits(const Case &c) {
    int skip = 0;
    for (const LocalRank &lr : w.local) {
      size_t freeB = 0, totalB = 0;
      CT_CUDA(cudaSetDevice(lr.device));
      CT_CUDA(cudaMemGetInfo(&freeB, &totalB));
      if (c.bytesPerRank(lr.rank) + (size_t(2) << 30) > freeB)
        skip = 1;
    }
    return w.agree(skip) == 0;
  }
};

/// --filter: comma-separated substrings of collective names.
int Runner::brokenTotal = 0;

bool selected(const char *name) {
  if (gOpt.filter.empty())
    return true;
  size_t b = 0;
  while (b <= gOpt.filter.size()) {
    size_t e = gOpt.filter.find(',', b);
    if (e == std::string::npos)
      e = gOpt.filter.size();
    std::string part = gOpt.filter.substr(b, e - b);
    if (!part.empty() && std::string(name).find(part) != std::string::npos)
      return true;
    b = e + 1;
  }
  return false;
}

std::vector<size_t> fixedSizes() {
  // 40960 and 2^17: above the one-shot bands (chunked programs), whole
  // 16-byte units on every rank (a rank's own part read where it lies).
  if (gOpt.quick)
    return {0, 1, 7, 1000, 40960};
  return {0, 1, 7, 1000, 65537, 40960, size_t(1) << 17,
          (size_t(1) << 20) + 3};
}

bool isV(Kind k) {
  return k == Kind::AllGatherV || k == Kind::ReduceScatterV ||
         k == Kind::AllToAllV;
}

void testCollectiveType(Runner &run, const CollInfo &info,
                        collcDataType_t type) {
  World &w = run.w;
  Group g(std::string("correctness/") + info.name + "/" + typeName(type));
  CaseSpec base;
  base.coll = &info;
  base.type = type;
  base.values = info.reduce ? Values::Integers : Values::RandomBits;

  if (isV(info.kind)) {
    struct Shape {
      size_t scale;
      const char *pattern;
      int seeds;
    };
    static const Shape quick[] = {{0, "zeros", 1},
                                  {7, "random", 1},
                                  {1000, "random", 1},
                                  {65536, "aligned", 1}};
    static const Shape full[] = {
        {0, "zeros", 1},     {1, "random", 2},      {7, "random", 2},
        {1000, "random", 2}, {1000, "one", 2},      {65537, "random", 2},
        {65537, "one", 1},   {65536, "aligned", 2},
        {(size_t(1) << 20) + 3, "random", 1},
        // One partition of several steps that most ranks do not see
        // (AllToAll_v: the ranks must agree on the steps).
        {(size_t(3) << 20) + 5, "one", 1}};
    const Shape *begin = gOpt.quick ? std::begin(quick) : std::begin(full);
    const Shape *end = gOpt.quick ? std::end(quick) : std::end(full);
    for (const Shape *it = begin; it != end; ++it) {
      const Shape &sh = *it;
      for (int k = 0; k < sh.seeds; ++k) {
        CaseSpec s = base;
        s.matrix = makePartitions(info.kind, w.nranks, sh.scale, sh.pattern,
                                  run.nextSeed());
        run.run(g, s);
      }
    }
    return;
  }

  std::vector<int> roots = {0};
  if (info.rooted) {
    roots.clear();
    if (gOpt.quick)
      roots.push_back(w.nranks - 1);
    else
      for (int r = 0; r < w.nranks; ++r)
        roots.push_back(r);
  }
  std::vector<bool> places = {false};
  if (info.inplace && (!gOpt.quick || info.kind == Kind::AllReduce))
    places.push_back(true);
  for (size_t count : fixedSizes())
    for (int root : roots)
      for (bool inplace : places) {
        CaseSpec s = base;
        s.count = count;
        s.root = root;
        s.inplace = inplace;
        run.run(g, s);
      }
}

/// bf16 all_reduce and all_gather at 256 MiB and 1 GiB of output.
void testBig(Runner &run) {
  World &w = run.w;
  for (const char *name : {"all_reduce", "all_gather"}) {
    if (!selected(name))
      continue;
    Group g(std::string("correctness/") + name + "/bf16/big");
    for (size_t total : {size_t(256) << 20, size_t(1) << 30}) {
      for (bool inplace : {false, true}) {
        CaseSpec s;
        s.coll = findCollective(name);
        s.type = collcBfloat16;
        // all_reduce's count is one of n partitions, all_gather's one
        // rank's contribution: n * count elements of output either way.
        s.count = total / 2 / w.nranks;
        s.inplace = inplace;
        s.values = s.coll->reduce ? Values::Integers : Values::RandomBits;
        s.seed = run.nextSeed();
        {
          Case probe(w, s);
          if (!run.fits(probe)) {
            report("SKIP %s: not enough device memory", s.label().c_str());
            continue;
          }
        }
        double t0 = nowSeconds();
        run.run(g, s);
        report("  %s: %.1f s (host reference included)", s.label().c_str(),
               nowSeconds() - t0);
      }
    }
  }
}

/// Buffers aligned to the element only (NCCL accepts them; in-place
/// all_gather with odd counts produces them anyway).
void testOffsets(Runner &run, const std::string &moduleName) {
  World &w = run.w;
  Group g("correctness/" + moduleName + "/element-aligned-buffers");
  for (const CollInfo &info : collectiveTable()) {
    if (info.module != moduleName || !selected(info.name))
      continue;
    for (collcDataType_t t : {collcBfloat16, collcFloat8e4m3}) {
      if (isFloat8(t) && info.reduce)
        continue;
      if (isFloat8(t) && info.kind != Kind::AllGather &&
          info.kind != Kind::AllToAll && info.kind != Kind::AllGatherV &&
          info.kind != Kind::AllToAllV)
        continue;
      for (int off : {1, 3}) {
        CaseSpec s;
        s.coll = &info;
        s.type = t;
        s.values = info.reduce ? Values::Integers : Values::RandomBits;
        s.elemOffset = off;
        s.root = w.nranks - 1;
        if (isV(info.kind))
          s.matrix = makePartitions(info.kind, w.nranks, 999, "random",
                                    run.nextSeed());
        else
          s.count = gOpt.quick ? 37 : 65537;
        run.run(g, s);
      }
    }
  }
}

/// collcAllReduce, collcAllGather, ... (NCCL's argument conventions: the
/// whole buffer's count for AllReduce, Broadcast and Reduce, which need not
/// divide by the rank count).
void testTyped(Runner &run) {
  World &w = run.w;
  Group g("correctness/typed-entry-points");
  for (const char *name : {"all_reduce", "all_gather", "reduce_scatter",
                           "all_to_all", "broadcast", "reduce", "scatter",
                           "gather"}) {
    const CollInfo *info = findCollective(name);
    if (!selected(name))
      continue;
    std::vector<size_t> counts = {0, 1, 7, 1000, 65537};
    if (gOpt.quick)
      counts = {7, 1000};
    for (collcDataType_t t : {collcBfloat16, collcFloat32})
      for (size_t count : counts)
        for (int root = 0; root < (info->rooted ? w.nranks : 1); ++root)
          for (bool inplace : {false, true}) {
            if (inplace && !info->inplace)
              continue;
            CaseSpec s;
            s.coll = info;
            s.type = t;
            s.count = count;
            s.root = root;
            s.inplace = inplace;
            s.api = Api::Typed;
            s.values = info->reduce ? Values::Integers : Values::RandomBits;
            run.run(g, s);
          }
  }
}

/// collcAllGatherV, collcReduceScatterV, collcAllToAllV (MPI's conventions;
/// displacements NULL or the prefix sums).
void testTypedV(Runner &run) {
  World &w = run.w;
  Group g("correctness/typed-entry-points-v");
  for (const CollInfo &info : collectiveTable()) {
    if (info.module != std::string("variable") || !selected(info.name))
      continue;
    for (collcDataType_t t : {collcBfloat16, collcFloat32})
      for (size_t scale : {size_t(0), size_t(7), size_t(1000), size_t(65537)})
        for (bool displs : {false, true}) {
          if (gOpt.quick && scale > 1000)
            continue;
          CaseSpec s;
          s.coll = &info;
          s.type = t;
          s.api = Api::Typed;
          s.displs = displs;
          s.values = info.reduce ? Values::Integers : Values::RandomBits;
          s.matrix = makePartitions(info.kind, w.nranks, scale,
                                    scale ? "random" : "zeros",
                                    run.nextSeed());
          run.run(g, s);
        }
  }
}

/// ncclBroadcast in place (sendbuff == recvbuff), through collcLaunch and
/// collcBroadcast.
void testBroadcastInPlace(Runner &run) {
  World &w = run.w;
  if (!selected("broadcast"))
    return;
  Group g("correctness/broadcast-in-place");
  for (Api api : {Api::Launch, Api::Typed})
    for (int root = 0; root < w.nranks; ++root) {
      CaseSpec s;
      s.coll = findCollective("broadcast");
      s.type = collcFloat32;
      s.count = api == Api::Typed ? 1001 : 1000;
      s.root = root;
      s.inplace = true;
      s.api = api;
      s.values = Values::RandomBits;
      run.run(g, s);
    }
}

/// Non-integer inputs: one rounding per element (exact reference at two
/// ranks), identical on every rank (checked by hash for all-reduces).
void testReals(Runner &run, const std::string &moduleName) {
  World &w = run.w;
  Group g("correctness/" + moduleName + "/non-integer-inputs");
  for (const CollInfo &info : collectiveTable()) {
    if (info.module != moduleName || !info.reduce || !selected(info.name))
      continue;
    for (collcDataType_t t : {collcBfloat16, collcFloat16, collcFloat32})
      for (int root = 0; root < (info.rooted ? w.nranks : 1); ++root) {
        CaseSpec s;
        s.coll = &info;
        s.type = t;
        s.values = Values::Reals;
        s.root = root;
        if (isV(info.kind))
          s.matrix = makePartitions(info.kind, w.nranks, 4097, "random",
                                    run.nextSeed());
        else
          s.count = gOpt.quick ? 100 : 65537;
        run.run(g, s);
      }
  }
}

} // namespace

void runCorrectness(World &w) {
  if (w.nranks > 2)
    report("note: at %d ranks the non-integer references assume FP32 "
           "accumulation in ascending rank order",
           w.nranks);
  for (std::string moduleName : {"collectives", "variable"}) {
    std::string file = moduleName + ".collcmod";
    std::vector<ManifestCollective> manifest = readManifest(modulePath(file));
    {
      // Every collective of the module is tested, and every tested one is
      // in the module.
      Group g("correctness/" + moduleName + "/coverage");
      for (const ManifestCollective &mc : manifest) {
        const CollInfo *info = findCollective(mc.name);
        bool ok = info && info->module == moduleName;
        if (!ok)
          log("FAIL module %s has collective %s, which the tests do not know",
              file.c_str(), mc.name.c_str());
        if (std::find(mc.worldSizes.begin(), mc.worldSizes.end(), w.nranks) ==
            mc.worldSizes.end()) {
          log("FAIL %s: no kernels for %d ranks", mc.name.c_str(), w.nranks);
          ok = false;
        }
        g.result(ok);
      }
      for (const CollInfo &info : collectiveTable()) {
        if (info.module != moduleName)
          continue;
        bool found = false;
        for (const ManifestCollective &mc : manifest)
          found |= mc.name == info.name;
        if (!found)
          log("FAIL module %s lacks collective %s", file.c_str(), info.name);
        g.result(found);
      }
    }

    Runner run(w, file);
    for (const ManifestCollective &mc : manifest) {
      const CollInfo *info = findCollective(mc.name);
      if (!info || !selected(info->name))
        continue;
      for (collcDataType_t t : mc.types) {
        if (gOpt.quick && t != collcBfloat16 && t != collcFloat32 &&
            t != collcFloat8e5m2)
          continue;
        testCollectiveType(run, *info, t);
      }
    }
    testOffsets(run, moduleName);
    testReals(run, moduleName);
    if (moduleName == "variable")
      testTypedV(run);
    if (moduleName == "collectives") {
      testTyped(run);
      testBroadcastInPlace(run);
      if (gOpt.big && !gOpt.quick)
        testBig(run);
    }
  }
}

} // namespace ct
