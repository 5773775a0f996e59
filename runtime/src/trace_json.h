//===- trace_json.h - Device timelines as Chrome traces ---------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The device timelines' events (abi.h, collcTraceEvent: what kernels
/// compiled with --device-trace record under COLLC_TRACE) as a Chrome
/// trace (the format Perfetto, chrome://tracing and collc-trace-plot
/// read): a process per rank, a track per CTA and warp, a slice per call
/// of a kernel in a CTA and per wait of a warp, instants for ready words
/// and failures. Pure code (no driver), so the unit tests call it.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_RUNTIME_SRC_TRACE_JSON_H
#define COLLC_RUNTIME_SRC_TRACE_JSON_H

#include "collc/device/snac/abi.h"

#include <string>
#include <vector>

namespace collc {

/// One communicator rank's recorded events.
struct TraceSource {
  int rank = 0;
  int device = 0;
  /// Added to an event's %globaltimer to get the host's CLOCK_REALTIME in
  /// nanoseconds (measured when the communicator was created), so ranks of
  /// other devices and processes line up.
  long long offsetNs = 0;
  /// The kernel of each key (its call counters' device address).
  std::vector<std::pair<unsigned long long, std::string>> kernels;
  std::vector<collcTraceEvent> events;
  /// Events the kernels tried to record (more than `events` when the
  /// buffer was full).
  unsigned long long recorded = 0;
};

/// The Chrome trace of `sources` (a JSON object).
std::string traceJson(const std::vector<TraceSource> &sources);

} // namespace collc

#endif // COLLC_RUNTIME_SRC_TRACE_JSON_H
