//===- pdl_sm90.cuh - Programmatic dependent launch (griddepcontrol) -*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Programmatic dependent launch, sm_90+: a kernel launched with the
/// programmatic-stream-serialization attribute may start while the previous
/// kernel on the stream is still running; it calls griddepcontrol_wait()
/// before touching what that kernel produces, and the previous kernel calls
/// griddepcontrol_launch_dependents() once the rest of it may overlap. Both
/// are no-ops (in hardware) when the launch did not use PDL.
///
/// COLLC_PDL_AVAILABLE is 1 when the target has them, 0 otherwise (and 0 in
/// host code), for `#if` at call sites; calling the wrappers where it is 0
/// traps (COLLC_INVALID_CONTROL_PATH), never compiles to nothing.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_DEVICE_SM90_PDL_SM90_CUH
#define COLLC_DEVICE_SM90_PDL_SM90_CUH

#include "collc/device/common/arch_config.cuh"

#if defined(COLLC_ARCH_PDL_SM90_ENABLED)
#define COLLC_PDL_AVAILABLE 1
#else
#define COLLC_PDL_AVAILABLE 0
#endif

namespace collc {
namespace dev {

#if defined(COLLC_DEVICE_COMPILE)

/// griddepcontrol.wait: blocks until the prerequisite grid has completed and
/// its memory operations are visible (returns at once without PDL).
COLLC_DEVICE_INLINE void griddepcontrol_wait() {
#if defined(COLLC_ARCH_PDL_SM90_ENABLED)
  asm volatile("griddepcontrol.wait;" ::: "memory");
#else
  COLLC_INVALID_CONTROL_PATH("griddepcontrol.wait needs sm_90 or newer");
#endif
}

/// griddepcontrol.launch_dependents: lets the dependent grid launch now.
COLLC_DEVICE_INLINE void griddepcontrol_launch_dependents() {
#if defined(COLLC_ARCH_PDL_SM90_ENABLED)
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#else
  COLLC_INVALID_CONTROL_PATH(
      "griddepcontrol.launch_dependents needs sm_90 or newer");
#endif
}

#endif // defined(COLLC_DEVICE_COMPILE)

} // namespace dev
} // namespace collc

#endif // COLLC_DEVICE_SM90_PDL_SM90_CUH
