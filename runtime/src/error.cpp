//===- error.cpp - Error strings, last error and version --------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//

#include "collc/collc.h"

#include "checks.h"

// Each string says what happened in a few words and where the details are,
// as NCCL's do, because it is often the only thing an application prints.
extern "C" COLLC_API const char *collcGetErrorString(collcResult_t result) {
  switch (result) {
#define COLLC_RESULT_CASE(code, brief, hint)                                   \
  case code:                                                                   \
    return brief hint;
    COLLC_FOR_EACH_RESULT(COLLC_RESULT_CASE)
#undef COLLC_RESULT_CASE
  case collcNumResults:
    break;
  }
  return "unknown collcResult_t value, not returned by this version of collc";
}

extern "C" COLLC_API const char *collcGetLastError(void) {
  return collc::lastErrorMessage();
}

extern "C" COLLC_API collcResult_t collcGetVersion(int *version) {
  COLLC_API_ENTRY();
  COLLC_ARG_NOT_NULL(version);
  *version = COLLC_VERSION_CODE;
  return collcSuccess;
}
