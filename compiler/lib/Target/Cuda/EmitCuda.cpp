//===- EmitCuda.cpp - snac schedules to CUDA C++ ----------------*- C++ -*-===//
//
// A direct printer rather than EmitC: a role body is a loop nest of a dozen
// op kinds, and printing it straight keeps each op's C++ next to its rule.
//
// Work split: every CTA of a role walks the whole loop nest (index
// arithmetic only) and runs a run of consecutive copy/reduce/notify/await
// ops only when it owns that run ("task"), round-robin. A run is one chunk's
// await-consume-publish, so one CTA does all of it; chunks are independent,
// so any CTA may take any chunk (ready words are per slot, not per stream).
//
//===----------------------------------------------------------------------===//

#include "collc/Target/Cuda/EmitCuda.h"
#include "collc/Target/Cuda/EmitProgram.h"

#include "collc/Dialect/Coll/IR/CollOps.h"
#include "collc/Dialect/Snac/IR/SnacOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

// COLLC_KERNEL_THREADS: the launch shape the kernels are compiled for.
#include "collc/device/snac/abi.h"
// The enums' device names, element types, partition counts.
#include "collc/vocab.h"

using namespace mlir;
using namespace collc;
using llvm::formatv;

std::optional<cuda::ElementType> cuda::elementTypeOf(Type type) {
  std::string s = coll::elementTypeSpelling(type);
  vocab::ElemType t = vocab::ElemType::BF16;
  if (!vocab::parse(s.data(), s.size(), t))
    return std::nullopt;
  return ElementType{vocab::spelling(t), vocab::cudaTypeName(t),
                     vocab::elemBytes(t)};
}

FailureOr<SmallVector<cuda::ElementType>>
cuda::elementTypesOf(coll::CollectiveOp collective) {
  SmallVector<ElementType> types;
  for (Attribute attr : collective.getElementTypes()) {
    std::optional<ElementType> elem =
        elementTypeOf(cast<TypeAttr>(attr).getValue());
    if (!elem)
      return collective.emitError() << "no CUDA type for " << attr;
    types.push_back(*elem);
  }
  return types;
}

bool cuda::movesBytes(coll::CollectiveOp collective) {
  return llvm::all_of(collective.getTransforms(), [](coll::TransformOp t) {
    return t.getConsume() == coll::ConsumeOp::copy;
  });
}

LogicalResult cuda::forEachKernel(
    coll::CollectiveOp collective, StringRef prefix, bool bytes,
    int64_t anyRanksUpTo,
    llvm::function_ref<LogicalResult(const std::string &, const ElementType &,
                                     int64_t)>
        each) {
  FailureOr<SmallVector<ElementType>> elems = elementTypesOf(collective);
  if (failed(elems))
    return failure();
  if (bytes)
    elems = SmallVector<ElementType>{kBytes};
  for (const ElementType &elem : *elems)
    for (int64_t n : collective.getWorldSizes())
      if (failed(each(anyRanksUpTo
                          ? formatv("{0}_{1}_upto{2}", prefix, elem.spelling,
                                    anyRanksUpTo)
                                .str()
                          : formatv("{0}_{1}_n{2}", prefix, elem.spelling, n)
                                .str(),
                      elem, n)))
        return failure();
  return success();
}

long long cuda::kernelParamBytes(long long fixed, int pointersPerRank,
                                 int64_t n) {
  return fixed + 8ll * pointersPerRank * n + 8ll * collcSizeVectorWords((int)n);
}

coll::CollectiveOp cuda::collectiveOf(Operation *op, StringRef name) {
  auto module = op->getParentOfType<ModuleOp>();
  return module ? module.lookupSymbol<coll::CollectiveOp>(name)
                : coll::CollectiveOp();
}

cuda::KernelInfo cuda::kernelInfo(std::string name,
                                  coll::CollectiveOp collective,
                                  const ElementType &elem, int64_t worldSize,
                                  int grid, int threads, bool pdl) {
  KernelInfo info;
  info.name = std::move(name);
  info.collective = collective.getSymName().str();
  info.elementType = elem.spelling;
  info.elementBytes = elem.bytes;
  if (StringRef(elem.spelling) == kBytes.spelling) {
    FailureOr<SmallVector<ElementType>> types = elementTypesOf(collective);
    if (succeeded(types))
      for (const ElementType &t : *types)
        info.serves.push_back(t.spelling);
  }
  info.worldSize = worldSize;
  info.capacity = worldSize;
  info.grid = grid;
  info.threads = threads;
  info.pdl = pdl;
  return info;
}

FailureOr<cuda::Target> cuda::parseTarget(StringRef name) {
  StringRef digits = name;
  if (!digits.consume_front("sm_"))
    return failure();
  digits = digits.rtrim("af");
  Target target;
  if (digits.getAsInteger(10, target.capability) || !coll::isSupportedTarget(name))
    return failure();
  target.name = name.str();
  return target;
}

namespace {

const char *kindName(snac::BufferKind k) {
  switch (k) {
  case snac::BufferKind::input:
    return "Kind::Input";
  case snac::BufferKind::output:
    return "Kind::Output";
  case snac::BufferKind::staging:
    return "Kind::Staging";
  case snac::BufferKind::intermediate:
    return "Kind::Intermediate";
  }
  llvm_unreachable("unknown buffer kind");
}


/// Emits one schedule: its descriptor, role functions, bookkeeping and
/// kernels.
class ScheduleEmitter {
public:
  ScheduleEmitter(snac::ScheduleOp schedule, coll::CollectiveOp collective,
                  const cuda::Target &target, llvm::raw_ostream &os)
      : schedule(schedule), collective(collective), target(target), os(os) {}

  LogicalResult emit(std::vector<cuda::KernelInfo> *kernels);

private:
  LogicalResult collectSymbols();
  LogicalResult emitRole(snac::RoleOp role, int index);
  LogicalResult emitBlock(Block &block, int indent);
  LogicalResult emitOp(Operation &op, int indent, const std::string &mine);
  LogicalResult emitAdvance();
  std::string name(Value v);
  std::string bufferArgs(FlatSymbolRefAttr ref);
  llvm::raw_ostream &line(int indent) { return os.indent(2 * indent); }

  snac::ScheduleOp schedule;
  coll::CollectiveOp collective;
  const cuda::Target &target;
  llvm::raw_ostream &os;
  std::string prefix;

  struct BufferDesc {
    snac::BufferKind kind;
    snac::GeometrySide side;
    int part;
  };
  llvm::StringMap<BufferDesc> buffers;
  llvm::StringMap<std::pair<snac::EventKind, int>> events; // kind, index
  int readyEvents = 0, freeEvents = 0;
  llvm::DenseMap<Value, std::string> names;
  unsigned nextName = 0, nextTask = 0;
  int currentRole = 0;
};

} // namespace

std::string ScheduleEmitter::name(Value v) {
  auto it = names.find(v);
  if (it != names.end())
    return it->second;
  std::string n = formatv("v{0}", nextName++).str();
  names[v] = n;
  return n;
}

/// `Kind::X, Side::Y, T` of a buffer, the template arguments of region().
std::string ScheduleEmitter::bufferArgs(FlatSymbolRefAttr ref) {
  const BufferDesc &b = buffers.lookup(ref.getValue());
  return formatv("{0}, Side::{1}, {2}", kindName(b.kind),
                 b.side == snac::GeometrySide::input_of ? "Input" : "Output",
                 b.part)
      .str();
}

LogicalResult ScheduleEmitter::collectSymbols() {
  for (Operation &op : schedule.getBody().front()) {
    if (auto b = dyn_cast<snac::BufferOp>(op)) {
      buffers[b.getSymName()] = {b.getKind(), b.getSide(),
                                 static_cast<int>(b.getPart())};
    } else if (auto e = dyn_cast<snac::EventOp>(op)) {
      if (e.getKind() == snac::EventKind::ready)
        events[e.getSymName()] = {e.getKind(), readyEvents++};
      else
        events[e.getSymName()] = {e.getKind(), freeEvents++};
      if (e.getEncoding() != snac::Encoding::flag)
        return e.emitError() << "the CUDA backend implements flag readiness "
                                "only; '"
                             << stringifyEncoding(e.getEncoding())
                             << "' encoding is not lowered yet";
    }
  }
  if (schedule.getStagingSlots() < 1)
    return schedule.emitError()
           << "the CUDA backend needs staging_slots >= 1 (a bounded "
              "workspace); got 0";
  return success();
}

LogicalResult ScheduleEmitter::emitOp(Operation &op, int indent,
                                      const std::string &mine) {
  auto v = [&](Value value) { return name(value); };
  auto cond = [&]() -> llvm::raw_ostream & {
    return line(indent) << "if (" << mine << ") ";
  };
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    line(indent) << "const long long " << v(c.getResult()) << " = "
                 << cast<IntegerAttr>(c.getValue()).getInt() << ";\n";
  } else if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::RemUIOp,
                 arith::DivUIOp>(op)) {
    const char *sym = isa<arith::AddIOp>(op)   ? "+"
                      : isa<arith::SubIOp>(op) ? "-"
                      : isa<arith::MulIOp>(op) ? "*"
                      : isa<arith::RemUIOp>(op) ? "%"
                                                : "/";
    line(indent) << "const long long " << v(op.getResult(0)) << " = "
                 << v(op.getOperand(0)) << " " << sym << " "
                 << v(op.getOperand(1)) << ";\n";
  } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
    std::string iv = v(loop.getInductionVar());
    line(indent) << "for (long long " << iv << " = " << v(loop.getLowerBound())
                 << "; " << iv << " < " << v(loop.getUpperBound()) << "; "
                 << iv << " += " << v(loop.getStep()) << ") {\n";
    if (failed(emitBlock(*loop.getBody(), indent + 1)))
      return failure();
    line(indent) << "}\n";
  } else if (isa<scf::YieldOp>(op)) {
    return success();
  } else if (auto nc = dyn_cast<snac::NumChunksOp>(op)) {
    const BufferDesc &b = buffers.lookup(nc.getBuffer());
    line(indent) << "const long long " << v(nc.getResult())
                 << " = ctx.template numChunks<Side::"
                 << (b.side == snac::GeometrySide::input_of ? "Input"
                                                            : "Output")
                 << ", " << b.part << ">(" << v(nc.getOwner()) << ", "
                 << v(nc.getPart()) << ");\n";
  } else if (auto mc = dyn_cast<snac::MaxChunksOp>(op)) {
    const BufferDesc &b = buffers.lookup(mc.getBuffer());
    line(indent) << "const long long " << v(mc.getResult())
                 << " = ctx.template maxChunks<Side::"
                 << (b.side == snac::GeometrySide::input_of ? "Input"
                                                            : "Output")
                 << ", " << b.part << ">(" << v(mc.getOwner()) << ");\n";
  } else if (auto slot = dyn_cast<snac::SlotOp>(op)) {
    line(indent) << "const long long " << v(slot.getResult())
                 << " = Ctx::template slot<"
                 << kindName(buffers.lookup(slot.getBuffer()).kind) << ">("
                 << v(slot.getChunk()) << ");\n";
  } else if (auto copy = dyn_cast<snac::CopyOp>(op)) {
    cond() << "{\n";
    line(indent + 1) << "long long srcLen, dstLen;\n";
    line(indent + 1) << "const E *src = ctx.template region<"
                     << bufferArgs(copy.getSrcAttr()) << ">("
                     << v(copy.getSrcOwner()) << ", " << v(copy.getSrcPart())
                     << ", " << v(copy.getSrcChunk()) << ", srcLen);\n";
    line(indent + 1) << "E *dst = ctx.template region<"
                     << bufferArgs(copy.getDstAttr()) << ">("
                     << v(copy.getDstOwner()) << ", " << v(copy.getDstPart())
                     << ", " << v(copy.getDstChunk()) << ", dstLen);\n";
    line(indent + 1)
        << "collc::dev::copy(dst, src, (size_t)dstLen * sizeof(E));\n";
    line(indent) << "}\n";
  } else if (auto reduce = dyn_cast<snac::ReduceOp>(op)) {
    cond() << "{\n";
    line(indent + 1) << "long long dstLen;\n";
    line(indent + 1) << "E *dst = ctx.template region<"
                     << bufferArgs(reduce.getDstAttr()) << ">("
                     << v(reduce.getDstOwner()) << ", "
                     << v(reduce.getDstPart()) << ", "
                     << v(reduce.getDstChunk()) << ", dstLen);\n";
    // Sources in ascending rank order: the Atom accumulates in that order.
    line(indent + 1) << "auto source = [&](int r) -> const E * {\n";
    line(indent + 2) << "long long len;\n";
    line(indent + 2) << "return ctx.template region<"
                     << bufferArgs(reduce.getSrcAttr()) << ">(r, "
                     << v(reduce.getSrcPart()) << ", "
                     << v(reduce.getSrcChunk()) << ", len);\n";
    line(indent + 1) << "};\n";
    line(indent + 1) << "collc::dev::reduce<E, "
                     << cuda::deviceName("collc::dev::RedOp",
                                   common::toVocab(reduce.getOp()))
                     << ">(dst, source, ctx.n(), (size_t)dstLen);\n";
    line(indent) << "}\n";
  } else if (auto notify = dyn_cast<snac::NotifyOp>(op)) {
    auto [kind, index] = events.lookup(notify.getEvent());
    if (notify.getKey().size() != 2)
      return notify.emitError()
             << "the CUDA backend lowers events keyed by (partition, chunk "
                "or slot); got "
             << notify.getKey().size() << " key values";
    std::string target = notify.getTarget() ? v(notify.getTarget()) : "-1";
    cond() << "ctx."
           << (kind == snac::EventKind::ready ? "notifyReady" : "notifyFree")
           << "(" << index << " /* " << notify.getEvent() << " */, "
           << v(notify.getKey()[0]) << ", " << v(notify.getKey()[1]) << ", "
           << target << ");\n";
  } else if (auto await = dyn_cast<snac::AwaitOp>(op)) {
    auto [kind, index] = events.lookup(await.getEvent());
    if (await.getKey().size() != 2)
      return await.emitError()
             << "the CUDA backend lowers events keyed by (partition, chunk "
                "or slot); got "
             << await.getKey().size() << " key values";
    std::string k = v(await.getKey()[0]), c = v(await.getKey()[1]);
    if (kind == snac::EventKind::ready) {
      std::string source = await.getSource() ? v(await.getSource()) : "-1";
      cond() << "if (!ctx.awaitReady(" << index << " /* " << await.getEvent()
             << " */, " << k << ", " << c << ", " << source << ", "
             << currentRole << ")) return false;\n";
    } else {
      // A use count needs the chunk whose slot this is.
      auto slot = await.getKey()[1].getDefiningOp<snac::SlotOp>();
      if (!slot)
        return await.emitError()
               << "the CUDA backend needs the slot key of a free event to "
                  "come from snac.slot";
      cond() << "if (!ctx.awaitFree(" << index << " /* " << await.getEvent()
             << " */, " << k << ", " << c << ", " << v(slot.getChunk())
             << ", " << v(await.getQuota()) << ", " << currentRole
             << ")) return false;\n";
    }
  } else {
    return op.emitError() << "the CUDA backend cannot lower '"
                          << op.getName().getStringRef() << "'";
  }
  return success();
}

LogicalResult ScheduleEmitter::emitBlock(Block &block, int indent) {
  // Consecutive copy/reduce/notify/await ops form one task, owned by one CTA.
  std::string mine;
  for (Operation &op : block) {
    bool sideEffect = isa<snac::CopyOp, snac::ReduceOp, snac::NotifyOp,
                          snac::AwaitOp>(op);
    if (sideEffect && mine.empty()) {
      mine = formatv("mine{0}", nextTask++).str();
      line(indent) << "const bool " << mine << " = (task++ % kCtas) == cta;\n";
    } else if (!sideEffect && !isa<arith::ConstantOp, snac::SlotOp>(op)) {
      mine.clear();
    }
    if (failed(emitOp(op, indent, mine)))
      return failure();
  }
  return success();
}

LogicalResult ScheduleEmitter::emitRole(snac::RoleOp role, int index) {
  currentRole = index;
  Block &body = role.getBody().front();
  names[role.getRank()] = "rank";
  names[role.getWorldSize()] = "n";
  names[role.getRootRank()] = "root";
  os << formatv("/// Role '{0}' ({1}, {2} CTAs).\n", role.getSymName(),
                stringifyParticipants(role.getParticipants()), role.getCtas());
  os << "template <class Ctx>\n";
  os << formatv("__device__ bool {0}_{1}(Ctx &ctx, const int cta) {{\n",
                prefix, role.getSymName());
  os << "  using E = typename Ctx::Elem;\n";
  os << formatv("  constexpr int kCtas = {0};\n", role.getCtas());
  os << "  const long long rank = ctx.rank();\n";
  os << "  const long long n = ctx.n();\n";
  os << "  const long long root = ctx.root();\n";
  os << "  (void)n; (void)root;\n";
  if (role.getParticipants() == snac::Participants::root)
    os << "  if (rank != root) return true;\n";
  os << "  long long task = 0;\n  (void)task;\n";
  if (failed(emitBlock(body, 1)))
    return failure();
  os << "  return true;\n}\n\n";
  return success();
}

/// The last CTA of a call advances the use counts of the slots every free
/// event guards (the formula: collc/vocab.h, applied by Context::advanceUses
/// over the guarded buffer's partitions at this rank).
LogicalResult ScheduleEmitter::emitAdvance() {
  os << "template <class Ctx>\n";
  os << formatv("__device__ void {0}_advance(Ctx &ctx) {{\n", prefix);
  os << "  const long long rank = ctx.rank(), root = ctx.root();\n";
  os << "  (void)rank; (void)root;\n";
  llvm::StringSet<> done;
  for (auto role : schedule.getBody().getOps<snac::RoleOp>()) {
    WalkResult result = role.walk([&](snac::AwaitOp await) {
      auto [kind, index] = events.lookup(await.getEvent());
      if (kind != snac::EventKind::free || !done.insert(await.getEvent()).second)
        return WalkResult::advance();
      auto slot = await.getKey()[1].getDefiningOp<snac::SlotOp>();
      if (!slot) {
        await.emitError() << "the CUDA backend needs the slot key of a free "
                             "event to come from snac.slot";
        return WalkResult::interrupt();
      }
      const BufferDesc &b = buffers.lookup(slot.getBuffer());
      const char *side =
          b.side == snac::GeometrySide::input_of ? "Input" : "Output";
      std::string guard =
          role.getParticipants() == snac::Participants::root
              ? "if (rank == root) "
              : "";
      os << formatv("  {0}ctx.template advanceUses<Side::{1}, {2}>({3} /* "
                    "{4} */);\n",
                    guard, side, b.part, index, await.getEvent());
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return failure();
  }
  os << "}\n\n";
  return success();
}

LogicalResult ScheduleEmitter::emit(std::vector<cuda::KernelInfo> *kernels) {
  prefix = ("collc_" + collective.getSymName()).str();
  if (failed(collectSymbols()))
    return failure();
  auto transforms = collective.getTransforms();

  // The collective's layouts, baked in.
  os << "//===- @" << collective.getSymName() << " -===//\n\n";
  os << "struct " << prefix << "_desc {\n";
  os << "  static constexpr int kParts = " << transforms.size() << ";\n";
  os << "  static constexpr Part kPart[" << transforms.size() << "] = {";
  for (auto [i, t] : llvm::enumerate(transforms)) {
    os << (i ? ", " : "") << "{"
       << cuda::deviceName("Consume", common::toVocab(t.getConsume())) << ", "
       << cuda::deviceName("Layout", common::toVocab(t.getInput())) << ", "
       << cuda::deviceName("Layout", common::toVocab(t.getOutput())) << ", "
       << cuda::deviceName("Root", common::toVocab(t.getRootRole())) << "}";
  }
  os << "};\n};\n\n";

  SmallVector<snac::RoleOp> roles =
      llvm::to_vector(schedule.getBody().getOps<snac::RoleOp>());
  for (auto [i, role] : llvm::enumerate(roles))
    if (failed(emitRole(role, i)))
      return failure();
  if (failed(emitAdvance()))
    return failure();

  int grid = 0;
  for (auto role : roles)
    grid += role.getCtas();
  // A copy moves bytes whatever they hold: one kernel serves every type.
  // The schedule is the same at every world size (its loops run to the
  // call's): one kernel serves them all, a third of the kernels to compile
  // for three world sizes.
  ArrayRef<int64_t> worldSizes = collective.getWorldSizes();
  const int64_t capacity =
      worldSizes.size() > 1 ? *llvm::max_element(worldSizes) : 0;
  return cuda::forEachKernel(
      collective, prefix, cuda::movesBytes(collective), capacity,
      [&](const std::string &kernel, const cuda::ElementType &elem,
          int64_t n) -> LogicalResult {
        // Sizes by value (abi.h): the parameters, sized for the kernel's
        // capacity, must fit the launch limit.
        const int64_t ranks = capacity ? capacity : n;
        const long long paramBytes =
            cuda::kernelParamBytes(sizeof(collcKernelParams), 0, ranks);
        if (paramBytes > COLLC_KERNEL_PARAM_LIMIT)
          return collective.emitError()
                 << "at " << ranks << " ranks the kernel parameters take "
                 << paramBytes
                 << " bytes (the size vector is 16 bytes a rank), "
                 << "more than the " << COLLC_KERNEL_PARAM_LIMIT
                 << "-byte launch limit; use fewer ranks";
        // A kernel of every world size is printed at the first.
        const bool print = !capacity || n == worldSizes.front();
        std::string text;
        llvm::raw_string_ostream os(text);
        os << "extern \"C\" __global__ void __launch_bounds__("
              "COLLC_KERNEL_THREADS, 1)\n"
           << kernel << "(const collcKernelParams params,\n"
           << "    const __grid_constant__ SizeVector<" << ranks << "> sizes) {\n";
        if (target.hasPdl())
          os << "  // Wait for the previous kernel on the stream (programmatic "
                "dependent launch).\n  collc::dev::griddepcontrol_wait();\n";
        os << formatv(
            "  using Ctx = Context<{0}, {1}, {2}_desc, {3}, {4}, {5}, "
            "{6}{7}>;\n",
            elem.cudaType, ranks, prefix,
            schedule.getChunkBytes(), schedule.getStagingSlots(), readyEvents,
            freeEvents, capacity ? ", /*AnyRanks=*/true" : "");
        os << "  Ctx ctx(params, sizes.v);\n";
        os << "  // The claim (a concurrent call does nothing) and the arrival "
              "word.\n";
        os << "  if (!ctx.begin()) return;\n  bool ok = true;\n";
        os << "  const int b = blockIdx.x;\n";
        int start = 0;
        for (auto [i, role] : llvm::enumerate(roles)) {
          int end = start + role.getCtas();
          os << formatv("  {0}if (b < {1}) ok = {2}_{3}(ctx, b - {4});\n",
                        i ? "else " : "", end, prefix, role.getSymName(),
                        start);
          start = end;
        }
        os << "  if (!ok) return; // A wait timed out; the error is "
              "recorded.\n";
        os << "  if (ctx.arriveLast() && threadIdx.x == 0) {\n";
        os << formatv("    {0}_advance(ctx);\n", prefix);
        os << "    ctx.finishCall();\n  }\n";
        if (target.hasPdl())
          os << "  collc::dev::griddepcontrol_launch_dependents();\n";
        os << "}\n\n";
        if (print)
          this->os << text;
        if (kernels) {
          cuda::KernelInfo info =
              cuda::kernelInfo(kernel, collective, elem, n, grid,
                               COLLC_KERNEL_THREADS, target.hasPdl());
          info.capacity = ranks;
          info.chunkBytes = schedule.getChunkBytes();
          info.slots = schedule.getStagingSlots();
          info.readyEvents = readyEvents;
          info.freeEvents = freeEvents;
          info.parts = transforms.size();
          info.hasIntermediate = transforms.size() == 2;
          auto partitions = [&](coll::Layout l) {
            return vocab::partitions(common::toVocab(l), (int)n);
          };
          info.stagingPartitions = partitions(transforms[0].getInput());
          info.intermediatePartitions =
              info.hasIntermediate ? partitions(transforms[0].getOutput()) : 0;
          info.rooted = collective.getRootRole() != coll::Root::none;
          info.inputLayout = stringifyLayout(collective.getInputLayout()).str();
          info.outputLayout =
              stringifyLayout(collective.getOutputLayout()).str();
          info.variable = coll::isVariable(collective.getInputLayout());
          kernels->push_back(std::move(info));
        }
        return success();
      });
}

LogicalResult cuda::emitCuda(ModuleOp module, const Target &target,
                             llvm::raw_ostream &os,
                             std::vector<KernelInfo> *kernels) {
  // The v1 support only where there are schedules (a module of programs
  // alone is what collc-translate tests op by op).
  const bool programs = hasPrograms(module);
  const bool schedules =
      !module.getOps<snac::ScheduleOp>().empty() || !programs;
  os << "// Generated by collc for " << target.name
     << ". Do not edit: change the spec.\n";
  if (schedules) {
    os << "#include \"collc/device/atom.cuh\"\n";
    os << "#include \"collc/device/snac/schedule.cuh\"\n";
  }
  if (programs)
    os << "#include \"collc/device/snac/program.cuh\"\n";
  // In-switch programs (collc --enable-multimem) only, sm_90 and newer.
  if (target.capability >= 90 &&
      llvm::any_of(module.getOps<snac::ProgramOp>(),
                   [](snac::ProgramOp p) { return p.isMultimem(); }))
    os << "#include \"collc/device/snac/multimem_program.cuh\"\n";
  os << "\n";
  if (schedules)
    os << "using namespace collc::dev::snac;\n\n";
  for (auto schedule : module.getOps<snac::ScheduleOp>()) {
    auto collective = cuda::collectiveOf(schedule, schedule.getCollective());
    if (!collective)
      return schedule.emitError() << "no coll.collective named @"
                                  << schedule.getCollective();
    if (failed(ScheduleEmitter(schedule, collective, target, os).emit(kernels)))
      return failure();
  }
  return emitPrograms(module, target, os, kernels);
}
