//===- Model.h - collective semantics for the interpreter -------*- C++ -*-===//
//
// The CPU model of what a collective means, independent of any schedule:
//
//   - element types and the Atom's reduction arithmetic (Purlin eq. 2),
//   - the layout algebra of Purlin 3.1 and appendix A.1 (packed, scattered,
//     transposed; copy and reduce; root producer / root consumer), turned
//     into per-rank buffer geometries for one call,
//   - partition-size shapes for the *_v collectives (uniform, Zipf of
//     Purlin eq. 4, extreme skew),
//   - deterministic input data, and
//   - the reference result of a call, computed straight from the layouts.
//
// The reference interpreter executes derived SNAC schedules and compares
// what they produce against reference(); nothing here knows about SNAC, so a
// wrong derivation cannot make both sides agree. This library deliberately
// depends on LLVM Support only (no MLIR): the interpreter maps its IR onto
// these plain structs.
//
// Elements travel as raw bit patterns in uint32_t (low elemBits() bits), so
// that copies can be checked bit for bit, NaN payloads and -0.0 included.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_SIM_MODEL_H
#define COLLC_SIM_MODEL_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace collc::sim {

//===----------------------------------------------------------------------===//
// Elements
//===----------------------------------------------------------------------===//

/// Element types the datapath moves. F8E4M3 is the OCP e4m3fn format (no
/// infinities, one NaN mantissa; APFloat::Float8E4M3FN), F8E5M2 the IEEE-like
/// e5m2 (APFloat::Float8E5M2).
enum class ElemType { BF16, F16, F32, F8E4M3, F8E5M2 };

/// All element types, for tests and sweeps.
inline constexpr ElemType kAllElemTypes[] = {ElemType::BF16, ElemType::F16,
                                             ElemType::F32, ElemType::F8E4M3,
                                             ElemType::F8E5M2};

/// Width of one element in bits: 16, 16, 32, 8, 8.
unsigned elemBits(ElemType type);
/// Spec spelling: "bf16", "f16", "f32", "f8e4m3", "f8e5m2".
const char *elemName(ElemType type);
/// Exact value of the bit pattern `bits` (every supported type embeds in
/// double). NaN stays NaN, -0.0 keeps its sign.
double toDouble(ElemType type, uint32_t bits);
/// `value` rounded to nearest, ties to even, via APFloat. Overflow follows
/// APFloat: infinity where the type has one, NaN for F8E4M3 (no saturation).
uint32_t fromDouble(ElemType type, double value);
/// The poison pattern: all ones, which is a NaN in every supported type.
/// Output buffers are pre-filled with it so that an element nobody wrote is
/// visible; randomInput() never produces it, so it cannot be mistaken for data.
uint32_t poisonBits(ElemType type);
/// The positive quiet NaN of the type (sign 0, exponent all ones, the top
/// mantissa bit set; e4m3fn's only positive NaN, 0x7F): what a sentinel
/// encoding publishes in place of a value whose bits are all ones.
uint32_t canonicalNaN(ElemType type);
/// Whether `bits` is a NaN of the type.
bool isNaN(ElemType type, uint32_t bits);

enum class RedOp { Sum, Max, Min, Avg };

/// The Atom's reduction of one element (the datapath's semantics, Purlin
/// eq. 2): convert each contribution to FP32, accumulate in FP32 in the given
/// order (ascending rank), avg = FP32 sum / FP32(count), then round to E once.
/// The accumulator starts from the first contribution (equivalently from
/// -0.0, the exact additive identity), so a sum of -0.0s stays -0.0. Max/min
/// order -0.0 below +0.0 and ignore a NaN unless every contribution is NaN
/// (IEEE 754-2019 maximumNumber/minimumNumber), which makes them independent
/// of the order. `contributionsInRankOrder` must not be empty.
uint32_t atomReduce(ElemType type, RedOp op,
                    llvm::ArrayRef<uint32_t> contributionsInRankOrder);

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

enum class Layout { Packed, Scattered, Transposed };
enum class Consume { Copy, Reduce };
/// Purlin A.1: Producer restricts production to the root, Consumer restricts
/// consumption to the root; the root rank is a run-time argument.
enum class Root { None, Producer, Consumer };

/// One layout transformation. `op` is meaningful for Consume::Reduce only.
/// `variable` marks the *_v form (partition sizes given per call).
/// Supported combinations (others assert):
///   - reduce: output packed (each element combines the producers' inputs);
///   - copy to packed: root producer (Scatter, or a packed->packed broadcast),
///     since several producers cannot fill one packed region;
///   - copy to scattered/transposed: every rank produces (root None/Consumer).
struct Transform {
  Consume consume = Consume::Copy;
  RedOp op = RedOp::Sum;
  Layout in = Layout::Packed;
  Layout out = Layout::Scattered;
  bool variable = false;
  Root root = Root::None;
};

/// One transformation, or two composed (`parts[0] then parts[1]`, requiring
/// parts[0].out == parts[1].in), as in AllReduce = ReduceScatter then
/// AllGather.
struct Collective {
  std::vector<Transform> parts;
};

/// Run-time arguments of one call. sizes[p][k] = number of elements producer
/// rank p contributes in partition k of parts[0]'s INPUT (k in [0,1) for a
/// packed input, [0,n) for scattered). `root` is only read by rooted parts.
struct CallArgs {
  int n = 0;
  int root = 0;
  std::vector<std::vector<int64_t>> sizes;
};

/// Whether rank r stages data for part t (Purlin A.1: only the root for
/// Root::Producer, every rank otherwise).
bool isProducer(const Collective &coll, const CallArgs &args, int t, int r);
/// Whether rank r consumes (writes output) in part t: only the root for
/// Root::Consumer, every rank otherwise.
bool isConsumer(const Collective &coll, const CallArgs &args, int t, int r);

//===----------------------------------------------------------------------===//
// Partition sizes
//===----------------------------------------------------------------------===//

enum class Shape { Uniform, Zipf, Skew };

/// n sizes summing to `total` elements.
///  - Uniform: as equal as possible; the lowest ranks get the remainder.
///  - Zipf: Purlin equation (4) with s = 0.125 and unit u = max(1,
///    total/(8n)) elements: x_r = U (r+1)^-s / sum_k (k+1)^-s over U =
///    total/u units, n_r = u (floor(x_r) + delta_r), the remaining units going
///    by descending fractional part, ties to the lower rank. The elements left
///    over when u does not divide total (fewer than u) go to rank 0, already
///    the largest, so the shape is kept.
///  - Skew: one rank (chosen by seed) gets nearly everything, another one
///    (also chosen by seed) gets zero elements (when n >= 2) and the rest get
///    tiny sizes (0 to 3 elements, within total/8 together).
/// Deterministic in (shape, n, total, seed).
std::vector<int64_t> partitionSizes(Shape shape, int n, int64_t total,
                                    uint64_t seed);

/// Builds CallArgs keyed on parts[0]'s layouts and consume op (never on a
/// collective's name):
///  - fixed-size (variable == false): every sizes[p][k] = count;
///  - packed_v input (AllGatherV-like): sizes[p][0] = v[p];
///  - scattered_v input with reduce (ReduceScatterV-like): sizes[p][k] = v[k]
///    (equal across producers, as a reduction needs);
///  - scattered_v input with copy (AllToAllV-like, or Scatter): sizes[p][k] =
///    v[(k - p - 1) mod n] (rotated right by p + 1, Purlin C.4: every rank sends and
///    receives count * n elements),
/// where v = partitionSizes(shape, n, count * n, seed). root is stored as
/// given.
CallArgs makeCallArgs(const Collective &coll, int n, int root, Shape shape,
                      int64_t count, uint64_t seed);

//===----------------------------------------------------------------------===//
// Geometry
//===----------------------------------------------------------------------===//

/// A contiguous region of a buffer, in elements.
struct Partition {
  int64_t offset = 0;
  int64_t size = 0;
};

/// The partitions of one rank's buffer, in order, with offsets the prefix
/// sums of the sizes (no padding), and the total element count.
struct BufferGeometry {
  std::vector<Partition> parts;
  int64_t total = 0;
};

/// Sizes matrix of part t's input: t = 0 -> args.sizes; t = 1 -> derived from
/// part 0's output (sizes1[p][k] = size of partition k of part 0's output at
/// rank p).
std::vector<std::vector<int64_t>> partSizes(const Collective &coll,
                                            const CallArgs &args, int t);

/// Geometry of part t's input buffer at rank r: packed -> 1 partition of
/// sizes_t[r][0]; scattered -> n partitions of sizes_t[r][k].
BufferGeometry inputGeometry(const Collective &coll, const CallArgs &args,
                             int t, int r);

/// Geometry of part t's output at rank r. With q(r) = 0 for a packed input
/// and r otherwise (the input partition rank r receives):
///  - out packed: 1 partition; reduce -> sizes_t[p][q(r)] (asserted equal
///    across producers p); copy (root producer) -> sizes_t[root][q(r)];
///  - out scattered or transposed: n partitions, partition p of size
///    sizes_t[p][q(r)] (the contribution of source rank p, in rank order).
/// Defined for every rank, consumer or not.
BufferGeometry outputGeometry(const Collective &coll, const CallArgs &args,
                              int t, int r);

//===----------------------------------------------------------------------===//
// Data and reference results
//===----------------------------------------------------------------------===//

/// Input bits for rank `rank` of a call, deterministic in (seed, rank).
///  - If a part reduces: small integers (|x| <= 8, with -0.0 for some zeros)
///    so that FP32 and double sums are exact (|sum| <= 8 * ranks << 2^24) and
///    the FP32 Atom and the double reference round the same exact value.
///    For avg, every rank contributes the same value at a given element
///    (drawn from (seed, element index) only), so the mean is that value,
///    exactly representable in E whatever the rank count.
///  - Pure copies: uniformly random bit patterns of E other than
///    poisonBits(E): NaNs, infinities, subnormals and -0.0 included, since
///    copies must preserve bits.
std::vector<uint32_t> randomInput(const Collective &coll, ElemType type,
                                  int64_t elements, uint64_t seed, int rank);

/// Like randomInput, but made of the values a datapath gets wrong: the
/// all-ones pattern (poisonBits, the sentinel), -0.0, NaNs with payloads of
/// both signs, infinities (where the type has them), subnormals and the
/// largest finite values, among ordinary ones. Deterministic in (seed,
/// rank). For a reduction the class of an element is drawn from (seed,
/// element) and shared by every rank, so that the FP32 accumulation in rank
/// order and the double reference still agree after the final rounding:
/// small integers; subnormals and signed zeros only (their sums are exact in
/// FP32); small integers and infinities (inf - inf is NaN either way); small
/// integers with NaNs or the all-ones pattern at some ranks (NaN either
/// way). For avg every rank contributes the same value at an element.
std::vector<uint32_t> specialInput(const Collective &coll, ElemType type,
                                   int64_t elements, uint64_t seed, int rank);
/// The collective's definition (Purlin 3.1, A.1), computed from the layouts,
/// never from a schedule. Per part, at consumer r:
///  - out packed: reduce -> elementwise op over the producers' input
///    partition q(r), in double (sum/max/min; avg = sum / number of
///    producers), rounded once to E; copy -> the root's input partition q(r);
///  - out scattered/transposed: partition p = producer p's input partition
///    q(r), bit-exact.
/// For a composition, part 1's input at rank r is part 0's output at r
/// (already rounded to E). Returns, per rank, the expected output of the LAST
/// part, or std::nullopt for a rank that consumes nothing there (its output
/// must stay untouched). `inputs[r]` must match inputGeometry(coll, args, 0,
/// r). Reductions are bit-exact against atomReduce for NaN-free inputs whose
/// sums are exact in FP32 (what randomInput produces).
std::vector<std::optional<std::vector<uint32_t>>>
reference(const Collective &coll, const CallArgs &args, ElemType type,
          const std::vector<std::vector<uint32_t>> &inputs);

} // namespace collc::sim

#endif // COLLC_SIM_MODEL_H
