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
///    readyWords + (event * n + part) * slots + slot; then the arrival word
///    (the last call this rank started, read by peers to blame a rank that
///    never arrived);
///  - private state (64-bit words, this rank only): the call sequence, the
///    CTA arrival counter, the claim word, then the slot-use counters of the
///    free events;
///  - the error record (host-mapped, so the host reads it without a sync).
///
/// Sizes travel by value: the second kernel parameter is the size vector
/// (collcSizeVectorWords), so a call allocates and uploads nothing, any
/// number of distinct shapes works, and no size is a dependent load.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_DEVICE_SNAC_ABI_H
#define COLLC_DEVICE_SNAC_ABI_H

/// Version of the kernel ABI below; the module manifest records it and the
/// runtime refuses a module built for another.
#define COLLC_KERNEL_ABI_VERSION 2

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

/// Most bytes of kernel parameters every supported driver accepts (the
/// 32 KiB limit needs CUDA 12.1 and Volta); the emitter refuses a kernel
/// whose parameters would not fit.
#define COLLC_KERNEL_PARAM_LIMIT 4096

/// The parameters of every generated kernel, passed by value; the size
/// vector follows as the second parameter.
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
  /// A token unique to this launch (or this captured launch): the claim
  /// word holds it while the call runs, so a second call of the same kernel
  /// on this communicator running at the same time is detected.
  unsigned long long launch;
  int rank;
  int worldSize;
  int root;
  int reserved;
  /// Bound of every wait, in nanoseconds; a wait that passes it records the
  /// error and ends the kernel.
  unsigned long long timeoutNs;
} collcKernelParams;

/// Private state words: [0] calls completed, [1] CTAs arrived (all calls),
/// [2] the claim (the launch token of the call running, 0 when none), then
/// the slot-use counters.
#define COLLC_STATE_SEQ 0
#define COLLC_STATE_ARRIVALS 1
#define COLLC_STATE_CLAIM 2
#define COLLC_STATE_USES 3

/// The error record: two entries of 8 words, each [0] code, [1] call,
/// [2] rank, [3] role, [4] event (ready events first, then free events),
/// [5] peer (-1: any), [6] key0 (partition), [7] key1 (chunk or slot). The
/// first holds the first wait that timed out (or the concurrent call); the
/// second the first one that waited on another rank, which names the peer
/// waited for (a rank's own role groups time out too, as a consequence).
/// Then the blame, taken by the first wait that timed out: [16] set when
/// filled, [17] the call, [18] how many ranks had not started it, [19] a
/// bit mask of them (ranks below 64): a rank whose arrival word is behind
/// the call never arrived at it, the one to blame.
#define COLLC_ERROR_WORDS 24
#define COLLC_ERROR_REMOTE 8
#define COLLC_ERROR_BLAME 16
#define COLLC_KERNEL_OK 0
#define COLLC_KERNEL_TIMEOUT 1
/// Another call of the same kernel on this communicator was running (two
/// streams, or a graph replayed alongside eager calls).
#define COLLC_KERNEL_CONCURRENT 2

/// Number of event words a rank needs.
COLLC_ABI_FN unsigned long long
collcEventWords(int readyEvents, int freeEvents, int worldSize, int slots) {
  unsigned long long n = (unsigned long long)worldSize;
  return ((unsigned long long)readyEvents * n * n +
          (unsigned long long)freeEvents * n) *
             (unsigned long long)slots +
         1; // the arrival word
}

/// Index of the arrival word among a rank's event words.
COLLC_ABI_FN unsigned long long collcArrivalWord(int readyEvents,
                                                  int freeEvents,
                                                  int worldSize, int slots) {
  return collcEventWords(readyEvents, freeEvents, worldSize, slots) - 1;
}

/// Words of the size vector, the kernel's second parameter: this rank's row
/// of the size matrix of the first transform's input (elements rank p
/// contributes to partition k, [worldSize][partitions], partitions = 1 for a
/// packed input), then its column. A rank's kernel reads only those: every
/// other row equals its own for a reduction or a fixed-size call, and a
/// transposing copy reads its own row (what it sends) and column (what it
/// receives).
COLLC_ABI_FN int collcSizeVectorWords(int worldSize) { return 2 * worldSize; }

/// Writes the size vector of `rank` from the row-major size matrix `m`
/// ([worldSize][parts], parts = 1 for a packed input): its row, then its
/// column (for a packed input, every rank's size twice).
COLLC_ABI_FN void collcFillSizeVector(const long long *m, int worldSize,
                                      int parts, int rank, long long *v) {
  for (int i = 0; i < worldSize; ++i) {
    if (parts == 1) {
      v[i] = v[worldSize + i] = m[i];
    } else {
      v[i] = m[(unsigned long long)rank * parts + i];
      v[worldSize + i] = m[(unsigned long long)i * parts + rank];
    }
  }
}

/// Entry (p, k) of the size matrix, from the size vector `v` of `rank`.
/// For a packed input (one partition) v[p] is rank p's size.
COLLC_ABI_FN long long collcSizeAt(const long long *v, int worldSize,
                                   int packed, int rank, int p, int k) {
  if (packed)
    return v[p];
  return k == rank && p != rank ? v[worldSize + p] : v[k];
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

//===----------------------------------------------------------------------===//
// Programs: the kernels of SNAC v2 (push into receive buffers, data-carried
// readiness, call-counter slots). They live beside the kernels above (ABI 2)
// until they replace them; a module lists them in `kernels[]` with a
// `program` object (docs/module-format.md).
//===----------------------------------------------------------------------===//

/// Version of collcProgramParams and of the receive-buffer layout below (2:
/// a zero-copy region's third row of words, the output where words).
#define COLLC_PROGRAM_ABI_VERSION 2

/// How readiness travels with the data into a receive buffer.
///  - FLAG: data stores, then one release store of the epoch per
///    (slot, source, warp segment) ready word, `.sys` scope (cross-GPU);
///  - LL16: 16-byte packets {data0, seq, data1, seq}, 8 bytes of payload
///    each, seq = the call's sequence number (collc/device/common/ll.cuh);
///  - SENTINEL: the payload itself, in regions pre-filled with all-ones
///    bytes; a value equal to the pattern is canonicalized before it is
///    published, and the consumer re-arms what it read.
#define COLLC_ENCODING_FLAG 0
#define COLLC_ENCODING_LL16 1
#define COLLC_ENCODING_SENTINEL 2

/// Another rank's packet carried a later call than this rank's: the ranks
/// did not issue the same call sequence (error record code).
#define COLLC_KERNEL_SEQUENCE 3

/// The first parameter of a program kernel, by value. The second is the
/// peers' receive buffers, `worldSize` pointers by value (a struct of
/// `void *[N]`, N the compiled world size); the third is the size vector
/// (collcSizeVectorWords words, as for ABI 2).
typedef struct collcProgramParams {
  /// This rank's input and output (ordinary device memory).
  const void *input;
  void *output;
  /// This rank's private call counters, one 64-bit word per CTA of the
  /// program's fixed grid, zero-initialized: CTA b of call e reads e - 1 and
  /// writes e. Every rank must issue the same call sequence of a program.
  unsigned long long *counters;
  /// The error record (COLLC_ERROR_WORDS words, host-mapped), as for ABI 2;
  /// [3] role is the op index, [4] event -1, [6] key0 the slot, [7] key1 the
  /// first element of the packet waited for.
  unsigned long long *error;
  /// Bound of every wait, in nanoseconds.
  unsigned long long timeoutNs;
  int rank;
  int worldSize;
} collcProgramParams;

/// Bytes of one (slot, source) region of a receive buffer that carries up to
/// `payloadBytes` of payload per source and call, rounded up to 16-byte
/// packets: LL16 doubles the payload; FLAG appends one 64-bit ready word per
/// warp segment (`segments`), after the payload, 16-byte aligned.
COLLC_ABI_FN unsigned long long collcRxRegionBytes(int encoding,
                                                    unsigned long long payloadBytes,
                                                    int segments) {
  unsigned long long data = (payloadBytes + 15ull) / 16ull * 16ull;
  if (encoding == COLLC_ENCODING_LL16)
    return 2ull * data;
  if (encoding == COLLC_ENCODING_FLAG)
    return data + ((unsigned long long)segments * 8ull + 15ull) / 16ull * 16ull;
  return data;
}

/// Program variants (the manifest's `program.variant`): one-shot pushes a
/// rank's whole input to every consumer; two-shot pushes partition k to
/// rank k, which reduces it and forwards the result to every rank;
/// multimem (in-switch, sm_90+) has no receive buffer: the switch reduces
/// and replicates through multicast addresses (collcMulticastParams).
#define COLLC_VARIANT_ONE_SHOT 0
#define COLLC_VARIANT_TWO_SHOT 1
#define COLLC_VARIANT_MULTIMEM 2

/// The second parameter of an in-switch (multimem) program kernel: the
/// multicast addresses of this call's input and output (a registered
/// window's range bound to a multicast object on every rank; null for a
/// buffer the program reaches only locally), and the barriers' arrival
/// counters, one 64-bit word per CTA of the grid, zero at creation: their
/// multicast address (multimem.red adds to every rank's copy) and this
/// rank's own copy (where the CTA waits). Never filled on this project's
/// machines: no multicast object is created there (docs/runtime.md,
/// "In-switch reduction").
typedef struct collcMulticastParams {
  const void *inputMc;
  void *outputMc;
  unsigned long long *barrierMc;
  const unsigned long long *barrierLocal;
} collcMulticastParams;

/// Receive buffers of a program: two-shot has one per phase (the pushed
/// partitions, then the forwarded ones), each `slots` x `worldSize`
/// regions, the second right after the first in one allocation (its slots
/// numbered from `slots` on: collcRxOffset(buffer * slots + slot, ...)).
COLLC_ABI_FN int collcRxBuffers(int variant) {
  return variant == COLLC_VARIANT_TWO_SHOT ? 2 : 1;
}

/// Payload bytes a region must hold for inputs up to `bandHi` bytes: a
/// one-shot region holds a source's whole input; a two-shot region one
/// partition of an input of fixed partition sizes, at most an even split
/// of the input in 16-byte units (the runtime's split of an AllReduce
/// count; equal partitions are smaller still).
COLLC_ABI_FN unsigned long long collcRxPayloadBytes(int variant,
                                                    unsigned long long bandHi,
                                                    int worldSize) {
  if (variant != COLLC_VARIANT_TWO_SHOT || worldSize < 1)
    return bandHi;
  const unsigned long long units = (bandHi + 15ull) / 16ull;
  return (units + (unsigned long long)worldSize - 1ull) /
         (unsigned long long)worldSize * 16ull;
}

/// Zero-copy programs (in_place receive buffers) hold no payload: a region
/// (slot, source) holds one "where" word per CTA (where the source's
/// partition is), then (only read in slot 0 of the first buffer) one retire
/// word per CTA, then one output "where" word per CTA (a spread's,
/// snac.reduce_spread: where the source's output is, for the peers that
/// store parts of it), then the ready words. `collcRxInPlaceWordBytes` is
/// one row of words for `ctas` CTAs, the payload three of them.
COLLC_ABI_FN unsigned long long collcRxInPlaceWordBytes(int ctas) {
  return ((unsigned long long)ctas * 8ull + 15ull) / 16ull * 16ull;
}
COLLC_ABI_FN unsigned long long collcRxInPlacePayloadBytes(int ctas) {
  return 3ull * collcRxInPlaceWordBytes(ctas);
}

/// A registered buffer's place, as a zero-copy program publishes it: the
/// window's slot (the communicator's table row) in the bits from
/// COLLC_WINDOW_SHIFT up, the byte offset from the window's start below.
#define COLLC_WINDOW_SHIFT 48
/// Windows a communicator holds at once (rows of its window table).
#define COLLC_MAX_WINDOWS 64
/// The row after the windows: every rank's entry 0, so that a where word
/// naming it carries an address, not an offset. One process driving every
/// rank (collcCommInitAll) has one address space: a buffer every rank's
/// device can read is published as itself ("direct" buffers, docs/runtime.md
/// "Registered buffers").
#define COLLC_DIRECT_WINDOW COLLC_MAX_WINDOWS

/// The third kernel parameter of a zero-copy program: the communicator's
/// window table ((COLLC_MAX_WINDOWS + 1) x worldSize device addresses: row s
/// holds every rank's start of window s as this rank maps it, 0 where none;
/// row COLLC_DIRECT_WINDOW is all 0), and
/// where this call's input and output are (slot << COLLC_WINDOW_SHIFT |
/// offset; 0 for a buffer the program does not publish).
typedef struct collcWindowParams {
  const unsigned long long *table;
  unsigned long long input;
  unsigned long long output;
} collcWindowParams;

/// Payload bytes a region of a chunked program holds (policy `chunk`): one
/// step, a chunk of `chunkBytes` per CTA of the `ctas`-CTA grid (sub-region
/// h at byte h x the chunk's encoded size, docs/snac.md "Chunked
/// programs"). Its flag words are one per CTA: pass `ctas` as the segments.
COLLC_ABI_FN unsigned long long collcRxChunkedPayloadBytes(
    int ctas, unsigned long long chunkBytes) {
  return (unsigned long long)ctas * chunkBytes;
}

/// A program's private counter words (collcProgramParams.counters): one
/// call counter per CTA of the grid; with pair steps (policy `pairs`) then
/// one counter per CTA and peer, CTA-major (docs/snac.md "Pair steps").
COLLC_ABI_FN long long collcProgramCounterWords(int ctas, int worldSize,
                                                int pairs) {
  return (long long)ctas * (pairs ? 1 + (long long)worldSize : 1);
}

/// Pair steps with small pairs by LL16 (policy `pair_ll16` = T bytes): a
/// CTA's sub-region of the LL16 area, twice its largest part (a pair's
/// count of at most T bytes cut over `ctas` CTAs in one step, whole 16-byte
/// units: LL16 packets carry 8 payload bytes in 16).
COLLC_ABI_FN unsigned long long collcRxPairLL16SubBytes(int ctas,
                                                        long long pairLL16) {
  return 2ull * (unsigned long long)(((pairLL16 + ctas - 1) / ctas + 15) /
                                     16 * 16);
}

/// The LL16 area of a program with `pair_ll16` = T (0: none), after its
/// slots x world_size regions in the receive buffer: a region per (slot,
/// source) of a sub-region per CTA (docs/snac.md, "Small pairs by LL16").
COLLC_ABI_FN unsigned long long collcRxPairLL16Bytes(int slots, int worldSize,
                                                     int ctas,
                                                     long long pairLL16) {
  return pairLL16 > 0 ? (unsigned long long)slots * (unsigned long long)worldSize *
                            (unsigned long long)ctas *
                            collcRxPairLL16SubBytes(ctas, pairLL16)
                      : 0ull;
}

/// The words after a chunked (or zero-copy) region's payload, as
/// collcRxRegionBytes's `segments`: one ready word per CTA, at the region's
/// end; with agreed steps (policy `agree`) a row of as many before them,
/// one agreement word per CTA (the call's tag and the steps the source
/// counts: docs/snac.md, "Agreed steps"), each row 16-byte aligned (the
/// segments are padded to an even count).
COLLC_ABI_FN int collcRxChunkedWords(int ctas, int agree) {
  return agree ? 2 * ((ctas + 1) / 2 * 2) : ctas;
}

/// Elements of partition k when a whole buffer of `count` elements is split
/// over `worldSize` partitions (a typed AllReduce's count): whole 16-byte
/// units, the first `units mod worldSize` partitions one unit more, the
/// last partition holding the remainder that is not a whole unit.
COLLC_ABI_FN long long collcEvenSplitAt(unsigned long long count,
                                        int worldSize, int elemBytes, int k) {
  const unsigned long long unit =
      elemBytes >= 16 ? 1ull : 16ull / (unsigned long long)elemBytes;
  const unsigned long long units = (count + unit - 1ull) / unit;
  const unsigned long long n = (unsigned long long)worldSize;
  const unsigned long long i = (unsigned long long)k;
  const unsigned long long extra = units % n;
  const unsigned long long start =
      (i * (units / n) + (i < extra ? i : extra)) * unit;
  const unsigned long long end = start + (units / n + (i < extra)) * unit;
  return (long long)((end < count ? end : count) -
                     (start < count ? start : count));
}

/// Byte offset of the region of (slot, source) in a rank's receive buffer:
/// slots outermost, so one call's regions are contiguous.
COLLC_ABI_FN unsigned long long collcRxOffset(int slot, int source,
                                               int worldSize,
                                               unsigned long long regionBytes) {
  return ((unsigned long long)slot * (unsigned long long)worldSize +
          (unsigned long long)source) *
         regionBytes;
}

/// Bytes of a rank's receive buffer.
COLLC_ABI_FN unsigned long long collcRxBytes(int slots, int worldSize,
                                              unsigned long long regionBytes) {
  return (unsigned long long)slots * (unsigned long long)worldSize * regionBytes;
}

/// The byte a receive buffer is filled with before first use: 0xFF for
/// SENTINEL (every region armed), 0 otherwise (sequence and epoch 0 are
/// never a call's).
COLLC_ABI_FN int collcRxFillByte(int encoding) {
  return encoding == COLLC_ENCODING_SENTINEL ? 0xFF : 0;
}

/// Device timelines (collc --device-trace, COLLC_TRACE; docs/runtime.md,
/// "Device timelines"). A module compiled with --device-trace defines the
/// device variable `collc_trace_buffer` (extern "C"), a pointer the
/// runtime sets to a buffer of its own per communicator, or leaves null
/// (no event recorded). Without --device-trace nothing of this is
/// compiled into the kernels.
#define COLLC_TRACE_SYMBOL "collc_trace_buffer"
/// Event kinds.
#define COLLC_TRACE_BEGIN 1      /* a CTA starts a call (thread 0) */
#define COLLC_TRACE_END 2        /* it ends it, or gives up (thread 0) */
#define COLLC_TRACE_WAIT_BEGIN 3 /* a warp's wait did not end at once */
#define COLLC_TRACE_WAIT_END 4   /* arg: 1 ready, 0 timed out, 2 failed */
#define COLLC_TRACE_NOTIFY 5     /* a ready word stored */
#define COLLC_TRACE_FAILED 6     /* arg: the op whose wait failed */

/// One event (32 bytes). `key` tells the kernel and rank apart: the device
/// address of the kernel's call counters (each kernel of each communicator
/// has its own), which the runtime maps back to the kernel's name.
typedef struct collcTraceEvent {
  unsigned long long ns;   /* %globaltimer */
  unsigned long long key;  /* the kernel's call counters */
  unsigned long long call; /* the CTA's call (epoch) */
  unsigned int arg;
  unsigned short cta;
  unsigned char warp;
  unsigned char kind;
} collcTraceEvent;

/// The buffer: `capacity` events; `next` counts the events recorded (an
/// event past the capacity is dropped, its index still counted, so the
/// runtime reports how many were lost).
typedef struct collcTraceBuffer {
  unsigned long long capacity;
  unsigned long long next;
  collcTraceEvent events[1];
} collcTraceBuffer;

COLLC_ABI_FN unsigned long long collcTraceBufferBytes(
    unsigned long long capacity) {
  return 16ull + capacity * (unsigned long long)sizeof(collcTraceEvent);
}

#ifdef __cplusplus
} // extern "C"
#endif

#endif // COLLC_DEVICE_SNAC_ABI_H
