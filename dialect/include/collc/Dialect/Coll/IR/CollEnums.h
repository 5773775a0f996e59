//===- CollEnums.h - coll enumerations and layout algebra -------*- C++ -*-===//

#ifndef COLLC_DIALECT_COLL_IR_COLLENUMS_H
#define COLLC_DIALECT_COLL_IR_COLLENUMS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

#include "collc/Dialect/Common/IR/CommonEnums.h"

namespace collc::coll {

// coll's enums (CommonEnums.td, shared with snac), under coll's names.
using common::ConsumeOp;
using common::getMaxEnumValForConsumeOp;
using common::getMaxEnumValForLayout;
using common::getMaxEnumValForReduction;
using common::getMaxEnumValForRoot;
using common::Layout;
using common::Reduction;
using common::Root;
using common::stringifyConsumeOp;
using common::stringifyLayout;
using common::stringifyReduction;
using common::stringifyRoot;
using common::symbolizeConsumeOp;
using common::symbolizeLayout;
using common::symbolizeReduction;
using common::symbolizeRoot;

/// True for the run-time-sized layouts (packed_v, scattered_v, transposed_v).
bool isVariable(Layout layout);
/// The fixed-size layout a V layout varies (packed_v -> packed); identity on
/// fixed layouts.
Layout fixedLayout(Layout layout);

/// The root roles a (consume, input, output) transform admits, or an empty
/// list if the pair is not a collective. Keyed on fixed layouts; the V
/// variants follow the same table.
llvm::ArrayRef<Root> legalRoots(ConsumeOp consume, Layout input, Layout output);
/// Human-readable list of the legal input -> output pairs of `consume`.
std::string legalPairsText(ConsumeOp consume);

/// True for element types collectives may carry: bf16, f16, f32, and the fp8
/// formats e4m3 (f8E4M3FN) and e5m2 (f8E5M2).
bool isSupportedElementType(mlir::Type type);
/// The spec-language spelling of a supported element type ("f8e4m3", ...).
std::string elementTypeSpelling(mlir::Type type);
/// Parses a spec-language element type name; null type if unknown.
mlir::Type parseElementTypeSpelling(mlir::MLIRContext *ctx,
                                    llvm::StringRef name);
/// Comma-separated spellings of the supported element types.
llvm::StringRef supportedElementTypesText();

/// True for a GPU target collc compiles for ("sm_80", "sm_90a", ...).
bool isSupportedTarget(llvm::StringRef target);
/// Comma-separated list of the supported targets.
llvm::StringRef supportedTargetsText();

/// World sizes collc accepts (an NVLink domain: 1 to 576 GPUs).
constexpr int64_t kMaxWorldSize = 576;

/// Checks one policy override. Returns an error message (what is wrong and
/// what is expected) or std::nullopt if the entry is valid. Keys and values
/// that nothing implements yet are refused with the reason. `spelling`, when
/// set, is an integer literal too large for 64 bits (`value` is then a
/// placeholder), reported as out of range.
std::optional<std::string> checkPolicyEntry(llvm::StringRef key,
                                            mlir::Attribute value,
                                            llvm::StringRef spelling = {});
/// True if `key` names a policy override collc implements.
bool isKnownPolicyKey(llvm::StringRef key);
/// Comma-separated list of the known policy keys.
llvm::StringRef knownPolicyKeysText();

} // namespace collc::coll

#endif // COLLC_DIALECT_COLL_IR_COLLENUMS_H
