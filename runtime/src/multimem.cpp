//===- multimem.cpp - The in-switch opt-in: checked, and refused -*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// COLLC_MULTIMEM (docs/runtime.md, "In-switch reduction"): NVLink SHARP
/// (multimem.ld_reduce / multimem.st on a multicast object) is used only
/// when the user opts in AND the driver reports multicast support on every
/// device of the communicator. Without the opt-in the runtime never asks the
/// driver about multicast, and libcollc names no multicast entry point at
/// all (test/Runtime/no-multicast.test), so it cannot create a multicast
/// object. With it, every rank's device is checked (the ranks agree through
/// the setup exchange, so they refuse together) and the communicator is
/// refused: collc derives no multimem program yet, so there is nothing to
/// select, and the refusal says which of the two reasons holds.
///
//===----------------------------------------------------------------------===//

#include "checks.h"
#include "cudawrap.h"
#include "debug.h"
#include "runtime.h"

#include <cstdlib>
#include <cstring>

using namespace collc;

collcResult_t collc::multimemRequested(bool *on) {
  const char *env = std::getenv("COLLC_MULTIMEM");
  *on = false;
  if (!env || !*env || std::strcmp(env, "0") == 0)
    return collcSuccess;
  if (std::strcmp(env, "1") == 0) {
    *on = true;
    return collcSuccess;
  }
  return COLLC_FAIL(collcInvalidArgument,
                    "COLLC_MULTIMEM is '%s'; expected 0 (never use NVLink "
                    "multicast, the default) or 1 (use it where every device "
                    "of the communicator supports it)",
                    env);
}

collcResult_t collc::multimemProbe(bool requested, int device,
                                   MulticastQuery query, int *supported) {
  *supported = 0;
  if (!requested)
    return collcSuccess; // not even a question to the driver
  return query(device, supported);
}

collcResult_t collc::driverMulticastQuery(int device, int *supported) {
  CUdevice dev;
  CU_CHECK(cuDeviceGet(&dev, device));
  CU_CHECK(cuDeviceGetAttribute(
      supported, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, dev));
  return collcSuccess;
}

collcResult_t collc::multimemRefusal(int rank, const std::vector<int> &requested,
                                     const std::vector<int> &devices,
                                     const std::vector<int> &supported) {
  for (size_t p = 0; p < requested.size(); ++p)
    if (!requested[p])
      return COLLC_FAIL(collcInvalidUsage,
                        "rank %d: COLLC_MULTIMEM=1 on some ranks but not on "
                        "rank %zu: set it the same on every rank (or on "
                        "none)",
                        rank, p);
  for (size_t p = 0; p < supported.size(); ++p)
    if (!supported[p])
      return COLLC_FAIL(
          collcInvalidUsage,
          "rank %d: COLLC_MULTIMEM=1, but device %d of rank %zu does not "
          "support NVLink multicast (CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED "
          "is 0: no NVSwitch with SHARP, or no fabric manager); unset "
          "COLLC_MULTIMEM",
          rank, p < devices.size() ? devices[p] : -1, p);
  return COLLC_FAIL(collcInvalidUsage,
                    "rank %d: COLLC_MULTIMEM=1 and every device supports "
                    "NVLink multicast, but this collc derives no multimem "
                    "program yet (docs/runtime.md, \"In-switch reduction\"); "
                    "unset COLLC_MULTIMEM",
                    rank);
}
