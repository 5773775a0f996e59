//===- atom.cuh - The collc device library (Atom), master header -*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Everything a generated collc kernel (or a user's own kernel, Purlin R3)
/// needs from the datapath layer, in namespace collc::dev:
///  - copy(dst, src, bytes[, smem]), reduce<E, Op>(dst, src, nsrc, elems[,
///    smem]): the Atom's two CTA-cooperative primitives (copy.cuh,
///    reduce.cuh), each choosing the datapath for the target GPU generation
///    (with `smem`, the cp.async pipeline among them);
///  - readiness: flags (common/flags.cuh), LL packets (common/ll.cuh, namespace
///    ll), sentinels (common/sentinel.cuh, namespace sentinel), all waits
///    bounded;
///  - programmatic dependent launch (sm90/pdl_sm90.cuh, COLLC_PDL_AVAILABLE);
///  - element traits and RedOp (common/types.cuh), COLLC_DEVICE_INLINE and the
///    COLLC_ARCH_* feature macros (common/arch_config.cuh).
///
/// Compiles under NVRTC (--std=c++17, include paths <cuda>/include and
/// <repo>/runtime/include), nvcc, and as plain host C++ (device parts are
/// behind COLLC_DEVICE_COMPILE). The in-switch wrappers
/// (sm90/multimem_sm90.cuh) are NOT included: include them yourself with
/// COLLC_ENABLE_MULTIMEM defined.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_DEVICE_ATOM_CUH
#define COLLC_DEVICE_ATOM_CUH

#include "collc/device/common/arch_config.cuh"
#include "collc/device/common/types.cuh"

#include "collc/device/common/flags.cuh"
#include "collc/device/common/ll.cuh"
#include "collc/device/common/sentinel.cuh"

#include "collc/device/copy.cuh"
#include "collc/device/reduce.cuh"

#include "collc/device/sm90/pdl_sm90.cuh"

#endif // COLLC_DEVICE_ATOM_CUH
