//===- comm.cpp - communicators ---------------------------------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A communicator owns, for every kernel of its module at its rank count,
/// the workspace the kernel's ABI asks for (collc/device/snac/abi.h):
/// peer-accessible staging, intermediate and event words, private state and
/// a host-mapped error record. Everything is allocated and exchanged at
/// creation, so calls allocate nothing (and can be captured in CUDA graphs).
/// Peers' buffers are reached through CUDA IPC handles exchanged with the
/// user's allgather (one process per GPU), or directly with peer access
/// (one process driving several GPUs).
///
//===----------------------------------------------------------------------===//

#include "runtime.h"
#include "trace.h"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>

using namespace collc;

namespace {

constexpr unsigned long long kDefaultTimeoutMs = 10000;

collcResult_t configTimeout(const collcConfig_t *config,
                            unsigned long long &ns) {
  unsigned long long ms = kDefaultTimeoutMs;
  if (const char *env = std::getenv("COLLC_TIMEOUT_MS"))
    if (long long v = std::atoll(env); v > 0)
      ms = (unsigned long long)v;
  if (config) {
    COLLC_CHECK(collcConfigValidate(config));
    if (config->timeoutMs != COLLC_CONFIG_UNDEF_INT)
      ms = (unsigned long long)config->timeoutMs;
  }
  ns = ms * 1000000ull;
  return collcSuccess;
}

std::string targetsOf(const collcModule &m) {
  std::string s;
  for (const Image &im : m.images)
    if (s.find(im.target) == std::string::npos)
      s += (s.empty() ? "" : ", ") + im.target;
  return s;
}

collcResult_t allocZeroed(CUdeviceptr *ptr, unsigned long long bytes) {
  *ptr = 0;
  if (bytes == 0)
    return collcSuccess;
  CU_CHECK(cuMemAlloc(ptr, bytes));
  CU_CHECK(cuMemsetD8(*ptr, 0, bytes));
  return collcSuccess;
}

/// Routes from the config or the environment, once every workspace exists.
collcResult_t setupRoutes(collcComm *comm, const collcConfig_t *config) {
  ForceVariant force;
  COLLC_CHECK(forceVariantOf(config, force));
  buildRoutes(comm, force);
  return collcSuccess;
}

/// Creates the context, loads the module's code and allocates every
/// kernel's local workspace. Peer arrays are filled by the caller.
collcResult_t setupRank(collcComm *comm, collcModule_t module, int nranks,
                        int rank, int device,
                        const collcConfig_t *config) {
  comm->module = module;
  comm->nranks = nranks;
  comm->rank = rank;
  comm->device = device;
  COLLC_CHECK(traceCheck(module));
  COLLC_CHECK(configTimeout(config, comm->timeoutNs));
  COLLC_CHECK(driverInit());
  int count = 0;
  CU_CHECK(cuDeviceGetCount(&count));
  if (device < 0 || device >= count)
    return COLLC_FAIL(collcInvalidArgument,
                      "cudaDevice is %d, but %d CUDA device(s) are visible",
                      device, count);
  CUdevice dev;
  CU_CHECK(cuDeviceGet(&dev, device));
  int major = 0, minor = 0;
  CU_CHECK(cuDeviceGetAttribute(
      &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  CU_CHECK(cuDeviceGetAttribute(
      &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
  comm->capability = major * 10 + minor;
  COLLC_CHECK(multimemRequested(&comm->multimemRequested));
  COLLC_CHECK(multimemProbe(comm->multimemRequested, device,
                            driverMulticastQuery,
                            &comm->multicastSupported));
  CU_CHECK(cuDeviceGetAttribute(&comm->pci[0],
                                CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, dev));
  CU_CHECK(cuDeviceGetAttribute(&comm->pci[1], CU_DEVICE_ATTRIBUTE_PCI_BUS_ID,
                                dev));
  CU_CHECK(cuDeviceGetAttribute(&comm->pci[2],
                                CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev));
  CU_CHECK(cuDevicePrimaryCtxRetain(&comm->context, dev));
  CU_CHECK(cuCtxSetCurrent(comm->context));

  const Image *image = module->imageFor(comm->capability);
  if (!image)
    return COLLC_FAIL(collcInvalidArgument,
                      "the module has no code for device %d (sm_%d); its "
                      "targets are %s; rebuild it with collc --target=sm_%d",
                      device, comm->capability, targetsOf(*module).c_str(),
                      comm->capability);
  comm->imageTarget = image->target;
  char jitLog[4096] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {jitLog, reinterpret_cast<void *>(sizeof(jitLog))};
  CUresult loaded = drv::pfn_cuModuleLoadDataEx(
      &comm->cuModule, image->data.c_str(), 2, options, values);
  if (loaded != CUDA_SUCCESS) {
    cuFail(loaded, "cuModuleLoadDataEx", __FILE__, __LINE__);
    return COLLC_FAIL(collcInvalidArgument,
                      "the module's %s %s image does not load on device %d "
                      "(sm_%d): %s %s",
                      image->target.c_str(), image->kind.c_str(), device,
                      comm->capability, lastErrorMessage(), jitLog);
  }

  // Every kernel the manifest lists for this image must be in it: a module
  // whose manifest and code disagree is corrupt, whatever the rank count.
  size_t kernels = 0;
  for (const KernelInfo &k : module->kernels) {
    if (k.target != image->target)
      continue;
    CUfunction f;
    if (drv::pfn_cuModuleGetFunction(&f, comm->cuModule, k.name.c_str()) !=
        CUDA_SUCCESS)
      return COLLC_FAIL(collcInvalidArgument,
                        "the module is corrupt: kernel '%s' is listed in its "
                        "manifest but not in its %s %s image; rebuild it",
                        k.name.c_str(), image->target.c_str(),
                        image->kind.c_str());
    if (k.worldSize == nranks)
      ++kernels;
  }
  if (kernels == 0)
    return COLLC_FAIL(collcInvalidArgument,
                      "the module has no kernel for %d ranks; compile the "
                      "spec with 'ranks %d'",
                      nranks, nranks);
  // Every kernel's error record, then the device API's.
  const size_t errorBytes =
      (kernels * COLLC_ERROR_WORDS + COLLC_DEVICE_ERROR_WORDS) * 8;
  void *host = nullptr;
  CU_CHECK(cuMemHostAlloc(&host, errorBytes,
                          CU_MEMHOSTALLOC_DEVICEMAP |
                              CU_MEMHOSTALLOC_PORTABLE));
  std::memset(host, 0, errorBytes);
  comm->errorHost = static_cast<unsigned long long *>(host);
  comm->deviceError = comm->errorHost + kernels * COLLC_ERROR_WORDS;
  int sms = 0, cooperative = 0;
  CU_CHECK(cuDeviceGetAttribute(
      &sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
  CU_CHECK(cuDeviceGetAttribute(
      &cooperative, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, dev));
  if (!cooperative)
    return COLLC_FAIL(collcInvalidArgument,
                      "device %d (sm_%d) has no cooperative launch; collc "
                      "kernels need all their CTAs resident at once",
                      device, comm->capability);
  // Registered buffers (register.cpp): the table every call may read, and
  // the stream that updates it without waiting for the user's work.
  COLLC_CHECK(allocZeroed(&comm->windowTable,
                          (unsigned long long)(kMaxWindows + 1) * nranks *
                              sizeof(CUdeviceptr)));
  CU_CHECK(cuStreamCreate(&comm->windowStream, CU_STREAM_NON_BLOCKING));
  COLLC_CHECK(deviceApiSetup(comm));
  comm->workspaces.reserve(kernels);
  for (const KernelInfo &k : module->kernels) {
    if (k.worldSize != nranks || k.target != image->target)
      continue;
    Workspace w;
    w.kernel = &k;
    w.grid = k.grid;
    CU_CHECK(cuModuleGetFunction(&w.function, comm->cuModule, k.name.c_str()));
    // The CTAs of a grid wait on each other, so every call is a cooperative
    // launch (all CTAs resident at once, whatever else runs on the device):
    // the grid must fit the device at the kernel's occupancy. A program's
    // grid is admitted once the ranks sharing the device are known
    // (admitPrograms).
    int perSm = 0;
    CU_CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(
        &perSm, w.function, k.threads, 0));
    w.resident = (long long)perSm * sms;
    if (!k.isProgram && w.resident < k.grid)
      return COLLC_FAIL(collcInvalidArgument,
                        "kernel '%s' has %d CTAs that must be resident at "
                        "once, but device %d holds %d (%d SMs x %d); "
                        "compile the spec with fewer CTAs",
                        k.name.c_str(), k.grid, device, perSm * sms, sms,
                        perSm);
    if (k.isProgram) {
      // A program's receive buffer, written by peers, travels as its
      // staging buffer; it starts filled with the encoding's byte (armed
      // sentinels, or sequence/epoch 0, which no call carries). Its call
      // counters, one per CTA, start at 0.
      const ProgramInfo &g = k.program;
      CU_CHECK(cuMemAlloc(&w.staging, std::max(g.rxBytes, 16ull)));
      CU_CHECK(cuMemsetD8(w.staging, (unsigned char)g.rxFill,
                          std::max(g.rxBytes, 16ull)));
      COLLC_CHECK(allocZeroed(&w.state, (unsigned long long)g.counterWords * 8));
    } else {
      // The slot buffers are read by peers; allocate at least one byte so
      // every rank has a handle to exchange.
      CU_CHECK(cuMemAlloc(&w.staging, std::max(k.stagingBytes, 16ull)));
    }
    CU_CHECK(cuMemAlloc(&w.inter, std::max(k.intermediateBytes, 16ull)));
    COLLC_CHECK(allocZeroed(&w.events, std::max(k.eventWords, 1ull) * 8));
    if (!k.isProgram)
      COLLC_CHECK(allocZeroed(&w.state, k.stateWords * 8));
    CU_CHECK(cuMemAlloc(&w.stagingPeers, nranks * sizeof(CUdeviceptr)));
    CU_CHECK(cuMemAlloc(&w.interPeers, nranks * sizeof(CUdeviceptr)));
    CU_CHECK(cuMemAlloc(&w.eventPeers, nranks * sizeof(CUdeviceptr)));
    w.error = comm->errorHost + comm->workspaces.size() * COLLC_ERROR_WORDS;
    CU_CHECK(cuMemHostGetDevicePointer(
        &w.errorDevice, const_cast<unsigned long long *>(w.error), 0));
    comm->workspaces.push_back(w);
  }
  COLLC_CHECK(traceSetup(comm));
  return setupRoutes(comm, config);
}

/// Fills a workspace's peer arrays on this rank's device.
collcResult_t uploadPeers(Workspace &w, const std::vector<CUdeviceptr> &staging,
                          const std::vector<CUdeviceptr> &inter,
                          const std::vector<CUdeviceptr> &events) {
  if (w.kernel->isProgram) {
    // By value at every launch: the kernel's capacity's pointers, those
    // past the world size null.
    w.rxPeers = staging;
    if ((size_t)w.kernel->capacity > w.rxPeers.size())
      w.rxPeers.resize((size_t)w.kernel->capacity, 0);
  }
  size_t bytes = staging.size() * sizeof(CUdeviceptr);
  CU_CHECK(cuMemcpyHtoD(w.stagingPeers, staging.data(), bytes));
  CU_CHECK(cuMemcpyHtoD(w.interPeers, inter.data(), bytes));
  CU_CHECK(cuMemcpyHtoD(w.eventPeers, events.data(), bytes));
  return collcSuccess;
}

void release(collcComm *comm) {
  if (comm->context)
    drv::pfn_cuCtxSetCurrent(comm->context);
  releaseWindows(comm);
  if (comm->windowStream)
    drv::pfn_cuStreamDestroy(comm->windowStream);
  if (comm->windowTable)
    drv::pfn_cuMemFree(comm->windowTable);
  for (Workspace &w : comm->workspaces) {
    for (CUdeviceptr p : w.opened)
      drv::pfn_cuIpcCloseMemHandle(p);
    for (CUdeviceptr p : {w.staging, w.inter, w.events, w.state,
                          w.stagingPeers, w.interPeers, w.eventPeers})
      if (p)
        drv::pfn_cuMemFree(p);
  }
  deviceApiRelease(comm);
  if (comm->errorHost)
    drv::pfn_cuMemFreeHost(comm->errorHost);
  if (comm->traceBuffer)
    drv::pfn_cuMemFree(comm->traceBuffer);
  if (comm->cuModule)
    drv::pfn_cuModuleUnload(comm->cuModule);
  if (comm->context) {
    CUdevice dev;
    if (drv::pfn_cuDeviceGet(&dev, comm->device) == CUDA_SUCCESS)
      drv::pfn_cuDevicePrimaryCtxRelease(dev);
  }
  delete comm;
}

/// What every rank tells the others at setup.
struct RankHello {
  char specHash[65];
  int nranks, capability, kernels;
  int pci[3]; // the device (collcComm::pci)
  /// COLLC_MULTIMEM=1 here, and the device's multicast support.
  int multimem, multicast, device;
};

} // namespace

Workspace *collcComm::find(const std::string &collective,
                           const std::string &type) {
  for (Workspace &w : workspaces)
    if (!w.kernel->isProgram && w.kernel->collective == collective &&
        w.kernel->servesType(type))
      return &w;
  return nullptr;
}

namespace {
/// parseForceVariant, `source` naming the value in a refusal.
collcResult_t parseForce(const char *text, const char *source,
                         ForceVariant &out) {
  out = ForceVariant();
  if (!text || !*text)
    return collcSuccess;
  VariantName v;
  if (parseVariantName(text, v)) {
    out.kind = v.v1 ? ForceVariant::V1 : ForceVariant::Program;
    out.variant = v.variant;
    out.encoding = v.encoding;
    out.staged = v.staged;
    return collcSuccess;
  }
  return COLLC_FAIL(collcInvalidArgument,
                    "%s is '%s'; expected 'v1' or "
                    "'<variant>:<encoding>[:staged]' with an encoding of "
                    "flag, ll16 or sentinel (e.g. 'one_shot:ll16'), or unset",
                    source, text);
}
} // namespace

collcResult_t collc::parseForceVariant(const char *text, ForceVariant &out) {
  return parseForce(text, "COLLC_FORCE_VARIANT", out);
}

collcResult_t collc::forceVariantOf(const collcConfig_t *config,
                                    ForceVariant &out) {
  // A struct from a header before the field ends ahead of it.
  if (config &&
      config->size >= offsetof(collcConfig_t, forceVariant) +
                          sizeof(config->forceVariant) &&
      config->forceVariant)
    return parseForce(config->forceVariant, "config->forceVariant", out);
  return parseForce(std::getenv("COLLC_FORCE_VARIANT"), "COLLC_FORCE_VARIANT",
                    out);
}

void collc::buildRoutes(collcComm_t comm, const ForceVariant &force) {
  const collcModule &m = *comm->module;
  comm->routes.assign(m.collectives.size() * collcNumTypes, Route());
  for (Workspace &w : comm->workspaces) {
    const KernelInfo &k = *w.kernel;
    size_t c = 0;
    while (c < m.collectives.size() && m.collectives[c].name != k.collective)
      ++c;
    if (c == m.collectives.size())
      continue; // nothing can call it
    // An in-switch program only where its buffers are bound to multicast
    // objects: before forcing, which cannot bypass it.
    if (k.isProgram && !programRoutable(k.program, comm->multicastBound))
      continue;
    const bool allowed =
        force.kind == ForceVariant::None ||
        (force.kind == ForceVariant::Program &&
         k.program.variant == force.variant &&
         k.program.encoding == force.encoding &&
         !(force.staged && k.program.registered));
    // Every type it serves (a copy's bytes kernel: all of its collective's).
    for (int t = 0; t < collcNumTypes; ++t) {
      if (!k.servesType(typeName((collcDataType_t)t)))
        continue;
      Route &route = comm->routes[c * collcNumTypes + t];
      if (!k.isProgram) {
        if (!route.v1)
          route.v1 = &w;
      } else if (allowed) {
        route.programs.push_back(&w);
        route.inSwitch |= k.program.multicast;
      }
    }
  }
  // The policy table chooses unless a variant is forced (the reader checked
  // that every variant it names exists with a band that holds its sizes).
  if (force.kind != ForceVariant::None || !m.hasPolicyTable)
    return;
  for (size_t c = 0; c < m.collectives.size(); ++c)
    for (int t = 0; t < collcNumTypes; ++t) {
      Route &route = comm->routes[c * collcNumTypes + t];
      if (!route.v1 && route.programs.empty())
        continue;
      for (int reg = 0; reg < 2; ++reg) {
        const PolicyEntry *e = m.policyFor(
            comm->imageTarget, comm->nranks, m.collectives[c].name, reg == 1);
        if (!e)
          continue;
        for (const PolicyChoice &p : e->select) {
          Route::Choice choice;
          choice.upto = p.upto;
          choice.v1 = p.variant.v1;
          for (Workspace *w : route.programs)
            if (p.variant.names(w->kernel->program))
              choice.programs.push_back(w);
          route.table[reg].push_back(std::move(choice));
        }
      }
    }
}

/// An in-switch program moves whole 16-byte vectors (multimem.*.v4): a call
/// of other sizes goes to the next program.
static bool wholeVectors(const ProgramInfo &g, long long key) {
  return !g.multicast || (key >= 0 && key % 16 == 0);
}

Workspace *collc::pickProgram(const Route &route, long long key,
                              unsigned registered) {
  const unsigned both =
      ProgramInfo::kRegisteredInput | ProgramInfo::kRegisteredOutput;
  // An in-switch program (in the route only where bound: programRoutable)
  // before the policy table, which is measured where the switch does not
  // reduce.
  for (size_t i = 0; route.inSwitch && i < route.programs.size(); ++i) {
    Workspace *w = route.programs[i];
    const ProgramInfo &g = w->kernel->program;
    if (g.multicast && g.bandLo <= (unsigned long long)key &&
        (unsigned long long)key <= g.bandHi &&
        (g.registered & ~registered) == 0 && wholeVectors(g, key))
      return w;
  }
  const std::vector<Route::Choice> &table =
      registered == both && !route.table[1].empty() ? route.table[1]
                                                    : route.table[0];
  if (key >= 0 && !table.empty()) {
    const Route::Choice *choice = &table.back();
    for (const Route::Choice &c : table)
      if (key <= c.upto) {
        choice = &c;
        break;
      }
    if (choice->v1)
      return nullptr;
    for (Workspace *w : choice->programs) {
      const ProgramInfo &g = w->kernel->program;
      if (g.bandLo <= (unsigned long long)key &&
          (unsigned long long)key <= g.bandHi &&
          (g.registered & ~registered) == 0 && wholeVectors(g, key))
        return w;
    }
  }
  for (Workspace *w : route.programs) {
    const ProgramInfo &g = w->kernel->program;
    const bool serves =
        key < 0 ? g.agree || g.pairs
                : g.bandLo <= (unsigned long long)key &&
                      (unsigned long long)key <= g.bandHi;
    if (serves && (g.registered & ~registered) == 0 && wholeVectors(g, key))
      return w;
  }
  return nullptr;
}


int collc::admittedGrid(int manifestGrid, long long resident, int sharing,
                        bool pdl) {
  if (manifestGrid < 1 || resident < 1 || sharing < 1)
    return 0;
  const long long grids = pdl ? 2 : 1;
  const long long fits = resident / ((long long)sharing * grids);
  if (fits < 1)
    return 0;
  long long grid = std::min<long long>(manifestGrid, fits);
  // Ranks sharing a device that would fill nine tenths of it leave one
  // grid's worth free per rank: at 8 ranks on one H200 (396 resident) the
  // 24 CTAs that fit ran AllReduce at 64 KiB in 7.0 us, 16 in 5.7 (bench/
  // results/2026-12-01-nvidia-h200/step3); 2 ranks with 128 of 792 keep 128.
  if (sharing > 1 && sharing * grids * grid * 10 > resident * 9)
    grid = std::max<long long>(
        1, std::min(grid, resident / ((long long)sharing * (grids + 1))));
  return (int)grid;
}

void collc::admitPrograms(collcComm_t comm, int sharing) {
  for (Workspace &w : comm->workspaces)
    if (w.kernel->isProgram)
      w.grid = admittedGrid(w.kernel->grid, w.resident, sharing,
                            w.kernel->pdl);
}

collcResult_t collc::checkAdmitted(collcComm_t comm, int sharing) {
  for (const Workspace &w : comm->workspaces) {
    if (w.kernel->isProgram && w.grid >= 1)
      COLLC_INFO("rank %d: program '%s' runs %d CTAs (the manifest's %d; "
                 "device %d holds %lld; %d ranks share it)",
                 comm->rank, w.kernel->name.c_str(), w.grid, w.kernel->grid,
                 comm->device, w.resident, sharing);
    if (w.kernel->isProgram && w.grid < 1)
      return COLLC_FAIL(
          collcInvalidArgument,
          "rank %d: program '%s' needs every rank's CTAs resident at once, "
          "but device %d holds %lld of its CTAs and %d ranks of the "
          "communicator share it%s: not even one CTA per rank fits (on "
          "some rank); put fewer ranks on each GPU, or compile the spec "
          "without programs (policy one_hop_max_bytes = 0)",
          comm->rank, w.kernel->name.c_str(), comm->device, w.resident,
          sharing,
          w.kernel->pdl ? ", each with two grids in flight (programmatic "
                          "dependent launch)"
                        : "");
  }
  return collcSuccess;
}

collcResult_t collc::useContext(collcComm_t comm) {
  CU_CHECK(cuCtxSetCurrent(comm->context));
  return collcSuccess;
}

extern "C" collcResult_t collcCommInitRank(collcComm_t *comm,
                                           collcModule_t module, int nranks,
                                           int rank, int cudaDevice,
                                           collcAllGatherFn_t allgather,
                                           void *userData,
                                           const collcConfig_t *config) {
  COLLC_API_ENTRY();
  COLLC_ARG_NOT_NULL(comm);
  COLLC_ARG_NOT_NULL(module);
  COLLC_ARG_NOT_NULL(allgather);
  *comm = nullptr;
  if (nranks < 1 || rank < 0 || rank >= nranks)
    return COLLC_FAIL(collcInvalidArgument,
                      "rank %d of %d ranks: expected 0 <= rank < nranks", rank,
                      nranks);
  collcComm *c = new collcComm();
  c->allgather = allgather;
  c->userData = userData;
  collcResult_t res = setupRank(c, module, nranks, rank, cudaDevice, config);
  if (res != collcSuccess) {
    release(c);
    return res;
  }
  // Check that every rank runs the same module on the same kind of GPU
  // before trusting each other's handles.
  std::vector<RankHello> hello(nranks);
  RankHello mine{};
  std::snprintf(mine.specHash, sizeof(mine.specHash), "%s",
                module->specHash.c_str());
  mine.nranks = nranks;
  mine.capability = c->capability;
  mine.kernels = (int)c->workspaces.size();
  std::memcpy(mine.pci, c->pci, sizeof mine.pci);
  mine.multimem = c->multimemRequested;
  mine.multicast = c->multicastSupported;
  mine.device = cudaDevice;
  if (allgather(&mine, hello.data(), sizeof(RankHello), userData) != 0) {
    release(c);
    return COLLC_FAIL(collcSystemError,
                      "rank %d: the allgather callback failed during setup",
                      rank);
  }
  for (int p = 0; p < nranks; ++p)
    if (std::strcmp(hello[p].specHash, mine.specHash) != 0 ||
        hello[p].nranks != nranks || hello[p].kernels != mine.kernels) {
      release(c);
      return COLLC_FAIL(collcInvalidUsage,
                        "rank %d: rank %d loaded a different module or rank "
                        "count (%d ranks, %d kernels vs %d ranks, %d kernels "
                        "here); every rank must load the same module",
                        rank, p, hello[p].nranks, hello[p].kernels, nranks,
                        mine.kernels);
    }
  // The in-switch opt-in: every rank refuses if any asked for it (the
  // answers of every rank's device, so they refuse together).
  if (std::any_of(hello.begin(), hello.end(),
                  [](const RankHello &h) { return h.multimem != 0; })) {
    std::vector<int> requested(nranks), devices(nranks), supported(nranks);
    for (int p = 0; p < nranks; ++p)
      requested[p] = hello[p].multimem, devices[p] = hello[p].device,
      supported[p] = hello[p].multicast;
    release(c);
    return multimemRefusal(rank, requested, devices, supported);
  }
  {
    // Residency admission: every rank admits its programs for the ranks on
    // its device, then all launch the least grid any rank admitted. A rank
    // where none fits sends 0, so every rank refuses the communicator
    // rather than one leaving the others in the next allgather.
    int sharing = 0;
    for (int p = 0; p < nranks; ++p)
      sharing += std::memcmp(hello[p].pci, mine.pci, sizeof mine.pci) == 0;
    admitPrograms(c, sharing);
    std::vector<int> grids(c->workspaces.size()),
        allGrids(grids.size() * nranks);
    for (size_t i = 0; i < grids.size(); ++i)
      grids[i] = c->workspaces[i].grid;
    if (!grids.empty() &&
        allgather(grids.data(), allGrids.data(), grids.size() * sizeof(int),
                  userData) != 0) {
      release(c);
      return COLLC_FAIL(collcSystemError,
                        "rank %d: the allgather callback failed exchanging "
                        "program grids",
                        rank);
    }
    for (size_t i = 0; i < grids.size(); ++i)
      for (int p = 0; p < nranks; ++p)
        c->workspaces[i].grid =
            std::min(c->workspaces[i].grid, allGrids[p * grids.size() + i]);
    res = checkAdmitted(c, sharing);
    if (res != collcSuccess) {
      release(c);
      return res;
    }
  }

  // Exchange the IPC handles of every peer-accessible buffer: three per
  // kernel, then the device API's inbox.
  size_t perRank = c->workspaces.size() * 3 + 1;
  std::vector<CUipcMemHandle> handles(perRank), all(perRank * nranks);
  std::vector<CUdeviceptr> inboxes(nranks);
  for (size_t i = 0; i < c->workspaces.size(); ++i) {
    Workspace &w = c->workspaces[i];
    CU_CHECK_GOTO(cuIpcGetMemHandle(&handles[3 * i], w.staging), res, fail);
    CU_CHECK_GOTO(cuIpcGetMemHandle(&handles[3 * i + 1], w.inter), res, fail);
    CU_CHECK_GOTO(cuIpcGetMemHandle(&handles[3 * i + 2], w.events), res, fail);
  }
  CU_CHECK_GOTO(cuIpcGetMemHandle(&handles[perRank - 1], c->deviceInbox), res,
                fail);
  if (allgather(handles.data(), all.data(),
                perRank * sizeof(CUipcMemHandle), userData) != 0) {
    res = COLLC_FAIL(collcSystemError,
                     "rank %d: the allgather callback failed exchanging "
                     "memory handles",
                     rank);
    goto fail;
  }
  for (size_t i = 0; i < c->workspaces.size(); ++i) {
    Workspace &w = c->workspaces[i];
    std::vector<CUdeviceptr> staging(nranks), inter(nranks), events(nranks);
    for (int p = 0; p < nranks; ++p) {
      if (p == rank) {
        staging[p] = w.staging, inter[p] = w.inter, events[p] = w.events;
        continue;
      }
      CUdeviceptr *out[3] = {&staging[p], &inter[p], &events[p]};
      for (int b = 0; b < 3; ++b) {
        CU_CHECK_GOTO(cuIpcOpenMemHandle(out[b], all[perRank * p + 3 * i + b],
                                         CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
                      res, fail);
        w.opened.push_back(*out[b]);
      }
    }
    COLLC_CHECK_GOTO(uploadPeers(w, staging, inter, events), res, fail);
  }
  for (int p = 0; p < nranks; ++p) {
    if (p == rank) {
      inboxes[p] = c->deviceInbox;
      continue;
    }
    CU_CHECK_GOTO(cuIpcOpenMemHandle(&inboxes[p], all[perRank * p + perRank - 1],
                                     CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
                  res, fail);
    c->deviceOpened.push_back(inboxes[p]);
  }
  COLLC_CHECK_GOTO(deviceApiPeers(c, inboxes), res, fail);
  *comm = c;
  return collcSuccess;
fail:
  release(c);
  return res;
}

extern "C" collcResult_t collcCommInitAll(collcComm_t *comms,
                                          collcModule_t module, int ndev,
                                          const int *devices,
                                          const collcConfig_t *config) {
  COLLC_API_ENTRY();
  COLLC_ARG_NOT_NULL(comms);
  COLLC_ARG_NOT_NULL(module);
  COLLC_ARG_NOT_NULL(devices);
  if (ndev < 1)
    return COLLC_FAIL(collcInvalidArgument, "ndev is %d, expected >= 1",
                      ndev);
  bool direct = true;
  COLLC_CHECK(cliqueDirectRequested(&direct));
  std::vector<collcComm *> made(ndev, nullptr);
  collcResult_t res = collcSuccess;
  for (int r = 0; r < ndev; ++r) {
    made[r] = new collcComm();
    res = setupRank(made[r], module, ndev, r, devices[r], config);
    if (res != collcSuccess)
      break;
  }
  // The in-switch opt-in (one environment for every rank here).
  if (res == collcSuccess && made[0]->multimemRequested) {
    std::vector<int> supported(ndev);
    for (int r = 0; r < ndev; ++r)
      supported[r] = made[r]->multicastSupported;
    res = multimemRefusal(0, std::vector<int>(ndev, 1),
                          std::vector<int>(devices, devices + ndev),
                          supported);
  }
  // Residency admission (as in collcCommInitRank): each rank for the ranks
  // on its device, then the least grid on every rank.
  std::vector<int> sharing(ndev, 0);
  for (int r = 0; res == collcSuccess && r < ndev; ++r) {
    for (int p = 0; p < ndev; ++p)
      sharing[r] += devices[p] == devices[r];
    admitPrograms(made[r], sharing[r]);
  }
  for (int r = 1; res == collcSuccess && r < ndev; ++r)
    for (size_t i = 0; i < made[0]->workspaces.size() &&
                       i < made[r]->workspaces.size();
         ++i) {
      int &g0 = made[0]->workspaces[i].grid;
      g0 = std::min(g0, made[r]->workspaces[i].grid);
    }
  for (int r = 0; res == collcSuccess && r < ndev; ++r) {
    for (size_t i = 0; i < made[0]->workspaces.size() &&
                       i < made[r]->workspaces.size();
         ++i)
      made[r]->workspaces[i].grid = made[0]->workspaces[i].grid;
    res = checkAdmitted(made[r], sharing[r]);
  }
  // Peer access both ways between every pair, then plain pointers.
  for (int r = 0; res == collcSuccess && r < ndev; ++r) {
    drv::pfn_cuCtxSetCurrent(made[r]->context);
    for (int p = 0; p < ndev && res == collcSuccess; ++p) {
      if (p == r || devices[p] == devices[r])
        continue;
      CUresult e = drv::pfn_cuCtxEnablePeerAccess(made[p]->context, 0);
      if (e != CUDA_SUCCESS && e != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
        res = COLLC_FAIL(cuFail(e, "cuCtxEnablePeerAccess", __FILE__,
                                __LINE__),
                         "device %d cannot access device %d: %s", devices[r],
                         devices[p], lastErrorMessage());
    }
  }
  for (int r = 0; res == collcSuccess && r < ndev; ++r) {
    drv::pfn_cuCtxSetCurrent(made[r]->context);
    for (size_t i = 0; res == collcSuccess && i < made[r]->workspaces.size();
         ++i) {
      std::vector<CUdeviceptr> staging(ndev), inter(ndev), events(ndev);
      for (int p = 0; p < ndev; ++p) {
        staging[p] = made[p]->workspaces[i].staging;
        inter[p] = made[p]->workspaces[i].inter;
        events[p] = made[p]->workspaces[i].events;
      }
      res = uploadPeers(made[r]->workspaces[i], staging, inter, events);
    }
    std::vector<CUdeviceptr> inboxes(ndev);
    for (int p = 0; p < ndev; ++p)
      inboxes[p] = made[p]->deviceInbox;
    if (res == collcSuccess)
      res = deviceApiPeers(made[r], inboxes);
  }
  if (res != collcSuccess) {
    for (collcComm *c : made)
      if (c)
        release(c);
    return res;
  }
  auto clique = std::make_shared<Clique>();
  clique->devices.assign(devices, devices + ndev);
  clique->comms = made;
  for (int r = 0; r < ndev; ++r) {
    made[r]->clique = clique;
    made[r]->cliqueDirect = direct;
    made[r]->cliqueOneDevice =
        std::all_of(devices, devices + ndev,
                    [&](int d) { return d == devices[r]; });
    comms[r] = made[r];
  }
  return collcSuccess;
}

extern "C" collcResult_t collcCommDestroy(collcComm_t comm) {
  COLLC_API_ENTRY();
  COLLC_ARG_NOT_NULL(comm);
  COLLC_CHECK(useContext(comm));
  // The kernels may still run on user streams: wait for the device first.
  if (!comm->aborted) {
    CU_CHECK(cuCtxSynchronize());
    traceCollect(comm);
  }
  release(comm);
  return collcSuccess;
}

extern "C" collcResult_t collcCommAbort(collcComm_t comm) {
  COLLC_API_ENTRY();
  COLLC_ARG_NOT_NULL(comm);
  comm->aborted = true;
  release(comm);
  return collcSuccess;
}

extern "C" collcResult_t collcCommCount(collcComm_t comm, int *count) {
  COLLC_API_ENTRY();
  COLLC_ARG_NOT_NULL(comm);
  COLLC_ARG_NOT_NULL(count);
  *count = comm->nranks;
  return collcSuccess;
}

extern "C" collcResult_t collcCommUserRank(collcComm_t comm, int *rank) {
  COLLC_API_ENTRY();
  COLLC_ARG_NOT_NULL(comm);
  COLLC_ARG_NOT_NULL(rank);
  *rank = comm->rank;
  return collcSuccess;
}

namespace {
/// "rank 2", "ranks 2 and 5", "ranks 1, 2 and 5" from a blame mask.
std::string rankList(unsigned long long mask, unsigned long long count) {
  std::vector<int> ranks;
  for (int q = 0; q < 64; ++q)
    if (mask >> q & 1)
      ranks.push_back(q);
  std::string s = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); ++i)
    s += (i == 0 ? "" : i + 1 == ranks.size() ? " and " : ", ") +
         std::to_string(ranks[i]);
  if (count > ranks.size())
    s += " (and " + std::to_string(count - ranks.size()) + " above 63)";
  return s;
}

/// A program's error record (abi.h: [3] the op, [5] the source, [6] the
/// slot, [7] the first element waited for) as collcGetLastError's message.
void reportProgramError(collcComm_t comm, const Workspace &w,
                        volatile unsigned long long *e) {
  const KernelInfo &k = *w.kernel;
  const long long source = (long long)e[5];
  // Op ~0: the agreement on a call's steps (program.cuh, agree), before
  // the first op.
  char at[96];
  if (e[3] == ~0ull)
    std::snprintf(at, sizeof at, "agreeing on the call's steps, slot %llu",
                  e[6]);
  else
    std::snprintf(at, sizeof at, "op %llu, slot %llu, %s %llu", e[3], e[6],
                  k.elementType == vocab::bytesElementSpelling() ? "byte" : "element",
                  e[7]);
  if (e[0] == COLLC_KERNEL_SEQUENCE) {
    (void)COLLC_FAIL(
        collcTimeout,
        "collective '%s' (%s, program %s:%s, call %llu): rank %d received "
        "data of a later call from rank %lld (%s): the ranks did not issue "
        "the same sequence of calls of this collective (every rank must make "
        "the same calls with the same sizes, in the same order); abort the "
        "communicator with collcCommAbort",
        k.collective.c_str(), k.elementType.c_str(), k.program.variant.c_str(),
        encodingName(k.program.encoding), e[1], comm->rank, source, at);
    return;
  }
  (void)COLLC_FAIL(
      collcTimeout,
      "collective '%s' (%s, program %s:%s, call %llu): rank %d timed out "
      "after %llu ms waiting for rank %lld's data (%s): rank %lld did not "
      "make this call, or is stuck before it; abort the communicator with "
      "collcCommAbort",
      k.collective.c_str(), k.elementType.c_str(), k.program.variant.c_str(),
      encodingName(k.program.encoding), e[1], comm->rank,
      comm->timeoutNs / 1000000ull, source, at, source);
}
} // namespace

extern "C" collcResult_t collcCommGetAsyncError(collcComm_t comm,
                                                collcResult_t *asyncError) {
  COLLC_API_ENTRY();
  COLLC_ARG_NOT_NULL(comm);
  COLLC_ARG_NOT_NULL(asyncError);
  *asyncError = collcSuccess;
  for (Workspace &w : comm->workspaces) {
    if (w.error[0] == COLLC_KERNEL_CONCURRENT) {
      *asyncError = collcInvalidUsage;
      (void)COLLC_FAIL(
          collcInvalidUsage,
          "collective '%s' (%s): rank %d started a call while another call "
          "of it on this communicator was still running (two streams, or a "
          "graph replayed alongside eager calls); calls on one communicator "
          "must be serialized (one stream, or events between streams), as "
          "in NCCL; the later call did nothing: abort the communicator "
          "with collcCommAbort",
          w.kernel->collective.c_str(), w.kernel->elementType.c_str(),
          comm->rank);
      return collcSuccess;
    }
  }
  if (deviceApiFailed(comm, true)) {
    *asyncError = collcTimeout;
    return collcSuccess;
  }
  for (Workspace &w : comm->workspaces) {
    // Prefer the wait on another rank: it names the peer waited for.
    volatile unsigned long long *e = w.error + COLLC_ERROR_REMOTE;
    if (e[0] == COLLC_KERNEL_OK)
      e = w.error;
    if (e[0] == COLLC_KERNEL_OK)
      continue;
    if (w.kernel->isProgram) {
      reportProgramError(comm, w, e);
      *asyncError = collcTimeout;
      return collcSuccess;
    }
    const CollectiveInfo *c = comm->module->findCollective(w.kernel->collective);
    unsigned long long role = e[3], event = e[4];
    long long peer = (long long)e[5];
    std::string roleName = c && role < c->roles.size() ? c->roles[role] : "?";
    std::string eventName = "?";
    if (c && event < c->readyEvents.size())
      eventName = c->readyEvents[event];
    else if (c && event - c->readyEvents.size() < c->freeEvents.size())
      eventName = c->freeEvents[event - c->readyEvents.size()];
    std::string from = peer >= 0 ? "from rank " + std::to_string(peer)
                                 : std::string("(releases from its consumers)");
    // Who to blame: the ranks whose arrival word was behind this call when
    // the wait expired never started it; the rank waited for may itself be
    // waiting on one of them.
    volatile unsigned long long *b = w.error + COLLC_ERROR_BLAME;
    std::string blame;
    if (b[0] == 2 && b[2] > 0)
      blame = rankList(b[3], b[2]) + " never arrived at call " +
              std::to_string(b[1]) + " (not launched, or stuck before it)";
    else if (b[0] == 2)
      blame = "every rank arrived at call " + std::to_string(b[1]) +
              ", so a rank is stuck inside it or died";
    else
      blame = "which rank is missing is unknown";
    *asyncError = collcTimeout;
    // The call itself succeeded: the message goes to collcGetLastError().
    (void)COLLC_FAIL(
        collcTimeout,
        "collective '%s' (%s, call %llu): %s; rank %d timed out after %llu "
        "ms in role '%s' waiting for event '%s' (partition %llu, %s %llu) "
        "%s; abort the communicator with collcCommAbort",
        w.kernel->collective.c_str(), w.kernel->elementType.c_str(),
        e[1], blame.c_str(), comm->rank, comm->timeoutNs / 1000000ull,
        roleName.c_str(), eventName.c_str(), e[6],
        peer >= 0 ? "chunk" : "slot", e[7], from.c_str());
    return collcSuccess;
  }
  return collcSuccess;
}
