//===- IRNesting.h - bound the nesting of textual IR input ------*- C++ -*-===//
//
// MLIR's parser recurses once per nested region, attribute or type, so a
// .mlir input a few thousand levels deep overflows the stack and kills collc
// (about 5,000 nested modules or 20,000 nested arrays). coll IR is a handful
// of levels deep; checkIRNesting refuses anything deeper than a bound far
// above that, at the bracket that crosses it, before the parser runs.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_SPEC_IRNESTING_H
#define COLLC_SPEC_IRNESTING_H

#include "mlir/Support/LogicalResult.h"

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace collc::spec {

/// The deepest bracket nesting ({, (, [, <) a .mlir input may have.
inline constexpr unsigned kMaxIRNesting = 256;

/// Fails with an error at file:line:col if the main buffer of `sourceMgr`
/// nests brackets deeper than kMaxIRNesting (outside strings and comments).
mlir::LogicalResult checkIRNesting(llvm::SourceMgr &sourceMgr,
                                   mlir::MLIRContext *context);

} // namespace collc::spec

#endif // COLLC_SPEC_IRNESTING_H
