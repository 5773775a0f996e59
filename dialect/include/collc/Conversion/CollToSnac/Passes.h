//===- Passes.h - coll -> snac conversion passes ----------------*- C++ -*-===//

#ifndef COLLC_CONVERSION_COLLTOSNAC_PASSES_H
#define COLLC_CONVERSION_COLLTOSNAC_PASSES_H

#include "collc/Dialect/Coll/IR/CollDialect.h"
#include "collc/Dialect/Snac/IR/SnacDialect.h"
#include "mlir/Pass/Pass.h"

namespace collc {

#define GEN_PASS_DECL
#include "collc/Conversion/CollToSnac/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "collc/Conversion/CollToSnac/Passes.h.inc"

} // namespace collc

#endif // COLLC_CONVERSION_COLLTOSNAC_PASSES_H
