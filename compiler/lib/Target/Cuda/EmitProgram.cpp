//===- EmitProgram.cpp - snac programs to CUDA C++ --------------*- C++ -*-===//
//
// A program becomes one kernel per element type and world size (compiled
// once when another program prints the same kernel), written against
// collc/device/snac/program.cuh: the policy becomes the template
// arguments of `Program<...>`, every op one call, in program order. The
// printer decides nothing: the grid, threads and grain come from the policy
// (`snac-assign-work`), the place of launch_dependents from
// `snac-place-dependent-launch`, partition sizes from each buffer's own
// geometry. What the device API cannot run is refused at the op, before
// anything is printed.
//
//===----------------------------------------------------------------------===//

#include "collc/Target/Cuda/EmitProgram.h"

#include "collc/Dialect/Coll/IR/CollOps.h"
#include "collc/Dialect/Snac/IR/SnacOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

// collcProgramParams, the receive-buffer formulas and the parameter limit.
#include "collc/device/snac/abi.h"

using namespace mlir;
using namespace collc;
using llvm::formatv;

namespace {

/// Payload bytes of the unit the device API moves per thread-step
/// (program.cuh): an LL16 packet carries 8, a sentinel or flag unit 16.
int64_t unitBytes(snac::Encoding encoding) {
  return encoding == snac::Encoding::ll16 ? 8 : 16;
}

int abiEncoding(snac::Encoding encoding) {
  switch (encoding) {
  case snac::Encoding::flag:
    return COLLC_ENCODING_FLAG;
  case snac::Encoding::ll16:
    return COLLC_ENCODING_LL16;
  case snac::Encoding::sentinel:
    return COLLC_ENCODING_SENTINEL;
  }
  llvm_unreachable("unknown encoding");
}

int abiVariant(snac::Variant variant) {
  switch (variant) {
  case snac::Variant::one_shot:
    return COLLC_VARIANT_ONE_SHOT;
  case snac::Variant::two_shot:
    return COLLC_VARIANT_TWO_SHOT;
  case snac::Variant::multimem:
  case snac::Variant::multimem_pull:
    return COLLC_VARIANT_MULTIMEM;
  }
  llvm_unreachable("unknown variant");
}

/// Bytes of one (slot, source) receive region at `n` ranks: the payload a
/// region carries for the band's top (abi.h; at least one 16-byte unit, so
/// the padding unit of an empty band fits) in the encoding's format, plus
/// one flag word per warp of the grid; for a chunked program one step's.
int64_t regionBytes(snac::ProgramOp program, int64_t n) {
  // The switch carries an in-switch program's data: no receive region.
  if (program.isMultimem())
    return 0;
  snac::PolicyAttr policy = program.getPolicy();
  const int ctas = (int)policy.getCtas();
  // A zero-copy region holds words only: where, retire and ready, per CTA
  // (and two agreement words per CTA: collcRxChunkedWords).
  if (program.isZeroCopy())
    return (int64_t)collcRxRegionBytes(
        COLLC_ENCODING_FLAG, collcRxInPlacePayloadBytes(ctas),
        collcRxChunkedWords(ctas, policy.getAgree()));
  // A chunked region holds one step: a chunk per CTA, one flag word per CTA.
  if (policy.isChunked())
    return (int64_t)collcRxRegionBytes(
        abiEncoding(policy.getEncoding()),
        collcRxChunkedPayloadBytes(ctas, policy.getChunk()),
        collcRxChunkedWords(ctas, policy.getAgree()));
  const int64_t payload = std::max<int64_t>(
      (int64_t)collcRxPayloadBytes(abiVariant(program.getVariant()),
                                   policy.getBandHi(), (int)n),
      16);
  const int64_t warps = policy.getCtas() * policy.getThreads() / 32;
  return (int64_t)collcRxRegionBytes(abiEncoding(policy.getEncoding()), payload,
                                     (int)warps);
}

/// Prints one program's kernels.
class ProgramEmitter {
public:
  /// Kernels already printed, by their text with the name left out: a
  /// kernel that another program printed word for word (the one-shot
  /// AllReduce is every one-shot AllReduce variant's) is not printed
  /// again, its manifest entries name the first one.
  using Printed = llvm::StringMap<std::string>;

  ProgramEmitter(snac::ProgramOp program, const cuda::Target &target,
                 llvm::raw_ostream &file, Printed &printed)
      : program(program), policy(program.getPolicy()), target(target),
        file(file), printed(printed) {}

  LogicalResult emit(std::vector<cuda::KernelInfo> *kernels,
                     llvm::StringSet<> &kernelNames);

private:
  LogicalResult check();
  void emitKernel(const std::string &name, const cuda::ElementType &elem,
                  int64_t n);
  void emitBlock(Block &block, int indent);
  void emitOp(Operation &op, int indent);
  void emitArith(Operation &op, int indent);
  void emitFor(scf::ForOp loop, int indent);
  void emitEpoch(snac::EpochOp op, int indent);
  void emitPut(snac::PutOp op, int indent);
  void emitPutEach(snac::PutEachOp op, int indent);
  void emitTake(snac::TakeOp op, int indent);
  void emitTakeEach(snac::TakeEachOp op, int indent);
  void emitReduceTake(snac::ReduceTakeOp op, int indent);
  void emitReduceSpread(snac::ReduceSpreadOp op, int indent);
  void emitLaunchDependents(snac::LaunchDependentsOp op, int indent);
  void emitRetire(snac::RetireOp op, int indent);
  void emitMcBarrier(snac::McBarrierOp op, int indent);
  void emitMcData(Operation &op, int indent);
  /// The in-switch kernel's head (multimem programs: no receive buffers,
  /// the multicast parameters instead).
  void emitMulticastHead(const std::string &name, const cuda::ElementType &elem,
                         int64_t n);
  /// Whether the program spreads its reduction (its put_each then says
  /// where this rank's output is too).
  bool spreads() {
    return !program.getBody().getOps<snac::ReduceSpreadOp>().empty();
  }
  /// Whether `receive` is in place (a zero-copy program's).
  bool inPlace(FlatSymbolRefAttr receive) {
    return program.lookupBuffer(receive).getInPlace();
  }
  /// Where partition `part` of `buffer` is in its window (zero-copy).
  std::string whereOf(snac::ProgramBufferOp buffer, const std::string &part) {
    return formatv("g.{0}_where(/*part=*/{1})",
                   buffer.getKind() == snac::BufferKind::input ? "input"
                                                               : "output",
                   part)
        .str();
  }

  std::string value(Value v);
  std::string epoch(Value e, FlatSymbolRefAttr receive);
  std::string partition(snac::ProgramBufferOp buffer, Value part) {
    return partition(buffer, value(part));
  }
  std::string partition(snac::ProgramBufferOp buffer, const std::string &part);
  std::string count(snac::ProgramBufferOp buffer, Value part) {
    return count(buffer, value(part));
  }
  std::string count(snac::ProgramBufferOp buffer, const std::string &part);
  llvm::raw_ostream &line(int indent) { return os.indent(2 * indent); }

  snac::ProgramOp program;
  snac::PolicyAttr policy;
  const cuda::Target &target;
  llvm::raw_ostream &file;
  Printed &printed;
  // A kernel is printed here, then into `file` unless it was printed before.
  std::string text;
  llvm::raw_string_ostream os{text};
  snac::ProgramBufferOp input, output;

  // Per kernel.
  int64_t worldSize = 0;
  llvm::DenseMap<Value, std::string> names;
  unsigned nextName = 0, nextOp = 0;
};

} // namespace

/// How a value is spelled: the rank and the world size from the program
/// (the world size is the kernel's constant), constants inline, anything
/// else by the name given where it is defined.
std::string ProgramEmitter::value(Value v) {
  if (v == program.getRank())
    return "g.rank()";
  if (v == program.getWorldSize())
    return std::to_string(worldSize);
  if (auto c = v.getDefiningOp<arith::ConstantOp>())
    return std::to_string(cast<IntegerAttr>(c.getValue()).getInt());
  auto it = names.find(v);
  if (it != names.end())
    return it->second;
  std::string name = formatv("v{0}", nextName++).str();
  names[v] = name;
  return name;
}

/// The epoch an op on receive buffer `receive` passes: the call's, on that
/// buffer (its slots follow those of the buffers before it).
std::string ProgramEmitter::epoch(Value e, FlatSymbolRefAttr receive) {
  int index = program.getReceiveIndex(program.lookupBuffer(receive));
  if (index <= 0)
    return value(e);
  return formatv("{0}.in(/*buffer=*/{1})", value(e), index).str();
}

std::string ProgramEmitter::partition(snac::ProgramBufferOp buffer,
                                      const std::string &part) {
  return formatv("g.{0}(/*part=*/{1})",
                 buffer.getKind() == snac::BufferKind::input ? "input"
                                                             : "output",
                 part)
      .str();
}

/// The elements of partition `part` of `buffer` at this rank: the entry of
/// the size matrix the buffer's geometry names (getSizeEntry, shared with
/// the interpreter).
std::string ProgramEmitter::count(snac::ProgramBufferOp buffer,
                                  const std::string &part) {
  auto [producer, index] =
      buffer.getSizeEntry<std::string>("g.rank()", part, "0");
  return formatv("g.count(/*producer=*/{0}, /*part=*/{1})", producer, index)
      .str();
}

/// Everything the device API cannot run, refused at the op before a line is
/// printed.
LogicalResult ProgramEmitter::check() {
  if (!policy.isWorkAssigned())
    return program.emitError()
           << "the CUDA backend needs the program's work assigned (ctas, "
              "threads and grain are 0 in its policy); run snac-assign-work "
              "first";
  const int64_t unit = unitBytes(policy.getEncoding());
  if (policy.getGrain() % unit != 0)
    return program.emitError()
           << "the device API moves " << unit << "-byte units with encoding "
           << snac::stringifyEncoding(policy.getEncoding())
           << "; grain = " << policy.getGrain()
           << " bytes is not a multiple of it";

  bool hasEpoch = false;
  WalkResult result = program.getBody().walk([&](Operation *op) {
    if (auto buffer = dyn_cast<snac::ProgramBufferOp>(op)) {
      if (buffer.getKind() == snac::BufferKind::input)
        input = buffer;
      else if (buffer.getKind() == snac::BufferKind::output)
        output = buffer;
      return WalkResult::advance();
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      if (loop.getNumResults() != 0) {
        loop.emitError() << "the CUDA backend lowers scf.for without "
                            "loop-carried values in a program";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    }
    hasEpoch |= isa<snac::EpochOp>(op);
    if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivUIOp,
            arith::RemUIOp, scf::YieldOp, snac::EpochOp, snac::PutOp,
            snac::PutEachOp, snac::TakeOp, snac::TakeEachOp, snac::ReduceTakeOp,
            snac::ReduceSpreadOp,
            snac::LaunchDependentsOp, snac::RetireOp, snac::McBarrierOp,
            snac::McReduceOp, snac::McReduceLocalOp, snac::McPutOp>(op))
      return WalkResult::advance();
    if (auto c = dyn_cast<arith::ConstantOp>(op);
        c && isa<IntegerAttr>(c.getValue()))
      return WalkResult::advance();
    op->emitError() << "the CUDA backend cannot lower '"
                    << op->getName().getStringRef() << "' in a snac.program";
    return WalkResult::interrupt();
  });
  if (result.wasInterrupted())
    return failure();
  // The counter is stored at the end of every call: without an epoch the
  // next call would reuse this one's slot and sequence.
  if (!hasEpoch)
    return program.emitError()
           << "the CUDA backend needs the program's snac.epoch (the call "
              "counter every call stores)";
  return success();
}

void ProgramEmitter::emitArith(Operation &op, int indent) {
  if (isa<arith::ConstantOp>(op))
    return; // Spelled inline where used.
  const char *sym = isa<arith::AddIOp>(op)    ? "+"
                    : isa<arith::SubIOp>(op)  ? "-"
                    : isa<arith::MulIOp>(op)  ? "*"
                    : isa<arith::RemUIOp>(op) ? "%"
                                              : "/";
  std::string lhs = value(op.getOperand(0)), rhs = value(op.getOperand(1));
  line(indent) << "const long long " << value(op.getResult(0)) << " = " << lhs
               << " " << sym << " " << rhs << ";\n";
}

void ProgramEmitter::emitFor(scf::ForOp loop, int indent) {
  std::string iv = value(loop.getInductionVar());
  line(indent) << "for (long long " << iv << " = "
               << value(loop.getLowerBound()) << "; " << iv << " < "
               << value(loop.getUpperBound()) << "; " << iv
               << " += " << value(loop.getStep()) << ") {\n";
  emitBlock(*loop.getBody(), indent + 1);
  line(indent) << "}\n";
}

/// The wait for the previous kernel goes right before the one dependent
/// load, so everything above it (address arithmetic) overlaps that kernel.
/// A chunked program runs the rest of the body once per step, each step
/// with its own epoch (the CTA's counter advances by the call's steps).
void ProgramEmitter::emitEpoch(snac::EpochOp op, int indent) {
  names[op.getEpoch()] = "e";
  if (policy.getPdl())
    line(indent) << "g.wait_previous();\n";
  if (!policy.isChunked()) {
    line(indent) << "const Epoch e = g.epoch();\n";
    return;
  }
  line(indent) << "const Epoch e0 = g.epoch();\n";
  // Agreed steps: the ranks exchange their step counts first.
  line(indent) << (policy.getAgree() ? "const long long steps = g.agree(e0);\n"
                                     : "const long long steps = g.steps();\n");
  line(indent) << "for (long long s = 0; s < steps; ++s) {\n";
  line(indent + 1) << "const Epoch e = e0.step(s);\n";
}

/// A put from the output is a forward (two-shot); snac.put's verifier made
/// sure it follows the reduce_take of that partition, so every thread reads
/// back its own stores (program.cuh, put).
void ProgramEmitter::emitPut(snac::PutOp op, int indent) {
  std::string dst = op.getTarget() ? value(op.getTarget()) : "kAllRanks";
  snac::ProgramBufferOp src = program.lookupBuffer(op.getSrcAttr());
  // Zero-copy: the consumer reads the partition where it is.
  if (inPlace(op.getDstAttr())) {
    line(indent) << "g.expose(/*op=*/" << nextOp++ << ", "
                 << epoch(op.getEpoch(), op.getDstAttr()) << ", "
                 << whereOf(src, value(op.getPart())) << ", " << dst << ");\n";
    return;
  }
  line(indent) << "g.put(/*op=*/" << nextOp++ << ", "
               << epoch(op.getEpoch(), op.getDstAttr()) << ", "
               << partition(src, op.getPart()) << ", "
               << count(src, op.getPart()) << ", " << dst << ");\n";
}

/// Every partition k to rank k in one call: the device issues the loads of
/// every k of a thread-step before its stores. The partition and count are
/// the buffer's own formulas with the lambda's parameter as the part.
void ProgramEmitter::emitPutEach(snac::PutEachOp op, int indent) {
  snac::ProgramBufferOp src = program.lookupBuffer(op.getSrcAttr());
  if (inPlace(op.getDstAttr())) {
    const bool spread = spreads();
    line(indent) << "g.expose_each" << (spread ? "</*Spread=*/true>" : "")
                 << "(/*op=*/" << nextOp++ << ", "
                 << epoch(op.getEpoch(), op.getDstAttr())
                 << ", [&](int k) { return " << whereOf(src, "k") << "; }"
                 << (spread ? ", " + whereOf(output, "0") : std::string())
                 << ");\n";
    return;
  }
  std::string head = "g.put_each(";
  line(indent) << head << "/*op=*/" << nextOp++ << ", "
               << epoch(op.getEpoch(), op.getDstAttr())
               << ", [&](int k) { return " << partition(src, "k") << "; },\n";
  line(indent).indent(head.size())
      << "[&](int k) { return " << count(src, "k") << "; });\n";
}

void ProgramEmitter::emitTake(snac::TakeOp op, int indent) {
  line(indent) << "g.take(/*op=*/" << nextOp++ << ", "
               << epoch(op.getEpoch(), op.getSrcAttr())
               << ", /*src=*/" << value(op.getSource()) << ", "
               << partition(output, op.getPart()) << ", "
               << count(output, op.getPart()) << ");\n";
}

/// Every source q into output partition q in one call: the device loads
/// every source's units of a thread-step before it stores any. (Not `p`:
/// that names the kernel's parameter block.)
void ProgramEmitter::emitTakeEach(snac::TakeEachOp op, int indent) {
  std::string head = "g.take_each(";
  line(indent) << head << "/*op=*/" << nextOp++ << ", "
               << epoch(op.getEpoch(), op.getSrcAttr())
               << ", [&](int q) { return " << partition(output, "q")
               << "; },\n";
  line(indent).indent(head.size())
      << "[&](int q) { return " << count(output, "q") << "; });\n";
}

void ProgramEmitter::emitReduceTake(snac::ReduceTakeOp op, int indent) {
  line(indent) << "g.reduce_take<"
               << cuda::deviceName("RedOp", common::toVocab(op.getOp()))
               << ">(/*op=*/"
               << nextOp++ << ", " << epoch(op.getEpoch(), op.getSrcAttr())
               << ", " << partition(output, op.getPart()) << ", "
               << count(output, op.getPart()) << ");\n";
}

void ProgramEmitter::emitReduceSpread(snac::ReduceSpreadOp op, int indent) {
  line(indent) << "g.reduce_spread<"
               << cuda::deviceName("RedOp", common::toVocab(op.getOp()))
               << ">(/*op=*/" << nextOp++ << ", "
               << epoch(op.getEpoch(), op.getSrcAttr()) << ");\n";
}

void ProgramEmitter::emitLaunchDependents(snac::LaunchDependentsOp,
                                          int indent) {
  line(indent) << "g.launch_dependents();\n";
}

void ProgramEmitter::emitRetire(snac::RetireOp op, int indent) {
  line(indent) << "g.retire(/*op=*/" << nextOp++ << ", "
               << value(op.getEpoch()) << ");\n";
}

void ProgramEmitter::emitMcBarrier(snac::McBarrierOp op, int indent) {
  // Its place among the call's barriers: the counters count every one.
  auto barriers =
      llvm::to_vector(program.getBody().front().getOps<snac::McBarrierOp>());
  int index = llvm::find(barriers, op) - barriers.begin();
  line(indent) << "g.barrier(/*op=*/" << nextOp++ << ", "
               << value(op.getEpoch()) << ", /*index=*/" << index
               << ", /*perCall=*/" << barriers.size() << ");\n";
}

void ProgramEmitter::emitMcData(Operation &op, int indent) {
  const char *call = isa<snac::McReduceOp>(op)        ? "reduce_to_all"
                     : isa<snac::McReduceLocalOp>(op) ? "reduce_to_local"
                                                      : "put_to_all";
  line(indent) << "g." << call << "(/*op=*/" << nextOp++ << ");\n";
}

void ProgramEmitter::emitMulticastHead(const std::string &name,
                                       const cuda::ElementType &elem,
                                       int64_t n) {
  std::string head = formatv("{0}(", name).str();
  os << formatv("extern \"C\" __global__ void __launch_bounds__({0}, 1)\n",
                policy.getThreads());
  os << head << "collcProgramParams p, collcMulticastParams mc,\n";
  os.indent(head.size()) << "const __grid_constant__ collc::prog::Sizes<" << n
                         << "> sizes) {\n";
  os << "  using namespace collc::prog;\n";
  os << formatv("  MulticastProgram<{0}, {1}, /*InputPacked=*/{2}> g(p, mc, "
                "sizes);\n",
                elem.cudaType, n,
                program.isInputPacked() ? "true" : "false");
}

void ProgramEmitter::emitOp(Operation &op, int indent) {
  if (auto loop = dyn_cast<scf::ForOp>(op))
    emitFor(loop, indent);
  else if (auto epoch = dyn_cast<snac::EpochOp>(op))
    emitEpoch(epoch, indent);
  else if (auto put = dyn_cast<snac::PutOp>(op))
    emitPut(put, indent);
  else if (auto each = dyn_cast<snac::PutEachOp>(op))
    emitPutEach(each, indent);
  else if (auto take = dyn_cast<snac::TakeOp>(op))
    emitTake(take, indent);
  else if (auto each = dyn_cast<snac::TakeEachOp>(op))
    emitTakeEach(each, indent);
  else if (auto reduce = dyn_cast<snac::ReduceTakeOp>(op))
    emitReduceTake(reduce, indent);
  else if (auto spread = dyn_cast<snac::ReduceSpreadOp>(op))
    emitReduceSpread(spread, indent);
  else if (auto launch = dyn_cast<snac::LaunchDependentsOp>(op))
    emitLaunchDependents(launch, indent);
  else if (auto retire = dyn_cast<snac::RetireOp>(op))
    emitRetire(retire, indent);
  else if (auto barrier = dyn_cast<snac::McBarrierOp>(op))
    emitMcBarrier(barrier, indent);
  else if (isa<snac::McReduceOp, snac::McReduceLocalOp, snac::McPutOp>(op))
    emitMcData(op, indent);
  else if (!isa<snac::ProgramBufferOp, scf::YieldOp>(op))
    emitArith(op, indent); // check() allowed nothing else.
}

void ProgramEmitter::emitBlock(Block &block, int indent) {
  for (Operation &op : block)
    emitOp(op, indent);
}

/// Prints the kernel `name` of element type `elem` at `n` ranks into `text`.
void ProgramEmitter::emitKernel(const std::string &name,
                                const cuda::ElementType &elem, int64_t n) {
  worldSize = n;
  text.clear();
  names.clear();
  nextName = nextOp = 0;
  if (program.isMultimem()) {
    emitMulticastHead(name, elem, n);
    for (Operation &op : program.getBody().front())
      emitOp(op, 1);
    os << "  g.finish(e);\n}\n\n";
    return;
  }
  std::string head = formatv("{0}(", name).str();
  os << formatv("extern \"C\" __global__ void __launch_bounds__({0}, 1)\n",
                policy.getThreads());
  const bool zeroCopy = program.isZeroCopy();
  // The peers and the size vector are read in place (program.cuh Peers).
  os << head << "collcProgramParams p, const __grid_constant__ "
     << "collc::prog::Peers<" << n << "> rx,\n";
  os.indent(head.size()) << "const __grid_constant__ collc::prog::Sizes<" << n
                         << "> sizes"
                         << (zeroCopy ? ", collcWindowParams win" : "")
                         << ") {\n";
  os << "  using namespace collc::prog;\n";
  os << formatv("  Program<{0}, {1}, Encoding::{2}, /*Slots=*/{3}, "
                "/*RegionBytes=*/{4},\n",
                elem.cudaType, n, snac::stringifyEncoding(policy.getEncoding()),
                policy.getSlots(), regionBytes(program, n));
  // Output partition k sized by this rank's row (two-shot) is the only
  // geometry whose offsets differ from the device API's default.
  bool outputByRow =
      !output.isPacked() && output.getSizes() == snac::SizeSide::row;
  // Partitions of different sizes (a `_v` buffer) take parts by their own
  // size, not the largest's (program.cuh partElemsOf): one division per op
  // and step, which fixed-size programs do without.
  const bool perPartParts = program.hasVariablePartitions();
  std::string tail;
  if (policy.isChunked())
    tail = formatv(", /*OutputByRow=*/{0}, /*ChunkBytes=*/{1}{2}{3}{4}{5}",
                   outputByRow ? "true" : "false", policy.getChunk(),
                   zeroCopy       ? ", /*InPlace=*/true"
                   : perPartParts ? ", /*InPlace=*/false"
                                  : "",
                   perPartParts ? ", /*PerPartParts=*/true" : "",
                   policy.getAgree()   ? ", /*Agree=*/true"
                   : policy.getPairs() ? ", /*Agree=*/false, /*Pairs=*/true"
                                       : "",
                   policy.getPairLl16()
                       ? formatv(", /*PairLL16=*/{0}", policy.getPairLl16())
                             .str()
                       : std::string())
               .str();
  else if (outputByRow)
    tail = ", /*OutputByRow=*/true";
  os << formatv("          /*InputPacked=*/{0}, /*Grain=*/{1}, "
                "/*Speculate=*/{2}{3}> g(p, rx, sizes{4});\n",
                program.isInputPacked() ? "true" : "false",
                policy.getGrain() / unitBytes(policy.getEncoding()),
                policy.getSpeculate() ? "true" : "false", tail,
                zeroCopy ? ", win" : "");
  // Ops after the epoch run inside the step loop of a chunked program.
  int indent = 1;
  for (Operation &op : program.getBody().front()) {
    emitOp(op, indent);
    if (isa<snac::EpochOp>(op) && policy.isChunked())
      indent = 2;
  }
  if (policy.isChunked())
    os << "  }\n  g.finish(e0.step(steps - 1));\n}\n\n";
  else
    os << "  g.finish(e);\n}\n\n";
}

LogicalResult ProgramEmitter::emit(std::vector<cuda::KernelInfo> *kernels,
                                   llvm::StringSet<> &kernelNames) {
  // Element types and world sizes are the collective's: a program is one
  // orchestration for all of them.
  auto collective = cuda::collectiveOf(program, program.getCollective());
  if (!collective)
    return program.emitError()
           << "no coll.collective named " << program.getCollectiveAttr()
           << " (its element types and world sizes name the kernels)";
  if (failed(check()))
    return failure();
  if (program.isMultimem()) {
    // multimem.* exists from sm_90: an older target gets no such kernel
    // (the runtime then serves the calls with the other programs).
    if (target.capability < 90)
      return success();
    file << "#if !defined(COLLC_ENABLE_MULTIMEM)\n#error \"the in-switch "
            "kernels below need COLLC_ENABLE_MULTIMEM (collc "
            "--enable-multimem)\"\n#endif\n";
  }

  std::string encoding = snac::stringifyEncoding(policy.getEncoding()).str();
  std::string variant = snac::stringifyVariant(program.getVariant()).str();
  file << formatv(
      "//===- @{0}: {1} program, {2}, band [{3}, {4}] bytes{5} -===//\n\n",
      collective.getSymName(), variant, encoding, policy.getBandLo(),
      policy.getBandHi(),
      program.isZeroCopy()
          ? formatv(", zero-copy, parts of up to {0} bytes per CTA",
                    policy.getChunk())
                .str()
      : policy.isChunked()
          ? formatv(", chunks of {0} bytes per CTA", policy.getChunk()).str()
          : std::string());
  std::string prefix =
      formatv("collc_{0}__{1}_{2}{3}", collective.getSymName(), variant,
              encoding,
              program.isZeroCopy()  ? "_zero_copy"
              : policy.isChunked() ? "_chunked"
                                   : "")
          .str();
  // A copy moves bytes whatever they hold: one kernel serves every type;
  // but sentinel readiness reserves a bit pattern of the type (its
  // canonical NaN: sentinel.cuh), which bytes do not have.
  const bool bytes = cuda::movesBytes(collective) &&
                     policy.getEncoding() != snac::Encoding::sentinel;
  // A program kernel stays one per world size: its loops over the ranks
  // unroll to straight-line code at a constant world size. Unrolled to a
  // capacity and cut at a run-time world size, one LL16 kernel took NVVM
  // 1.15 s against 0.13 s for a constant 8 ranks (sm_90, 2026-12-02): more
  // than the three kernels it would replace.
  return cuda::forEachKernel(
      collective, prefix, bytes, /*anyRanksUpTo=*/0,
      [&](const std::string &name, const cuda::ElementType &elem,
          int64_t n) -> LogicalResult {
        // The runtime finds a program by collective, variant and encoding.
        if (!kernelNames.insert(name).second)
          return program.emitError()
                 << "a second " << variant << " " << encoding
                 << " program for @" << collective.getSymName() << " (kernel "
                 << name
                 << "); the CUDA backend needs one per collective, variant "
                    "and encoding";
        // Parameters by value: the params, N peer pointers, the size vector.
        // A world size where they do not fit gets no program kernel; the
        // runtime then runs the v1 kernel, whose parameters are smaller.
        // In-switch: the switch reduces bf16, f16 and f32 only.
        StringRef type = elem.spelling;
        if (program.isMultimem() && !bytes && type != "bf16" &&
            type != "f16" && type != "f32")
          return program.emitError()
                 << "the switch reduces bf16, f16 and f32 (multimem."
                    "ld_reduce); @"
                 << collective.getSymName() << " has element type " << type;
        const long long paramBytes =
            program.isMultimem()
                ? cuda::kernelParamBytes(sizeof(collcProgramParams) +
                                             sizeof(collcMulticastParams),
                                         0, n)
                : cuda::kernelParamBytes(
                      sizeof(collcProgramParams) +
                          (program.isZeroCopy() ? sizeof(collcWindowParams)
                                                : 0),
                      1, n);
        if (paramBytes > COLLC_KERNEL_PARAM_LIMIT) {
          program.emitWarning()
              << "no program kernel at " << n << " ranks: its parameters would "
              << "take " << paramBytes << " bytes (24 bytes a rank), more than "
              << "the " << COLLC_KERNEL_PARAM_LIMIT
              << "-byte launch limit; calls at " << n
              << " ranks run the v1 kernel";
          return success();
        }
        emitKernel(name, elem, n);
        os.flush();
        // Compiled once: the text without the name, and without the spaces
        // that align the parameters after it, names the first kernel printed.
        std::string key;
        for (size_t i = 0; i < text.size(); ++i) {
          if (text.compare(i, name.size(), name) == 0) {
            key += '@';
            i += name.size() - 1;
          } else if (text[i] != ' ' || key.empty() || key.back() != ' ') {
            key += text[i];
          }
        }
        auto [first, fresh] = printed.try_emplace(key, name);
        if (fresh)
          file << text;
        if (!kernels)
          return success();
        cuda::KernelInfo info = cuda::kernelInfo(
            first->second, collective, elem, n, policy.getCtas(),
            policy.getThreads(), policy.getPdl() && target.hasPdl());
        info.parts = 1;
        info.inputLayout = snac::stringifyLayout(input.getLayout()).str();
        info.outputLayout = snac::stringifyLayout(output.getLayout()).str();
        info.variable = StringRef(info.inputLayout).ends_with("_v");
        cuda::ProgramInfo p;
        p.variant = variant;
        p.encoding = encoding;
        p.bandLo = policy.getBandLo();
        p.bandHi = policy.getBandHi();
        p.slots = policy.getSlots();
        p.regionBytes = regionBytes(program, n);
        p.inputPacked = program.isInputPacked();
        p.root = snac::stringifyRoot(program.getRootShape()).str();
        p.speculate = policy.getSpeculate();
        p.chunk = policy.getChunk();
        p.agree = policy.getAgree();
        p.pairs = policy.getPairs();
        p.pairLL16 = policy.getPairLl16();
        // In-switch: the multicast buffers, which a call must have
        // registered (the runtime binds them to multicast objects).
        if (program.isMultimem()) {
          p.multicast = true;
          if (input.getMulticast())
            p.registered.push_back("input");
          if (output.getMulticast())
            p.registered.push_back("output");
        }
        // Zero-copy: the buffers the program publishes, which a call must
        // have registered (the input always; the output when forwarded or
        // when peers store parts of it: a spread).
        if (program.isZeroCopy()) {
          p.registered.push_back("input");
          bool forwards = spreads();
          program.walk([&](snac::PutOp put) {
            forwards |= put.getSrc() == output.getSymName();
          });
          if (forwards)
            p.registered.push_back("output");
        }
        info.program = p;
        kernels->push_back(std::move(info));
        return success();
      });
}

bool cuda::hasPrograms(ModuleOp module) {
  return !module.getOps<snac::ProgramOp>().empty();
}

LogicalResult cuda::emitPrograms(ModuleOp module, const Target &target,
                                 llvm::raw_ostream &os,
                                 std::vector<KernelInfo> *kernels) {
  llvm::StringSet<> kernelNames;
  ProgramEmitter::Printed printed;
  for (auto program : module.getOps<snac::ProgramOp>())
    if (failed(ProgramEmitter(program, target, os, printed)
                   .emit(kernels, kernelNames)))
      return failure();
  return success();
}
