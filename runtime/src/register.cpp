//===- register.cpp - registered buffers (windows) --------------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// collcCommRegister and collcCommDeregister: ranges of user memory that
/// peers reach directly, so a zero-copy program reads and writes the user's
/// buffers instead of staging them. A communicator holds up to kMaxWindows
/// windows; slot s of its device table (collcComm::windowTable) holds every
/// rank's range of the window in slot s as this rank maps it. One process
/// per rank exchanges CUDA IPC handles through the bootstrap allgather; one
/// process driving every rank (a Clique) uses the plain pointers, since peer
/// access is enabled between its devices.
///
/// Deregistration is safe or refused: eager work that used a window
/// (noteWindowUse recorded an event behind it) is waited for, and a window
/// still held by a captured CUDA graph (a user object in the graph counts
/// it) is not released at all.
///
//===----------------------------------------------------------------------===//

#include "runtime.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

using namespace collc;

collc::WindowShared::~WindowShared() {
  for (Tracked &t : tracked)
    if (t.event)
      drv::pfn_cuEventDestroy(t.event);
}

namespace {

/// At most this many (stream, event) pairs per window before completed ones
/// are reused: a window used from many short-lived streams stays bounded.
constexpr size_t kTrackedStreams = 8;
/// Capture sequences remembered per window (one user object per graph).
constexpr size_t kRememberedCaptures = 16;

/// What a rank tells the others about its part of one registration (one
/// process per rank).
struct RegisterHello {
  int status; ///< collcResult_t of this rank's own checks
  int slot;   ///< its lowest free slot
  unsigned long long number; ///< its registrations so far
  unsigned long long base;   ///< the allocation, in this rank's space
  unsigned long long offset; ///< buff - base
  unsigned long long bytes;
  CUipcMemHandle handle; ///< of the allocation (base)
  char why[320];         ///< the refusal, when status != 0
};

/// A rank's verdict on a step every rank must take together.
struct Verdict {
  int status;
  int slot;
  unsigned long long number;
  char why[320];
};

/// The last error without its "<function> : " prefix, for relaying a
/// rank's refusal in another rank's message.
void copyWhy(char (&why)[320]) {
  const char *m = lastErrorMessage();
  if (const char *colon = std::strstr(m, " : "))
    m = colon + 3;
  std::snprintf(why, sizeof why, "%s", m);
}

int lowestFreeSlot(collcComm_t comm) {
  for (int s = 0; s < kMaxWindows; ++s)
    if (!comm->windowSlots[s])
      return s;
  return -1;
}

/// The checks that need no driver: arguments, overlap with this rank's
/// windows, and the window limit.
collcResult_t checkArguments(collcComm_t comm, void *buff, size_t bytes,
                             collcWindow_t *window) {
  if (!window)
    return COLLC_FAIL(collcInvalidArgument,
                      "rank %d: window argument is NULL (buff %p, %zu bytes)",
                      comm->rank, buff, bytes);
  *window = nullptr;
  if (!buff)
    return COLLC_FAIL(collcInvalidArgument,
                      "rank %d: buff argument is NULL (%zu bytes)",
                      comm->rank, bytes);
  if (bytes == 0)
    return COLLC_FAIL(collcInvalidArgument,
                      "rank %d: bytes is 0 (buff %p); a window holds at "
                      "least one byte",
                      comm->rank, buff);
  const CUdeviceptr p = reinterpret_cast<CUdeviceptr>(buff);
  // The offset inside a window travels in the low kWindowShift bits.
  if (bytes > (1ull << kWindowShift) || p + bytes < p)
    return COLLC_FAIL(collcInvalidArgument,
                      "rank %d: buff %p, %zu bytes: a window holds at most "
                      "2^%d bytes",
                      comm->rank, buff, bytes, kWindowShift);
  for (const collcWindow *w : comm->windows)
    if (p < w->buff + w->bytes && w->buff < p + bytes)
      return COLLC_FAIL(
          collcInvalidArgument,
          "rank %d: [%p, %p) (%zu bytes) overlaps window %llu ([%p, %p), "
          "%llu bytes, slot %d) already registered on this communicator; "
          "deregister it first, or register one range that covers both",
          comm->rank, buff, (void *)(p + bytes), bytes, w->number,
          (void *)w->buff, (void *)(w->buff + w->bytes), w->bytes, w->slot);
  if (lowestFreeSlot(comm) < 0)
    return COLLC_FAIL(collcInvalidUsage,
                      "rank %d: buff %p (%zu bytes): %d windows are "
                      "registered on this communicator already, the most it "
                      "holds; deregister one first",
                      comm->rank, buff, bytes, kMaxWindows);
  return collcSuccess;
}

/// The checks that ask the driver: device memory of the communicator's
/// device, inside one allocation, exportable with CUDA IPC (what a peer
/// process needs, checked in one process too so that both behave alike).
collcResult_t checkMemory(collcComm_t comm, void *buff, size_t bytes,
                          CUdeviceptr *base, CUipcMemHandle *handle) {
  COLLC_CHECK(driverInit());
  COLLC_CHECK(useContext(comm));
  const CUdeviceptr p = reinterpret_cast<CUdeviceptr>(buff);
  const char *use = "register memory allocated with cudaMalloc or cuMemAlloc";
  unsigned int type = 0;
  if (drv::pfn_cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                     p) != CUDA_SUCCESS ||
      type != CU_MEMORYTYPE_DEVICE)
    return COLLC_FAIL(collcInvalidArgument,
                      "rank %d: buff %p (%zu bytes) is not device memory "
                      "(host memory cannot be registered); %s on device %d",
                      comm->rank, buff, bytes, use, comm->device);
  int managed = 0;
  if (drv::pfn_cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                     p) == CUDA_SUCCESS &&
      managed)
    return COLLC_FAIL(collcInvalidArgument,
                      "rank %d: buff %p (%zu bytes) is managed memory "
                      "(cudaMallocManaged), which CUDA IPC cannot export; "
                      "%s on device %d",
                      comm->rank, buff, bytes, use, comm->device);
  int ordinal = -1;
  if (drv::pfn_cuPointerGetAttribute(&ordinal,
                                     CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                     p) == CUDA_SUCCESS &&
      ordinal != comm->device)
    return COLLC_FAIL(collcInvalidArgument,
                      "rank %d: buff %p (%zu bytes) is memory of device %d, "
                      "but this communicator runs on device %d; %s on "
                      "device %d",
                      comm->rank, buff, bytes, ordinal, comm->device, use,
                      comm->device);
  size_t size = 0;
  if (drv::pfn_cuMemGetAddressRange(base, &size, p) != CUDA_SUCCESS)
    return COLLC_FAIL(collcInvalidArgument,
                      "rank %d: buff %p (%zu bytes) is not inside an "
                      "allocation of device %d; %s",
                      comm->rank, buff, bytes, comm->device, use);
  if (p + bytes > *base + size)
    return COLLC_FAIL(collcInvalidArgument,
                      "rank %d: [%p, %p) (%zu bytes) runs past the end of "
                      "its allocation ([%p, %p), %zu bytes); a window must "
                      "lie inside one allocation",
                      comm->rank, buff, (void *)(p + bytes), bytes,
                      (void *)*base, (void *)(*base + size), size);
  CUresult e = drv::pfn_cuIpcGetMemHandle(handle, *base);
  if (e != CUDA_SUCCESS) {
    const char *name = nullptr;
    if (drv::pfn_cuGetErrorName(e, &name) != CUDA_SUCCESS || !name)
      name = "an error";
    return COLLC_FAIL(collcInvalidArgument,
                      "rank %d: buff %p (%zu bytes, allocation %p of device "
                      "%d) cannot be exported to peers with CUDA IPC "
                      "(cuIpcGetMemHandle failed with %d %s): cuMemCreate "
                      "(virtual memory management) and memory-pool "
                      "(cudaMallocAsync) allocations cannot be registered; "
                      "%s",
                      comm->rank, buff, bytes, (void *)*base, comm->device,
                      (int)e, name, use);
  }
  return collcSuccess;
}

/// Writes slot `slot`'s row of `c`'s table (`row`: nranks addresses, or
/// NULL for zeros) on its own non-blocking stream, so that it waits for no
/// user work; the caller has made `c`'s context current.
collcResult_t uploadRow(collcComm *c, int slot, const CUdeviceptr *row) {
  std::vector<CUdeviceptr> zeros;
  if (!row) {
    zeros.assign(c->nranks, 0);
    row = zeros.data();
  }
  const size_t bytes = (size_t)c->nranks * sizeof(CUdeviceptr);
  CU_CHECK(cuMemcpyHtoDAsync(c->windowTable + (size_t)slot * bytes, row,
                             bytes, c->windowStream));
  CU_CHECK(cuStreamSynchronize(c->windowStream));
  return collcSuccess;
}

/// Maps peer `peer`'s allocation (its base `peerBase`, exported as
/// `handle`) once, however many windows lie in it. Returns its index in
/// comm->mappings, or -1 with the error in *res.
int openMapping(collcComm_t comm, int peer, CUdeviceptr peerBase,
                const CUipcMemHandle &handle, collcResult_t *res) {
  int free = -1;
  for (size_t i = 0; i < comm->mappings.size(); ++i) {
    PeerMapping &m = comm->mappings[i];
    if (m.refs > 0 && m.peer == peer && m.peerBase == peerBase) {
      ++m.refs;
      return (int)i;
    }
    if (m.refs == 0 && free < 0)
      free = (int)i;
  }
  CUdeviceptr mapped = 0;
  CUresult e = drv::pfn_cuIpcOpenMemHandle(&mapped, handle,
                                           CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
  if (e != CUDA_SUCCESS) {
    cuFail(e, "cuIpcOpenMemHandle", __FILE__, __LINE__);
    *res = COLLC_FAIL(collcUnhandledCudaError,
                      "rank %d: cannot map rank %d's registered allocation "
                      "(%p in rank %d): %s",
                      comm->rank, peer, (void *)peerBase, peer,
                      lastErrorMessage());
    return -1;
  }
  if (free < 0) {
    free = (int)comm->mappings.size();
    comm->mappings.emplace_back();
  }
  comm->mappings[free] = PeerMapping{peer, peerBase, mapped, 1};
  return free;
}

/// Drops the window's references to its peers' mappings, closing those no
/// other window uses.
void dropMappings(collcComm_t comm, collcWindow *w) {
  for (int &i : w->mappings) {
    if (i < 0)
      continue;
    PeerMapping &m = comm->mappings[i];
    if (--m.refs == 0) {
      drv::pfn_cuIpcCloseMemHandle(m.mapped);
      m = PeerMapping();
    }
    i = -1;
  }
}

/// Forgets a window on this rank: its events, its slot, its mappings, the
/// handle. (The table row is the caller's.)
void forget(collcComm_t comm, collcWindow *w) {
  {
    // This rank's events go now, with its context current: the window's
    // shared state may outlive the context (another rank of the process
    // still holds it).
    WindowShared &s = *w->shared;
    std::lock_guard<std::mutex> lock(s.mutex);
    auto mine = [&](const WindowShared::Tracked &t) {
      return t.rank == comm->rank;
    };
    for (const WindowShared::Tracked &t : s.tracked)
      if (mine(t))
        drv::pfn_cuEventDestroy(t.event);
    s.tracked.erase(std::remove_if(s.tracked.begin(), s.tracked.end(), mine),
                    s.tracked.end());
  }
  dropMappings(comm, w);
  comm->windowSlots[w->slot] = nullptr;
  comm->windows.erase(
      std::find(comm->windows.begin(), comm->windows.end(), w));
  delete w;
}

} // namespace

collcResult_t collc::checkOwned(collcComm_t comm, collcWindow_t window) {
  if (!window)
    return COLLC_FAIL(collcInvalidArgument, "rank %d: window argument is NULL",
                      comm->rank);
  if (std::find(comm->windows.begin(), comm->windows.end(), window) ==
      comm->windows.end())
    return COLLC_FAIL(collcInvalidArgument,
                      "rank %d: window %p is not a window registered on this "
                      "communicator (deregistered already, or registered on "
                      "another communicator)",
                      comm->rank, (void *)window);
  return collcSuccess;
}

namespace {

/// Whether the window may go: no captured graph holds it, and the eager
/// work that used it (on any rank of this process) finished within the
/// communicator's timeout.
collcResult_t checkIdle(collcComm_t comm, collcWindow *w) {
  WindowShared &s = *w->shared;
  const int live = s.graphs->live.load(std::memory_order_acquire);
  if (live > 0)
    return COLLC_FAIL(collcInvalidUsage,
                      "rank %d: window %llu (slot %d, %p, %llu bytes) is "
                      "used by %d captured CUDA graph%s; destroy their "
                      "graphs and graph executions first (cudaGraphDestroy, "
                      "cudaGraphExecDestroy); the window stays registered",
                      comm->rank, w->number, w->slot, (void *)w->buff,
                      w->bytes, live, live == 1 ? "" : "s");
  std::vector<CUevent> events;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    for (const WindowShared::Tracked &t : s.tracked)
      events.push_back(t.event);
  }
  // Polled rather than cuEventSynchronize: the wait must be bounded. The
  // events live as long as `s`, which this window keeps alive.
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline =
      Clock::now() + std::chrono::nanoseconds(comm->timeoutNs);
  for (CUevent e : events) {
    for (int spins = 0;; ++spins) {
      CUresult q = drv::pfn_cuEventQuery(e);
      if (q == CUDA_SUCCESS)
        break;
      if (q != CUDA_ERROR_NOT_READY)
        return cuFail(q, "cuEventQuery", __FILE__, __LINE__);
      if (Clock::now() > deadline)
        return COLLC_FAIL(
            collcTimeout,
            "rank %d: window %llu (slot %d, %p, %llu bytes): work queued on "
            "a stream that uses it did not finish within %llu ms; the "
            "window stays registered (retry once the work is done, or "
            "abort the communicator with collcCommAbort)",
            comm->rank, w->number, w->slot, (void *)w->buff, w->bytes,
            comm->timeoutNs / 1000000ull);
      if (spins < 100)
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
  return collcSuccess;
}

//===----------------------------------------------------------------------===//
// One process per rank
//===----------------------------------------------------------------------===//

collcResult_t registerRanks(collcComm_t comm, void *buff, size_t bytes,
                            collcWindow_t *window) {
  const int n = comm->nranks, rank = comm->rank;
  if (!comm->allgather)
    return COLLC_FAIL(collcInternalError,
                      "rank %d: the communicator has no allgather to exchange "
                      "the registration with",
                      rank);
  // Every check feeds the exchange: a rank that refuses its range still
  // takes part, so no peer is left waiting in the allgather, and every rank
  // refuses together.
  RegisterHello mine;
  std::memset(&mine, 0, sizeof mine);
  mine.number = comm->registrations;
  mine.slot = lowestFreeSlot(comm);
  CUdeviceptr base = 0;
  collcResult_t res = checkArguments(comm, buff, bytes, window);
  if (res == collcSuccess)
    res = checkMemory(comm, buff, bytes, &base, &mine.handle);
  mine.status = res;
  if (res != collcSuccess)
    copyWhy(mine.why);
  mine.base = base;
  mine.offset = reinterpret_cast<CUdeviceptr>(buff) - base;
  mine.bytes = bytes;
  std::vector<RegisterHello> all(n);
  if (comm->allgather(&mine, all.data(), sizeof mine, comm->userData) != 0)
    return COLLC_FAIL(collcSystemError,
                      "rank %d: the allgather callback failed exchanging the "
                      "registration of %p (%zu bytes); the ranks may disagree "
                      "on it now: destroy the communicator",
                      rank, buff, bytes);
  if (res != collcSuccess)
    return res;
  for (int p = 0; p < n; ++p)
    if (all[p].status != collcSuccess)
      return COLLC_FAIL((collcResult_t)all[p].status,
                        "rank %d: rank %d refused its range of this "
                        "registration, so every rank refuses it: %s",
                        rank, p, all[p].why);
  for (int p = 0; p < n; ++p)
    if (all[p].number != mine.number || all[p].slot != mine.slot)
      return COLLC_FAIL(
          collcInvalidUsage,
          "rank %d: the ranks' registrations are out of step: rank %d makes "
          "its registration %llu (into slot %d), this rank its registration "
          "%llu (slot %d); every rank must register and deregister the same "
          "windows in the same order",
          rank, p, all[p].number, all[p].slot, mine.number, mine.slot);

  collcWindow *w = new collcWindow();
  w->comm = comm;
  w->number = mine.number;
  w->slot = mine.slot;
  w->buff = reinterpret_cast<CUdeviceptr>(buff);
  w->bytes = bytes;
  w->mappings.assign(n, -1);
  w->shared = std::make_shared<WindowShared>();
  std::vector<CUdeviceptr> row(n);
  for (int p = 0; p < n && res == collcSuccess; ++p) {
    if (p == rank) {
      row[p] = w->buff;
      continue;
    }
    const int m = openMapping(comm, p, all[p].base, all[p].handle, &res);
    if (m >= 0) {
      w->mappings[p] = m;
      row[p] = comm->mappings[m].mapped + all[p].offset;
    }
  }
  if (res == collcSuccess)
    res = uploadRow(comm, w->slot, row.data());
  // Every rank must end up with the window, or none: agree on it.
  Verdict v;
  std::memset(&v, 0, sizeof v);
  v.status = res;
  if (res != collcSuccess)
    copyWhy(v.why);
  std::vector<Verdict> verdicts(n);
  int failed = comm->allgather(&v, verdicts.data(), sizeof v, comm->userData);
  int blame = -1;
  for (int p = 0; p < n && !failed; ++p)
    if (verdicts[p].status != collcSuccess)
      failed = 1, blame = p;
  if (failed) {
    if (res == collcSuccess)
      uploadRow(comm, w->slot, nullptr);
    dropMappings(comm, w);
    delete w;
    if (res != collcSuccess)
      return res;
    if (blame < 0)
      return COLLC_FAIL(collcSystemError,
                        "rank %d: the allgather callback failed agreeing on "
                        "the registration of %p (%zu bytes); the ranks may "
                        "disagree on it now: destroy the communicator",
                        rank, buff, bytes);
    return COLLC_FAIL((collcResult_t)verdicts[blame].status,
                      "rank %d: rank %d could not map this registration, so "
                      "every rank refuses it: %s",
                      rank, blame, verdicts[blame].why);
  }
  w->shared->slot = w->slot;
  w->shared->buffs = row;
  w->shared->state.assign(n, 1);
  w->shared->complete.store(true, std::memory_order_release);
  comm->windows.push_back(w);
  comm->windowSlots[w->slot] = w;
  ++comm->registrations;
  *window = w;
  return collcSuccess;
}

collcResult_t deregisterRanks(collcComm_t comm, collcWindow_t window) {
  const int n = comm->nranks, rank = comm->rank;
  if (!comm->allgather)
    return COLLC_FAIL(collcInternalError,
                      "rank %d: the communicator has no allgather to agree "
                      "on the deregistration with",
                      rank);
  Verdict mine;
  std::memset(&mine, 0, sizeof mine);
  collcResult_t res = checkOwned(comm, window);
  if (res == collcSuccess) {
    mine.number = window->number;
    mine.slot = window->slot;
    res = checkIdle(comm, window);
  }
  mine.status = res;
  if (res != collcSuccess)
    copyWhy(mine.why);
  // The exchange is also a barrier: when it returns, every rank's eager
  // work on the window is done, so no rank frees memory a peer still reads.
  std::vector<Verdict> all(n);
  if (comm->allgather(&mine, all.data(), sizeof mine, comm->userData) != 0)
    return COLLC_FAIL(collcSystemError,
                      "rank %d: the allgather callback failed agreeing on "
                      "the deregistration of window %p; the ranks may "
                      "disagree on it now: destroy the communicator",
                      rank, (void *)window);
  if (res != collcSuccess)
    return res;
  for (int p = 0; p < n; ++p)
    if (all[p].status != collcSuccess)
      return COLLC_FAIL((collcResult_t)all[p].status,
                        "rank %d: rank %d refused to deregister window %llu, "
                        "so every rank keeps it: %s",
                        rank, p, mine.number, all[p].why);
  for (int p = 0; p < n; ++p)
    if (all[p].number != mine.number)
      return COLLC_FAIL(
          collcInvalidUsage,
          "rank %d: the ranks' deregistrations are out of step: rank %d "
          "deregisters window %llu, this rank window %llu; every rank must "
          "register and deregister the same windows in the same order",
          rank, p, all[p].number, mine.number);
  window->shared->complete.store(false, std::memory_order_release);
  res = useContext(comm);
  if (res == collcSuccess)
    res = uploadRow(comm, window->slot, nullptr);
  forget(comm, window);
  return res;
}

//===----------------------------------------------------------------------===//
// One process driving every rank (collcCommInitAll)
//===----------------------------------------------------------------------===//

/// Fills slot `slot` of every live rank's table from `s` (the clique's
/// mutex held); leaves `self`'s context current.
collcResult_t fillTables(Clique &clique, const WindowShared &s,
                         collcComm_t self) {
  collcResult_t res = collcSuccess;
  for (collcComm *c : clique.comms) {
    if (!c || res != collcSuccess)
      continue;
    res = useContext(c);
    if (res == collcSuccess)
      res = uploadRow(c, s.slot, s.buffs.data());
  }
  collcResult_t back = useContext(self);
  return res != collcSuccess ? res : back;
}

collcResult_t registerClique(collcComm_t comm, void *buff, size_t bytes,
                             collcWindow_t *window) {
  const int n = comm->nranks, rank = comm->rank;
  CUdeviceptr base = 0;
  CUipcMemHandle handle;
  COLLC_CHECK(checkArguments(comm, buff, bytes, window));
  COLLC_CHECK(checkMemory(comm, buff, bytes, &base, &handle));
  Clique &clique = *comm->clique;
  std::lock_guard<std::mutex> lock(clique.mutex);
  const unsigned long long number = comm->registrations;
  const int slot = lowestFreeSlot(comm);
  std::shared_ptr<WindowShared> &pending = clique.pending[number];
  if (!pending) {
    pending = std::make_shared<WindowShared>();
    pending->slot = slot;
    pending->buffs.assign(n, 0);
    pending->bytes.assign(n, 0);
    pending->state.assign(n, 0);
  }
  std::shared_ptr<WindowShared> s = pending;
  for (int p = 0; p < n; ++p)
    if (s->state[p] == 2)
      return COLLC_FAIL(collcInvalidUsage,
                        "rank %d: window %llu was deregistered by rank %d "
                        "before this rank registered it; every rank must "
                        "register and deregister the same windows in the "
                        "same order",
                        rank, number, p);
  if (s->slot != slot) {
    int other = 0;
    while (other < n && s->state[other] != 1)
      ++other;
    return COLLC_FAIL(collcInvalidUsage,
                      "rank %d: the ranks' registrations are out of step: "
                      "rank %d put window %llu into slot %d, but slot %d is "
                      "this rank's lowest free one; every rank must register "
                      "and deregister the same windows in the same order "
                      "(a window refused on some ranks only must be "
                      "deregistered on the others first)",
                      rank, other, number, s->slot, slot);
  }
  s->buffs[rank] = reinterpret_cast<CUdeviceptr>(buff);
  s->bytes[rank] = bytes;
  s->state[rank] = 1;
  if (std::count(s->state.begin(), s->state.end(), 1) == n) {
    // The last rank completes the window for everyone.
    collcResult_t res = fillTables(clique, *s, comm);
    if (res != collcSuccess) {
      s->state[rank] = 0;
      return res;
    }
    s->complete.store(true, std::memory_order_release);
    clique.pending.erase(number);
  }
  collcWindow *w = new collcWindow();
  w->comm = comm;
  w->number = number;
  w->slot = slot;
  w->buff = reinterpret_cast<CUdeviceptr>(buff);
  w->bytes = bytes;
  w->shared = s;
  comm->windows.push_back(w);
  comm->windowSlots[slot] = w;
  ++comm->registrations;
  *window = w;
  return collcSuccess;
}

/// Marks this rank's part of a window gone (the clique's mutex held): the
/// window is no longer complete, and a pending one whose every rank has
/// registered or left is dropped.
void leaveClique(Clique &clique, collcWindow *w, int rank) {
  WindowShared &s = *w->shared;
  s.state[rank] = 2;
  s.complete.store(false, std::memory_order_release);
  auto it = clique.pending.find(w->number);
  if (it != clique.pending.end() && it->second.get() == &s &&
      std::count(s.state.begin(), s.state.end(), 0) == 0)
    clique.pending.erase(it);
}

collcResult_t deregisterClique(collcComm_t comm, collcWindow_t window) {
  COLLC_CHECK(checkOwned(comm, window));
  // The graph count and the events are every local rank's: this rank's
  // memory is read by the others' work too.
  COLLC_CHECK(checkIdle(comm, window));
  {
    std::lock_guard<std::mutex> lock(comm->clique->mutex);
    leaveClique(*comm->clique, window, comm->rank);
  }
  COLLC_CHECK(useContext(comm));
  collcResult_t res = uploadRow(comm, window->slot, nullptr);
  forget(comm, window);
  return res;
}

/// A graph's hold on a window: the user object's payload.
void releaseGraphHold(void *p) {
  // On a driver thread: no CUDA calls here.
  auto *hold = static_cast<std::shared_ptr<GraphCount> *>(p);
  (*hold)->live.fetch_sub(1, std::memory_order_acq_rel);
  delete hold;
}

} // namespace

//===----------------------------------------------------------------------===//
// The launch path's side
//===----------------------------------------------------------------------===//

collcResult_t collc::cliqueDirectRequested(bool *on) {
  return envSwitch("COLLC_CLIQUE_DIRECT", true,
                   "read ordinary buffers in place where every rank's "
                   "device can",
                   "stage them, as one process per rank does", on);
}

bool collc::directReadable(collcComm_t comm, const void *ptr,
                           unsigned long long bytes) {
  const CUdeviceptr p = reinterpret_cast<CUdeviceptr>(ptr);
  constexpr unsigned long long kAddressable = 1ull << kWindowShift;
  if (!comm->cliqueDirect || p >= kAddressable || bytes > kAddressable - p)
    return false;
  if (comm->cliqueOneDevice)
    return true; // checkBuffer: memory of this device, which every rank is on
  int legacy = 0, managed = 0;
  return drv::pfn_cuPointerGetAttribute(
             &legacy, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, p) ==
             CUDA_SUCCESS &&
         legacy &&
         drv::pfn_cuPointerGetAttribute(&managed,
                                        CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                        p) == CUDA_SUCCESS &&
         !managed;
}

bool collc::findWindow(collcComm_t comm, const void *ptr,
                       unsigned long long bytes, unsigned long long *where) {
  const CUdeviceptr p = reinterpret_cast<CUdeviceptr>(ptr);
  for (const collcWindow *w : comm->windows) {
    if (p < w->buff || p - w->buff >= w->bytes)
      continue;
    // Windows do not overlap: this is the only one that can hold ptr.
    const unsigned long long offset = p - w->buff;
    if (bytes > w->bytes - offset ||
        !w->shared->complete.load(std::memory_order_acquire))
      return false;
    *where = (unsigned long long)w->slot << kWindowShift | offset;
    return true;
  }
  return false;
}

collcResult_t collc::noteWindowUse(collcComm_t comm, unsigned long long where,
                                   CUstream stream) {
  const unsigned long long slot = where >> kWindowShift;
  collcWindow *w = slot < (unsigned long long)kMaxWindows
                       ? comm->windowSlots[slot]
                       : nullptr;
  if (!w)
    return COLLC_FAIL(collcInternalError,
                      "rank %d: a use of window slot %llu was noted, but no "
                      "window is registered in it",
                      comm->rank, slot);
  WindowShared &s = *w->shared;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  cuuint64_t capture = 0;
  CUgraph graph = nullptr;
  CU_CHECK(cuStreamGetCaptureInfo(stream, &status, &capture, &graph, nullptr,
                                  nullptr, nullptr));
  if (status == CU_STREAM_CAPTURE_STATUS_INVALIDATED)
    return collcSuccess; // the capture fails anyway; nothing will run
  if (status == CU_STREAM_CAPTURE_STATUS_ACTIVE) {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (std::find(s.captures.begin(), s.captures.end(), capture) !=
        s.captures.end())
      return collcSuccess; // this graph holds the window already
    // The graph (and every execution and clone of it) keeps a reference;
    // the destructor runs when the last of them is destroyed.
    auto *hold = new std::shared_ptr<GraphCount>(s.graphs);
    CUuserObject object = nullptr;
    CUresult e = drv::pfn_cuUserObjectCreate(
        &object, hold, releaseGraphHold, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC);
    if (e != CUDA_SUCCESS) {
      delete hold;
      return cuFail(e, "cuUserObjectCreate", __FILE__, __LINE__);
    }
    s.graphs->live.fetch_add(1, std::memory_order_acq_rel);
    e = drv::pfn_cuGraphRetainUserObject(graph, object, 1,
                                         CU_GRAPH_USER_OBJECT_MOVE);
    if (e != CUDA_SUCCESS) {
      drv::pfn_cuUserObjectRelease(object, 1); // runs the destructor
      return cuFail(e, "cuGraphRetainUserObject", __FILE__, __LINE__);
    }
    if (s.captures.size() == kRememberedCaptures)
      s.captures.erase(s.captures.begin());
    s.captures.push_back(capture);
    return collcSuccess;
  }
  unsigned long long id = 0;
  CU_CHECK(cuStreamGetId(stream, &id));
  std::lock_guard<std::mutex> lock(s.mutex);
  WindowShared::Tracked *t = nullptr;
  for (WindowShared::Tracked &x : s.tracked)
    if (x.stream == id && x.rank == comm->rank && x.context == comm->context)
      t = &x;
  if (!t && s.tracked.size() >= kTrackedStreams)
    for (WindowShared::Tracked &x : s.tracked)
      if (x.rank == comm->rank && x.context == comm->context &&
          drv::pfn_cuEventQuery(x.event) == CUDA_SUCCESS) {
        // Its work is done: nothing left to wait for on that stream.
        x.stream = id;
        t = &x;
        break;
      }
  if (!t) {
    CUevent e = nullptr;
    COLLC_CHECK(useContext(comm));
    CU_CHECK(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
    s.tracked.push_back({id, comm->rank, comm->context, e});
    t = &s.tracked.back();
  }
  CU_CHECK(cuEventRecord(t->event, stream));
  return collcSuccess;
}

void collc::releaseWindows(collcComm_t comm) {
  if (comm->clique) {
    std::lock_guard<std::mutex> lock(comm->clique->mutex);
    for (collcWindow *w : comm->windows)
      leaveClique(*comm->clique, w, comm->rank);
    std::vector<collcComm *> &comms = comm->clique->comms;
    std::replace(comms.begin(), comms.end(), comm, (collcComm *)nullptr);
  }
  while (!comm->windows.empty())
    forget(comm, comm->windows.back());
  // Mappings no window holds any more are closed already; none is left.
}

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

extern "C" collcResult_t collcCommRegister(collcComm_t comm, void *buff,
                                           size_t bytes,
                                           collcWindow_t *window) {
  COLLC_API_ENTRY();
  COLLC_ARG_NOT_NULL(comm);
  if (comm->clique)
    return registerClique(comm, buff, bytes, window);
  return registerRanks(comm, buff, bytes, window);
}

extern "C" collcResult_t collcCommDeregister(collcComm_t comm,
                                             collcWindow_t window) {
  COLLC_API_ENTRY();
  COLLC_ARG_NOT_NULL(comm);
  if (comm->clique)
    return deregisterClique(comm, window);
  return deregisterRanks(comm, window);
}
