//===- CollDialect.h - coll dialect -----------------------------*- C++ -*-===//
//
// The semantics layer of collc: layouts, consume ops, root roles.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_DIALECT_COLL_IR_COLLDIALECT_H
#define COLLC_DIALECT_COLL_IR_COLLDIALECT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"

#include "collc/Dialect/Coll/IR/CollOpsDialect.h.inc"

#endif // COLLC_DIALECT_COLL_IR_COLLDIALECT_H
