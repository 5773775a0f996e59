//===- SnacDialect.cpp - snac dialect ---------------------------*- C++ -*-===//

#include "collc/Dialect/Snac/IR/SnacDialect.h"
#include "collc/Dialect/Snac/IR/SnacOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace collc::snac;

#include "collc/Dialect/Snac/IR/SnacOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "collc/Dialect/Snac/IR/SnacAttrs.cpp.inc"

void SnacDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "collc/Dialect/Snac/IR/SnacOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "collc/Dialect/Snac/IR/SnacAttrs.cpp.inc"
      >();
}
