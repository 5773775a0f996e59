//===- launch.cpp - running a collective ------------------------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Every call is admitted before anything is queued: the kernel exists for
/// the type and rank count, buffers are device memory of the communicator's
/// device, aligned and large enough, sizes and root are in range, and
/// overlapping buffers follow NCCL's in-place conventions, and the stream
/// can run the call. Then the kernel is launched on the user's stream with
/// its size vector by value (abi.h: nothing is allocated or uploaded, so any
/// number of shapes works and no call synchronizes with other streams), as a
/// cooperative launch, with programmatic dependent launch where the kernel
/// uses it.
///
//===----------------------------------------------------------------------===//

#include "runtime.h"

#include "checked.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>

using namespace collc;

namespace {

/// The spec spelling of a reduction operator ("?" if none).
const char *opName(collcRedOp_t op) {
  return vocab::spelling(static_cast<vocab::RedOp>(op));
}

/// Elements of `count` split over n partitions: in 16-byte units where
/// possible, so partitions stay aligned for the vectorized Atom.
std::vector<long long> evenSplit(size_t count, int n, int elemBytes) {
  std::vector<long long> sizes(n);
  for (int k = 0; k < n; ++k)
    sizes[k] = collcEvenSplitAt(count, n, elemBytes, k);
  return sizes;
}

/// Checks that [ptr, ptr + bytes) is device memory of the communicator's
/// device.
collcResult_t checkBuffer(collcComm_t comm, const char *what, const void *ptr,
                          size_t bytes, int elemBytes) {
  if (bytes == 0)
    return collcSuccess;
  if (!ptr)
    return COLLC_FAIL(collcInvalidArgument, "%s is NULL but the call moves %zu "
                      "bytes", what, bytes);
  if (reinterpret_cast<uintptr_t>(ptr) % elemBytes != 0)
    return COLLC_FAIL(collcInvalidArgument,
                      "%s (%p) is not aligned to its %d-byte elements", what,
                      ptr, elemBytes);
  CUdeviceptr p = reinterpret_cast<CUdeviceptr>(ptr);
  unsigned int type = 0;
  int ordinal = -1;
  if (drv::pfn_cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                     p) != CUDA_SUCCESS ||
      type != CU_MEMORYTYPE_DEVICE)
    return COLLC_FAIL(collcInvalidArgument,
                      "%s (%p) is not device memory; collc moves data "
                      "between GPUs' memory (allocate it with cudaMalloc)",
                      what, ptr);
  if (drv::pfn_cuPointerGetAttribute(&ordinal,
                                     CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                     p) == CUDA_SUCCESS &&
      ordinal != comm->device)
    return COLLC_FAIL(collcInvalidArgument,
                      "%s (%p) is memory of device %d, but rank %d's "
                      "communicator runs on device %d",
                      what, ptr, ordinal, comm->rank, comm->device);
  CUdeviceptr base = 0;
  size_t size = 0;
  if (drv::pfn_cuMemGetAddressRange(&base, &size, p) == CUDA_SUCCESS &&
      p + bytes > base + size)
    return COLLC_FAIL(collcInvalidArgument,
                      "%s (%p) has %llu bytes left in its allocation, the "
                      "call needs %zu",
                      what, ptr, (unsigned long long)(base + size - p), bytes);
  return collcSuccess;
}

/// Refuses a stream on which the call can never complete. A collective
/// needs every rank's kernel running at once, so in a process that drives
/// several ranks (collcCommInitAll) two ranks may not queue on one stream:
/// the second kernel would wait for the first, which waits for the second.
/// The legacy default stream (0) of a device waits for every blocking
/// stream of the device, so it is refused where this process drives
/// another rank on the same device. Streams are told apart by their id,
/// unique for the life of the process (a per-thread default stream is the
/// calling thread's own); a capturing stream, which cannot be asked for its
/// id, by its capture sequence, unique too. One rank per process
/// (collcCommInitRank) cannot be checked here and needs no check: each
/// process has its own streams.
collcResult_t checkStream(collcComm_t comm, const char *name,
                          CUstream stream) {
  if (!comm->clique)
    return collcSuccess;
  Clique &clique = *comm->clique;
  if (stream == nullptr || stream == CU_STREAM_LEGACY) {
    for (int q = 0; q < (int)clique.devices.size(); ++q)
      if (q != comm->rank && clique.devices[q] == comm->device)
        return COLLC_FAIL(
            collcInvalidUsage,
            "%s: rank %d is on the legacy default stream of device %d, "
            "where this process also drives rank %d: the legacy stream "
            "waits for every other blocking stream of the device, so the "
            "ranks' kernels cannot all run at once and the call could "
            "never complete; give each rank its own stream "
            "(cudaStreamCreateWithFlags(..., cudaStreamNonBlocking))",
            name, comm->rank, comm->device, q);
    return collcSuccess;
  }
  CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_NONE;
  cuuint64_t captureId = 0;
  CU_CHECK(cuStreamGetCaptureInfo(stream, &capturing, &captureId, nullptr,
                                  nullptr, nullptr, nullptr));
  // Capture sequences and streams are numbered apart: tag the former.
  unsigned long long id = (1ull << 63) | captureId;
  if (capturing == CU_STREAM_CAPTURE_STATUS_NONE)
    CU_CHECK(cuStreamGetId(stream, &id));
  std::lock_guard<std::mutex> lock(clique.mutex);
  auto [it, added] = clique.streamOwner.emplace(id, comm->rank);
  if (!added && it->second != comm->rank)
    return COLLC_FAIL(collcInvalidUsage,
                      "%s: rank %d's stream is the one rank %d of this "
                      "communicator uses; the ranks of one collective must "
                      "run at once, and two ranks queued on one stream wait "
                      "for each other forever: give each rank its own "
                      "stream",
                      name, comm->rank, it->second);
  return collcSuccess;
}

bool overlaps(const void *a, size_t an, const void *b, size_t bn) {
  auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return an && bn && x < y + bn && y < x + an;
}

} // namespace

const char *collc::typeName(collcDataType_t type) {
  return vocab::spelling(static_cast<vocab::ElemType>(type));
}
int collc::typeBytes(collcDataType_t type) {
  return vocab::elemBytes(static_cast<vocab::ElemType>(type));
}

namespace {

/// The collective and the kernel a call runs, with the call's basic checks:
/// `w` is the v1 kernel, or where the module has none, its first program
/// (launchSized picks among the route's programs by size).
collcResult_t resolve(collcComm_t comm, const char *name,
                      collcDataType_t datatype, int root,
                      const CollectiveInfo *&c, Workspace *&w) {
  COLLC_ARG_NOT_NULL(comm);
  COLLC_ARG_NOT_NULL(name);
  if (comm->aborted)
    return COLLC_FAIL(collcInvalidUsage,
                      "the communicator was aborted; create a new one");
  const collcModule &m = *comm->module;
  c = m.findCollective(name);
  if (!c) {
    std::string known;
    for (const CollectiveInfo &k : m.collectives)
      known += (known.empty() ? "" : ", ") + k.name;
    return COLLC_FAIL(collcInvalidArgument,
                      "the module has no collective '%s'; it has %s", name,
                      known.c_str());
  }
  if (datatype < 0 || datatype >= collcNumTypes)
    return COLLC_FAIL(collcInvalidArgument,
                      "%s: datatype %d is not a collcDataType_t", name,
                      (int)datatype);
  const Route &route =
      comm->routes[(size_t)(c - m.collectives.data()) * collcNumTypes +
                   datatype];
  w = route.v1 ? route.v1
               : route.programs.empty() ? nullptr : route.programs.front();
  if (!w)
    return COLLC_FAIL(collcInvalidArgument,
                      "%s: the module has no kernel for %s at %d ranks on %s; "
                      "add the type to the collective's 'types' in the spec",
                      name, typeName(datatype), comm->nranks,
                      comm->imageTarget.c_str());
  if (c->rooted() && (root < 0 || root >= comm->nranks))
    return COLLC_FAIL(collcInvalidArgument, "%s: root %d is not a rank of %d",
                      name, root, comm->nranks);
  return collcSuccess;
}

/// A call's sizes in elements of `eb` bytes as the kernel's: a copy's bytes
/// kernel (KernelInfo::serves) counts bytes. The reader checked that the
/// kernel's element divides every type it serves; admission, that the
/// bytes fit in 64 bits.
void scaleSizes(long long *sizes, int words, int eb, const KernelInfo &k) {
  const int scale = eb / k.elementBytes;
  if (scale != 1)
    for (int i = 0; i < words; ++i)
      sizes[i] *= scale;
}

/// Launches a program (abi.h "Programs"): its parameters, every rank's
/// receive buffer and the size vector, all by value; no claim word, no
/// cooperative launch (a program's CTAs never wait on each other).
collcResult_t launchProgram(collcComm_t comm, Workspace *w,
                            const void *sendbuff, void *recvbuff,
                            const long long *sizeVec, CUstream stream,
                            const collcWindowParams &win, unsigned found) {
  const KernelInfo &k = *w->kernel;
  collcProgramParams params{};
  params.input = sendbuff;
  params.output = recvbuff;
  params.counters = reinterpret_cast<unsigned long long *>(w->state);
  params.error = reinterpret_cast<unsigned long long *>(w->errorDevice);
  params.timeoutNs = comm->timeoutNs;
  params.rank = comm->rank;
  params.worldSize = comm->nranks;
  CUlaunchConfig config{};
  config.gridDimX = w->grid; // admitted at creation (admitPrograms)
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = k.threads;
  config.blockDimY = config.blockDimZ = 1;
  config.hStream = stream;
  CUlaunchAttribute attr{};
  attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attr.value.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attr;
  config.numAttrs = k.pdl ? 1 : 0;
  // The driver reads each parameter's bytes from these addresses: the peers
  // array (Peers<N>) and the size vector (Sizes<N>) are plain arrays.
  // A zero-copy program's third parameter: the window table and where this
  // call's buffers are (abi.h, collcWindowParams).
  collcWindowParams windows = win;
  void *args[] = {&params, w->rxPeers.data(), const_cast<long long *>(sizeVec),
                  &windows};
  CU_CHECK(cuLaunchKernelEx(&config, w->function, args, nullptr));
  // Deregistration waits for (or, captured, refuses while) this call, in
  // every window the program publishes (`found`: the buffers in one).
  const unsigned uses = w->kernel->program.registered & found;
  if (uses & ProgramInfo::kRegisteredInput)
    COLLC_CHECK(noteWindowUse(comm, win.input, stream));
  if (uses & ProgramInfo::kRegisteredOutput)
    COLLC_CHECK(noteWindowUse(comm, win.output, stream));
  return collcSuccess;
}

} // namespace

Workspace *collc::routeCall(collcComm_t comm, const Route &route,
                            long long key, const void *sendbuff,
                            unsigned long long sendBytes, const void *recvbuff,
                            unsigned long long recvBytes,
                            collcWindowParams *win, unsigned *found) {
  constexpr unsigned kIn = ProgramInfo::kRegisteredInput;
  constexpr unsigned kOut = ProgramInfo::kRegisteredOutput;
  *win = collcWindowParams{};
  win->table = reinterpret_cast<const unsigned long long *>(comm->windowTable);
  // Which buffers lie in registered windows (a zero-copy program reads them
  // in place). Every rank must pick the same program, and an empty buffer
  // (a rooted call's non-root input, an empty V partition) cannot say
  // whether its peers registered theirs: it counts as registered when the
  // call's other buffer is, so that a call with registered buffers on every
  // rank, or with none, picks the same kernel everywhere.
  *found = 0;
  if (sendBytes > 0 && findWindow(comm, sendbuff, sendBytes, &win->input))
    *found |= kIn;
  if (recvBytes > 0 && findWindow(comm, recvbuff, recvBytes, &win->output))
    *found |= kOut;
  auto withEmpty = [&](unsigned bits) {
    return bits == 0 ? 0u
                     : bits | (sendBytes == 0 ? kIn : 0u) |
                           (recvBytes == 0 ? kOut : 0u);
  };
  const unsigned registered = withEmpty(*found);
  // A clique's direct buffers (directReadable): those no window holds are
  // published as their addresses, where the policy table's registered
  // entry makes the call a zero-copy one. Every rank of a clique answers
  // alike, so every rank switches alike. Only where that choice was
  // measured: a zero-copy program that serves every size of its band pays
  // a retire's round trip that small calls feel (at 1 MiB, 2 ranks on one
  // H200: Reduce 7.1 us in place against 5.0 staged), so a route without a
  // registered entry (an uncalibrated collective, a forced variant, a call
  // whose ranks share no size: key -1) stages ordinary buffers.
  if (comm->cliqueDirect && key >= 0 && !route.table[1].empty() &&
      registered != (kIn | kOut)) {
    Workspace *twin = pickProgram(route, key, kIn | kOut);
    // Asked only where the choice is a zero-copy program: a call in the
    // latency bands costs no driver query.
    if (twin && twin->kernel->program.registered &&
        !twin->kernel->program.multicast &&
        (sendBytes == 0 || (*found & kIn) ||
         directReadable(comm, sendbuff, sendBytes)) &&
        (recvBytes == 0 || (*found & kOut) ||
         directReadable(comm, recvbuff, recvBytes))) {
      const unsigned long long direct = (unsigned long long)kDirectWindow
                                        << kWindowShift;
      if (sendBytes > 0 && !(*found & kIn))
        win->input = direct | reinterpret_cast<uintptr_t>(sendbuff);
      if (recvBytes > 0 && !(*found & kOut))
        win->output = direct | reinterpret_cast<uintptr_t>(recvbuff);
      return twin;
    }
  }
  return pickProgram(route, key, registered);
}

long long collc::selectionBytes(const CollectiveInfo &c,
                                const long long *sizes, int n, int r,
                                int eb) {
  const TransformInfo &first = c.parts.front();
  const int parts = vocab::partitions(first.in, n);
  auto rowSum = [&](int p) { return vocab::rowTotal(sizes, parts, p); };
  if (!first.variable || first.reduce)
    return rowSum(r) * eb;
  if (first.in != Layout::Packed)
    return -1;
  long long most = 0;
  for (int p = 0; p < n; ++p)
    most = std::max(most, rowSum(p));
  return most * eb;
}

namespace {

/// Admits and launches one call with its size matrix (abi.h).
collcResult_t launchSized(collcComm_t comm, const CollectiveInfo *c,
                          Workspace *w, const char *name,
                          const void *sendbuff, void *recvbuff,
                          const std::vector<long long> &sizes,
                          collcDataType_t datatype, int root,
                          collcStream_t stream) {
  const int n = comm->nranks, r = comm->rank, eb = typeBytes(datatype);
  const TransformInfo &first = c->parts.front();
  const TransformInfo &last = c->parts.back();
  const int parts = vocab::partitions(first.in, n);
  // Buffer extents at this rank, from the same layouts (the layout algebra,
  // collc/vocab.h).
  auto rowSum = [&](int p) {
    return vocab::rowTotal(sizes.data(), parts, p);
  };
  auto entry = [&](vocab::SizeEntry e) {
    return sizes[(size_t)e.producer * parts + e.part];
  };
  long long sendElems = vocab::readsInput(first.root, r, root) ? rowSum(r) : 0;
  // Output: the last transform's output partitions at this rank, each an
  // entry of the first transform's input (through the first transform's
  // output at the rank that holds it, for a composition).
  long long recvElems = 0;
  if (vocab::writesOutput(last.root, r, root)) {
    const vocab::Transform t0 = first.shape(), t1 = last.shape();
    for (int j = 0; j < vocab::partitions(last.out, n); ++j) {
      if (c->parts.size() == 1) {
        recvElems += entry(vocab::outputEntry(t0, root, r, j));
      } else {
        const vocab::SizeEntry e = vocab::outputEntry(t1, root, r, j);
        recvElems += entry(vocab::outputEntry(t0, root, e.producer, e.part));
      }
    }
  }
  COLLC_CHECK(checkBuffer(comm, "sendbuff", sendbuff, sendElems * eb, eb));
  COLLC_CHECK(checkBuffer(comm, "recvbuff", recvbuff, recvElems * eb, eb));
  if (overlaps(sendbuff, sendElems * eb, recvbuff, recvElems * eb)) {
    // NCCL's in-place conventions, where the schedule reads each input
    // chunk before any output chunk lands on it.
    auto s = reinterpret_cast<uintptr_t>(sendbuff);
    auto d = reinterpret_cast<uintptr_t>(recvbuff);
    bool ok = false;
    if (first.reduce && s == d)
      ok = true; // AllReduce, one-shot and rooted reductions.
    else if (first.root == Root::Producer && c->parts.size() == 2 && s == d)
      ok = true; // Broadcast: the root's partitions land where they were.
    else if (c->parts.size() == 1 && !first.reduce &&
             first.in == Layout::Packed && last.out == Layout::Scattered) {
      long long before = 0;
      for (int p = 0; p < r; ++p)
        before += sizes[p];
      ok = s == d + before * eb; // AllGather
    } else if (c->parts.size() == 1 && first.reduce &&
               first.in == Layout::Scattered && last.out == Layout::Packed) {
      long long before = 0;
      for (int k = 0; k < r; ++k)
        before += sizes[k];
      ok = d == s + before * eb; // ReduceScatter
    }
    if (!ok)
      return COLLC_FAIL(collcInvalidArgument,
                        "%s: sendbuff and recvbuff overlap in a way this "
                        "collective does not support in place (NCCL's "
                        "conventions: AllReduce and Broadcast send == recv, "
                        "AllGather send == recv + rank * sendcount, "
                        "ReduceScatter recv == send + rank * recvcount)",
                        name);
  }

  COLLC_CHECK(useContext(comm));
  CUstream cuStream = reinterpret_cast<CUstream>(stream);
  COLLC_CHECK(checkStream(comm, name, cuStream));

  // A program whose band holds the call, else the v1 kernel (precomputed
  // routes: no string compare, no allocation).
  const Route &route =
      comm->routes[(size_t)(c - comm->module->collectives.data()) *
                       collcNumTypes +
                   datatype];
  const long long key = selectionBytes(*c, sizes.data(), n, r, eb);
  collcWindowParams win{};
  unsigned found = 0;
  Workspace *program =
      routeCall(comm, route, key, sendbuff,
                (unsigned long long)(sendElems * eb), recvbuff,
                (unsigned long long)(recvElems * eb), &win, &found);
  if (program) {
    // The size vector by value: this rank's row and column of the
    // program's size matrix (vocab::programSize: a packed program input
    // of a scattered collective, the one-shot AllReduce, reads each rank's
    // whole row; a rooted call's is shaped by the root).
    // A kernel of several world sizes takes its capacity's words, those
    // past the call's zero (abi.h: the device reads 2 n of them).
    const int words = 2 * std::max(n, program->kernel->capacity);
    constexpr int kStackWords = 256;
    long long local[kStackWords];
    std::vector<long long> heap;
    long long *vec = local;
    if (words > kStackWords) {
      heap.resize((size_t)words);
      vec = heap.data();
    }
    std::fill(vec + 2 * n, vec + words, 0ll);
    const ProgramInfo &g = program->kernel->program;
    vocab::programSizeVector(g.root, root, sizes.data(), parts,
                             g.inputPacked, n, r, vec);
    scaleSizes(vec, 2 * n, eb, *program->kernel);
    return launchProgram(comm, program, sendbuff, recvbuff, vec, cuStream,
                         win, found);
  }
  if (!route.v1) {
    // A V exchange's key is -1: no size every rank knows.
    char input[48] = "";
    if (key >= 0)
      std::snprintf(input, sizeof input, "%lld bytes of input; ", key);
    return COLLC_FAIL(collcInvalidArgument,
                      "%s: rank %d: no kernel of the module serves this call "
                      "(%sthe module has programs only, and none %s%s)",
                      name, r, input,
                      key >= 0 ? "has this size in its band"
                               : "whose ranks agree on its steps, which a V "
                                 "exchange needs",
                      route.programs.empty() ? ", or COLLC_FORCE_VARIANT "
                                               "excludes them"
                                             : "");
  }
  w = route.v1;
  // The kernel's capacity's words, those past the call's zero.
  std::vector<long long> sizeVec(
      (size_t)collcSizeVectorWords(std::max(n, w->kernel->capacity)), 0);
  collcFillSizeVector(sizes.data(), n, parts, r, sizeVec.data());
  scaleSizes(sizeVec.data(), (int)sizeVec.size(), eb, *w->kernel);

  collcKernelParams params{};
  params.input = sendbuff;
  params.output = recvbuff;
  params.staging = reinterpret_cast<void *const *>(w->stagingPeers);
  params.inter = reinterpret_cast<void *const *>(w->interPeers);
  params.events = reinterpret_cast<unsigned long long *const *>(w->eventPeers);
  params.state = reinterpret_cast<unsigned long long *>(w->state);
  params.error = reinterpret_cast<unsigned long long *>(w->errorDevice);
  // Never 0 (the free claim); a captured launch keeps its token, so a
  // graph replayed alongside eager calls is told apart from them.
  params.launch = ++comm->launches;
  params.rank = r;
  params.worldSize = n;
  params.root = c->rooted() ? root : 0;
  params.timeoutNs = comm->timeoutNs;

  CUlaunchConfig config{};
  config.gridDimX = w->kernel->grid;
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = w->kernel->threads;
  config.blockDimY = config.blockDimZ = 1;
  config.sharedMemBytes = 0;
  config.hStream = cuStream;
  // Cooperative: the CTAs of the grid wait on each other (role groups
  // exchange chunks and slot releases both ways), so all of them must be
  // resident at once; a plain launch next to a compute kernel holding most
  // SMs could start some CTAs that spin on others that never get an SM
  // until the timeout. The driver starts a cooperative grid only when all
  // of it fits (admission checked the device can hold it at all).
  CUlaunchAttribute attrs[2] = {};
  attrs[0].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
  attrs[0].value.cooperative = 1;
  config.attrs = attrs;
  config.numAttrs = 1;
  if (w->kernel->pdl) {
    attrs[1].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attrs[1].value.programmaticStreamSerializationAllowed = 1;
    config.numAttrs = 2;
  }
  void *args[] = {&params, sizeVec.data()};
  CU_CHECK(cuLaunchKernelEx(&config, w->function, args, nullptr));
  return collcSuccess;
}


} // namespace

namespace {

/// How a call names its count arguments in messages: the typed calls use
/// NCCL's and MPI's names, collcLaunch its own.
struct CountNames {
  const char *count;  // a fixed-size call's count
  const char *counts; // a V call's counts (all_to_all_v: the send counts)
  const char *recv;   // all_to_all_v's receive counts when they are an
                      // argument of their own, else counts[n + p]
};
const CountNames kLaunchNames = {"count", "counts", nullptr};

/// The name of element i of a V call's count arguments ("recvcounts[5]").
std::string countName(const CountNames &names, int i, int n) {
  if (names.recv && i >= n)
    return std::string(names.recv) + "[" + std::to_string(i - n) + "]";
  return std::string(names.counts) + "[" + std::to_string(i) + "]";
}

/// Refuses a count above the partition limit. Compared as size_t: a cast to
/// the ABI's long long would turn 2^63 and up into negative sizes.
collcResult_t checkCount(const char *name, int rank, const char *arg,
                         size_t value) {
  if (value <= kMaxPartitionElems)
    return collcSuccess;
  return COLLC_FAIL(collcInvalidArgument,
                    "%s: rank %d: %s = %zu is larger than the limit of %s "
                    "elements per partition",
                    name, rank, arg, value, kMaxPartitionText);
}

/// Checks a V call's counts (`arrays` arrays of n): each within the limit,
/// and each array's sum (a buffer's extent) countable in elements and in
/// bytes. Names are only built for a message: this runs on every call.
collcResult_t checkCountArrays(const char *name, int rank, int n,
                               const size_t *counts, int arrays,
                               const CountNames &names, int elemBytes) {
  for (int i = 0; i < arrays * n; ++i)
    if (counts[i] > kMaxPartitionElems)
      return checkCount(name, rank, countName(names, i, n).c_str(),
                        counts[i]);
  auto arrayName = [&](int a) {
    if (arrays == 1 || (a == 0 && names.recv))
      return std::string(names.counts);
    if (names.recv)
      return std::string(names.recv);
    return std::string(names.counts) + (a == 0 ? "[0, n)" : "[n, 2n)");
  };
  for (int a = 0; a < arrays; ++a) {
    long long sum = 0, bytes = 0;
    if (!checkedSum(counts + (size_t)a * n, n, sum))
      return COLLC_FAIL(collcInvalidArgument,
                        "%s: rank %d: the sum of %s overflows (more than "
                        "2^63 - 1 elements)",
                        name, rank, arrayName(a).c_str());
    if (!checkedMul(sum, elemBytes, bytes))
      return COLLC_FAIL(collcInvalidArgument,
                        "%s: rank %d: the sum of %s is %lld elements, whose "
                        "%d-byte extent overflows a 64-bit size",
                        name, rank, arrayName(a).c_str(), sum, elemBytes);
  }
  return collcSuccess;
}

/// The first thing every launch checks: the communicator exists and no
/// kernel of it recorded an error. After a timeout the ranks' call counters
/// and slots are out of step (the failed call ended early on some ranks),
/// so a later call would pair with the wrong call on a peer; the
/// communicator stays failed until collcCommAbort. The record lives in
/// host-mapped memory, so this is a few plain loads, not a synchronization.
collcResult_t checkNotFailed(collcComm_t comm, const char *name) {
  COLLC_ARG_NOT_NULL(comm);
  auto failed = [](const Workspace &w) {
    return w.error && (w.error[0] != COLLC_KERNEL_OK ||
                       w.error[COLLC_ERROR_REMOTE] != COLLC_KERNEL_OK);
  };
  if (std::none_of(comm->workspaces.begin(), comm->workspaces.end(),
                   failed) &&
      !deviceApiFailed(comm, false))
    return collcSuccess;
  // The earlier error as collcCommGetAsyncError words it, without its
  // "collcCommGetAsyncError : " prefix.
  std::string earlier = "a kernel recorded an error";
  collcResult_t async = collcSuccess;
  if (collcCommGetAsyncError(comm, &async) == collcSuccess &&
      async != collcSuccess) {
    earlier = lastErrorMessage();
    size_t colon = earlier.find(" : ");
    if (colon != std::string::npos)
      earlier.erase(0, colon + 3);
  }
  return COLLC_FAIL(collcInvalidUsage,
                    "%s: rank %d: the communicator failed earlier and "
                    "accepts no more calls (%s); call collcCommAbort and "
                    "create a new communicator",
                    name ? name : "?", comm->rank, earlier.c_str());
}

/// collcLaunch's work, for every entry point: the size matrix of the first
/// transform's input (abi.h) from NCCL-style arguments, keyed on layouts,
/// after checking every count against the limits.
collcResult_t launchCounts(collcComm_t comm, const char *name,
                           const void *sendbuff, void *recvbuff, size_t count,
                           const size_t *counts, collcDataType_t datatype,
                           int root, collcStream_t stream,
                           const CountNames &names) {
  const CollectiveInfo *c = nullptr;
  Workspace *w = nullptr;
  COLLC_CHECK(resolve(comm, name, datatype, root, c, w));
  const int n = comm->nranks, r = comm->rank, eb = typeBytes(datatype);
  const TransformInfo &first = c->parts.front();
  const int parts = vocab::partitions(first.in, n);
  std::vector<long long> sizes;
  if (!first.variable) {
    COLLC_CHECK(checkCount(name, r, names.count, count));
    // No buffer of a fixed-size call spans more than n partitions.
    long long elems = 0, bytes = 0;
    if (!checkedMul(count, n, elems) || !checkedMul(elems, eb, bytes))
      return COLLC_FAIL(collcInvalidArgument,
                        "%s: rank %d: %d ranks x %s %zu x %d bytes overflows "
                        "a 64-bit size",
                        name, r, n, names.count, count, eb);
    sizes.assign((size_t)n * parts, (long long)count);
  } else {
    if (!counts)
      return COLLC_FAIL(collcInvalidArgument,
                        "%s: rank %d: %s is NULL, but the collective has "
                        "variable partition sizes",
                        name, r, names.counts);
    const bool sendAndRecv = first.in == Layout::Scattered && !first.reduce;
    COLLC_CHECK(checkCountArrays(name, r, n, counts, sendAndRecv ? 2 : 1,
                                 names, eb));
    sizes.assign((size_t)n * parts, 0);
    if (first.in == Layout::Packed) {
      for (int p = 0; p < n; ++p)
        sizes[p] = (long long)counts[p];
    } else if (first.reduce) {
      for (int p = 0; p < n; ++p)
        for (int k = 0; k < n; ++k)
          sizes[(size_t)p * n + k] = (long long)counts[k];
    } else {
      // This rank's send counts (its row) and receive counts (its column)
      // share one entry: what it sends itself.
      if (counts[r] != counts[n + r])
        return COLLC_FAIL(collcInvalidArgument,
                          "%s: rank %d: %s = %zu but %s = %zu; what a rank "
                          "sends itself must equal what it receives from "
                          "itself",
                          name, r, countName(names, r, n).c_str(), counts[r],
                          countName(names, n + r, n).c_str(), counts[n + r]);
      for (int k = 0; k < n; ++k)
        sizes[(size_t)r * n + k] = (long long)counts[k];
      for (int p = 0; p < n; ++p)
        sizes[(size_t)p * n + r] = (long long)counts[n + p];
    }
  }

  return launchSized(comm, c, w, name, sendbuff, recvbuff, sizes, datatype,
                     root, stream);
}

} // namespace

extern "C" collcResult_t collcLaunch(collcComm_t comm, const char *name,
                                     const void *sendbuff, void *recvbuff,
                                     size_t count, const size_t *counts,
                                     collcDataType_t datatype, int root,
                                     collcStream_t stream) {
  COLLC_API_ENTRY();
  COLLC_CHECK(checkNotFailed(comm, name));
  return launchCounts(comm, name, sendbuff, recvbuff, count, counts, datatype,
                      root, stream, kLaunchNames);
}

namespace {

/// One transform of what a typed entry point computes.
struct Part {
  bool reduce;
  Layout in, out;
  bool variable;
  Root root;
};

/// What a typed entry point computes, keyed on consume ops, layouts and
/// roots, never on a spec name (docs/runtime.md, "Typed calls"): the
/// transforms of the collective it runs, as the library's specs write them.
struct Typed {
  const char *canonical; // the library's name, for errors before binding
  const char *what;      // e.g. "AllReduce"
  const char *spelling;  // the transforms, for the error that finds none
  int parts;
  Part part[2];
};

constexpr Layout kP = Layout::Packed, kS = Layout::Scattered,
                 kT = Layout::Transposed;
constexpr Root kNone = Root::None, kProducer = Root::Producer,
               kConsumer = Root::Consumer;
constexpr Typed kAllReduce = {
    "all_reduce", "AllReduce",
    "reduce(scattered -> packed) then copy(packed -> scattered)", 2,
    {{true, kS, kP, false, kNone}, {false, kP, kS, false, kNone}}};
constexpr Typed kAllGather = {"all_gather", "AllGather",
                              "copy(packed -> scattered)", 1,
                              {{false, kP, kS, false, kNone}}};
constexpr Typed kReduceScatter = {"reduce_scatter", "ReduceScatter",
                                  "reduce(scattered -> packed)", 1,
                                  {{true, kS, kP, false, kNone}}};
constexpr Typed kAllToAll = {"all_to_all", "AllToAll",
                             "copy(scattered -> transposed)", 1,
                             {{false, kS, kT, false, kNone}}};
constexpr Typed kBroadcast = {
    "broadcast", "Broadcast",
    "copy(scattered -> packed) root producer then copy(packed -> scattered)",
    2,
    {{false, kS, kP, false, kProducer}, {false, kP, kS, false, kNone}}};
constexpr Typed kReduce = {
    "reduce", "Reduce",
    "reduce(scattered -> packed) then copy(packed -> scattered) root "
    "consumer",
    2,
    {{true, kS, kP, false, kNone}, {false, kP, kS, false, kConsumer}}};
constexpr Typed kScatter = {"scatter", "Scatter",
                            "copy(scattered -> packed) root producer", 1,
                            {{false, kS, kP, false, kProducer}}};
constexpr Typed kGather = {"gather", "Gather",
                           "copy(packed -> scattered) root consumer", 1,
                           {{false, kP, kS, false, kConsumer}}};
constexpr Typed kAllGatherV = {"all_gather_v", "AllGatherV",
                               "copy(packed_v -> scattered_v)", 1,
                               {{false, kP, kS, true, kNone}}};
constexpr Typed kReduceScatterV = {"reduce_scatter_v", "ReduceScatterV",
                                   "reduce(scattered_v -> packed_v)", 1,
                                   {{true, kS, kP, true, kNone}}};
constexpr Typed kAllToAllV = {"all_to_all_v", "AllToAllV",
                              "copy(scattered_v -> transposed_v)", 1,
                              {{false, kS, kT, true, kNone}}};

bool computes(const CollectiveInfo &c, const Typed &t) {
  if ((int)c.parts.size() != t.parts)
    return false;
  for (int i = 0; i < t.parts; ++i) {
    const TransformInfo &x = c.parts[i];
    const Part &p = t.part[i];
    if (x.reduce != p.reduce || x.in != p.in || x.out != p.out ||
        x.variable != p.variable || x.root != p.root)
      return false;
  }
  return true;
}

/// The collective of the module that typed entry point `t` runs: the first
/// (module order) that computes it, and for a reduction the first of those
/// that reduces with `op` when one does (else the first: checkOp reports
/// the operator). Fails, naming what it looked for, when none computes it.
collcResult_t bindTyped(collcComm_t comm, const Typed &t,
                        const collcRedOp_t *op, const char *&name) {
  name = t.canonical;
  COLLC_CHECK(checkNotFailed(comm, t.canonical));
  const CollectiveInfo *first = nullptr;
  for (const CollectiveInfo &c : comm->module->collectives) {
    if (!computes(c, t))
      continue;
    bool sameOp = true;
    for (const TransformInfo &x : c.parts)
      sameOp &= !op || !x.reduce || x.op == *op;
    if (sameOp) {
      name = c.name.c_str();
      return collcSuccess;
    }
    if (!first)
      first = &c;
  }
  if (first) {
    name = first->name.c_str();
    return collcSuccess;
  }
  std::string known;
  for (const CollectiveInfo &k : comm->module->collectives)
    known += (known.empty() ? "" : ", ") + k.name;
  return COLLC_FAIL(collcInvalidArgument,
                    "%s: the module has no collective computing %s (%s); it "
                    "has %s",
                    t.canonical, t.what, t.spelling, known.c_str());
}

} // namespace

namespace {
/// The typed entry points check the operator against the module's.
collcResult_t checkOp(collcComm_t comm, const char *name, collcRedOp_t op) {
  const CollectiveInfo *c = comm->module->findCollective(name);
  if (!c)
    return collcSuccess; // collcLaunch reports it.
  for (const TransformInfo &t : c->parts)
    if (t.reduce && t.op != op)
      return COLLC_FAIL(collcInvalidArgument,
                        "%s: the module's %s reduces with %s, not %s; add a "
                        "collective with reduce<%s> to the spec",
                        name, name, opName(t.op), opName(op), opName(op));
  return collcSuccess;
}

/// The checks every typed entry point makes first: the communicator, then
/// the reduction's operator `op` (none when null).
collcResult_t checkEntry(collcComm_t comm, const char *name,
                         const collcRedOp_t *op) {
  COLLC_CHECK(checkNotFailed(comm, name));
  if (op)
    COLLC_CHECK(checkOp(comm, name, *op));
  return collcSuccess;
}

/// A typed entry point `t` with one count a rank (`countName` in errors),
/// bound (bindTyped), after checkEntry.
collcResult_t launchOneCount(collcComm_t comm, const Typed &t,
                             const char *countName, const void *send,
                             void *recv, size_t count, collcDataType_t type,
                             int root, collcStream_t stream,
                             const collcRedOp_t *op = nullptr) {
  const char *name = nullptr;
  COLLC_CHECK(bindTyped(comm, t, op, name));
  COLLC_CHECK(checkEntry(comm, name, op));
  return launchCounts(comm, name, send, recv, count, nullptr, type, root,
                      stream, {countName, "", nullptr});
}

/// Typed calls whose NCCL count is the whole buffer run a composition over
/// n partitions: an even split, carried as V-style counts when uneven. The
/// binding (bindTyped) and the entry point's checks (checkEntry) come first.
collcResult_t launchSplit(collcComm_t comm, const Typed &t, const void *send,
                          void *recv, size_t count, collcDataType_t type,
                          int root, collcStream_t stream,
                          const collcRedOp_t *op = nullptr) {
  const char *name = nullptr;
  COLLC_CHECK(bindTyped(comm, t, op, name));
  COLLC_CHECK(checkEntry(comm, name, op));
  const CollectiveInfo *c = nullptr;
  Workspace *w = nullptr;
  COLLC_CHECK(resolve(comm, name, type, root, c, w));
  const int n = comm->nranks, eb = typeBytes(type);
  if (c->parts.front().variable || c->parts.front().in != Layout::Scattered)
    return COLLC_FAIL(collcInternalError,
                      "%s: expected a fixed-size collective with a scattered "
                      "input",
                      name);
  // The whole buffer: n partitions of at most the partition limit each.
  long long limit = 0, bytes = 0;
  if (!checkedMul(kMaxPartitionElems, n, limit))
    limit = LLONG_MAX;
  if (count > (unsigned long long)limit)
    return COLLC_FAIL(collcInvalidArgument,
                      "%s: rank %d: count = %zu is larger than the limit of "
                      "%lld elements (%d partitions of at most 2^40)",
                      name, comm->rank, count, limit, n);
  if (!checkedMul(count, eb, bytes))
    return COLLC_FAIL(collcInvalidArgument,
                      "%s: rank %d: count %zu x %d bytes overflows a 64-bit "
                      "size",
                      name, comm->rank, count, eb);
  // Every rank's buffer is split the same way (16-byte units), so uneven
  // counts need no V collective.
  std::vector<long long> split = evenSplit(count, n, eb);
  std::vector<long long> sizes((size_t)n * n);
  for (int p = 0; p < n; ++p)
    for (int k = 0; k < n; ++k)
      sizes[(size_t)p * n + k] = split[k];
  return launchSized(comm, c, w, name, send, recv, sizes, type, root, stream);
}
} // namespace

extern "C" collcResult_t collcCommSupports(collcComm_t comm,
                                           collcCollective_t collective,
                                           collcDataType_t datatype,
                                           collcRedOp_t op, int *supported) {
  COLLC_API_ENTRY();
  COLLC_ARG_NOT_NULL(supported);
  *supported = 0;
  COLLC_ARG_NOT_NULL(comm);
  static const Typed *const kTyped[collcNumCollectives] = {
      &kAllReduce, &kAllGather,  &kReduceScatter, &kAllToAll,
      &kBroadcast, &kReduce,     &kScatter,       &kGather,
      &kAllGatherV, &kReduceScatterV, &kAllToAllV};
  if (collective < 0 || collective >= collcNumCollectives)
    return COLLC_FAIL(collcInvalidArgument,
                      "collective %d is not a collcCollective_t",
                      (int)collective);
  const Typed &t = *kTyped[collective];
  bool reduces = false;
  for (int i = 0; i < t.parts; ++i)
    reduces |= t.part[i].reduce;
  if (reduces && (op < 0 || op >= collcNumOps))
    return COLLC_FAIL(collcInvalidArgument, "%s: op %d is not a collcRedOp_t",
                      t.canonical, (int)op);
  if (datatype < 0 || datatype >= collcNumTypes)
    return COLLC_FAIL(collcInvalidArgument,
                      "%s: datatype %d is not a collcDataType_t", t.canonical,
                      (int)datatype);
  // The call's own checks, in its order; a refusal is the answer (its
  // message stays the last error), not a failure of this query.
  const char *name = nullptr;
  const CollectiveInfo *c = nullptr;
  Workspace *w = nullptr;
  // bindTyped checks the communicator (checkNotFailed) first.
  collcResult_t res = bindTyped(comm, t, reduces ? &op : nullptr, name);
  if (res == collcSuccess && reduces)
    res = checkOp(comm, name, op);
  if (res == collcSuccess)
    res = resolve(comm, name, datatype, 0, c, w);
  if (res == collcSuccess)
    *supported = 1;
  return res == collcInvalidArgument || res == collcSuccess ? collcSuccess
                                                             : res;
}

extern "C" collcResult_t collcAllReduce(const void *sendbuff, void *recvbuff,
                                        size_t count, collcDataType_t datatype,
                                        collcRedOp_t op, collcComm_t comm,
                                        collcStream_t stream) {
  COLLC_API_ENTRY();
  return launchSplit(comm, kAllReduce, sendbuff, recvbuff, count, datatype, 0,
                     stream, &op);
}

extern "C" collcResult_t collcAllGather(const void *sendbuff, void *recvbuff,
                                        size_t sendcount,
                                        collcDataType_t datatype,
                                        collcComm_t comm,
                                        collcStream_t stream) {
  COLLC_API_ENTRY();
  return launchOneCount(comm, kAllGather, "sendcount", sendbuff, recvbuff,
                        sendcount, datatype, 0, stream);
}

extern "C" collcResult_t collcReduceScatter(const void *sendbuff,
                                            void *recvbuff, size_t recvcount,
                                            collcDataType_t datatype,
                                            collcRedOp_t op, collcComm_t comm,
                                            collcStream_t stream) {
  COLLC_API_ENTRY();
  return launchOneCount(comm, kReduceScatter, "recvcount", sendbuff, recvbuff,
                        recvcount, datatype, 0, stream, &op);
}

extern "C" collcResult_t collcAllToAll(const void *sendbuff, void *recvbuff,
                                       size_t count, collcDataType_t datatype,
                                       collcComm_t comm,
                                       collcStream_t stream) {
  COLLC_API_ENTRY();
  return launchOneCount(comm, kAllToAll, "count", sendbuff, recvbuff, count,
                        datatype, 0, stream);
}

extern "C" collcResult_t collcBroadcast(const void *sendbuff, void *recvbuff,
                                        size_t count, collcDataType_t datatype,
                                        int root, collcComm_t comm,
                                        collcStream_t stream) {
  COLLC_API_ENTRY();
  return launchSplit(comm, kBroadcast, sendbuff, recvbuff, count, datatype, root,
                     stream);
}

extern "C" collcResult_t collcReduce(const void *sendbuff, void *recvbuff,
                                     size_t count, collcDataType_t datatype,
                                     collcRedOp_t op, int root,
                                     collcComm_t comm, collcStream_t stream) {
  COLLC_API_ENTRY();
  return launchSplit(comm, kReduce, sendbuff, recvbuff, count, datatype, root,
                     stream, &op);
}

extern "C" collcResult_t collcScatter(const void *sendbuff, void *recvbuff,
                                      size_t recvcount,
                                      collcDataType_t datatype, int root,
                                      collcComm_t comm, collcStream_t stream) {
  COLLC_API_ENTRY();
  return launchOneCount(comm, kScatter, "recvcount", sendbuff, recvbuff,
                        recvcount, datatype, root, stream);
}

extern "C" collcResult_t collcGather(const void *sendbuff, void *recvbuff,
                                     size_t sendcount,
                                     collcDataType_t datatype, int root,
                                     collcComm_t comm, collcStream_t stream) {
  COLLC_API_ENTRY();
  return launchOneCount(comm, kGather, "sendcount", sendbuff, recvbuff,
                        sendcount, datatype, root, stream);
}

namespace {
/// collc's V layouts are packed: displacements must be the prefix sums.
/// Run after checkCountArrays, so the sums fit; checked all the same.
collcResult_t checkPacked(const char *name, int rank, const char *what,
                          const size_t *counts, const size_t *displs, int n) {
  if (!displs)
    return collcSuccess;
  long long at = 0;
  for (int p = 0; p < n; ++p) {
    if (displs[p] != (unsigned long long)at)
      return COLLC_FAIL(collcInvalidArgument,
                        "%s: rank %d: %s[%d] is %zu, but collc's partitions "
                        "are packed in rank order (expected %lld, the sum of "
                        "the counts before it); pass NULL or the prefix sums",
                        name, rank, what, p, displs[p], at);
    if (!checkedAdd(at, counts[p], at))
      return COLLC_FAIL(collcInvalidArgument,
                        "%s: rank %d: the counts behind %s overflow", name,
                        rank, what);
  }
  return collcSuccess;
}
} // namespace

extern "C" collcResult_t collcAllGatherV(const void *sendbuff, size_t sendcount,
                                         void *recvbuff,
                                         const size_t *recvcounts,
                                         const size_t *displs,
                                         collcDataType_t datatype,
                                         collcComm_t comm,
                                         collcStream_t stream) {
  COLLC_API_ENTRY();
  const char *name = nullptr;
  COLLC_CHECK(bindTyped(comm, kAllGatherV, nullptr, name));
  const CountNames names = {"sendcount", "recvcounts", nullptr};
  COLLC_ARG_NOT_NULL(recvcounts);
  const int n = comm->nranks, r = comm->rank;
  COLLC_CHECK(checkCountArrays(name, r, n, recvcounts, 1, names,
                               typeBytes(datatype)));
  if (recvcounts[r] != sendcount)
    return COLLC_FAIL(collcInvalidArgument,
                      "%s: rank %d: sendcount is %zu but recvcounts[%d] (this "
                      "rank) is %zu",
                      name, r, sendcount, r, recvcounts[r]);
  COLLC_CHECK(checkPacked(name, r, "displs", recvcounts, displs, n));
  return launchCounts(comm, name, sendbuff, recvbuff, 0, recvcounts, datatype,
                      0, stream, names);
}

extern "C" collcResult_t collcReduceScatterV(const void *sendbuff,
                                             void *recvbuff,
                                             const size_t *recvcounts,
                                             collcDataType_t datatype,
                                             collcRedOp_t op, collcComm_t comm,
                                             collcStream_t stream) {
  COLLC_API_ENTRY();
  const char *name = nullptr;
  COLLC_CHECK(bindTyped(comm, kReduceScatterV, &op, name));
  COLLC_CHECK(checkEntry(comm, name, &op));
  return launchCounts(comm, name, sendbuff, recvbuff, 0, recvcounts, datatype,
                      0, stream, {"", "recvcounts", nullptr});
}

extern "C" collcResult_t collcAllToAllV(const void *sendbuff,
                                        const size_t *sendcounts,
                                        const size_t *sdispls, void *recvbuff,
                                        const size_t *recvcounts,
                                        const size_t *rdispls,
                                        collcDataType_t datatype,
                                        collcComm_t comm,
                                        collcStream_t stream) {
  COLLC_API_ENTRY();
  const char *name = nullptr;
  COLLC_CHECK(bindTyped(comm, kAllToAllV, nullptr, name));
  const CountNames names = {"", "sendcounts", "recvcounts"};
  COLLC_ARG_NOT_NULL(sendcounts);
  COLLC_ARG_NOT_NULL(recvcounts);
  const int n = comm->nranks, r = comm->rank;
  // One array of 2n counts, the form collcLaunch takes.
  std::vector<size_t> counts(sendcounts, sendcounts + n);
  counts.insert(counts.end(), recvcounts, recvcounts + n);
  COLLC_CHECK(checkCountArrays(name, r, n, counts.data(), 2, names,
                               typeBytes(datatype)));
  COLLC_CHECK(checkPacked(name, r, "sdispls", sendcounts, sdispls, n));
  COLLC_CHECK(checkPacked(name, r, "rdispls", recvcounts, rdispls, n));
  return launchCounts(comm, name, sendbuff, recvbuff, 0, counts.data(),
                      datatype, 0, stream, names);
}
