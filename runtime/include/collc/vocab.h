//===- vocab.h - the core facts of collc, one home each ---------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The vocabulary the compiler, the runtime and the device code share, so
/// that no layer keeps its own copy of a fact:
///  - the enums Layout, Consume, Root, RedOp and ElemType, their values (the
///    C API's collcRedOp_t and collcDataType_t, the dialects' TableGen enums
///    and the device's RedOp are tied to them by static_asserts) and their
///    spellings (the spec, the IR and the module manifest write them alike);
///  - the layout algebra: partition counts and which entry of a transform's
///    input size matrix each output partition holds (Purlin 3.1);
///  - the v1 workspace index formulas (abi.h sizes the regions; this says
///    where a slot, a ready word, a free word and a use counter are);
///  - the v1 free-event use count.
///
/// Plain C++17, constexpr, no headers: host code includes it as is, and
/// NVRTC compiles it inside the device headers. The simulation model
/// (compiler/include/collc/Sim/Model.h) and the GPU suite's oracle stay
/// independent of it on purpose: they check what is built on it.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_VOCAB_H
#define COLLC_VOCAB_H

#if defined(__CUDACC__)
#define COLLC_VOCAB_FN constexpr inline __host__ __device__
#else
#define COLLC_VOCAB_FN constexpr inline
#endif

namespace collc::vocab {

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

/// Buffer layouts (Purlin 3.1). A layout's run-time-sized form (`packed_v`)
/// is the same layout with the `variable` flag, spelled with a `_v` suffix.
enum class Layout : int { Packed = 0, Scattered = 1, Transposed = 2 };
/// How a consumer combines what it receives.
enum class Consume : int { Copy = 0, Reduce = 1 };
/// Which ranks produce or consume (Purlin appendix A.1); the root rank
/// itself is a run-time argument.
enum class Root : int { None = 0, Producer = 1, Consumer = 2 };
/// The elementwise combiner of a reduction (device semantics:
/// collc/device/common/types.cuh).
enum class RedOp : int { Sum = 0, Max = 1, Min = 2, Avg = 3 };
/// The element types a collective may carry.
enum class ElemType : int { BF16 = 0, F16 = 1, F32 = 2, F8E4M3 = 3, F8E5M2 = 4 };

/// Number of values of each enum (values are 0 .. count - 1).
template <class E> struct EnumCount;
template <> struct EnumCount<Layout> { static constexpr int value = 3; };
template <> struct EnumCount<Consume> { static constexpr int value = 2; };
template <> struct EnumCount<Root> { static constexpr int value = 3; };
template <> struct EnumCount<RedOp> { static constexpr int value = 4; };
template <> struct EnumCount<ElemType> { static constexpr int value = 5; };

/// The entry of `table` (one per value of E, in value order) for `e`;
/// `none` out of range.
template <class E, class T, int N>
COLLC_VOCAB_FN T entry(const T (&table)[N], E e, T none) {
  static_assert(N == EnumCount<E>::value, "one table entry per enum value");
  const int i = static_cast<int>(e);
  return i >= 0 && i < N ? table[i] : none;
}

/// Spellings: the spec's, the IR's and the manifest's ("?" out of range).
/// C++ names each value by its spelling capitalized (RedOp::Sum), which is
/// how the emitter prints them into generated kernels.
COLLC_VOCAB_FN const char *spelling(Layout l) {
  const char *const names[] = {"packed", "scattered", "transposed"};
  return entry(names, l, "?");
}
COLLC_VOCAB_FN const char *spelling(Consume c) {
  const char *const names[] = {"copy", "reduce"};
  return entry(names, c, "?");
}
COLLC_VOCAB_FN const char *spelling(Root r) {
  const char *const names[] = {"none", "producer", "consumer"};
  return entry(names, r, "?");
}
COLLC_VOCAB_FN const char *spelling(RedOp op) {
  const char *const names[] = {"sum", "max", "min", "avg"};
  return entry(names, op, "?");
}
COLLC_VOCAB_FN const char *spelling(ElemType t) {
  const char *const names[] = {"bf16", "f16", "f32", "f8e4m3", "f8e5m2"};
  return entry(names, t, "?");
}

/// Bytes of one element (0 out of range).
COLLC_VOCAB_FN int elemBytes(ElemType t) {
  const int bytes[] = {2, 2, 4, 1, 1};
  return entry(bytes, t, 0);
}

/// The element of a copy's kernel, which moves bytes and serves every type
/// of its collective (the manifest's `element_type` and `serves`).
COLLC_VOCAB_FN const char *bytesElementSpelling() { return "bytes"; }

/// The CUDA type of an element (cuda_bf16.h, cuda_fp16.h, cuda_fp8.h).
COLLC_VOCAB_FN const char *cudaTypeName(ElemType t) {
  const char *const names[] = {"__nv_bfloat16", "__half", "float",
                               "__nv_fp8_e4m3", "__nv_fp8_e5m2"};
  return entry(names, t, "?");
}

/// The first `n` characters of `a` equal `b` entirely.
COLLC_VOCAB_FN bool spellingEquals(const char *a, unsigned long n,
                                   const char *b) {
  unsigned long i = 0;
  for (; i < n && b[i]; ++i)
    if (a[i] != b[i])
      return false;
  return i == n && !b[i];
}

/// Reads the spelling of an enum value from `s[0, n)`; false if none.
template <class E>
COLLC_VOCAB_FN bool parse(const char *s, unsigned long n, E &out) {
  for (int i = 0; i < EnumCount<E>::value; ++i)
    if (spellingEquals(s, n, spelling(static_cast<E>(i)))) {
      out = static_cast<E>(i);
      return true;
    }
  return false;
}

/// Reads a layout with an optional `_v` suffix (`variable`: its partition
/// sizes come at run time).
COLLC_VOCAB_FN bool parseLayout(const char *s, unsigned long n, Layout &out,
                                bool &variable) {
  variable = n > 2 && s[n - 2] == '_' && s[n - 1] == 'v';
  return parse(s, variable ? n - 2 : n, out);
}

//===----------------------------------------------------------------------===//
// The layout algebra
//===----------------------------------------------------------------------===//

/// One transform of a collective: consume(input layout -> output layout)
/// with a root role.
struct Transform {
  Consume consume;
  Layout in, out;
  Root root;
};

/// Partitions of a buffer of layout `l` among `n` ranks.
COLLC_VOCAB_FN int partitions(Layout l, int n) {
  return l == Layout::Packed ? 1 : n;
}

/// An entry of a transform's input size matrix: the elements producer rank
/// `producer` contributes to partition `part` (part 0 for a packed input).
struct SizeEntry {
  int producer;
  int part;
};

/// The entry of `t`'s input size matrix that partition `j` of its output at
/// rank `r` holds, for the run-time root `root`. A packed output holds one
/// input partition: the root's for a copy, rank 0's for a reduction (every
/// rank contributes the same sizes to it); a scattered or transposed output
/// holds, in partition j, what rank j contributes. A packed input has one
/// partition; otherwise rank r's output comes from partition r.
COLLC_VOCAB_FN SizeEntry outputEntry(const Transform &t, int root, int r,
                                     int j) {
  const int q = t.in == Layout::Packed ? 0 : r;
  if (t.out == Layout::Packed)
    return {t.consume == Consume::Reduce ? 0 : root, q};
  return {j, q};
}

/// Whether rank `r` reads its input (with a producing root, only the root
/// does) and writes its output (with a consuming root, only the root does).
COLLC_VOCAB_FN bool readsInput(Root role, int r, int root) {
  return role != Root::Producer || r == root;
}
COLLC_VOCAB_FN bool writesOutput(Root role, int r, int root) {
  return role != Root::Consumer || r == root;
}

//===----------------------------------------------------------------------===//
// Program sizes (SNAC v2): the size matrix of a program's input from a
// call's (docs/snac.md, "Rooted programs")
//===----------------------------------------------------------------------===//

/// Elements of row p of a size matrix of sParts columns.
COLLC_VOCAB_FN long long rowTotal(const long long *s, int sParts, int p) {
  long long row = 0;
  for (int j = 0; j < sParts; ++j)
    row += s[(unsigned long long)p * sParts + j];
  return row;
}

/// Entry (p, k) of a program's input size matrix (`parts` = 1 when the
/// program's input is packed, else n) from the call's size matrix `s`
/// ([n][sParts], the collective's first input) and the run-time root.
/// The program of a rooted collective is an unrooted `_v` exchange in which
/// every pair of ranks still trades one (possibly empty) region per call:
///  - `Producer` (only the root sends): every other row is empty;
///  - `Consumer` (only the root receives): each rank's whole row goes to
///    partition `root`, the other partitions are empty.
/// A packed program input takes the row's sum (the one-shot AllReduce of a
/// scattered collective reads its whole row).
COLLC_VOCAB_FN long long programSize(Root shape, int root, const long long *s,
                                     int sParts, int parts, int p, int k) {
  // The row is summed only for the entries that hold it (a launch reads
  // 2n entries).
  if (shape == Root::Producer && p != root)
    return 0;
  if (shape == Root::Consumer)
    return k == (parts == 1 ? 0 : root) ? rowTotal(s, sParts, p) : 0;
  if (parts == 1)
    return rowTotal(s, sParts, p);
  return s[(unsigned long long)p * sParts + k];
}

/// Rank `r`'s size vector of a program (abi.h, collcFillSizeVector's
/// layout: its row then its column; for a packed input every rank's size,
/// twice), 2 * n words, from the call's sizes as programSize shapes them.
COLLC_VOCAB_FN void programSizeVector(Root shape, int root, const long long *s,
                                      int sParts, bool packed, int n, int r,
                                      long long *v) {
  const int parts = packed ? 1 : n;
  for (int i = 0; i < n; ++i) {
    v[i] = packed ? programSize(shape, root, s, sParts, parts, i, 0)
                  : programSize(shape, root, s, sParts, parts, r, i);
    v[n + i] = packed ? v[i] : programSize(shape, root, s, sParts, parts, i, r);
  }
}

//===----------------------------------------------------------------------===//
// The v1 workspace (ABI 2; abi.h has the region sizes and the words'
// meaning). N ranks, S slots per partition.
//===----------------------------------------------------------------------===//

/// Elements of a chunk of `chunkBytes` bytes (at least one).
COLLC_VOCAB_FN long long chunkElems(long long chunkBytes, int elemBytes) {
  return chunkBytes / elemBytes > 0 ? chunkBytes / elemBytes : 1;
}

/// The slot chunk `c` of a partition cycles through.
COLLC_VOCAB_FN long long slotOf(long long c, int slots) { return c % slots; }

/// First element of chunk `c` of partition `j` in a staging or intermediate
/// buffer: partition-major, then slot.
COLLC_VOCAB_FN long long slotOffset(long long j, long long c, int slots,
                                    long long chunkElems) {
  return (j * slots + slotOf(c, slots)) * chunkElems;
}

/// Ready words: one per (event, sender, partition, slot), first among a
/// rank's event words.
COLLC_VOCAB_FN unsigned long long readyWords(int readyEvents, int n,
                                             int slots) {
  return (unsigned long long)readyEvents * (unsigned long long)n *
         (unsigned long long)n * (unsigned long long)slots;
}
COLLC_VOCAB_FN unsigned long long readyWord(int event, int sender,
                                            long long part, long long slot,
                                            int n, int slots) {
  return (((unsigned long long)event * n + (unsigned long long)sender) * n +
          (unsigned long long)part) *
             (unsigned long long)slots +
         (unsigned long long)slot;
}

/// Free words (release counters): one per (event, partition, slot), after
/// the ready words.
COLLC_VOCAB_FN unsigned long long freeWord(int readyEvents, int event,
                                           long long part, long long slot,
                                           int n, int slots) {
  return readyWords(readyEvents, n, slots) +
         ((unsigned long long)event * n + (unsigned long long)part) *
             (unsigned long long)slots +
         (unsigned long long)slot;
}

/// The use counter of (free event, partition, slot), among the private
/// state words that follow COLLC_STATE_USES.
COLLC_VOCAB_FN unsigned long long useWord(int event, long long part,
                                          long long slot, int n, int slots) {
  return ((unsigned long long)event * n + (unsigned long long)part) *
             (unsigned long long)slots +
         (unsigned long long)slot;
}

//===----------------------------------------------------------------------===//
// The v1 free-event use count. The derivation awaits a free event once per
// chunk it writes into a slotted buffer, so one call uses slot s of a
// partition once for each of its chunks c with c % S == s; the u-th use
// waits for (u - 1) * quota releases. (The interpreter counts uses as they
// happen, independently: it checks this formula.)
//===----------------------------------------------------------------------===//

/// Uses of slot `s` by a call that writes `chunks` chunks of a partition.
COLLC_VOCAB_FN long long slotUses(long long chunks, int slots, long long s) {
  return s < chunks ? (chunks - s + slots - 1) / slots : 0;
}

/// Uses of chunk `c`'s slot earlier in the same call.
COLLC_VOCAB_FN long long usesBefore(long long c, int slots) {
  return c / slots;
}

} // namespace collc::vocab

#endif // COLLC_VOCAB_H
