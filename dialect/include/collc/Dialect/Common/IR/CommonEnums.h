//===- CommonEnums.h - enums coll and snac share ----------------*- C++ -*-===//
//
// The generated enums of CommonEnums.td (namespace collc::common; each
// dialect names them as its own), and their link to collc/vocab.h, the
// vocabulary the runtime and the device code use.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_DIALECT_COMMON_IR_COMMONENUMS_H
#define COLLC_DIALECT_COMMON_IR_COMMONENUMS_H

#include "mlir/IR/Attributes.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

#include "collc/Dialect/Common/IR/CommonEnums.h.inc"

#include "collc/vocab.h"

namespace collc::common {

/// The vocabulary's layout of `layout` (its V form has the same layout).
vocab::Layout toVocab(Layout layout);
/// The vocabulary's operator of `r`.
vocab::RedOp toVocab(Reduction r);
vocab::Consume toVocab(ConsumeOp c);
vocab::Root toVocab(Root r);

} // namespace collc::common

#endif // COLLC_DIALECT_COMMON_IR_COMMONENUMS_H
