//===- device_api.cpp - The device handle of a communicator -----*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// collcCommGetDeviceHandle (docs/device-api.md): the readiness words every
/// communicator carries for users' kernels (an inbox per rank, exchanged
/// with the kernels' buffers at creation; expected counts private to the
/// rank), the handle that hands them and a registered window to a kernel,
/// and the report of a device-API wait that timed out.
///
//===----------------------------------------------------------------------===//

#include "checks.h"
#include "cudawrap.h"
#include "debug.h"
#include "runtime.h"

#include <mutex>
#include <vector>

using namespace collc;

namespace {

unsigned long long signalBytes(const collcComm *comm) {
  return (unsigned long long)COLLC_DEVICE_SIGNAL_SLOTS * comm->nranks * 8;
}

const char *waitKind(unsigned long long kind) {
  return kind == COLLC_DEVICE_WAIT_PACKET ? "data (an LL packet or sentinel "
                                           "word; the slot field is its index)"
                                         : "signal";
}

} // namespace

collcResult_t collc::deviceApiSetup(collcComm_t comm) {
  const unsigned long long bytes = signalBytes(comm);
  for (CUdeviceptr *p : {&comm->deviceInbox, &comm->deviceExpected}) {
    CU_CHECK(cuMemAlloc(p, bytes));
    CU_CHECK(cuMemsetD8(*p, 0, bytes));
  }
  CU_CHECK(cuMemAlloc(&comm->deviceInboxPeers,
                      (size_t)comm->nranks * sizeof(CUdeviceptr)));
  CU_CHECK(cuMemHostGetDevicePointer(&comm->deviceErrorDevice,
                                     comm->deviceError, 0));
  return collcSuccess;
}

collcResult_t collc::deviceApiPeers(collcComm_t comm,
                                    const std::vector<CUdeviceptr> &inboxes) {
  CU_CHECK(cuMemcpyHtoD(comm->deviceInboxPeers, inboxes.data(),
                        inboxes.size() * sizeof(CUdeviceptr)));
  return collcSuccess;
}

void collc::deviceApiRelease(collcComm_t comm) {
  for (CUdeviceptr p : comm->deviceOpened)
    drv::pfn_cuIpcCloseMemHandle(p);
  comm->deviceOpened.clear();
  for (CUdeviceptr *p :
       {&comm->deviceInbox, &comm->deviceExpected, &comm->deviceInboxPeers})
    if (*p) {
      drv::pfn_cuMemFree(*p);
      *p = 0;
    }
}

bool collc::deviceApiFailed(collcComm_t comm, bool report) {
  volatile unsigned long long *e = comm->deviceError;
  if (!e || e[0] != COLLC_DEVICE_WAIT_TIMEOUT)
    return false;
  if (report)
    (void)COLLC_FAIL(
        collcTimeout,
        "device API (a kernel of yours, block %llu): rank %d timed out after "
        "%llu ms waiting for rank %llu's %s on slot %llu (count expected "
        "%llu, seen %llu): rank %llu did not signal, or is stuck before it; "
        "abort the communicator with collcCommAbort",
        e[6], comm->rank, comm->timeoutNs / 1000000ull, e[3], waitKind(e[7]),
        e[1], e[4], e[5], e[3]);
  return true;
}

extern "C" collcResult_t collcCommGetDeviceHandle(collcComm_t comm,
                                                  collcWindow_t window,
                                                  collcDeviceComm *handle) {
  COLLC_API_ENTRY();
  COLLC_ARG_NOT_NULL(comm);
  COLLC_ARG_NOT_NULL(handle);
  if (handle->version != COLLC_DEVICE_API_VERSION)
    return COLLC_FAIL(collcInvalidArgument,
                      "rank %d: handle->version is %u, but this library fills "
                      "collcDeviceComm version %d: initialize the handle with "
                      "COLLC_DEVICE_COMM_INITIALIZER and build against this "
                      "library's headers",
                      comm->rank, handle->version, COLLC_DEVICE_API_VERSION);
  collcDeviceComm h = {};
  if (window) {
    COLLC_CHECK(checkOwned(comm, window));
    if (!window->shared->complete.load(std::memory_order_acquire)) {
      int missing = -1;
      std::unique_lock<std::mutex> lock;
      if (comm->clique) // guards the ranks' states (register.cpp)
        lock = std::unique_lock<std::mutex>(comm->clique->mutex);
      for (size_t p = 0; p < window->shared->state.size() && missing < 0; ++p)
        if (window->shared->state[p] != 1)
          missing = (int)p;
      return COLLC_FAIL(collcInvalidUsage,
                        "rank %d: window %llu is not registered on every rank "
                        "yet (rank %d has not registered it, or deregistered "
                        "it): a kernel could not reach it; get the handle "
                        "once every rank's collcCommRegister returned",
                        comm->rank, window->number, missing);
    }
    // The window table's row of the window (uploaded synchronously when the
    // window completed, register.cpp): every rank's buffer as mapped here.
    h.peers = reinterpret_cast<void *const *>(
        comm->windowTable +
        (size_t)window->slot * comm->nranks * sizeof(CUdeviceptr));
    h.bytes = window->bytes;
  }
  h.version = COLLC_DEVICE_API_VERSION;
  h.rank = comm->rank;
  h.nranks = comm->nranks;
  h.slots = COLLC_DEVICE_SIGNAL_SLOTS;
  h.inbox = reinterpret_cast<unsigned long long *const *>(
      comm->deviceInboxPeers);
  h.expected = reinterpret_cast<unsigned long long *>(comm->deviceExpected);
  h.error = reinterpret_cast<unsigned long long *>(comm->deviceErrorDevice);
  h.timeoutNs = comm->timeoutNs;
  *handle = h;
  return collcSuccess;
}
