//===- cudawrap.cpp - Lazily loaded CUDA driver entry points ----*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//

#include "cudawrap.h"

#include "checks.h"

#include <cstdio>
#include <dlfcn.h>

namespace collc {
namespace drv {

#define COLLC_DEFINE_PFN(sym) decltype(&sym) pfn_##sym = nullptr;
COLLC_FOR_EACH_DRIVER_SYMBOL(COLLC_DEFINE_PFN)
#undef COLLC_DEFINE_PFN

} // namespace drv

namespace {

// The soname, not "libcuda.so": only the driver package installs the
// unversioned name's target, and the toolkit's lib64/stubs/libcuda.so is a
// link-time stub whose every call fails.
constexpr const char *kDriverLibrary = "libcuda.so.1";

struct LoadState {
  collcResult_t result = collcSuccess;
  char message[768] = {};
};

// Two-level stringification so that a symbol cuda.h #defines to a versioned
// name (cuFoo -> cuFoo_v2) is looked up under the name the header means.
#define COLLC_XSTR2(x) #x
#define COLLC_XSTR(x) COLLC_XSTR2(x)

template <typename Fn>
bool resolve(void *handle, const char *name, Fn *pfn, LoadState &state) {
  *pfn = reinterpret_cast<Fn>(dlsym(handle, name));
  if (*pfn)
    return true;
  state.result = collcSystemError;
  std::snprintf(state.message, sizeof(state.message),
                "%s has no symbol %s; the NVIDIA driver is too old for this "
                "build of collc (built against CUDA %d.%d), update the driver",
                kDriverLibrary, name, CUDA_VERSION / 1000,
                (CUDA_VERSION % 1000) / 10);
  return false;
}

LoadState loadDriver() {
  LoadState state;
  void *handle = dlopen(kDriverLibrary, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    state.result = collcSystemError;
    std::snprintf(state.message, sizeof(state.message),
                  "could not load the CUDA driver library %s (%s); install "
                  "the NVIDIA driver, or add the directory that holds %s to "
                  "LD_LIBRARY_PATH (a machine without a GPU has no driver)",
                  kDriverLibrary, why ? why : "no reason given",
                  kDriverLibrary);
    return state;
  }
#define COLLC_RESOLVE(sym)                                                     \
  if (!resolve(handle, COLLC_XSTR(sym), &drv::pfn_##sym, state))               \
    return state;
  COLLC_FOR_EACH_DRIVER_SYMBOL(COLLC_RESOLVE)
#undef COLLC_RESOLVE
  // The handle is deliberately never closed: the pointers live as long as
  // the process, and unloading a driver mid-process is never safe.
  COLLC_INFO("loaded %s", kDriverLibrary);
  return state;
}

// Names for the codes whose hints matter most, for when the loaded library
// cannot name them itself (the stub's cuGetErrorName fails too).
const char *fallbackName(CUresult err) {
  switch (err) {
  case CUDA_ERROR_STUB_LIBRARY:
    return "CUDA_ERROR_STUB_LIBRARY";
  case CUDA_ERROR_NO_DEVICE:
    return "CUDA_ERROR_NO_DEVICE";
  case CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER:
    return "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER";
  default:
    return "unknown CUresult";
  }
}

// What to do next, for the failures a user can fix without a debugger.
const char *hint(CUresult err) {
  switch (err) {
  case CUDA_ERROR_STUB_LIBRARY:
    return "; the libcuda.so.1 that was loaded is the CUDA toolkit's stub, "
           "put the real driver's directory first in LD_LIBRARY_PATH";
  case CUDA_ERROR_NO_DEVICE:
    return "; no GPU is visible to this process, check CUDA_VISIBLE_DEVICES "
           "and nvidia-smi";
  case CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER:
    return "; the NVIDIA driver is older than the CUDA version collc was "
           "built with, update the driver";
  default:
    return "";
  }
}

} // namespace

collcResult_t driverInit() {
  // Function-local static: loaded once, thread-safely, on first use, and the
  // failure is cached too (retrying dlopen would give the same answer).
  static const LoadState state = loadDriver();
  if (state.result != collcSuccess)
    return COLLC_FAIL(state.result, "%s", state.message);
  // cuInit is cheap after the first call and its failure is sticky in the
  // driver, so calling it each time keeps one path for the error message.
  CU_CHECK(cuInit(0));
  return collcSuccess;
}

collcResult_t cuFail(CUresult err, const char *call, const char *file,
                     int line) {
  const char *name = nullptr;
  const char *text = nullptr;
  if (!drv::pfn_cuGetErrorName ||
      drv::pfn_cuGetErrorName(err, &name) != CUDA_SUCCESS || !name)
    name = fallbackName(err);
  if (!drv::pfn_cuGetErrorString ||
      drv::pfn_cuGetErrorString(err, &text) != CUDA_SUCCESS || !text)
    text = "no description available";
  return fail(collcUnhandledCudaError, file, line,
              "%s failed with CUDA driver error %d %s (%s)%s", call,
              static_cast<int>(err), name, text, hint(err));
}

} // namespace collc
