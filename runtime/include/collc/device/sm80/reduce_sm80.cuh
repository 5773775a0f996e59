//===- reduce_sm80.cuh - Ampere Atom reduce: cp.async pipeline --*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The sm_80 Atom reduce: Purlin's unified pipeline (section 3.3, Algorithm 2)
/// with "process" = fold into the accumulators, on cp.async (global memory,
/// local or a peer's over NVLink, into shared memory without staging through
/// registers). The copy (sm80/copy_sm80.cuh) is the same pipeline with
/// "process" = store.
///
/// Shape. The output is cut into tiles of one 16-byte vector per thread
/// (T = 16 * nthreads bytes). A pipeline stage is one source's slice of one
/// tile, in the order
///   (tile 0, source 0), (tile 0, source 1), ..., (tile 0, source n-1),
///   (tile 1, source 0), ...
/// so each thread folds its vector's sources in ascending order, exactly as
/// the generic reduce does, and stores the tile's vector after the last
/// source. The S slots of T bytes live in the caller's workspace of SmemBytes
/// bytes: S = min(SmemBytes / T, kReducePipelineMaxStages), e.g. 4 slots of
/// 8 KiB at 512 threads in the copy's 32 KiB, so that a CTA keeps the same
/// Q = S * T bytes in flight as the copy (Purlin eq. 3) and the kernels'
/// shared memory does not grow.
///
///   prime:  issue stages 0 .. S-1 into slots 0 .. S-1;
///   steady: for stage j: wait until it has landed (cp.async.wait_group S-1),
///           read slot j % S into registers, fold them into the
///           accumulators (on the tile's last source: finish, round to E,
///           store), refill the slot with stage j + S;
///   drain:  the last S stages take the same path with nothing to refill
///           (empty commit groups keep the wait count constant).
///
/// Numerics: the same per-element operations as the generic path
/// (common/reduce.cuh): exact widening to FP32 (Vec16::unpack), red_step in
/// ascending source order starting from source 0's value (add.rn.f32, or the
/// bit-key compare of Max/Min), red_finish (Avg: div.rn.f32 by float(nsrc)),
/// one rounding to E (Vec16::pack). The elements past the last whole tile go
/// through reduce_generic from a 16-byte aligned offset, so every element
/// takes the same vector-or-scalar conversion it would take in the generic
/// path: the result is bit-identical to reduce_generic, NaN patterns
/// included.
///
/// Barrier-free: thread t fetches, reads back and stores only the 16-byte
/// columns at shared offsets s * T + 16 t and the output vectors
/// t, t + nthreads, ... of the tiles, so cp.async.wait_group (per thread)
/// is all the synchronization needed. The refill of a slot is issued after
/// the values read from it have been folded (Algorithm 2 refills first):
/// PTX does not order an ld.shared before a later cp.async to the same
/// address, so, as in the copy, the refill waits until the loaded registers
/// have been consumed.
///
/// In place: dst may be exactly one of the sources. Each output vector is
/// read and written by one thread, and all its sources' stages are issued
/// (and have landed) before it is stored; later stages read later tiles.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_DEVICE_SM80_REDUCE_SM80_CUH
#define COLLC_DEVICE_SM80_REDUCE_SM80_CUH

#include "collc/device/common/arch_config.cuh"
#include "collc/device/common/reduce.cuh"
#include "collc/device/common/types.cuh"
#include "collc/device/sm80/copy_sm80.cuh"

namespace collc {
namespace dev {

/// Most slots the pipelined reduce uses, whatever the workspace: the
/// cp.async.wait_group count is an immediate, chosen among this many.
constexpr int kReducePipelineMaxStages = 16;

/// Slots of one 16-byte vector per thread that the pipelined reduce gets out
/// of a workspace of `smemBytes` bytes with `threads` threads per CTA (0:
/// the workspace cannot hold one tile; the reduce then takes the generic
/// path). Host and device agree on it.
COLLC_HOST_DEVICE_INLINE int reduce_pipeline_stages(size_t smemBytes,
                                                    unsigned threads) {
  const size_t tile = static_cast<size_t>(threads) * 16;
  const size_t s = tile == 0 ? 0 : smemBytes / tile;
  return s > static_cast<size_t>(kReducePipelineMaxStages)
             ? kReducePipelineMaxStages
             : static_cast<int>(s);
}

#if defined(COLLC_DEVICE_COMPILE)

namespace detail {

/// cp.async.wait_group with a run-time count n in [0, kMaxStages - 1]
/// (clamped): the slot count depends on the CTA's thread count, the
/// instruction wants an immediate. n is CTA-uniform, so the branch costs a
/// few uniform instructions per stage.
COLLC_DEVICE_INLINE void cp_async_wait_group_dyn_sm80(int n) {
  static_assert(kReducePipelineMaxStages == 16, "cases below are 0..15");
  switch (n) {
  case 0: cp_async_wait_group_sm80<0>(); break;
  case 1: cp_async_wait_group_sm80<1>(); break;
  case 2: cp_async_wait_group_sm80<2>(); break;
  case 3: cp_async_wait_group_sm80<3>(); break;
  case 4: cp_async_wait_group_sm80<4>(); break;
  case 5: cp_async_wait_group_sm80<5>(); break;
  case 6: cp_async_wait_group_sm80<6>(); break;
  case 7: cp_async_wait_group_sm80<7>(); break;
  case 8: cp_async_wait_group_sm80<8>(); break;
  case 9: cp_async_wait_group_sm80<9>(); break;
  case 10: cp_async_wait_group_sm80<10>(); break;
  case 11: cp_async_wait_group_sm80<11>(); break;
  case 12: cp_async_wait_group_sm80<12>(); break;
  case 13: cp_async_wait_group_sm80<13>(); break;
  case 14: cp_async_wait_group_sm80<14>(); break;
  default:
    // n >= 15 waits for at most 15 pending groups: the stage's group is
    // older than those, so it has landed (n > 15 never happens: S <= 16).
    cp_async_wait_group_sm80<15>();
    break;
  }
}

} // namespace detail

/// Ampere Atom reduce (CTA-cooperative) through the cp.async pipeline: the
/// same result, bit for bit, as reduce_generic<E, Op>(dst, src, nsrc, elems)
/// (see the file comment for the algorithm). Requirements: nsrc >= 1; dst,
/// every src(p) and smem 16-byte aligned; smem holds SmemBytes bytes and is
/// not used by the CTA for anything else during the call (reuse it after a
/// __syncthreads()). When SmemBytes cannot hold one tile (16 bytes per
/// thread), everything goes through reduce_generic. `src(p)` is called once
/// per stage per thread (and by reduce_generic for the remainder); it must
/// be cheap and side-effect free. Traps before sm_80.
template <typename E, RedOp Op, size_t SmemBytes, typename SrcFn>
COLLC_DEVICE_INLINE void reduce_pipelined_sm80(E *dst, SrcFn src, int nsrc,
                                               size_t elems, char *smem) {
#if defined(COLLC_ARCH_CP_ASYNC_SM80_ENABLED)
  using V = detail::Vec16<E>;
  constexpr int kN = V::kN; // elements per 16-byte vector
  if (!detail::reduce_has_work(nsrc, elems))
    return;
  const unsigned tid = cta_thread_rank();
  const unsigned nt = cta_num_threads();
  const int stages = reduce_pipeline_stages(SmemBytes, nt);
  const size_t tileElems = static_cast<size_t>(nt) * kN;
  const size_t tiles = stages > 0 ? elems / tileElems : 0;
  const size_t nStages = tiles * static_cast<size_t>(nsrc);
  const uint32_t slotBytes = nt * 16u;
  // This thread's 16-byte column in slot 0; slot s is s * slotBytes further.
  const uint32_t col =
      static_cast<uint32_t>(__cvta_generic_to_shared(smem)) + tid * 16u;
  // The thread's element offset inside every tile.
  const size_t lane = static_cast<size_t>(tid) * kN;

  // Next stage to issue, as (tile, source), advanced without 64-bit
  // division: the tile and source counters wrap like an odometer.
  size_t issueTile = 0;
  int issueSrc = 0;
  size_t issued = 0;
  auto issue = [&](int slot) {
    const E *g = src(issueSrc) + issueTile * tileElems + lane;
    cp_async_cg_16_sm80(col + static_cast<uint32_t>(slot) * slotBytes, g);
    ++issued;
    if (++issueSrc == nsrc) {
      issueSrc = 0;
      ++issueTile;
    }
  };

  // Prime: always S commit groups, empty ones past the last stage, so that
  // wait_group S-1 below always means "the stage being processed has landed".
  for (int s = 0; s < stages; ++s) {
    if (issued < nStages)
      issue(s);
    cp_async_commit_group_sm80();
  }

  // Steady state and drain.
  float acc[kN];
  int slot = 0;
  int p = 0;       // source of the stage being processed
  size_t tile = 0; // tile of the stage being processed
  for (size_t j = 0; j < nStages; ++j) {
    detail::cp_async_wait_group_dyn_sm80(stages - 1);
    const uint4 v =
        ld_shared_v4_u32(col + static_cast<uint32_t>(slot) * slotBytes);
    if (p == 0) {
      V::unpack(v, acc); // source 0's value starts the fold (not +0.0)
    } else {
      float x[kN];
      V::unpack(v, x);
      COLLC_PRAGMA_UNROLL
      for (int k = 0; k < kN; ++k)
        acc[k] = red_step<Op>(acc[k], x[k]);
    }
    if (p == nsrc - 1) {
      COLLC_PRAGMA_UNROLL
      for (int k = 0; k < kN; ++k)
        acc[k] = red_finish<Op>(acc[k], nsrc);
      *reinterpret_cast<uint4 *>(dst + tile * tileElems + lane) =
          V::pack(acc);
    }
    // Refill after the fold: the slot's old values are in registers and
    // consumed (see the file comment).
    if (issued < nStages)
      issue(slot);
    cp_async_commit_group_sm80();
    if (++slot == stages)
      slot = 0;
    if (++p == nsrc) {
      p = 0;
      ++tile;
    }
  }
  cp_async_wait_group_sm80<0>();

  // The rest (less than a tile) through the generic path, from a 16-byte
  // aligned offset: the same vector/scalar split as reduce_generic on the
  // whole range.
  const size_t done = tiles * tileElems;
  if (done < elems)
    reduce_generic<E, Op>(
        dst + done, [&](int q) { return src(q) + done; }, nsrc, elems - done);
#else
  (void)dst;
  (void)src;
  (void)nsrc;
  (void)elems;
  (void)smem;
  COLLC_INVALID_CONTROL_PATH(
      "reduce_pipelined_sm80 needs sm_80 or newer (cp.async)");
#endif
}

#endif // defined(COLLC_DEVICE_COMPILE)

} // namespace dev
} // namespace collc

#endif // COLLC_DEVICE_SM80_REDUCE_SM80_CUH
