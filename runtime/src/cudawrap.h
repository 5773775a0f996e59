//===- cudawrap.h - Lazily loaded CUDA driver entry points ------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The runtime never links libcuda: it opens libcuda.so.1 with dlopen on first
/// use and resolves the entry points it needs. A machine without a GPU driver
/// can therefore load libcollc (and its tests), and gets a collcSystemError
/// that says what is missing instead of a loader failure.
///
/// Driver calls go through CU_CHECK(cuFoo(args)), which calls the resolved
/// pointer pfn_cuFoo and turns a failing CUresult into
/// collcUnhandledCudaError with the call, code, name and string.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_RUNTIME_SRC_CUDAWRAP_H
#define COLLC_RUNTIME_SRC_CUDAWRAP_H

#include "collc/collc.h"

#include <cuda.h>

/// The driver entry points collc uses, as X(symbol). Add new ones here only.
#define COLLC_FOR_EACH_DRIVER_SYMBOL(X)                                        \
  X(cuInit)                                                                    \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuDriverGetVersion)                                                        \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuDeviceCanAccessPeer)                                                     \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxGetCurrent)                                                           \
  X(cuCtxEnablePeerAccess)                                                     \
  X(cuCtxSynchronize)                                                          \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemsetD8)                                                                \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoH)                                                              \
  X(cuMemHostAlloc)                                                            \
  X(cuMemHostGetDevicePointer)                                                 \
  X(cuMemFreeHost)                                                             \
  X(cuMemGetAddressRange)                                                      \
  X(cuPointerGetAttribute)                                                     \
  X(cuIpcGetMemHandle)                                                         \
  X(cuIpcOpenMemHandle)                                                        \
  X(cuIpcCloseMemHandle)                                                       \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleGetFunction)                                                       \
  X(cuModuleGetGlobal)                                                         \
  X(cuModuleUnload)                                                            \
  X(cuLaunchKernelEx)                                                          \
  X(cuStreamIsCapturing)                                                       \
  X(cuStreamGetCtx)                                                            \
  X(cuStreamGetId)                                                             \
  X(cuStreamGetCaptureInfo)                                                    \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuEventCreate)                                                             \
  X(cuEventRecord)                                                             \
  X(cuEventQuery)                                                              \
  X(cuEventDestroy)                                                            \
  X(cuUserObjectCreate)                                                        \
  X(cuUserObjectRelease)                                                       \
  X(cuGraphRetainUserObject)                                                   \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)

namespace collc {
namespace drv {

// decltype(&sym) takes the prototype from cuda.h, so a mismatch between the
// pointer type and the driver's declaration cannot creep in. pfn_##sym keeps
// the unexpanded name even where cuda.h #defines sym to a versioned symbol.
#define COLLC_DECLARE_PFN(sym) extern decltype(&sym) pfn_##sym;
COLLC_FOR_EACH_DRIVER_SYMBOL(COLLC_DECLARE_PFN)
#undef COLLC_DECLARE_PFN

} // namespace drv

/// Loads libcuda.so.1 and resolves every driver symbol (once per process; the
/// outcome is cached), then calls cuInit(0). On failure, records the reason
/// as the last error of the calling API and returns collcSystemError (library
/// or symbol missing) or collcUnhandledCudaError (cuInit failed).
collcResult_t driverInit();

/// Records "<call> failed with CUDA driver error <code> <NAME> (<string>)" as
/// the last error and returns collcUnhandledCudaError. Used by CU_CHECK.
collcResult_t cuFail(CUresult err, const char *call, const char *file,
                     int line);

} // namespace collc

#endif // COLLC_RUNTIME_SRC_CUDAWRAP_H
