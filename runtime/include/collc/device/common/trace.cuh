//===- trace.cuh - Device timelines (collc --device-trace) -----*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Device timelines (issue 15; docs/runtime.md, "Device timelines"): with
/// COLLC_DEVICE_TRACE defined (collc --device-trace), the kernels record
/// %globaltimer stamps into the buffer `collc_trace_buffer` points to
/// (abi.h, collcTraceBuffer; set by the runtime under COLLC_TRACE, else
/// null: nothing is recorded): a CTA's call begins (epoch read) and ends
/// (finish), a warp's wait that did not end at once begins and ends
/// (bounded_poll), a ready word is stored (st_release_sys), a wait failed.
/// Without COLLC_DEVICE_TRACE every hook below is empty and inlined away:
/// the kernels are the same code as without this header (the shipped
/// library is compiled without it; test/Target/Cuda/device-trace.test).
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_DEVICE_COMMON_TRACE_CUH
#define COLLC_DEVICE_COMMON_TRACE_CUH

#include "collc/device/common/arch_config.cuh"
#include "collc/device/common/types.cuh"
#include "collc/device/snac/abi.h"

#if defined(COLLC_DEVICE_TRACE) && COLLC_DEVICE_TRACE

extern "C" {
/// The runtime's buffer for this communicator's kernels (abi.h), or null.
__device__ collcTraceBuffer *collc_trace_buffer;
}

namespace collc {
namespace dev {
namespace trace {

/// The kernel and call a CTA runs, for every event it records.
struct Context {
  u64 key;
  u64 call;
};

COLLC_DEVICE_INLINE Context &context() {
  __shared__ Context ctx;
  return ctx;
}

COLLC_DEVICE_INLINE u64 now() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// Records one event by the calling thread (dropped past the capacity).
COLLC_DEVICE_INLINE void record(unsigned kind, unsigned arg) {
  collcTraceBuffer *b = collc_trace_buffer;
  if (b == nullptr)
    return;
  const unsigned long long i = atomicAdd(&b->next, 1ull);
  if (i >= b->capacity)
    return;
  const Context &c = context();
  collcTraceEvent e;
  e.ns = now();
  e.key = c.key;
  e.call = c.call;
  e.arg = arg;
  e.cta = static_cast<unsigned short>(blockIdx.x);
  e.warp = static_cast<unsigned char>(threadIdx.x / 32);
  e.kind = static_cast<unsigned char>(kind);
  b->events[i] = e;
}

/// Records one event for the calling warp: by its lowest active thread.
COLLC_DEVICE_INLINE void record_warp(unsigned kind, unsigned arg) {
  if ((threadIdx.x & 31u) == static_cast<unsigned>(__ffs(__activemask()) - 1))
    record(kind, arg);
}

/// A CTA starts call `call` of the kernel `key`: every thread sets the
/// context (the same values), thread 0 records.
COLLC_DEVICE_INLINE void begin(u64 key, u64 call) {
  Context &c = context();
  c.key = key;
  c.call = call;
  if (threadIdx.x == 0)
    record(COLLC_TRACE_BEGIN, 0);
}

COLLC_DEVICE_INLINE void end() {
  if (threadIdx.x == 0)
    record(COLLC_TRACE_END, 0);
}

/// One bounded wait: begins at its first unsuccessful poll, ends with how.
struct Wait {
  bool waiting = false;
  COLLC_DEVICE_INLINE void polled() {
    if (!waiting) {
      waiting = true;
      record_warp(COLLC_TRACE_WAIT_BEGIN, 0);
    }
  }
  COLLC_DEVICE_INLINE void done(unsigned how) {
    if (waiting)
      record_warp(COLLC_TRACE_WAIT_END, how);
  }
};

} // namespace trace
} // namespace dev
} // namespace collc

/// The runtime's clock probe (trace.cpp): this device's %globaltimer, read
/// between two host clock readings.
extern "C" __global__ void collc_trace_clock(unsigned long long *out) {
  *out = ::collc::dev::trace::now();
}

#define COLLC_TRACE_CALL_BEGIN(key, call)                                      \
  ::collc::dev::trace::begin((key), (call))
#define COLLC_TRACE_CALL_END() ::collc::dev::trace::end()
#define COLLC_TRACE_WARP(kind, arg) ::collc::dev::trace::record_warp((kind), (arg))

#else // !COLLC_DEVICE_TRACE

namespace collc {
namespace dev {
namespace trace {
struct Wait {
  COLLC_DEVICE_INLINE void polled() {}
  COLLC_DEVICE_INLINE void done(unsigned) {}
};
} // namespace trace
} // namespace dev
} // namespace collc

#define COLLC_TRACE_CALL_BEGIN(key, call) ((void)0)
#define COLLC_TRACE_CALL_END() ((void)0)
#define COLLC_TRACE_WARP(kind, arg) ((void)0)

#endif // COLLC_DEVICE_TRACE

#endif // COLLC_DEVICE_COMMON_TRACE_CUH
