//===- EmitCuda.h - snac schedules to CUDA C++ ------------------*- C++ -*-===//
//
// Lowers every snac.schedule of a module to CUDA C++ for one GPU target: one
// kernel per (collective, element type, world size; a copy's moves bytes,
// kBytes, for every type), the role groups dispatched by block index,
// compile-time constants baked in (element type,
// world size, chunk size, slots), run-time arguments for buffers, sizes,
// rank, root and epochs (collc/device/snac/abi.h). The datapath is the Atom
// (collc/device/atom.cuh); the schedule support is collc/device/snac.
// The snac.programs (SNAC v2) of the module follow (EmitProgram.h).
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_TARGET_CUDA_EMITCUDA_H
#define COLLC_TARGET_CUDA_EMITCUDA_H

#include "collc/vocab.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace collc::coll {
class CollectiveOp;
} // namespace collc::coll

namespace collc::cuda {

/// A GPU target: "sm_90" -> compute capability 90.
struct Target {
  std::string name;
  int capability = 0;
  /// Programmatic dependent launch (griddepcontrol), sm_90 and later.
  bool hasPdl() const { return capability >= 90; }
};

/// Parses "sm_90", "sm_90a", "sm_100f"...; fails on anything else.
mlir::FailureOr<Target> parseTarget(llvm::StringRef name);

/// An element type as the generated code spells it.
struct ElementType {
  const char *spelling; // the spec's: bf16, f16, f32, f8e4m3, f8e5m2
  const char *cudaType; // __nv_bfloat16, ...
  int bytes;
};

/// The element of a kernel that moves bytes (a copy collective's, whatever
/// its types): one kernel serves every type, counts scaled to bytes by the
/// runtime (KernelInfo::serves).
inline constexpr ElementType kBytes = {vocab::bytesElementSpelling(),
                                        "unsigned char", 1};

/// Whether every transform of `collective` copies (no reduction): its
/// kernels move bytes (kBytes).
bool movesBytes(coll::CollectiveOp collective);

/// The CUDA element type of a collective's element type, if it has one.
std::optional<ElementType> elementTypeOf(mlir::Type type);

/// The CUDA element types of `collective`, in its order; fails, with an
/// error at the collective, on one that has no CUDA type. Each names a
/// kernel with each world size.
mlir::FailureOr<llvm::SmallVector<ElementType>>
elementTypesOf(coll::CollectiveOp collective);

/// Calls `each` for every kernel of one schedule or program: each element
/// type of `collective` (elementTypesOf; kBytes alone with `bytes`, for a
/// collective that movesBytes) at each of its world sizes `n`, with the
/// kernel's name, `<prefix>_<type spelling>_n<n>`, or
/// `<prefix>_<type spelling>_upto<anyRanksUpTo>` at every `n` for a kernel
/// that serves every world size up to `anyRanksUpTo` (when not 0). Stops at
/// the first failure.
mlir::LogicalResult forEachKernel(
    coll::CollectiveOp collective, llvm::StringRef prefix, bool bytes,
    int64_t anyRanksUpTo,
    llvm::function_ref<mlir::LogicalResult(
        const std::string &name, const ElementType &elem, int64_t n)>
        each);

/// Bytes of a kernel's parameters at `n` ranks: `fixed` bytes, then
/// `pointersPerRank` 8-byte words a rank and the size vector (abi.h). A
/// launch takes at most COLLC_KERNEL_PARAM_LIMIT.
long long kernelParamBytes(long long fixed, int pointersPerRank, int64_t n);

/// The coll.collective named `name` in the module around `op`, or null: the
/// collective a schedule or program implements (its element types and world
/// sizes name the kernels).
coll::CollectiveOp collectiveOf(mlir::Operation *op, llvm::StringRef name);

/// What the runtime needs to launch a program kernel (SNAC v2, one kernel
/// per snac.program): the manifest's `program` object
/// (docs/module-format.md) before the derived fields.
struct ProgramInfo {
  std::string variant;  // "one_shot"
  std::string encoding; // "flag", "ll16" or "sentinel"
  /// Inclusive bounds on the bytes of this rank's input the program serves.
  int64_t bandLo = 0, bandHi = 0;
  int slots = 0;
  /// Bytes of one (slot, source) receive region (collcRxRegionBytes).
  int64_t regionBytes = 0;
  /// Whether the size vector describes a packed input (else scattered).
  bool inputPacked = true;
  /// How the runtime shapes a rooted call's sizes ("none", "producer",
  /// "consumer": collc::vocab::programSize).
  std::string root = "none";
  /// Speculative takes (load, compute, then validate; ll16 and sentinel).
  bool speculate = false;
  /// Payload bytes per CTA, partition and step of a chunked program (0: the
  /// body runs once per call).
  int64_t chunk = 0;
  /// Chunked: the ranks agree on a call's steps on the device (policy
  /// `agree`, a transposing `_v` copy).
  bool agree = false;
  /// Chunked: each pair of ranks runs its own steps at its own epochs
  /// (policy `pairs`; its counters: collcProgramCounterWords).
  bool pairs = false;
  /// Pairs: a pair whose larger count is at most this many bytes exchanges
  /// by LL16 in one step, in an area after the regions (policy pair_ll16;
  /// 0: none).
  int64_t pairLL16 = 0;
  /// Zero-copy programs: the user buffers a call must have registered
  /// ("input", "output"); empty for every other program.
  std::vector<std::string> registered;
  /// In-switch (variant multimem, sm_90+): the registered buffers must be
  /// bound to multicast objects; the runtime selects such a program only
  /// where every rank opted in and every device supports multicast.
  bool multicast = false;
};

/// What the runtime needs to launch one generated kernel.
struct KernelInfo {
  std::string name;       // extern "C" symbol
  std::string collective; // the coll.collective it runs
  std::string elementType; // spec spelling: bf16, f16, f32, f8e4m3, f8e5m2;
                           // "bytes" for a copy's (kBytes)
  int elementBytes = 0;
  /// A "bytes" kernel: the collective's element types it serves.
  std::vector<std::string> serves;
  int worldSize = 0;
  /// The world sizes its parameters hold (peer pointers, size vector): the
  /// world size, or more for a kernel that serves every world size up to
  /// it (the entries past the call's world size zero).
  int capacity = 0;
  int grid = 0;          // CTAs
  int threads = 0;       // per CTA
  int64_t chunkBytes = 0;
  int slots = 0;
  int readyEvents = 0;
  int freeEvents = 0;
  int parts = 0; // transforms: 1, or 2 for a composition
  bool hasIntermediate = false;
  /// Partitions of the staging buffer (the first input's) and of the
  /// intermediate (the first output's; 0 without one).
  int stagingPartitions = 0, intermediatePartitions = 0;
  bool rooted = false;
  bool pdl = false;
  // Layouts of the first transform's input and of the last one's output.
  std::string inputLayout, outputLayout;
  bool variable = false;
  /// Set for a program kernel (which has no workspace, only receive
  /// buffers and counters); the fields above from `chunkBytes` on are then
  /// unused.
  std::optional<ProgramInfo> program;
};

/// A vocabulary value as the device headers spell it: `Type::Name`, the
/// enumerator being the spelling capitalized (collc/vocab.h).
template <class E> std::string deviceName(const char *type, E value) {
  std::string name = vocab::spelling(value);
  name[0] = llvm::toUpper(name[0]);
  return (type + ("::" + name));
}

/// The fields every kernel has: its name, what it runs and how it launches.
KernelInfo kernelInfo(std::string name, coll::CollectiveOp collective,
                      const ElementType &elem, int64_t worldSize, int grid,
                      int threads, bool pdl);

/// Emits the CUDA source of every schedule and program in `module` for
/// `target` into `os`, and appends a KernelInfo per kernel. Errors are
/// emitted at the offending op.
mlir::LogicalResult emitCuda(mlir::ModuleOp module, const Target &target,
                             llvm::raw_ostream &os,
                             std::vector<KernelInfo> *kernels = nullptr);

} // namespace collc::cuda

#endif // COLLC_TARGET_CUDA_EMITCUDA_H
