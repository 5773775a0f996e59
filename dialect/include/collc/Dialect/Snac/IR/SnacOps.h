//===- SnacOps.h - snac operations ------------------------------*- C++ -*-===//

#ifndef COLLC_DIALECT_SNAC_IR_SNACOPS_H
#define COLLC_DIALECT_SNAC_IR_SNACOPS_H

#include "collc/Dialect/Snac/IR/SnacDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "collc/Dialect/Snac/IR/SnacEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "collc/Dialect/Snac/IR/SnacAttrs.h.inc"

#define GET_OP_CLASSES
#include "collc/Dialect/Snac/IR/SnacOps.h.inc"

#endif // COLLC_DIALECT_SNAC_IR_SNACOPS_H
