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
/// the setup exchange, so they refuse together). A communicator may select
/// the module's in-switch programs (collc --enable-multimem) only when every
/// rank opted in and every device supports multicast (multimemSelectable)
/// and its registered buffers are bound to multicast objects
/// (programRoutable). This build binds none: it is made for machines where
/// multicast must never run, so an opted-in communicator is refused, and
/// the refusal says which reason holds.
///
//===----------------------------------------------------------------------===//

#include "checks.h"
#include "cudawrap.h"
#include "debug.h"
#include "runtime.h"

#include <algorithm>

using namespace collc;

collcResult_t collc::multimemRequested(bool *on) {
  return envSwitch("COLLC_MULTIMEM", false, "never use NVLink multicast",
                   "use it where every device of the communicator supports "
                   "it",
                   on);
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

bool collc::multimemSelectable(const std::vector<int> &requested,
                                const std::vector<int> &supported) {
  auto all = [](const std::vector<int> &v) {
    return !v.empty() && std::all_of(v.begin(), v.end(),
                                     [](int x) { return x != 0; });
  };
  return all(requested) && all(supported) &&
         requested.size() == supported.size();
}

bool collc::programRoutable(const ProgramInfo &g, bool multicastBound) {
  return !g.multicast || multicastBound;
}

collcResult_t collc::multimemRefusal(int rank, const std::vector<int> &requested,
                                     const std::vector<int> &devices,
                                     const std::vector<int> &supported) {
  // Not selectable: say which rank or device stands in the way. Selectable
  // (every rank opted in, every device supports it): a build that binds
  // buffers to multicast objects would bind them here, set multicastBound
  // and rebuild the routes (programRoutable); this one has no such
  // binding.
  if (!multimemSelectable(requested, supported)) {
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
  }
  return COLLC_FAIL(collcInvalidUsage,
                    "rank %d: COLLC_MULTIMEM=1 and every device supports "
                    "NVLink multicast, but this libcollc binds no buffer to "
                    "a multicast object (it is built for machines where "
                    "multicast must never run), so no in-switch program can "
                    "run (docs/runtime.md, \"In-switch reduction\"); unset "
                    "COLLC_MULTIMEM",
                    rank);
}
