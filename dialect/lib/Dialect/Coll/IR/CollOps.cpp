//===- CollOps.cpp - coll operations and their verifiers -------*- C++ -*-===//
//
// The verifiers carry the layout algebra: which pairs each consume op
// accepts, V layouts only with V layouts, root rules, and out(F) = in(G) for a
// composition.
//
//===----------------------------------------------------------------------===//

#include "collc/Dialect/Coll/IR/CollOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace collc::coll;

//===----------------------------------------------------------------------===//
// Custom directive: the transform signature as bare keywords
//===----------------------------------------------------------------------===//

/// Parses one keyword of enum `E` with `symbolize`, naming the choices.
template <typename E>
static ParseResult parseEnumKeyword(OpAsmParser &parser, E &value,
                                    std::optional<E> (*symbolize)(StringRef),
                                    StringRef choices) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (failed(parser.parseOptionalKeyword(&keyword)))
    return parser.emitError(loc) << "expected " << choices;
  std::optional<E> parsed = symbolize(keyword);
  if (!parsed)
    return parser.emitError(loc) << "expected " << choices << ", got '"
                                 << keyword << "'";
  value = *parsed;
  return success();
}

static constexpr StringLiteral kLayoutChoices =
    "'packed', 'scattered', 'transposed', 'packed_v', 'scattered_v' or "
    "'transposed_v'";

static ParseResult parseTransformSignature(OpAsmParser &parser,
                                           ConsumeOpAttr &consume,
                                           ReductionAttr &reduction,
                                           LayoutAttr &input,
                                           LayoutAttr &output, RootAttr &root) {
  MLIRContext *ctx = parser.getContext();
  ConsumeOp c = ConsumeOp::copy;
  if (parseEnumKeyword(parser, c, symbolizeConsumeOp, "'copy' or 'reduce'"))
    return failure();
  consume = ConsumeOpAttr::get(ctx, c);
  if (succeeded(parser.parseOptionalLess())) {
    Reduction r = Reduction::sum;
    if (parseEnumKeyword(parser, r, symbolizeReduction,
                         "'sum', 'max', 'min' or 'avg'") ||
        parser.parseGreater())
      return failure();
    reduction = ReductionAttr::get(ctx, r);
  }
  Layout in = Layout::packed, out = Layout::packed;
  if (parseEnumKeyword(parser, in, symbolizeLayout, kLayoutChoices) ||
      parser.parseArrow() ||
      parseEnumKeyword(parser, out, symbolizeLayout, kLayoutChoices))
    return failure();
  input = LayoutAttr::get(ctx, in);
  output = LayoutAttr::get(ctx, out);
  if (succeeded(parser.parseOptionalKeyword("root"))) {
    Root r = Root::none;
    if (parseEnumKeyword(parser, r, symbolizeRoot,
                         "'none', 'producer' or 'consumer'"))
      return failure();
    root = RootAttr::get(ctx, r);
  }
  return success();
}

static void printTransformSignature(OpAsmPrinter &printer, Operation *,
                                    ConsumeOpAttr consume,
                                    ReductionAttr reduction, LayoutAttr input,
                                    LayoutAttr output, RootAttr root) {
  printer << stringifyConsumeOp(consume.getValue());
  if (reduction)
    printer << "<" << stringifyReduction(reduction.getValue()) << ">";
  printer << " " << stringifyLayout(input.getValue()) << " -> "
          << stringifyLayout(output.getValue());
  if (root)
    printer << " root " << stringifyRoot(root.getValue());
}

#define GET_OP_CLASSES
#include "collc/Dialect/Coll/IR/CollOps.cpp.inc"

//===----------------------------------------------------------------------===//
// TransformOp
//===----------------------------------------------------------------------===//

static std::string rootsText(ArrayRef<Root> roots) {
  std::string s;
  for (Root r : roots) {
    if (!s.empty())
      s += " or ";
    s += stringifyRoot(r).str();
  }
  return s;
}

LogicalResult TransformOp::verify() {
  ConsumeOp consume = getConsume();
  Layout in = getInput(), out = getOutput();
  if (consume == ConsumeOp::copy && getReduction())
    return emitOpError() << "copy takes no reduction operator, got '<"
                         << stringifyReduction(*getReduction()) << ">'";
  if (consume == ConsumeOp::reduce && !getReduction())
    return emitOpError()
           << "reduce needs a reduction operator: reduce<sum|max|min|avg>";
  if (isVariable(in) != isVariable(out)) {
    Layout v = isVariable(in) ? in : out, fixed = isVariable(in) ? out : in;
    return emitOpError() << "variable-size layout '" << stringifyLayout(v)
                         << "' cannot pair with fixed-size layout '"
                         << stringifyLayout(fixed)
                         << "'; use V layouts on both sides or on neither";
  }
  ArrayRef<Root> roots = legalRoots(consume, in, out);
  // The one exception to "V layouts follow the same table": a reduction
  // combines contributions element by element, so they must have one size,
  // while packed_v sizes each rank's contribution on its own. A packed count
  // is already a run-time value, so nothing is lost.
  if (consume == ConsumeOp::reduce && in == Layout::packed_v && !roots.empty())
    return emitOpError() << "reduce(packed_v -> " << stringifyLayout(out)
                         << ") is not a collective: a reduction combines "
                            "equal-sized contributions, but packed_v gives "
                            "each rank's contribution its own size; use "
                            "reduce(packed -> "
                         << stringifyLayout(fixedLayout(out))
                         << "), whose count is also given at run time";
  if (roots.empty())
    return emitOpError() << stringifyConsumeOp(consume) << "("
                         << stringifyLayout(in) << " -> "
                         << stringifyLayout(out)
                         << ") is not a collective; " << stringifyConsumeOp(consume)
                         << " accepts " << legalPairsText(consume)
                         << " (or their V variants)"
                         << (consume == ConsumeOp::reduce
                                 ? ", never with a packed_v input"
                                 : "");
  Root root = getRootRole();
  if (!llvm::is_contained(roots, root))
    return emitOpError() << stringifyConsumeOp(consume) << "("
                         << stringifyLayout(in) << " -> "
                         << stringifyLayout(out) << ") takes root "
                         << rootsText(roots) << ", got root "
                         << stringifyRoot(root);
  return success();
}

//===----------------------------------------------------------------------===//
// CollectiveOp
//===----------------------------------------------------------------------===//

SmallVector<TransformOp, 2> CollectiveOp::getTransforms() {
  return llvm::to_vector<2>(getBody().front().getOps<TransformOp>());
}

bool CollectiveOp::isComposition() { return getTransforms().size() == 2; }

Layout CollectiveOp::getInputLayout() {
  return getTransforms().front().getInput();
}

Layout CollectiveOp::getOutputLayout() {
  return getTransforms().back().getOutput();
}

Attribute CollectiveOp::lookupPolicy(StringRef key) {
  if (DictionaryAttr policy = getPolicyAttr())
    if (Attribute value = policy.get(key))
      return value;
  if (auto module = (*this)->getParentOfType<ModuleOp>())
    if (auto policy =
            module->getAttrOfType<DictionaryAttr>(CollDialect::kPolicyAttrName))
      return policy.get(key);
  return {};
}

Root CollectiveOp::getRootRole() {
  for (TransformOp t : getTransforms())
    if (t.getRootRole() != Root::none)
      return t.getRootRole();
  return Root::none;
}

LogicalResult CollectiveOp::verify() {
  if (getElementTypes().empty())
    return emitOpError() << "needs at least one element type";
  for (Attribute attr : getElementTypes()) {
    Type type = cast<TypeAttr>(attr).getValue();
    if (!isSupportedElementType(type))
      return emitOpError() << "unsupported element type " << type
                           << "; supported: " << supportedElementTypesText();
  }
  if (getWorldSizes().empty())
    return emitOpError() << "needs at least one world size";
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t n : getWorldSizes()) {
    if (n < 1 || n > kMaxWorldSize)
      return emitOpError() << "world size must be in [1, " << kMaxWorldSize
                           << "], got " << n;
    if (!seen.insert(n).second)
      return emitOpError() << "world size " << n << " is listed twice";
  }
  if (auto policy = getPolicy())
    for (NamedAttribute entry : *policy)
      if (auto error = checkPolicyEntry(entry.getName(), entry.getValue()))
        return emitOpError() << *error;
  return success();
}

LogicalResult CollectiveOp::verifyRegions() {
  Block &body = getBody().front();
  for (Operation &op : body)
    if (!isa<TransformOp>(op))
      return op.emitOpError() << "is not allowed in a collective body; "
                                 "expected coll.transform";
  SmallVector<TransformOp, 2> transforms = getTransforms();
  if (transforms.empty())
    return emitOpError() << "body is empty; expected one coll.transform or "
                            "two composed";
  if (transforms.size() > 2)
    return emitOpError() << "has " << transforms.size()
                         << " transforms; a collective is one transform or a "
                            "composition of two";
  if (transforms.size() == 1)
    return success();

  TransformOp first = transforms[0], second = transforms[1];
  if (first.getOutput() != second.getInput())
    return second.emitOpError()
           << "cannot compose: output layout '"
           << stringifyLayout(first.getOutput())
           << "' of the first transform does not match input layout '"
           << stringifyLayout(second.getInput()) << "' of the second";
  if (first.getRootRole() != Root::none && second.getRootRole() != Root::none)
    return second.emitOpError()
           << "a composition may have at most one rooted transform";
  // A single producer must feed the pipeline; a single consumer must end it:
  // otherwise the middle stage has ranks with no input or no consumer.
  if (second.getRootRole() == Root::producer)
    return second.emitOpError()
           << "a root producer transform must come first in a composition";
  if (first.getRootRole() == Root::consumer)
    return first.emitOpError()
           << "a root consumer transform must come last in a composition";
  return success();
}
