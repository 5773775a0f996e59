//===- CollOps.h - coll operations ------------------------------*- C++ -*-===//

#ifndef COLLC_DIALECT_COLL_IR_COLLOPS_H
#define COLLC_DIALECT_COLL_IR_COLLOPS_H

#include "collc/Dialect/Coll/IR/CollDialect.h"
#include "collc/Dialect/Coll/IR/CollEnums.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"

#define GET_ATTRDEF_CLASSES
#include "collc/Dialect/Coll/IR/CollAttrs.h.inc"

namespace collc::coll {
class TransformOp;
} // namespace collc::coll

#define GET_OP_CLASSES
#include "collc/Dialect/Coll/IR/CollOps.h.inc"

#endif // COLLC_DIALECT_COLL_IR_COLLOPS_H
