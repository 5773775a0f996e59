//===- Passes.h - snac dialect passes ---------------------------*- C++ -*-===//

#ifndef COLLC_DIALECT_SNAC_TRANSFORMS_PASSES_H
#define COLLC_DIALECT_SNAC_TRANSFORMS_PASSES_H

#include "collc/Dialect/Snac/IR/SnacDialect.h"
#include "mlir/Pass/Pass.h"

namespace collc::snac {

#define GEN_PASS_DECL
#include "collc/Dialect/Snac/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "collc/Dialect/Snac/Transforms/Passes.h.inc"

} // namespace collc::snac

#endif // COLLC_DIALECT_SNAC_TRANSFORMS_PASSES_H
