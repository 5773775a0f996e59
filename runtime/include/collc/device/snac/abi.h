//===- abi.h - the ABI of collc kernels -------------------------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What the runtime passes to a kernel collc generated, and how the kernel's
/// workspace is laid out. Plain C, shared by the host runtime, the generated
/// kernels (NVRTC) and the module-file manifest, so the three cannot drift.
///
/// Workspace of each rank (sizes from the functions below):
///  - staging / intermediate (peer-accessible): partition j, slot s of a
///    buffer starts at element ((j * slots) + s) * chunkElems;
///  - event words (peer-accessible, 64-bit): first every ready event's flags,
///    word ((event * n + sender) * n + part) * slots + slot, holding
///    (call << 32) | (chunk + 1) of the last chunk published there; then
///    every free event's release counters, word
///    readyWords + (event * n + part) * slots + slot;
///  - private state (64-bit words, this rank only): the call sequence, the
///    CTA arrival counter, then the slot-use counters of the free events;
///  - the error record (host-mapped, so the host reads it without a sync).
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_DEVICE_SNAC_ABI_H
#define COLLC_DEVICE_SNAC_ABI_H

/// Version of the kernel ABI below; the module manifest records it and the
/// runtime refuses a module built for another.
#define COLLC_KERNEL_ABI_VERSION 1

/// Threads per CTA of every generated kernel.
#define COLLC_KERNEL_THREADS 512

/// The workspace formulas are usable on the host and in device code.
#if defined(__CUDACC__)
#define COLLC_ABI_FN static inline __host__ __device__
#else
#define COLLC_ABI_FN static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// The parameters of every generated kernel, passed by value.
typedef struct collcKernelParams {
  /// This rank's input and output (ordinary device memory).
  const void *input;
  void *output;
  /// Device arrays of `worldSize` pointers: each rank's staging and
  /// intermediate buffers and event words, mapped into this rank's address
  /// space (peer access). `inter` is NULL when the collective has one
  /// transform.
  void *const *staging;
  void *const *inter;
  unsigned long long *const *events;
  /// This rank's private state words (see collcStateWords).
  unsigned long long *state;
  /// The error record, COLLC_ERROR_WORDS words the host can read while
  /// kernels run (host-mapped memory): the first error wins.
  unsigned long long *error;
  /// The size matrix of the first transform's input, row-major
  /// [worldSize][partitions]: elements rank p contributes to partition k
  /// (partitions = 1 for a packed input, worldSize otherwise).
  const long long *sizes;
  int rank;
  int worldSize;
  int root;
  int reserved;
  /// Bound of every wait, in nanoseconds; a wait that passes it records the
  /// error and ends the kernel.
  unsigned long long timeoutNs;
} collcKernelParams;

/// Private state words: [0] calls completed, [1] CTAs arrived (all calls),
/// then the slot-use counters.
#define COLLC_STATE_SEQ 0
#define COLLC_STATE_ARRIVALS 1
#define COLLC_STATE_USES 2

/// The error record: two entries of 8 words, each [0] code, [1] call,
/// [2] rank, [3] role, [4] event (ready events first, then free events),
/// [5] peer (-1: any), [6] key0 (partition), [7] key1 (chunk or slot). The
/// first holds the first wait that timed out; the second the first one that
/// waited on another rank, which names the stuck peer (a rank's own role
/// groups time out too, as a consequence).
#define COLLC_ERROR_WORDS 16
#define COLLC_ERROR_REMOTE 8
#define COLLC_KERNEL_OK 0
#define COLLC_KERNEL_TIMEOUT 1

/// Number of event words a rank needs.
COLLC_ABI_FN unsigned long long
collcEventWords(int readyEvents, int freeEvents, int worldSize, int slots) {
  unsigned long long n = (unsigned long long)worldSize;
  return ((unsigned long long)readyEvents * n * n +
          (unsigned long long)freeEvents * n) *
         (unsigned long long)slots;
}

/// Number of private state words a rank needs.
COLLC_ABI_FN unsigned long long collcStateWords(int freeEvents, int worldSize,
                                                 int slots) {
  return COLLC_STATE_USES + (unsigned long long)freeEvents *
                                (unsigned long long)worldSize *
                                (unsigned long long)slots;
}

/// Elements of a staging or intermediate buffer with `partitions` partitions.
COLLC_ABI_FN unsigned long long collcSlotBufferElems(int partitions,
                                                      int slots,
                                                      long long chunkElems) {
  return (unsigned long long)partitions * (unsigned long long)slots *
         (unsigned long long)chunkElems;
}

#ifdef __cplusplus
} // extern "C"
#endif

#endif // COLLC_DEVICE_SNAC_ABI_H
