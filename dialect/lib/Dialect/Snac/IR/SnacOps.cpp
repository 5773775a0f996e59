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
