//===- checks.h - Result-checking macros ------------------------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The macros every runtime function uses to check and propagate results:
///
///   COLLC_CHECK(expr)                  propagate a failing collcResult_t
///   COLLC_CHECK_GOTO(expr, res, label) store it in res and jump to cleanup
///   CU_CHECK(cuFoo(args))              call the driver, fail on a CUresult
///   CU_CHECK_GOTO(cuFoo(args), res, label)
///   COLLC_ARG_NOT_NULL(ptr)            reject a NULL argument
///
/// Each failure is logged at WARN (COLLC_DEBUG=WARN) with the numeric code,
/// its name and string, and __FILE__:__LINE__. The first failure also sets
/// the thread's last error; propagation only adds to the log.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_RUNTIME_SRC_CHECKS_H
#define COLLC_RUNTIME_SRC_CHECKS_H

#include "cudawrap.h"
#include "debug.h"

/// True for results that mean "stop": collcInProgress is a valid outcome of
/// non-blocking calls, not an error.
#define COLLC_FAILED(res) ((res) != collcSuccess && (res) != collcInProgress)

#define COLLC_CHECK(expr)                                                      \
  do {                                                                         \
    collcResult_t collcRes_ = (expr);                                          \
    if (COLLC_FAILED(collcRes_)) {                                             \
      ::collc::logPropagation(collcRes_, __FILE__, __LINE__);                  \
      return collcRes_;                                                        \
    }                                                                          \
  } while (0)

#define COLLC_CHECK_GOTO(expr, res, label)                                     \
  do {                                                                         \
    (res) = (expr);                                                            \
    if (COLLC_FAILED(res)) {                                                   \
      ::collc::logPropagation((res), __FILE__, __LINE__);                      \
      goto label;                                                              \
    }                                                                          \
  } while (0)

// `pfn_##cmd` pastes onto the first token of the call, so CU_CHECK(cuInit(0))
// calls drv::pfn_cuInit(0) and #cmd reads "cuInit(0)" in the message. Only
// use it after driverInit() has succeeded: the pointers are null before.
#define CU_CHECK(cmd)                                                          \
  do {                                                                         \
    CUresult cuErr_ = ::collc::drv::pfn_##cmd;                                 \
    if (cuErr_ != CUDA_SUCCESS)                                                \
      return ::collc::cuFail(cuErr_, #cmd, __FILE__, __LINE__);                \
  } while (0)

#define CU_CHECK_GOTO(cmd, res, label)                                         \
  do {                                                                         \
    CUresult cuErr_ = ::collc::drv::pfn_##cmd;                                 \
    if (cuErr_ != CUDA_SUCCESS) {                                              \
      (res) = ::collc::cuFail(cuErr_, #cmd, __FILE__, __LINE__);               \
      goto label;                                                              \
    }                                                                          \
  } while (0)

/// Rejects a NULL pointer argument with "<function> : <name> argument is
/// NULL", the form NCCL's argument checks use.
#define COLLC_ARG_NOT_NULL(ptr)                                                \
  do {                                                                         \
    if ((ptr) == nullptr)                                                      \
      return COLLC_FAIL(collcInvalidArgument, "%s argument is NULL", #ptr);    \
  } while (0)

#endif // COLLC_RUNTIME_SRC_CHECKS_H
