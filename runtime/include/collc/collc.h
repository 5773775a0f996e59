//===- collc.h - collc runtime C API ----------------------------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The public C API of the collc runtime, in the manner of NCCL: opaque
/// handles, every call returns a collcResult_t, and a thread-local last-error
/// string says what went wrong and what to do about it. No C++ exception ever
/// crosses this API. The header is plain C (C99 or later) so that C, C++ and
/// Python (ctypes/cffi) callers can all use it; it does not include cuda.h.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_COLLC_H
#define COLLC_COLLC_H

#include <limits.h>
#include <stddef.h>

#include "collc/device/device_comm.h"

/// Marks a declaration as part of the exported ABI. The library is built with
/// -fvisibility=hidden and a linker map, so only COLLC_API symbols named
/// collc* are visible.
#if defined(_WIN32)
#define COLLC_API
#else
#define COLLC_API __attribute__((visibility("default")))
#endif

/// Library version. COLLC_VERSION_CODE packs it as major*10000 + minor*100 +
/// patch (0.1.0 -> 100), the scheme NCCL uses, so codes compare numerically.
#define COLLC_MAJOR 0
#define COLLC_MINOR 1
#define COLLC_PATCH 0
#define COLLC_VERSION(X, Y, Z) ((X)*10000 + (Y)*100 + (Z))
#define COLLC_VERSION_CODE COLLC_VERSION(COLLC_MAJOR, COLLC_MINOR, COLLC_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/// Result of every collc call. collcInProgress is not an error: it means a
/// non-blocking operation has been started and must be polled.
typedef enum {
  collcSuccess = 0,
  /// A CUDA driver call failed; collcGetLastError() names the call and the
  /// CUresult.
  collcUnhandledCudaError = 1,
  /// A system call or library load failed (e.g. libcuda.so.1 is missing).
  collcSystemError = 2,
  /// A bug in collc: an invariant that should hold did not.
  collcInternalError = 3,
  /// An argument is invalid (NULL, out of range, wrong config version...).
  collcInvalidArgument = 4,
  /// The call is not allowed in the current state.
  collcInvalidUsage = 5,
  /// A bounded wait expired (e.g. a peer never signalled).
  collcTimeout = 6,
  /// A non-blocking operation is still running.
  collcInProgress = 7,
  collcNumResults = 8
} collcResult_t;

/// Verbosity of the runtime's log on stderr. The COLLC_DEBUG environment
/// variable (NONE, WARN, INFO or TRACE) sets it for the whole process.
typedef enum {
  collcDebugNone = 0,
  collcDebugWarn = 1,
  collcDebugInfo = 2,
  collcDebugTrace = 3
} collcDebugLevel_t;

/// Opaque handle to a loaded collc module (the compiled collectives of one
/// spec: a module file written by `collc --emit=module`).
typedef struct collcModule *collcModule_t;

/// Opaque handle to a communicator: one rank of a group of GPUs in one NVLink
/// domain, running the collectives of one module.
typedef struct collcComm *collcComm_t;

/// Opaque handle to a registered buffer (collcCommRegister): one window of a
/// communicator, made of one range of device memory on every rank.
typedef struct collcWindow *collcWindow_t;

/// A CUDA stream: the same type as CUstream and cudaStream_t.
typedef struct CUstream_st *collcStream_t;

/// Element types, as a spec names them.
typedef enum {
  collcBfloat16 = 0,
  collcFloat16 = 1,
  collcFloat32 = 2,
  collcFloat8e4m3 = 3,
  collcFloat8e5m2 = 4,
  collcNumTypes = 5
} collcDataType_t;

/// Reduction operators.
typedef enum {
  collcSum = 0,
  collcMax = 1,
  collcMin = 2,
  collcAvg = 3,
  collcNumOps = 4
} collcRedOp_t;

/// Gathers `bytes` bytes from every rank into `recv` (rank order, `bytes`
/// per rank). Called collectively by every rank during communicator setup;
/// MPI_Allgather, torch.distributed.all_gather or ncclAllGather all fit.
/// Returns 0 on success.
typedef int (*collcAllGatherFn_t)(const void *send, void *recv, size_t bytes,
                                  void *userData);

/// Marks an int field of collcConfig_t as "not set": the runtime then uses
/// its default (or the matching environment variable).
#define COLLC_CONFIG_UNDEF_INT INT_MIN

/// Identifies an initialized collcConfig_t; catches uninitialized memory.
#define COLLC_CONFIG_MAGIC 0xc011c0deu

/// Versioned configuration. Always start from COLLC_CONFIG_INITIALIZER and
/// then set the fields you care about: `size` and `version` let a newer
/// library accept a struct compiled against an older header, and `magic`
/// catches structs that were never initialized.
typedef struct {
  /// sizeof(collcConfig_t) of the header the caller was compiled against.
  size_t size;
  /// Must be COLLC_CONFIG_MAGIC.
  unsigned int magic;
  /// COLLC_VERSION_CODE of the header the caller was compiled against.
  unsigned int version;
  /// Upper bound in milliseconds on every wait the runtime performs (a stuck
  /// peer becomes collcTimeout instead of a hang). Must be positive, or
  /// COLLC_CONFIG_UNDEF_INT for the default.
  int timeoutMs;
  /// A collcDebugLevel_t, or COLLC_CONFIG_UNDEF_INT to follow COLLC_DEBUG.
  int debugLevel;
  /// The kernels every call runs, as COLLC_FORCE_VARIANT spells it ("v1",
  /// "<variant>:<encoding>", docs/runtime.md), which it overrides; NULL to
  /// follow COLLC_FORCE_VARIANT. Read when a communicator is created. For
  /// debugging and ablations: a forced program serves only its band.
  const char *forceVariant;
} collcConfig_t;

/// Initial value for every collcConfig_t:
/// `collcConfig_t config = COLLC_CONFIG_INITIALIZER;`
#define COLLC_CONFIG_INITIALIZER                                               \
  {                                                                            \
    sizeof(collcConfig_t), COLLC_CONFIG_MAGIC, COLLC_VERSION_CODE,             \
        COLLC_CONFIG_UNDEF_INT, COLLC_CONFIG_UNDEF_INT, NULL                   \
  }

/// Returns a short, static description of \p result followed by a hint on
/// where to find the details. Never returns NULL, even for unknown codes.
COLLC_API const char *collcGetErrorString(collcResult_t result);

/// Returns the detailed message of the last collc call on this thread that
/// failed, in the form "<function> : <what is wrong>", or "" if none has
/// failed. Successful calls do not clear it. The string is thread-local and
/// stays valid until the next failing collc call on the same thread.
COLLC_API const char *collcGetLastError(void);

/// Stores the library's COLLC_VERSION_CODE in \p version. Compare it with the
/// header's COLLC_VERSION_CODE to detect a header/library mismatch.
COLLC_API collcResult_t collcGetVersion(int *version);

/// Checks \p config without using it: NULL pointer, size, magic, version,
/// timeout and debug level. Returns collcInvalidArgument with a message in
/// collcGetLastError() for the first problem found.
COLLC_API collcResult_t collcConfigValidate(const collcConfig_t *config);

/// Loads the CUDA driver (libcuda.so.1, opened lazily with dlopen so that
/// collc itself loads on machines without one), initializes it, and reports
/// its version (e.g. 13000 for CUDA 13.0) and the number of visible devices.
/// Returns collcSystemError if the driver library cannot be loaded and
/// collcUnhandledCudaError if a driver call fails.
COLLC_API collcResult_t collcDriverInfo(int *driverVersion, int *deviceCount);

/// Reports the compute capability (e.g. 9 and 0 for an H200) of the device
/// with CUDA ordinal \p device, loading the driver if needed.
COLLC_API collcResult_t collcDeviceGetComputeCapability(int device, int *major,
                                                        int *minor);

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

/// Reads and checks a module file (format and kernel ABI versions, hashes).
/// No GPU is touched until a communicator uses the module.
COLLC_API collcResult_t collcModuleLoad(collcModule_t *module,
                                        const char *path);
/// As collcModuleLoad, from bytes in memory (copied).
COLLC_API collcResult_t collcModuleLoadData(collcModule_t *module,
                                            const void *data, size_t bytes);
/// Frees a module. Communicators using it must be destroyed first.
COLLC_API collcResult_t collcModuleDestroy(collcModule_t module);

//===----------------------------------------------------------------------===//
// Communicators
//===----------------------------------------------------------------------===//

/// Creates rank `rank` of `nranks` on CUDA device `cudaDevice` (one process
/// per GPU). `allgather` exchanges the peer-memory handles; every rank must
/// call this with the same module. Workspaces for every kernel of the module
/// at `nranks` ranks are allocated and exchanged here, so calls made later
/// (also inside CUDA graph capture) allocate nothing. The communicator keeps
/// `allgather` and `userData`: collcCommRegister and collcCommDeregister
/// call it again, so both must stay valid (e.g. the bootstrap communicator
/// alive) for as long as buffers are registered or deregistered.
COLLC_API collcResult_t collcCommInitRank(collcComm_t *comm,
                                          collcModule_t module, int nranks,
                                          int rank, int cudaDevice,
                                          collcAllGatherFn_t allgather,
                                          void *userData,
                                          const collcConfig_t *config);

/// Creates `ndev` communicators, one per device in `devices`, in one process
/// (rank i on devices[i]); comms[i] receives rank i. They share one address
/// space: a call's ordinary buffers that every rank's device can read (any
/// memory of the device when every rank is on one, cudaMalloc memory across
/// devices) are read in place like registered ones, where the module's
/// policy table chooses a zero-copy program for registered buffers
/// (docs/runtime.md, "Direct buffers"); COLLC_CLIQUE_DIRECT=0 stages them
/// instead.
COLLC_API collcResult_t collcCommInitAll(collcComm_t *comms,
                                         collcModule_t module, int ndev,
                                         const int *devices,
                                         const collcConfig_t *config);

/// Frees the communicator after its work on every stream finished, with
/// every window still registered on it.
COLLC_API collcResult_t collcCommDestroy(collcComm_t comm);
/// Marks the communicator failed and frees it (and its windows) without
/// waiting for peers (use after collcTimeout). Work still queued may fail.
COLLC_API collcResult_t collcCommAbort(collcComm_t comm);
/// Reports an error a kernel recorded (without synchronizing): collcSuccess,
/// or collcTimeout with collcGetLastError() naming the collective, the rank
/// waited for and the event.
COLLC_API collcResult_t collcCommGetAsyncError(collcComm_t comm,
                                               collcResult_t *asyncError);
COLLC_API collcResult_t collcCommCount(collcComm_t comm, int *count);
COLLC_API collcResult_t collcCommUserRank(collcComm_t comm, int *rank);

//===----------------------------------------------------------------------===//
// Registered buffers (docs/runtime.md, "Registered buffers")
//===----------------------------------------------------------------------===//

/// Registers [buff, buff + bytes) of this rank's device memory with the
/// communicator, so that calls whose buffers lie inside it can read and
/// write the peers' buffers directly (zero-copy) instead of staging them.
///
/// Collective: every rank calls it, in the same order relative to its other
/// registrations and deregistrations; the k-th registration of every rank
/// forms window k (the sizes may differ between ranks). On one process per
/// rank (collcCommInitRank) the call exchanges memory handles through the
/// communicator's allgather and returns on every rank together; a range one
/// rank cannot register makes the call fail on every rank. On one process
/// driving every rank (collcCommInitAll) each rank's call returns at once,
/// and the window is used by calls once every rank has registered it. A
/// refused call does not count in the order.
///
/// The range must lie inside one allocation of the communicator's device
/// made with cudaMalloc or cuMemAlloc (memory that CUDA IPC can export: not
/// host, managed or cuMemCreate memory), bytes > 0, and must not overlap a
/// window this rank already registered on this communicator. At most 64
/// windows per communicator are live at once. Free the memory only after
/// every rank deregistered it. *window receives the handle.
COLLC_API collcResult_t collcCommRegister(collcComm_t comm, void *buff,
                                          size_t bytes,
                                          collcWindow_t *window);

/// Deregisters a window of collcCommRegister. Collective, in the same order
/// on every rank. Waits (at most the communicator's timeout: collcTimeout
/// past it) for the work queued on streams that uses the window, then
/// closes its mappings. Refused with collcInvalidUsage, changing nothing,
/// while a CUDA graph captured with a call that uses the window still
/// exists (graph or graph execution): destroy them first. On one process
/// per rank, a refusal on any rank refuses it on every rank.
COLLC_API collcResult_t collcCommDeregister(collcComm_t comm,
                                            collcWindow_t window);

//===----------------------------------------------------------------------===//
// The device API (docs/device-api.md, collc/device/api.cuh)
//===----------------------------------------------------------------------===//

/// Fills *handle with what a kernel of yours needs to communicate on
/// `comm` through collc/device/api.cuh: rank, world size, readiness words
/// (COLLC_DEVICE_SIGNAL_SLOTS slots per pair of ranks, counted, so kernels
/// may run again and in CUDA graphs), the communicator's timeout, and, when
/// `window` is not NULL, every rank's buffer of that registered window as
/// this rank maps it. Initialize *handle with COLLC_DEVICE_COMM_INITIALIZER
/// (its `version`: the layout your code was compiled with; another is
/// refused). Pass the handle to kernels by value, on any stream of
/// the communicator's device. Not collective; needs a window every rank has
/// registered (collcInvalidUsage otherwise, naming a rank that has not).
/// The handle stays valid until the window is deregistered or the
/// communicator destroyed; deregister only after the kernels that use it
/// finished (collc cannot see them). A wait that times out in a kernel is
/// reported by collcCommGetAsyncError, and the communicator accepts no more
/// calls (abort it).
COLLC_API collcResult_t collcCommGetDeviceHandle(collcComm_t comm,
                                                 collcWindow_t window,
                                                 collcDeviceComm *handle);

//===----------------------------------------------------------------------===//
// Collectives (NCCL's argument conventions: counts in elements)
//===----------------------------------------------------------------------===//

/// Runs the module's collective `name` (e.g. "all_reduce"). `count` is the
/// elements of one partition for fixed-size collectives; `counts` (V
/// collectives) the per-rank partition sizes: for packed_v -> scattered_v
/// (AllGatherV) and scattered_v -> packed_v (ReduceScatterV) the n sizes of
/// every rank's partition; for scattered_v -> transposed_v (AllToAllV) this
/// rank's n send counts followed by its n receive counts. `root` for rooted
/// collectives. Admission: the call is refused (collcInvalidArgument, with
/// the reason) when the module has no kernel for the type and rank count,
/// or a buffer is not device memory of the communicator's device, or
/// misaligned, or sizes or root are out of range.
COLLC_API collcResult_t collcLaunch(collcComm_t comm, const char *name,
                                    const void *sendbuff, void *recvbuff,
                                    size_t count, const size_t *counts,
                                    collcDataType_t datatype, int root,
                                    collcStream_t stream);

COLLC_API collcResult_t collcAllReduce(const void *sendbuff, void *recvbuff,
                                       size_t count, collcDataType_t datatype,
                                       collcRedOp_t op, collcComm_t comm,
                                       collcStream_t stream);
COLLC_API collcResult_t collcAllGather(const void *sendbuff, void *recvbuff,
                                       size_t sendcount,
                                       collcDataType_t datatype,
                                       collcComm_t comm, collcStream_t stream);
COLLC_API collcResult_t collcReduceScatter(const void *sendbuff,
                                           void *recvbuff, size_t recvcount,
                                           collcDataType_t datatype,
                                           collcRedOp_t op, collcComm_t comm,
                                           collcStream_t stream);
COLLC_API collcResult_t collcAllToAll(const void *sendbuff, void *recvbuff,
                                      size_t count, collcDataType_t datatype,
                                      collcComm_t comm, collcStream_t stream);
COLLC_API collcResult_t collcBroadcast(const void *sendbuff, void *recvbuff,
                                       size_t count, collcDataType_t datatype,
                                       int root, collcComm_t comm,
                                       collcStream_t stream);
COLLC_API collcResult_t collcReduce(const void *sendbuff, void *recvbuff,
                                    size_t count, collcDataType_t datatype,
                                    collcRedOp_t op, int root,
                                    collcComm_t comm, collcStream_t stream);

COLLC_API collcResult_t collcScatter(const void *sendbuff, void *recvbuff,
                                     size_t recvcount,
                                     collcDataType_t datatype, int root,
                                     collcComm_t comm, collcStream_t stream);
COLLC_API collcResult_t collcGather(const void *sendbuff, void *recvbuff,
                                    size_t sendcount, collcDataType_t datatype,
                                    int root, collcComm_t comm,
                                    collcStream_t stream);

/// The typed entry points, for collcCommSupports.
typedef enum {
  collcCollAllReduce = 0,
  collcCollAllGather = 1,
  collcCollReduceScatter = 2,
  collcCollAllToAll = 3,
  collcCollBroadcast = 4,
  collcCollReduce = 5,
  collcCollScatter = 6,
  collcCollGather = 7,
  collcCollAllGatherV = 8,
  collcCollReduceScatterV = 9,
  collcCollAllToAllV = 10,
  collcNumCollectives = 11
} collcCollective_t;

/// Whether the typed entry point `collective` can run on this communicator
/// with `datatype` (and, for a reduction, `op`; ignored otherwise): its
/// module has a collective computing it (with that operator) and a kernel
/// for the type at the communicator's rank count and device. *supported is
/// 1, or 0 with collcGetLastError() holding the reason the call would be
/// refused (the same message). Sizes, buffers and roots are the call's own
/// checks. For callers that fall back to another library (e.g. NCCL) on
/// what collc cannot serve; queues nothing, allocates nothing. Fails
/// (collcInvalidArgument) only on a NULL pointer or an out-of-range enum.
COLLC_API collcResult_t collcCommSupports(collcComm_t comm,
                                          collcCollective_t collective,
                                          collcDataType_t datatype,
                                          collcRedOp_t op, int *supported);

/// V variants (MPI's argument conventions). Partitions are packed in rank
/// order: a displacement array, when not NULL, must hold the prefix sums of
/// its counts (collc's layouts are contiguous); anything else is refused.
COLLC_API collcResult_t collcAllGatherV(const void *sendbuff, size_t sendcount,
                                        void *recvbuff,
                                        const size_t *recvcounts,
                                        const size_t *displs,
                                        collcDataType_t datatype,
                                        collcComm_t comm,
                                        collcStream_t stream);
COLLC_API collcResult_t collcReduceScatterV(const void *sendbuff,
                                            void *recvbuff,
                                            const size_t *recvcounts,
                                            collcDataType_t datatype,
                                            collcRedOp_t op, collcComm_t comm,
                                            collcStream_t stream);
COLLC_API collcResult_t collcAllToAllV(const void *sendbuff,
                                       const size_t *sendcounts,
                                       const size_t *sdispls, void *recvbuff,
                                       const size_t *recvcounts,
                                       const size_t *rdispls,
                                       collcDataType_t datatype,
                                       collcComm_t comm, collcStream_t stream);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // COLLC_COLLC_H
