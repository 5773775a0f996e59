//===- CollDialect.cpp - coll dialect ---------------------------*- C++ -*-===//

#include "collc/Dialect/Coll/IR/CollDialect.h"
#include "collc/Dialect/Coll/IR/CollOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace collc::coll;

#include "collc/Dialect/Coll/IR/CollOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "collc/Dialect/Coll/IR/CollAttrs.cpp.inc"

void CollDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "collc/Dialect/Coll/IR/CollOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "collc/Dialect/Coll/IR/CollAttrs.cpp.inc"
      >();
}

SmallVector<StringRef> CollDialect::getTargets(ModuleOp module) {
  SmallVector<StringRef> targets;
  if (auto array = module->getAttrOfType<ArrayAttr>(kTargetsAttrName))
    for (Attribute target : array)
      if (auto str = dyn_cast<StringAttr>(target))
        targets.push_back(str.getValue());
  return targets;
}

static LogicalResult verifyPolicyDict(Operation *op, DictionaryAttr policy,
                                      StringRef what) {
  for (NamedAttribute entry : policy)
    if (auto error = checkPolicyEntry(entry.getName(), entry.getValue()))
      return op->emitError() << what << ": " << *error;
  return success();
}

LogicalResult CollDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName();
  if (name == kTargetsAttrName) {
    auto array = dyn_cast<ArrayAttr>(attr.getValue());
    if (!array)
      return op->emitError() << "'" << name << "' must be an array of strings";
    for (Attribute target : array) {
      auto str = dyn_cast<StringAttr>(target);
      if (!str)
        return op->emitError()
               << "'" << name << "' must be an array of strings, got "
               << target;
      if (!isSupportedTarget(str.getValue()))
        return op->emitError()
               << "unknown target '" << str.getValue()
               << "'; supported targets: " << supportedTargetsText();
    }
    return success();
  }
  if (name == kPolicyAttrName) {
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!dict)
      return op->emitError() << "'" << name << "' must be a dictionary";
    return verifyPolicyDict(op, dict, "module policy");
  }
  if (name == kSourceAttrName) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a string";
    return success();
  }
  return op->emitError() << "unknown coll dialect attribute '" << name
                         << "'; expected one of " << kTargetsAttrName << ", "
                         << kPolicyAttrName << ", " << kSourceAttrName;
}

