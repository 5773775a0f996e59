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
/// spec). The loader that creates it is not written yet; the type is declared
/// now so that the handle convention is fixed for every later API.
typedef struct collcModule *collcModule_t;

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
} collcConfig_t;

/// Initial value for every collcConfig_t:
/// `collcConfig_t config = COLLC_CONFIG_INITIALIZER;`
#define COLLC_CONFIG_INITIALIZER                                               \
  {                                                                            \
    sizeof(collcConfig_t), COLLC_CONFIG_MAGIC, COLLC_VERSION_CODE,             \
        COLLC_CONFIG_UNDEF_INT, COLLC_CONFIG_UNDEF_INT                         \
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

#ifdef __cplusplus
} // extern "C"
#endif

#endif // COLLC_COLLC_H
