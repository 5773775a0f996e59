//===- debug.h - Logging and the last-error string --------------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Internal logging (controlled by COLLC_DEBUG, read once per process) and the
/// thread-local last-error message behind collcGetLastError().
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_RUNTIME_SRC_DEBUG_H
#define COLLC_RUNTIME_SRC_DEBUG_H

#include "collc/collc.h"

/// Every collcResult_t as X(enumerator, brief description, hint), the one
/// table behind collcGetErrorString(), resultName() and resultBrief().
/// Success and InProgress are not failures and so carry no hint.
#define COLLC_DETAILS_HINT                                                     \
  " (run with COLLC_DEBUG=WARN for details, or call collcGetLastError())"
#define COLLC_FOR_EACH_RESULT(X)                                               \
  X(collcSuccess, "no error", "")                                              \
  X(collcUnhandledCudaError, "unhandled CUDA driver error",                    \
    COLLC_DETAILS_HINT)                                                        \
  X(collcSystemError,                                                          \
    "system error, a library could not be loaded or a system call failed",     \
    COLLC_DETAILS_HINT)                                                        \
  X(collcInternalError, "internal error, a bug in collc: please report it",    \
    COLLC_DETAILS_HINT)                                                        \
  X(collcInvalidArgument, "invalid argument", COLLC_DETAILS_HINT)              \
  X(collcInvalidUsage, "invalid usage, the call is not allowed in this state", \
    COLLC_DETAILS_HINT)                                                        \
  X(collcTimeout, "timeout, a bounded wait expired (a peer may be stuck)",     \
    COLLC_DETAILS_HINT)                                                        \
  X(collcInProgress, "operation in progress, poll it again", "")

namespace collc {

/// The process-wide log level, parsed from COLLC_DEBUG on first use.
collcDebugLevel_t debugLevel();

/// Writes one line "collc <pid>:<tid> <LEVEL> <file>:<line> <message>" to
/// stderr if \p level is enabled.
void log(collcDebugLevel_t level, const char *file, int line, const char *fmt,
         ...) __attribute__((format(printf, 4, 5)));

/// Names the public API function running on this thread, so that error
/// messages can start with it ("collcConfigValidate : ..."). Scopes nest: an
/// API function calling another restores the outer name on exit.
class ApiScope {
public:
  explicit ApiScope(const char *name);
  ~ApiScope();
  ApiScope(const ApiScope &) = delete;
  ApiScope &operator=(const ApiScope &) = delete;

  /// The innermost API function on this thread, or "collc" outside any.
  static const char *current();

private:
  const char *previous;
};

/// Records "<api> : <message>" as this thread's last error, logs it at WARN
/// together with \p result and the caller's file:line, and returns \p result
/// so that callers can write `return fail(...)`.
collcResult_t fail(collcResult_t result, const char *file, int line,
                   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/// This thread's last error message ("" if no call has failed yet).
const char *lastErrorMessage();

/// Logs that \p result is being propagated from file:line (the trail that
/// COLLC_CHECK leaves behind), without touching the last error.
void logPropagation(collcResult_t result, const char *file, int line);

/// The enumerator name of \p result ("collcInvalidArgument").
const char *resultName(collcResult_t result);

/// A few words on what \p result means, without the hint that
/// collcGetErrorString() appends (log lines do not need it).
const char *resultBrief(collcResult_t result);

} // namespace collc

/// Opens the scope of a public API function; put it first in every
/// COLLC_API definition.
#define COLLC_API_ENTRY() ::collc::ApiScope collcApiScope_(__func__)

/// Fails the current call with \p result and a printf-style message.
#define COLLC_FAIL(result, ...)                                                \
  ::collc::fail((result), __FILE__, __LINE__, __VA_ARGS__)

#define COLLC_WARN(...)                                                        \
  ::collc::log(collcDebugWarn, __FILE__, __LINE__, __VA_ARGS__)
#define COLLC_INFO(...)                                                        \
  ::collc::log(collcDebugInfo, __FILE__, __LINE__, __VA_ARGS__)

#endif // COLLC_RUNTIME_SRC_DEBUG_H
