//===- trace.h - Device timelines: the runtime's side -----------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// COLLC_TRACE (trace.cpp; docs/runtime.md, "Device timelines").
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_RUNTIME_SRC_TRACE_H
#define COLLC_RUNTIME_SRC_TRACE_H

#include "collc/collc.h"

struct collcComm;
struct collcModule;

namespace collc {

/// Refuses COLLC_TRACE with a module whose kernels have no timeline hooks
/// (before any driver call).
collcResult_t traceCheck(collcModule *module);
/// With COLLC_TRACE: the communicator's buffer, set in its module, and the
/// clock offset. Once its module is loaded.
collcResult_t traceSetup(collcComm *comm);
/// With COLLC_TRACE: adds the communicator's events to the process's and
/// rewrites the file. After its kernels ended (collcCommDestroy).
void traceCollect(collcComm *comm);

} // namespace collc

#endif // COLLC_RUNTIME_SRC_TRACE_H
