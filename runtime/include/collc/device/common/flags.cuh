//===- flags.cuh - Flag/epoch loads, stores, fences, bounded waits -*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Readiness by flags (DESIGN.md, "Flag/epoch notification"): a producer
/// stages its data, then publishes a 64-bit epoch with release order; a
/// consumer acquires the epoch, then reads the data.
///
/// Every wrapper is one PTX instruction in `asm volatile` with a "memory"
/// clobber, so the compiler neither drops nor moves it, nor caches memory
/// across it. Names spell the memory ordering and the scope; relaxed variants
/// have their own names. The scope is a template parameter (selected with
/// `if constexpr`), and the `_sys` names are the instances the generated code
/// uses: flags live in peer GPUs' memory, so system scope.
///
/// Addresses are generic (no state space in the PTX), so a flag may live in
/// local or peer global memory or in mapped host memory.
///
/// Waits are bounded (STYLE.md 12): they take a timeout in nanoseconds,
/// measured with the %globaltimer register (a nanosecond clock; its update
/// granularity is 32 ns to 1 us depending on the GPU, so a timeout is honoured
/// to within that), and additionally cap the number of polls at
/// timeoutNs + kPollBatch (a poll takes far more than 1 ns), so a wait ends
/// even if the timer stalled. bounded_poll is that loop, for every wait of
/// the device library (ll.cuh, sentinel.cuh, snac/program.cuh). With COLLC_DEVICE_TRAP_ON_TIMEOUT defined, an
/// expired wait prints its condition and traps (debug builds).
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_DEVICE_COMMON_FLAGS_CUH
#define COLLC_DEVICE_COMMON_FLAGS_CUH

#include "collc/device/common/arch_config.cuh"
#include "collc/device/common/trace.cuh"
#include "collc/device/common/types.cuh"

namespace collc {
namespace dev {

/// Memory-model scope of an ordering (PTX .cta, .gpu, .sys).
enum class Scope { Cta, Gpu, Sys };

#if defined(COLLC_DEVICE_COMPILE)

static_assert(sizeof(u64) == 8, "flags are 64-bit");

/// `asm volatile(OP ".<scope>" REST operands)` for scope S.
#define COLLC_SCOPED_ASM(S, OP, REST, ...)                                     \
  COLLC_ASM_PICK3((S) == Scope::Sys, OP ".sys" REST, (S) == Scope::Gpu,        \
                  OP ".gpu" REST, OP ".cta" REST, __VA_ARGS__)

/// Plain load of the 64-bit flag, acquire order, scope S (ld.acquire.S.u64).
template <Scope S> COLLC_DEVICE_INLINE u64 ld_acquire(const u64 *p) {
  u64 v;
  COLLC_SCOPED_ASM(S, "ld.acquire", ".u64 %0, [%1];",
                   : "=l"(v) : "l"(p) : "memory");
  return v;
}

/// Load of the 64-bit flag, relaxed (no ordering), scope S.
template <Scope S> COLLC_DEVICE_INLINE u64 ld_relaxed(const u64 *p) {
  u64 v;
  COLLC_SCOPED_ASM(S, "ld.relaxed", ".u64 %0, [%1];",
                   : "=l"(v) : "l"(p) : "memory");
  return v;
}

/// Store of the 64-bit flag, release order, scope S: every memory operation
/// of this thread before it is visible to whoever acquires the value.
template <Scope S> COLLC_DEVICE_INLINE void st_release(u64 *p, u64 v) {
  COLLC_SCOPED_ASM(S, "st.release", ".u64 [%0], %1;",
                   ::"l"(p), "l"(v) : "memory");
}

/// Store of the 64-bit flag, relaxed, scope S.
template <Scope S> COLLC_DEVICE_INLINE void st_relaxed(u64 *p, u64 v) {
  COLLC_SCOPED_ASM(S, "st.relaxed", ".u64 [%0], %1;",
                   ::"l"(p), "l"(v) : "memory");
}

/// Atomic `*p += v` without a result (PTX red), release order, scope S: the
/// many-producers form of st_release (e.g. a counter of arrived peers).
template <Scope S>
COLLC_DEVICE_INLINE void red_add_release(u64 *p, u64 v) {
  COLLC_SCOPED_ASM(S, "red.release", ".add.u64 [%0], %1;",
                   ::"l"(p), "l"(v) : "memory");
}

/// Atomic `*p += v` without a result, relaxed, scope S.
template <Scope S>
COLLC_DEVICE_INLINE void red_add_relaxed(u64 *p, u64 v) {
  COLLC_SCOPED_ASM(S, "red.relaxed", ".add.u64 [%0], %1;",
                   ::"l"(p), "l"(v) : "memory");
}

/// Atomic `old = *p; *p += v; return old` (PTX atom), acquire-release order,
/// scope S (e.g. a device-side call counter that also orders).
template <Scope S>
COLLC_DEVICE_INLINE u64 atom_add_acq_rel(u64 *p, u64 v) {
  u64 old;
  COLLC_SCOPED_ASM(S, "atom.acq_rel", ".add.u64 %0, [%1], %2;",
                   : "=l"(old) : "l"(p), "l"(v) : "memory");
  return old;
}

/// Fence with acquire-release semantics at scope S (fence.acq_rel.S). After
/// a relaxed load that observed a release, it completes an acquire pattern;
/// before a relaxed store, a release pattern.
template <Scope S> COLLC_DEVICE_INLINE void fence_acq_rel() {
  COLLC_SCOPED_ASM(S, "fence.acq_rel", ";", ::: "memory");
}

/// ld.acquire.sys.u64: load a flag published by any GPU or the host.
COLLC_DEVICE_INLINE u64 ld_acquire_sys(const u64 *p) {
  return ld_acquire<Scope::Sys>(p);
}
/// ld.relaxed.sys.u64.
COLLC_DEVICE_INLINE u64 ld_relaxed_sys(const u64 *p) {
  return ld_relaxed<Scope::Sys>(p);
}
/// st.release.sys.u64: publish a flag to any GPU or the host.
COLLC_DEVICE_INLINE void st_release_sys(u64 *p, u64 v) {
  st_release<Scope::Sys>(p, v);
  COLLC_TRACE_WARP(COLLC_TRACE_NOTIFY, 0);
}
/// st.relaxed.sys.u64.
COLLC_DEVICE_INLINE void st_relaxed_sys(u64 *p, u64 v) {
  st_relaxed<Scope::Sys>(p, v);
}
/// red.release.sys.add.u64: atomic add, release, system scope, no result.
COLLC_DEVICE_INLINE void red_add_release_sys(u64 *p, u64 v) {
  red_add_release<Scope::Sys>(p, v);
}
/// red.relaxed.sys.add.u64.
COLLC_DEVICE_INLINE void red_add_relaxed_sys(u64 *p, u64 v) {
  red_add_relaxed<Scope::Sys>(p, v);
}
/// fence.acq_rel.sys.
COLLC_DEVICE_INLINE void fence_acq_rel_sys() { fence_acq_rel<Scope::Sys>(); }

namespace detail {
/// Enables the `unsigned long` overloads below only where that type is 64
/// bits and distinct from u64 (nvcc on LP64 Linux, where ::uint64_t is
/// `unsigned long`).
template <typename W, bool = sizeof(unsigned long) == 8> struct ULong64 {};
template <> struct ULong64<unsigned long, true> {
  using type = int;
};
} // namespace detail

/// Overloads of the `_sys` flag functions for `unsigned long` words, so that
/// code written with nvcc's ::uint64_t (`unsigned long`) calls the same
/// instructions; they forward to the u64 versions.
#define COLLC_ULONG64_LOAD(name)                                               \
  template <typename W, typename detail::ULong64<W>::type = 0>                 \
  COLLC_DEVICE_INLINE u64 name(const W *p) {                                   \
    return name(reinterpret_cast<const u64 *>(p));                             \
  }
#define COLLC_ULONG64_STORE(name)                                              \
  template <typename W, typename detail::ULong64<W>::type = 0>                 \
  COLLC_DEVICE_INLINE void name(W *p, u64 v) {                                 \
    name(reinterpret_cast<u64 *>(p), v);                                       \
  }
COLLC_ULONG64_LOAD(ld_acquire_sys)
COLLC_ULONG64_LOAD(ld_relaxed_sys)
COLLC_ULONG64_STORE(st_release_sys)
COLLC_ULONG64_STORE(st_relaxed_sys)
COLLC_ULONG64_STORE(red_add_release_sys)
COLLC_ULONG64_STORE(red_add_relaxed_sys)
#undef COLLC_ULONG64_LOAD
#undef COLLC_ULONG64_STORE

/// The %globaltimer register: nanoseconds (see the file comment for its
/// resolution). Read with `asm volatile` so each call really reads it.
COLLC_DEVICE_INLINE u64 globaltimer_ns() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// Number of polls between two reads of the timer in the bounded waits.
constexpr int kPollBatch = 8;

/// How a bounded wait ended.
enum class PollState { TimedOut, Ready, Failed };

/// The bounded poll loop of every wait (STYLE.md 12), once: polls until
/// `ready()` holds (Ready) or `failed()` does (Failed: e.g. the word shows a
/// later call), or the wait has run past `timeoutNs` (TimedOut). Each turn
/// calls ready() once, which loads; failed() judges what ready() loaded.
/// %globaltimer is read once every kPollBatch polls, the first time as the
/// start (most waits end before a batch is over and never read it), and at
/// most timeoutNs + kPollBatch polls are made, so a wait ends even if the
/// timer stalled. One poll, not an unrolled batch, per turn: the waits are
/// inlined at every unrolled call site. The caller records the error.
template <typename Ready, typename Failed>
COLLC_DEVICE_INLINE PollState bounded_poll(unsigned long long timeoutNs,
                                           Ready &&ready, Failed &&failed) {
  u64 start = 0;
  trace::Wait traced; // empty unless COLLC_DEVICE_TRACE (trace.cuh)
  for (unsigned long long polls = 0;; ++polls) {
    if (ready()) {
      traced.done(1);
      return PollState::Ready;
    }
    if (failed()) {
      traced.done(2);
      return PollState::Failed;
    }
    traced.polled();
    if (polls % kPollBatch != kPollBatch - 1)
      continue;
    const u64 now = globaltimer_ns();
    if (start == 0) {
      start = now;
      continue;
    }
    if (now - start >= timeoutNs || polls > timeoutNs) {
      traced.done(0);
      return PollState::TimedOut;
    }
  }
}

/// bounded_poll for a wait that only ends ready or timed out.
template <typename Ready>
COLLC_DEVICE_INLINE bool bounded_poll(unsigned long long timeoutNs,
                                      Ready &&ready) {
  return bounded_poll(timeoutNs, ready, [] { return false; }) ==
         PollState::Ready;
}

namespace detail {
/// Shared body of the flag waits: polls `*p >= target` with relaxed loads
/// at scope S; on success, when Acquire, issues fence.acq_rel.S (a relaxed
/// load that observed the value followed by the fence is an acquire pattern)
/// and returns true; returns false on bounded_poll's timeout. *observed gets
/// the last value.
template <Scope S, bool Acquire>
COLLC_DEVICE_INLINE bool wait_geq(const u64 *p, u64 target,
                                  unsigned long long timeoutNs,
                                  u64 *observed) {
  u64 v = 0;
  const bool ok = bounded_poll(timeoutNs, [&] {
    v = ld_relaxed<S>(p);
    return v >= target;
  });
  if (observed)
    *observed = v;
  if (ok) {
    if constexpr (Acquire)
      fence_acq_rel<S>();
    return true;
  }
#if defined(COLLC_DEVICE_TRAP_ON_TIMEOUT)
  printf("collc: wait timed out: *p (%llu) >= target (%llu) after %llu ns\n",
         static_cast<unsigned long long>(v),
         static_cast<unsigned long long>(target), timeoutNs);
  __trap();
#endif
  return false;
}
} // namespace detail

/// Waits (single thread) until `*p >= target`, with acquire semantics at
/// system scope on success: data the producer wrote before its release of a
/// value >= target is then visible to this thread (and, after a CTA barrier,
/// to the whole CTA). Returns false, without acquiring, if `timeoutNs`
/// nanoseconds pass first; `*observed` (optional) gets the last value read,
/// for the error message naming the event.
COLLC_DEVICE_INLINE bool wait_geq_acquire_sys(const u64 *p,
                                              u64 target,
                                              unsigned long long timeoutNs,
                                              u64 *observed = nullptr) {
  return detail::wait_geq<Scope::Sys, true>(p, target, timeoutNs, observed);
}

/// As wait_geq_acquire_sys, without the acquire (relaxed): for counters whose
/// arrival orders nothing else.
COLLC_DEVICE_INLINE bool wait_geq_relaxed_sys(const u64 *p,
                                              u64 target,
                                              unsigned long long timeoutNs,
                                              u64 *observed = nullptr) {
  return detail::wait_geq<Scope::Sys, false>(p, target, timeoutNs, observed);
}

/// `unsigned long` overloads of the bounded waits (see ld_acquire_sys).
#define COLLC_ULONG64_WAIT(name)                                               \
  template <typename W, typename detail::ULong64<W>::type = 0>                 \
  COLLC_DEVICE_INLINE bool name(const W *p, u64 target,                        \
                                unsigned long long timeoutNs,                  \
                                u64 *observed = nullptr) {                     \
    return name(reinterpret_cast<const u64 *>(p), target, timeoutNs,           \
                observed);                                                     \
  }
COLLC_ULONG64_WAIT(wait_geq_acquire_sys)
COLLC_ULONG64_WAIT(wait_geq_relaxed_sys)
#undef COLLC_ULONG64_WAIT

#endif // defined(COLLC_DEVICE_COMPILE)

} // namespace dev
} // namespace collc

#endif // COLLC_DEVICE_COMMON_FLAGS_CUH
