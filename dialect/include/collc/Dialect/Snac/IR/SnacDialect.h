//===- SnacDialect.h - snac dialect -----------------------------*- C++ -*-===//
//
// The orchestration layer of collc: SNAC schedules.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_DIALECT_SNAC_IR_SNACDIALECT_H
#define COLLC_DIALECT_SNAC_IR_SNACDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dialect.h"

#include "collc/Dialect/Snac/IR/SnacOpsDialect.h.inc"

#endif // COLLC_DIALECT_SNAC_IR_SNACDIALECT_H
