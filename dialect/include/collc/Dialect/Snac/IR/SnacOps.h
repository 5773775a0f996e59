//===- SnacOps.h - snac operations ------------------------------*- C++ -*-===//

#ifndef COLLC_DIALECT_SNAC_IR_SNACOPS_H
#define COLLC_DIALECT_SNAC_IR_SNACOPS_H

#include "collc/Dialect/Snac/IR/SnacDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "collc/Dialect/Common/IR/CommonEnums.h"
#include "collc/Dialect/Snac/IR/SnacEnums.h.inc"

namespace collc::snac {
// The enums snac shares with coll (CommonEnums.td), under snac's names.
using common::getMaxEnumValForLayout;
using common::getMaxEnumValForReduction;
using common::getMaxEnumValForRoot;
using common::Layout;
using common::Reduction;
using common::Root;
using common::stringifyLayout;
using common::stringifyReduction;
using common::stringifyRoot;
using common::symbolizeLayout;
using common::symbolizeReduction;
using common::symbolizeRoot;
// snac's generic keyword parser asks snac::symbolizeEnum<E> for every enum
// it prints, the shared ones included.
template <>
inline std::optional<Layout> symbolizeEnum<Layout>(llvm::StringRef s) {
  return symbolizeLayout(s);
}
template <>
inline std::optional<Reduction> symbolizeEnum<Reduction>(llvm::StringRef s) {
  return symbolizeReduction(s);
}
template <>
inline std::optional<Root> symbolizeEnum<Root>(llvm::StringRef s) {
  return symbolizeRoot(s);
}
} // namespace collc::snac

#define GET_ATTRDEF_CLASSES
#include "collc/Dialect/Snac/IR/SnacAttrs.h.inc"

#define GET_OP_CLASSES
#include "collc/Dialect/Snac/IR/SnacOps.h.inc"

#endif // COLLC_DIALECT_SNAC_IR_SNACOPS_H
