//===- Passes.h - coll dialect passes ---------------------------*- C++ -*-===//

#ifndef COLLC_DIALECT_COLL_TRANSFORMS_PASSES_H
#define COLLC_DIALECT_COLL_TRANSFORMS_PASSES_H

#include "collc/Dialect/Coll/IR/CollDialect.h"
#include "collc/Dialect/Snac/IR/SnacDialect.h"
#include "mlir/Pass/Pass.h"

namespace collc::coll {

#define GEN_PASS_DECL
#include "collc/Dialect/Coll/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "collc/Dialect/Coll/Transforms/Passes.h.inc"

} // namespace collc::coll

#endif // COLLC_DIALECT_COLL_TRANSFORMS_PASSES_H
