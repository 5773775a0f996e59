//===- SnacOps.cpp - snac operations and their verifiers -------*- C++ -*-===//

#include "collc/Dialect/Snac/IR/SnacOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace collc::snac;

#include "collc/Dialect/Snac/IR/SnacEnums.cpp.inc"

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// An enum attribute as a bare keyword (`staging`, `ready`, `sum`).
template <typename AttrT>
static ParseResult parseKeyword(OpAsmParser &parser, AttrT &attr) {
  using EnumT = decltype(std::declval<AttrT>().getValue());
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<EnumT> value = symbolizeEnum<EnumT>(keyword);
  if (!value)
    return parser.emitError(loc) << "unexpected keyword '" << keyword << "'";
  attr = AttrT::get(parser.getContext(), *value);
  return success();
}

template <typename AttrT>
static void printKeyword(OpAsmPrinter &printer, Operation *, AttrT attr) {
  printer << stringifyEnum(attr.getValue());
}

/// A peer: an index value, or `all` (every rank) when absent.
static ParseResult
parsePeer(OpAsmParser &parser,
          std::optional<OpAsmParser::UnresolvedOperand> &peer) {
  if (succeeded(parser.parseOptionalKeyword("all")))
    return success();
  OpAsmParser::UnresolvedOperand operand;
  if (parser.parseOperand(operand))
    return failure();
  peer = operand;
  return success();
}

static void printPeer(OpAsmPrinter &printer, Operation *, Value peer) {
  if (peer)
    printer << peer;
  else
    printer << "all";
}

#define GET_OP_CLASSES
#include "collc/Dialect/Snac/IR/SnacOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Symbol helpers
//===----------------------------------------------------------------------===//

/// The `OpT` (buffer or event) `ref` names in the schedule around `op`, or an
/// error.
template <typename OpT>
static FailureOr<OpT> lookupIn(Operation *op, FlatSymbolRefAttr ref) {
  auto schedule = op->getParentOfType<ScheduleOp>();
  if (!schedule)
    return op->emitOpError() << "must be inside a snac.schedule";
  auto found = schedule.lookup<OpT>(ref);
  if (!found)
    return op->emitOpError() << "'" << ref.getValue() << "' is not a "
                             << OpT::getOperationName() << " of this schedule";
  return found;
}

static FailureOr<BufferOp> lookupBuffer(Operation *op, FlatSymbolRefAttr ref) {
  return lookupIn<BufferOp>(op, ref);
}

static FailureOr<EventOp> lookupEvent(Operation *op, FlatSymbolRefAttr ref) {
  return lookupIn<EventOp>(op, ref);
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

LogicalResult ScheduleOp::verifyRegions() {
  bool hasRole = false;
  for (Operation &op : getBody().front()) {
    if (!isa<BufferOp, EventOp, RoleOp>(op))
      return op.emitOpError()
             << "is not allowed in a snac.schedule; expected snac.buffer, "
                "snac.event or snac.role";
    if (auto buffer = dyn_cast<BufferOp>(op);
        buffer && buffer.getKind() == BufferKind::receive)
      return buffer.emitOpError()
             << "declares a receive buffer, which belongs to a snac.program";
    hasRole |= isa<RoleOp>(op);
  }
  if (!hasRole)
    return emitOpError() << "has no snac.role";
  return success();
}

LogicalResult RoleOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != 3 ||
      !llvm::all_of(body.getArgumentTypes(),
                    [](Type t) { return t.isIndex(); }))
    return emitOpError() << "body must take three index arguments (rank, "
                            "world size, root), got "
                         << body.getNumArguments();
  return success();
}

void RoleOp::getAsmBlockArgumentNames(Region &region,
                                      OpAsmSetValueNameFn setName) {
  if (region.empty() || region.front().getNumArguments() != 3)
    return;
  setName(region.front().getArgument(0), "rank");
  setName(region.front().getArgument(1), "n");
  setName(region.front().getArgument(2), "root");
}

LogicalResult NumChunksOp::verify() {
  return lookupBuffer(*this, getBufferAttr());
}

LogicalResult MaxChunksOp::verify() {
  return lookupBuffer(*this, getBufferAttr());
}

LogicalResult SlotOp::verify() { return lookupBuffer(*this, getBufferAttr()); }

LogicalResult CopyOp::verify() {
  FailureOr<BufferOp> src = lookupBuffer(*this, getSrcAttr());
  FailureOr<BufferOp> dst = lookupBuffer(*this, getDstAttr());
  if (failed(src) || failed(dst))
    return failure();
  if (dst->getKind() == BufferKind::input)
    return emitOpError() << "writes the input buffer '" << getDst() << "'";
  if (src->getKind() == BufferKind::output)
    return emitOpError() << "reads the output buffer '" << getSrc() << "'";
  return success();
}

LogicalResult ReduceOp::verify() {
  FailureOr<BufferOp> src = lookupBuffer(*this, getSrcAttr());
  FailureOr<BufferOp> dst = lookupBuffer(*this, getDstAttr());
  if (failed(src) || failed(dst))
    return failure();
  if (!src->isPeerAccessible())
    return emitOpError() << "reads every rank's '" << getSrc()
                         << "', which is not peer-accessible";
  if (dst->getKind() == BufferKind::input)
    return emitOpError() << "writes the input buffer '" << getDst() << "'";
  return success();
}

LogicalResult NotifyOp::verify() {
  if (getKey().empty())
    return emitOpError() << "needs a key";
  return lookupEvent(*this, getEventAttr());
}

LogicalResult AwaitOp::verify() {
  if (getKey().empty())
    return emitOpError() << "needs a key";
  FailureOr<EventOp> event = lookupEvent(*this, getEventAttr());
  if (failed(event))
    return failure();
  if (event->getKind() == EventKind::free) {
    if (getSource() || !getQuota())
      return emitOpError() << "awaits the free event '" << getEvent()
                           << "', which is counted from all ranks: write "
                              "'from all quota %n'";
  } else if (getQuota()) {
    return emitOpError() << "takes no quota: '" << getEvent()
                         << "' is a ready event";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Programs
//===----------------------------------------------------------------------===//

ProgramBufferOp ProgramOp::lookupBuffer(FlatSymbolRefAttr name) {
  return dyn_cast_or_null<ProgramBufferOp>(
      ::mlir::SymbolTable::lookupSymbolIn(*this, name));
}

ProgramBufferOp ProgramOp::getBufferOfKind(BufferKind kind) {
  for (auto buffer : getBody().front().getOps<ProgramBufferOp>())
    if (buffer.getKind() == kind)
      return buffer;
  return {};
}

int ProgramOp::getReceiveIndex(ProgramBufferOp buffer) {
  int index = 0;
  for (auto b : getBody().front().getOps<ProgramBufferOp>()) {
    if (b == buffer)
      return index;
    index += b.getKind() == BufferKind::receive;
  }
  return -1;
}

bool ProgramOp::isInputPacked() {
  ProgramBufferOp input = getBufferOfKind(BufferKind::input);
  return input && input.isPacked();
}

bool ProgramOp::hasVariablePartitions() {
  for (auto buffer : getBody().getOps<ProgramBufferOp>()) {
    Layout l = buffer.getLayout();
    if (l == Layout::packed_v || l == Layout::scattered_v ||
        l == Layout::transposed_v)
      return true;
  }
  return false;
}

void ProgramOp::getAsmBlockArgumentNames(Region &region,
                                         OpAsmSetValueNameFn setName) {
  if (region.empty() || region.front().getNumArguments() != 2)
    return;
  setName(region.front().getArgument(0), "rank");
  setName(region.front().getArgument(1), "n");
}

void EpochOp::getAsmResultNames(OpAsmSetValueNameFn setName) {
  setName(getEpoch(), "epoch");
}

LogicalResult ProgramOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != 2 ||
      !llvm::all_of(body.getArgumentTypes(),
                    [](Type t) { return t.isIndex(); }))
    return emitOpError() << "body must take two index arguments (rank, "
                            "world size), got "
                         << body.getNumArguments();
  int inputs = 0, outputs = 0, receives = 0;
  for (auto buffer : body.getOps<ProgramBufferOp>()) {
    inputs += buffer.getKind() == BufferKind::input;
    outputs += buffer.getKind() == BufferKind::output;
    receives += buffer.getKind() == BufferKind::receive;
  }
  if (isMultimem()) {
    if (inputs != 1 || outputs != 1 || receives != 0)
      return emitOpError() << "is multimem and must declare one input and "
                              "one output snac.program_buffer and no receive "
                              "buffer (the switch carries the data)";
  } else if (inputs != 1 || outputs != 1 || receives < 1) {
    return emitOpError() << "must declare one input, one output and at least "
                            "one receive snac.program_buffer";
  }
  // A rooted call's shaped sizes have empty partitions: run-time sizes.
  // Sending every row to partition `root` needs one partition per rank.
  if (getRootShape() != Root::none) {
    ProgramBufferOp input = getBufferOfKind(BufferKind::input);
    Layout layout = input.getLayout();
    if (layout != Layout::packed_v && layout != Layout::scattered_v)
      return emitOpError() << "is the program of a rooted collective (root "
                           << stringifyRoot(getRootShape())
                           << "), so its input needs run-time sizes "
                              "(packed_v or scattered_v), got "
                           << stringifyLayout(layout);
    if (getRootShape() == Root::consumer && input.isPacked())
      return emitOpError() << "has root consumer, which sends each rank's "
                              "input to partition `root`: its input must be "
                              "scattered_v, got packed_v";
  }
  // One call number per call; the dependent launch once, after every remote
  // write (the next kernel's prologue then overlaps only local work).
  Operation *epoch = nullptr, *launch = nullptr;
  WalkResult result = getBody().walk([&](Operation *op) {
    if (isa<EpochOp>(op)) {
      if (epoch) {
        op->emitOpError() << "is the second snac.epoch of its program";
        return WalkResult::interrupt();
      }
      epoch = op;
    } else if (isa<LaunchDependentsOp>(op)) {
      if (launch) {
        op->emitOpError()
            << "is the second snac.launch_dependents of its program";
        return WalkResult::interrupt();
      }
      launch = op;
    } else if (isa<PutOp, PutEachOp, McReduceOp, McReduceLocalOp, McPutOp>(
                   op) &&
               launch) {
      op->emitOpError() << "follows snac.launch_dependents, which must come "
                           "after the last remote write";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  // A rank counts a chunked call's steps from its size vector, its row and
  // column of the size matrix; of an unrooted transposed_v exchange that
  // need not hold the largest entry, so two ranks could count different
  // steps and wait for each other's missing ones. (A rooted one may carry
  // fixed sizes, whose count is in every rank's row or column.)
  if (getPolicy().isChunked() && !getPolicy().getAgree() &&
      !getPolicy().getPairs() && getRootShape() == Root::none &&
      getBufferOfKind(BufferKind::output).getLayout() == Layout::transposed_v)
    return emitOpError() << "is chunked with a transposed_v output and "
                            "neither policy agree nor pairs: its ranks see "
                            "only their row and column of the size matrix "
                            "and could count different steps (deadlock); add "
                            "`agree = true` or `pairs = true`";
  // Pair steps: every op that moves or awaits data goes to one peer at a
  // time, so each pair can run its own steps (docs/snac.md "Pair steps").
  if (getPolicy().getPairs()) {
    WalkResult pairs = getBody().walk([&](Operation *op) {
      if (!isa<SnacDialect>(op->getDialect()) ||
          isa<ProgramBufferOp, EpochOp, LaunchDependentsOp, PutEachOp,
              TakeEachOp, RetireOp>(op))
        return WalkResult::advance();
      op->emitOpError()
          << "runs in a program with policy pairs, whose ops each go to "
             "one peer at a time (snac.put_each, snac.take_each, "
             "snac.retire): each pair of ranks counts its own steps";
      return WalkResult::interrupt();
    });
    if (pairs.wasInterrupted())
      return failure();
  }
  // Small pairs by LL16 stage their parts in an area of the receive
  // buffer: a zero-copy program's regions hold words only.
  if (getPolicy().getPairLl16() != 0 && isZeroCopy())
    return emitOpError() << "has policy pair_ll16 and in_place receive "
                            "buffers: small pairs stage their parts as LL16 "
                            "packets, which a zero-copy program has no room "
                            "for";
  if (failed(verifyZeroCopy()) || failed(verifyMultimem()))
    return failure();
  return isMultimem() ? success() : verifyPhases();
}

/// The in-switch data ops: they reach every rank's buffers at once.
static bool isMcData(Operation *op) {
  return isa<McReduceOp, McReduceLocalOp, McPutOp>(op);
}

LogicalResult ProgramOp::verifyMultimem() {
  Block &body = getBody().front();
  if (!isMultimem()) {
    for (Operation &op : body) {
      if (isMcData(&op) || isa<McBarrierOp>(op))
        return op.emitOpError() << "is an in-switch op, which only a "
                                   "multimem program runs";
      if (auto buffer = dyn_cast<ProgramBufferOp>(op);
          buffer && buffer.getMulticast())
        return buffer.emitOpError()
               << "is multicast, which only a multimem program's buffers are";
    }
    return success();
  }
  PolicyAttr policy = getPolicy();
  if (getEncoding() != Encoding::flag || policy.isChunked() ||
      policy.getSpeculate() || policy.getAgree() || policy.getPairs())
    return emitOpError() << "is multimem, whose readiness is its barriers' "
                            "counters: it needs encoding flag, no chunk, no "
                            "speculation and no agreement";
  if (getRootShape() != Root::none)
    return emitOpError() << "is multimem, which serves unrooted collectives "
                            "only (AllReduce, ReduceScatter, AllGather)";
  // Every data op between barriers: the one before says every rank's
  // buffers hold this call's data (and may be written), the one after that
  // nobody still reads or writes them when a rank's call ends.
  bool barrierBefore = false, dataSinceBarrier = false;
  Operation *lastData = nullptr;
  for (Operation &op : body) {
    if (isa<ProgramBufferOp, EpochOp, LaunchDependentsOp>(op))
      continue;
    if (isa<McBarrierOp>(op)) {
      barrierBefore = true;
      dataSinceBarrier = false;
      continue;
    }
    if (!isMcData(&op))
      return op.emitOpError() << "cannot be in a multimem program (its body "
                                 "is snac.epoch, snac.mc_barrier and the "
                                 "in-switch data ops)";
    if (!barrierBefore)
      return op.emitOpError() << "reaches every rank's buffers before any "
                                 "snac.mc_barrier: a peer may still run its "
                                 "previous call on them";
    lastData = &op;
    dataSinceBarrier = true;
  }
  if (!lastData)
    return emitOpError() << "is multimem but moves nothing: it needs "
                            "snac.mc_reduce, snac.mc_reduce_local or "
                            "snac.mc_put";
  if (dataSinceBarrier)
    return lastData->emitOpError()
           << "is not followed by a snac.mc_barrier: a rank could end its "
              "call (and the host rewrite its buffers) while peers still "
              "read or write them";
  return success();
}

bool ProgramOp::isZeroCopy() {
  for (auto buffer : getBody().front().getOps<ProgramBufferOp>())
    if (buffer.getInPlace())
      return true;
  return false;
}

LogicalResult ProgramOp::verifyZeroCopy() {
  Block &body = getBody().front();
  int receives = 0, inPlace = 0;
  for (auto buffer : body.getOps<ProgramBufferOp>()) {
    receives += buffer.getKind() == BufferKind::receive;
    inPlace += buffer.getInPlace();
  }
  auto retires = llvm::to_vector(body.getOps<RetireOp>());
  if (inPlace == 0) {
    if (!retires.empty())
      return retires.front().emitOpError()
             << "ends a zero-copy step, but no receive buffer of the program "
                "is in_place";
    return success();
  }
  // Mixed staging would need both protocols' reuse arguments at once.
  if (inPlace != receives)
    return emitOpError() << "has " << inPlace << " of " << receives
                         << " receive buffers in_place: a zero-copy program "
                            "reads every source in place";
  // The readiness is one word per CTA and step (where the part is), and
  // the data is no packet a speculative load could validate.
  if (getEncoding() != Encoding::flag || !getPolicy().isChunked() ||
      getPolicy().getSpeculate())
    return emitOpError() << "is zero-copy (in_place receive buffers), which "
                            "needs flag readiness, a chunk and no "
                            "speculation";
  if (retires.size() != 1 || &body.back() != retires.front().getOperation())
    return emitOpError() << "is zero-copy and must end with one snac.retire "
                            "(producers keep their buffers until every "
                            "reader is done), found "
                         << retires.size();
  return success();
}

/// What each receive buffer is written from: the input (a push) or the
/// output (a forward of a reduced partition).
LogicalResult ProgramOp::verifyPhases() {
  llvm::DenseMap<Operation *, bool> fromOutput;
  bool forwards = false;
  WalkResult result = getBody().walk([&](Operation *put) {
    FlatSymbolRefAttr srcRef, dstRef;
    if (auto one = dyn_cast<PutOp>(put))
      srcRef = one.getSrcAttr(), dstRef = one.getDstAttr();
    else if (auto each = dyn_cast<PutEachOp>(put))
      srcRef = each.getSrcAttr(), dstRef = each.getDstAttr();
    else
      return WalkResult::advance();
    ProgramBufferOp src = lookupBuffer(srcRef);
    Operation *rx = lookupBuffer(dstRef);
    if (!src || !rx)
      return WalkResult::advance(); // The put's verifier said why.
    bool forward = src.getKind() == BufferKind::output;
    forwards |= forward;
    auto [it, fresh] = fromOutput.try_emplace(rx, forward);
    if (!fresh && it->second != forward) {
      put->emitOpError() << "writes '" << dstRef.getValue()
                         << "' from the output, which other puts fill from "
                            "the input; each phase of a two-shot program "
                            "has its own receive buffer";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  int receives = 0;
  for (auto buffer : getBody().front().getOps<ProgramBufferOp>())
    receives += buffer.getKind() == BufferKind::receive;
  if (getVariant() == Variant::one_shot) {
    // One hop: nothing is forwarded, so one receive buffer.
    if (forwards)
      return emitOpError() << "is one_shot but forwards a partition of its "
                              "output (a snac.put from the output): that is "
                              "a two_shot program";
    if (receives != 1)
      return emitOpError() << "is one_shot and needs one receive buffer, got "
                           << receives;
    return success();
  }
  // Two-shot: the reduce-scatter phase's buffer and the all-gather phase's.
  if (receives != 2)
    return emitOpError() << "is two_shot and needs two receive buffers (the "
                            "pushed input's and the forwarded partitions'), "
                            "got "
                         << receives;
  if (!forwards)
    return emitOpError() << "is two_shot but forwards nothing: it needs a "
                            "snac.put from the output of the partition it "
                            "reduced";
  return success();
}

LogicalResult ProgramBufferOp::verify() {
  if (getMulticast() &&
      (getKind() == BufferKind::receive || getInPlace()))
    return emitOpError() << "is multicast, which only a program's input or "
                            "output can be (the user's registered buffer "
                            "bound to a multicast object)";
  if (getInPlace() && getKind() != BufferKind::receive)
    return emitOpError() << "is in_place, which only a receive buffer can be "
                            "(its regions are the producers' own buffers)";
  switch (getKind()) {
  case BufferKind::staging:
  case BufferKind::intermediate:
    return emitOpError() << "has kind '" << stringifyBufferKind(getKind())
                         << "'; a program buffer is input, output or receive";
  case BufferKind::receive:
    // Indexed by source; a region holds what the source contributes to
    // this rank's partition (column), or, for a forwarded partition, the
    // source's own partition of this rank's output (row).
    if (getLayout() != Layout::scattered && getLayout() != Layout::scattered_v)
      return emitOpError() << "is a receive buffer, indexed by source: its "
                              "geometry is 'scattered sizes column' or "
                              "'scattered sizes row' (or scattered_v)";
    return success();
  case BufferKind::input:
    if (getSizes() != SizeSide::row)
      return emitOpError() << "is the input, whose partition sizes are its "
                              "row of the size matrix: write 'sizes row'";
    return success();
  case BufferKind::output:
    return success();
  }
  llvm_unreachable("unknown buffer kind");
}

/// The program buffer `ref` names in the program around `op`, or an error.
static FailureOr<ProgramBufferOp> lookupProgramBuffer(Operation *op,
                                                      FlatSymbolRefAttr ref) {
  auto program = op->getParentOfType<ProgramOp>();
  if (!program)
    return op->emitOpError() << "must be inside a snac.program";
  ProgramBufferOp found = program.lookupBuffer(ref);
  if (!found)
    return op->emitOpError() << "'" << ref.getValue()
                             << "' is not a snac.program_buffer of this "
                                "program";
  return found;
}

/// Slots rotate by the call number: an epoch from anywhere else would pick
/// a slot no peer agrees on.
static LogicalResult verifyEpoch(Operation *op, Value epoch) {
  if (!epoch.getDefiningOp<EpochOp>())
    return op->emitOpError() << "takes its epoch from snac.epoch";
  return success();
}

/// A take's source is a receive buffer and its destination the output.
static LogicalResult verifyTake(Operation *op, FlatSymbolRefAttr srcRef,
                                FlatSymbolRefAttr dstRef, Value epoch) {
  FailureOr<ProgramBufferOp> src = lookupProgramBuffer(op, srcRef);
  FailureOr<ProgramBufferOp> dst = lookupProgramBuffer(op, dstRef);
  if (failed(src) || failed(dst))
    return failure();
  if (src->getKind() != BufferKind::receive)
    return op->emitOpError() << "takes from '" << srcRef.getValue()
                             << "', which is not a receive buffer";
  if (dst->getKind() != BufferKind::output)
    return op->emitOpError() << "writes '" << dstRef.getValue()
                             << "', which is not the program's output";
  return verifyEpoch(op, epoch);
}

/// A push (put, put_each) writes into a receive buffer, at a call's epoch.
static LogicalResult verifyPushInto(Operation *op, FlatSymbolRefAttr dstRef,
                                    ProgramBufferOp dst, Value epoch) {
  if (dst.getKind() != BufferKind::receive)
    return op->emitOpError() << "pushes into '" << dstRef.getValue()
                             << "', which is not a receive buffer";
  return verifyEpoch(op, epoch);
}

LogicalResult PutOp::verify() {
  FailureOr<ProgramBufferOp> src = lookupProgramBuffer(*this, getSrcAttr());
  FailureOr<ProgramBufferOp> dst = lookupProgramBuffer(*this, getDstAttr());
  if (failed(src) || failed(dst))
    return failure();
  if (src->getKind() == BufferKind::output) {
    if (failed(verifyForward()))
      return failure();
  } else if (src->getKind() != BufferKind::input) {
    return emitOpError() << "pushes from '" << getSrc()
                         << "', which is neither the program's input nor "
                            "its output";
  }
  return verifyPushInto(*this, getDstAttr(), *dst, getEpoch());
}

/// A forward reads output elements with no wait and no barrier: correct only
/// because the snac.reduce_take just before it wrote that very partition,
/// with the same count, and the device API maps a unit of both ops to the
/// same thread (grid-stride for LL16 and sentinel, the same warp segment
/// and lane for flag), so every thread reads back its own stores.
LogicalResult PutOp::verifyForward() {
  auto program = (*this)->getParentOfType<ProgramOp>();
  Block &body = program.getBody().front();
  Operation *anchor = body.findAncestorOpInBlock(*getOperation());
  // The last op of the body before this put that writes the output.
  Operation *writer = nullptr;
  for (Operation &op : body) {
    if (&op == anchor)
      break;
    bool writes = false;
    op.walk([&](Operation *inner) {
      writes |= isa<TakeOp, TakeEachOp, ReduceTakeOp, ReduceSpreadOp>(inner);
    });
    if (writes)
      writer = &op;
  }
  auto reduce = dyn_cast_or_null<ReduceTakeOp>(writer);
  if (!reduce || reduce.getDst() != getSrc() || reduce.getPart() != getPart())
    return emitOpError()
           << "forwards a partition of the output '" << getSrc()
           << "' that the last op writing the output before it did not "
              "reduce: a forward must follow the snac.reduce_take of that "
              "partition (each thread then reads back what it just wrote)";
  return success();
}

LogicalResult RetireOp::verify() { return verifyEpoch(*this, getEpoch()); }

LogicalResult TakeOp::verify() {
  return verifyTake(*this, getSrcAttr(), getDstAttr(), getEpoch());
}

LogicalResult ReduceTakeOp::verify() {
  return verifyTake(*this, getSrcAttr(), getDstAttr(), getEpoch());
}

/// A spread reads every source's input and writes the owners' outputs in
/// place: a zero-copy program's, of a scattered input (partition o of every
/// input is owner o's) into a packed output (each owner's one partition).
LogicalResult ReduceSpreadOp::verify() {
  if (failed(verifyTake(*this, getSrcAttr(), getDstAttr(), getEpoch())))
    return failure();
  auto program = (*this)->getParentOfType<ProgramOp>();
  if (!program.lookupBuffer(getSrcAttr()).getInPlace())
    return emitOpError() << "reads every source's input where it lies, but '"
                         << getSrc()
                         << "' is not in_place (a zero-copy program's)";
  if (!program.lookupBuffer(getDstAttr()).isPacked())
    return emitOpError() << "stores each owner's one reduced partition, but '"
                         << getDst() << "' has one partition per rank";
  for (auto buffer : program.getBody().front().getOps<ProgramBufferOp>())
    if (buffer.getKind() == BufferKind::input && buffer.isPacked())
      return emitOpError() << "spreads the partitions of a scattered input, "
                              "but '"
                           << buffer.getSymName()
                           << "' has one partition (every rank reduces the "
                              "whole of it: snac.reduce_take)";
  // The put_each into `src` publishes where the output is (the device's
  // expose_each<Spread>); a put per partition would not.
  bool exposed = false;
  program.walk([&](PutEachOp each) {
    exposed |= each.getDst() == getSrc();
  });
  if (!exposed)
    return emitOpError() << "needs a snac.put_each of the input into '"
                         << getSrc()
                         << "': it publishes where each rank's output is";
  return success();
}

/// put_each sends partition k to rank k: its source needs one partition per
/// rank, and only the input has that to push (a forward sends the one
/// partition its snac.reduce_take just wrote, a snac.put).
LogicalResult PutEachOp::verify() {
  FailureOr<ProgramBufferOp> src = lookupProgramBuffer(*this, getSrcAttr());
  FailureOr<ProgramBufferOp> dst = lookupProgramBuffer(*this, getDstAttr());
  if (failed(src) || failed(dst))
    return failure();
  if (src->getKind() != BufferKind::input)
    return emitOpError() << "pushes from '" << getSrc()
                         << "', which is not the program's input (a forward "
                            "of a reduced partition is a snac.put)";
  if (src->isPacked())
    return emitOpError() << "sends partition k of '" << getSrc()
                         << "' to rank k, but its layout '"
                         << stringifyLayout(src->getLayout())
                         << "' has one partition (put it to all with "
                            "snac.put)";
  return verifyPushInto(*this, getDstAttr(), *dst, getEpoch());
}

/// take_each copies source p's region into partition p of its destination,
/// which needs one partition per rank.
LogicalResult TakeEachOp::verify() {
  if (failed(verifyTake(*this, getSrcAttr(), getDstAttr(), getEpoch())))
    return failure();
  ProgramBufferOp dst =
      (*this)->getParentOfType<ProgramOp>().lookupBuffer(getDstAttr());
  if (dst.isPacked())
    return emitOpError() << "copies source p's region into partition p of '"
                         << getDst() << "', but its layout '"
                         << stringifyLayout(dst.getLayout())
                         << "' has one partition";
  return success();
}

//===----------------------------------------------------------------------===//
// In-switch ops
//===----------------------------------------------------------------------===//

LogicalResult McBarrierOp::verify() { return verifyEpoch(*this, getEpoch()); }

/// An in-switch op's buffer: the program's `kind` buffer, packed or
/// scattered as `packed` says, and multicast when the switch accesses it.
static LogicalResult verifyMcBuffer(Operation *op, FlatSymbolRefAttr ref,
                                    BufferKind kind, bool packed,
                                    bool multicast) {
  FailureOr<ProgramBufferOp> buffer = lookupProgramBuffer(op, ref);
  if (failed(buffer))
    return failure();
  const char *role = kind == BufferKind::input ? "input" : "output";
  if (buffer->getKind() != kind)
    return op->emitOpError() << "needs the program's " << role << " as '"
                             << ref.getValue() << "'";
  if (buffer->isPacked() != packed)
    return op->emitOpError()
           << "needs a " << (packed ? "packed" : "scattered") << " " << role
           << ", got '" << stringifyLayout(buffer->getLayout()) << "'";
  if (multicast && !buffer->getMulticast())
    return op->emitOpError() << "reaches every rank's '" << ref.getValue()
                             << "' through the switch: it must be a "
                                "multicast program_buffer";
  return success();
}

/// The switch reduces with add (multimem.ld_reduce); min and max exist for
/// some types only, and nothing here derives them.
static LogicalResult verifyMcReduction(Operation *op, Reduction r) {
  if (r != Reduction::sum)
    return op->emitOpError() << "reduces with '" << stringifyReduction(r)
                             << "'; the in-switch programs reduce with sum";
  return success();
}

LogicalResult McReduceOp::verify() {
  if (failed(verifyMcReduction(*this, getOp())))
    return failure();
  if (failed(verifyMcBuffer(*this, getSrcAttr(), BufferKind::input,
                            /*packed=*/true, /*multicast=*/true)))
    return failure();
  return verifyMcBuffer(*this, getDstAttr(), BufferKind::output,
                        /*packed=*/true, /*multicast=*/true);
}

LogicalResult McReduceLocalOp::verify() {
  if (failed(verifyMcReduction(*this, getOp())))
    return failure();
  // Either input layout: a packed one is reduced whole (redundant pull).
  FailureOr<ProgramBufferOp> src = lookupProgramBuffer(*this, getSrcAttr());
  if (failed(src) ||
      failed(verifyMcBuffer(*this, getSrcAttr(), BufferKind::input,
                            src->isPacked(), /*multicast=*/true)))
    return failure();
  return verifyMcBuffer(*this, getDstAttr(), BufferKind::output,
                        /*packed=*/true, /*multicast=*/false);
}

LogicalResult McPutOp::verify() {
  if (failed(verifyMcBuffer(*this, getSrcAttr(), BufferKind::input,
                            /*packed=*/true, /*multicast=*/false)))
    return failure();
  return verifyMcBuffer(*this, getDstAttr(), BufferKind::output,
                        /*packed=*/false, /*multicast=*/true);
}
