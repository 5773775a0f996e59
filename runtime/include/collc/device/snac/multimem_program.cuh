//===- multimem_program.cuh - in-switch programs (sm_90+) -------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What the kernels of an in-switch (`multimem`) snac.program call, as
/// program.cuh is for the other variants: the call counter and PDL as
/// Program's, the barrier (snac.mc_barrier) and the three in-switch data
/// ops (snac.mc_reduce, mc_reduce_local, mc_put) over the steps of
/// sm90/multimem_collectives_sm90.cuh.
///
/// EXPLICIT OPT-IN, as those steps: nothing here compiles unless
/// COLLC_ENABLE_MULTIMEM is defined (collc --enable-multimem), and it must
/// NEVER run on this project's GPU machines (DESIGN.md "GPU machines"); CI
/// checks the generated kernels with ptxas (test/Target/Cuda/
/// multimem-program.test).
///
/// Sizes are whole 16-byte vectors at 16-byte aligned addresses (the
/// runtime routes nothing else here). A call's work is split over the grid
/// by vector (thread t of the grid's T takes vectors t, t + T, ...); an
/// AllReduce rank handles its shard, vectors [V r / N, V (r + 1) / N) of
/// the V its buffer holds, so the N ranks together cover it once.
///
/// The barrier: CTA b of every rank counts arrivals in word b of the
/// counters (one per CTA, never reset): thread 0 adds 1 to every rank's
/// copy at once (multimem.red, release, after the CTA's __syncthreads, so
/// every thread's earlier accesses are ordered before it) and waits
/// (acquire, bounded) until its own copy reaches N x the barriers passed
/// since the communicator was created. Once some rank reaches barrier k + 1
/// every rank has arrived at k, so the sum is never satisfied early.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_DEVICE_SNAC_MULTIMEM_PROGRAM_CUH
#define COLLC_DEVICE_SNAC_MULTIMEM_PROGRAM_CUH

#include "collc/device/sm90/multimem_collectives_sm90.cuh"
#include "collc/device/snac/program.cuh"

#if defined(COLLC_ENABLE_MULTIMEM) && defined(COLLC_DEVICE_COMPILE)

namespace collc {
namespace prog {

namespace detail {
/// The switch's element kind for a reduction of E (the 16-byte vector
/// shapes multimem.ld_reduce has); copies move bytes as F32 vectors.
template <typename E> struct MultimemOf;
template <> struct MultimemOf<float> {
  static constexpr dev::MultimemType kType = dev::MultimemType::F32;
};
template <> struct MultimemOf<__nv_bfloat16> {
  static constexpr dev::MultimemType kType = dev::MultimemType::BF16x2;
};
template <> struct MultimemOf<__half> {
  static constexpr dev::MultimemType kType = dev::MultimemType::F16x2;
};
} // namespace detail

/// An in-switch program of element type E at N ranks; InputPacked says how
/// the size vector reads (abi.h collcSizeAt), as Program's.
template <typename E, int N, bool InputPacked> class MulticastProgram {
  static_assert(N >= 1, "bad program shape");

public:
  COLLC_DEVICE_INLINE MulticastProgram(const collcProgramParams &p,
                                       const collcMulticastParams &mc,
                                       const Sizes<N> &sizes)
      : p_(p), mc_(mc), sizes_(sizes),
        thread_((long long)blockIdx.x * blockDim.x + threadIdx.x),
        threads_((long long)gridDim.x * blockDim.x),
        counter_(p.counters + blockIdx.x) {}

  COLLC_DEVICE_INLINE void wait_previous() const { waitPreviousKernel(); }
  COLLC_DEVICE_INLINE void launch_dependents() const {
    launchDependentKernels();
  }
  /// This CTA's call number: its counter + 1.
  COLLC_DEVICE_INLINE Epoch epoch() const {
    return Epoch{*reinterpret_cast<volatile const u64 *>(counter_) + 1};
  }
  /// Ends the call in this CTA (program.cuh Program::finish).
  COLLC_DEVICE_INLINE void finish(Epoch e) const {
    __syncthreads();
    if (threadIdx.x == 0 && !failed_)
      *counter_ = e.value;
  }
  COLLC_DEVICE_INLINE int rank() const { return p_.rank; }

  /// snac.mc_barrier, the `index`-th of the `perCall` barriers of a call.
  COLLC_DEVICE_INLINE void barrier(int op, Epoch e, int index, int perCall) {
    __syncthreads();
    if (threadIdx.x == 0 && !failed_) {
      const u64 passed = (e.value - 1) * (u64)perCall + (u64)index + 1;
      // The CTA's stores (through the switch too), seen by thread 0 at the
      // __syncthreads, ordered before the arrival at system scope.
      __threadfence_system();
      dev::mc_arrive(mc_.barrierMc + blockIdx.x);
      u64 seen = 0;
      if (!dev::mc_wait_arrivals(mc_.barrierLocal + blockIdx.x,
                                 passed * (u64)N, p_.timeoutNs, &seen))
        fail(op, e, (long long)seen);
    }
    failed_ = __syncthreads_or(failed_) != 0;
  }

  /// snac.mc_reduce: this rank's shard of every rank's input, reduced in
  /// the switch, stored to every rank's output.
  COLLC_DEVICE_INLINE void reduce_to_all(int op) const {
    (void)op;
    if (failed_)
      return;
    const long long v = vectors(InputPacked ? count(p_.rank, 0) : total());
    const long long begin = v * p_.rank / N, end = v * (p_.rank + 1) / N;
    dev::mc_reduce_to_all<detail::MultimemOf<E>::kType>(
        static_cast<const uint4 *>(mc_.inputMc),
        static_cast<uint4 *>(mc_.outputMc), (size_t)begin, (size_t)end,
        (unsigned)thread_, (unsigned)threads_);
  }

  /// snac.mc_reduce_local: partition `rank` of every rank's scattered input,
  /// or the whole of a packed one (redundant pull), reduced in the switch,
  /// into this rank's output.
  COLLC_DEVICE_INLINE void reduce_to_local(int op) const {
    (void)op;
    if (failed_)
      return;
    const long long before = InputPacked ? 0 : offsetOf(p_.rank);
    const long long v =
        vectors(InputPacked ? count(p_.rank, 0) : count(p_.rank, p_.rank));
    const long long first = before * (long long)sizeof(E) / 16;
    dev::mc_reduce_to_local<detail::MultimemOf<E>::kType>(
        static_cast<const uint4 *>(mc_.inputMc), static_cast<uint4 *>(p_.output),
        (size_t)first, (size_t)(first + v), (unsigned)thread_,
        (unsigned)threads_);
  }

  /// snac.mc_put: this rank's input into partition `rank` of every rank's
  /// output (fixed sizes: every partition holds this rank's count).
  COLLC_DEVICE_INLINE void put_to_all(int op) const {
    (void)op;
    if (failed_)
      return;
    const long long n = count(p_.rank, 0);
    const long long first = n * p_.rank * (long long)sizeof(E) / 16;
    dev::mc_copy_to_all(static_cast<const uint4 *>(p_.input),
                        static_cast<uint4 *>(mc_.outputMc) + first,
                        (size_t)vectors(n), (unsigned)thread_,
                        (unsigned)threads_);
  }

private:
  /// Elements rank p contributes to partition k (Program::count).
  COLLC_DEVICE_INLINE long long count(int p, int k) const {
    if (InputPacked)
      return sizes_.v[p];
    return k == p_.rank && p != p_.rank ? sizes_.v[N + p] : sizes_.v[k];
  }
  COLLC_DEVICE_INLINE long long offsetOf(int k) const {
    long long at = 0;
    for (int i = 0; i < k; ++i)
      at += count(p_.rank, i);
    return at;
  }
  COLLC_DEVICE_INLINE long long total() const { return offsetOf(N); }
  COLLC_DEVICE_INLINE static long long vectors(long long elems) {
    return elems * (long long)sizeof(E) / 16;
  }
  /// Records a barrier that timed out (abi.h error record: op, the count
  /// seen in place of the element) and stops this CTA's part of the call.
  COLLC_DEVICE_INLINE void fail(int op, Epoch e, long long seen) {
    failed_ = true;
    unsigned long long *err = p_.error + COLLC_ERROR_REMOTE;
    if (atomicCAS(err, (unsigned long long)COLLC_KERNEL_OK,
                  (unsigned long long)COLLC_KERNEL_TIMEOUT) ==
        COLLC_KERNEL_OK) {
      err[1] = e.value;
      err[2] = static_cast<unsigned long long>(p_.rank);
      err[3] = static_cast<unsigned long long>(op);
      err[4] = ~0ull;
      err[5] = ~0ull; // every rank: the barrier does not say who is late
      err[6] = 0;
      err[7] = static_cast<unsigned long long>(seen);
      __threadfence_system();
    }
  }

  const collcProgramParams &p_;
  const collcMulticastParams &mc_;
  const Sizes<N> &sizes_;
  const long long thread_, threads_;
  u64 *const counter_;
  bool failed_ = false;
};

} // namespace prog
} // namespace collc

#endif // defined(COLLC_ENABLE_MULTIMEM) && defined(COLLC_DEVICE_COMPILE)

#endif // COLLC_DEVICE_SNAC_MULTIMEM_PROGRAM_CUH
