//===- SpecParser.h - the .coll spec language -------------------*- C++ -*-===//
//
// A .coll spec declares collectives, one line each:
//
//   target sm_80, sm_90, sm_100          # file-level defaults (optional)
//   types bf16, f16, f32
//   ranks 2, 4, 8
//   policy ctas = 16
//   collective reduce_scatter = reduce<sum>(scattered -> packed)
//   collective all_gather     = copy(packed -> scattered)
//   collective all_reduce     = reduce_scatter then all_gather
//   collective scatter = copy(scattered -> packed) root producer types f32
//
// The grammar is in docs/spec-language.md.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_SPEC_SPECPARSER_H
#define COLLC_SPEC_SPECPARSER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace collc::spec {

/// Default element types, targets and world sizes of a spec that states none.
inline constexpr const char *kDefaultTypes[] = {"bf16", "f16", "f32"};
inline constexpr const char *kDefaultTargets[] = {"sm_80", "sm_90", "sm_100"};
inline constexpr int64_t kDefaultWorldSizes[] = {2, 4, 8};

/// Parses the main buffer of `sourceMgr` as a .coll spec into a verified
/// module of coll ops. Every op carries the FileLineColLoc of the spec text it
/// came from. Errors are emitted through the context's diagnostic engine;
/// returns null if there was any.
mlir::OwningOpRef<mlir::ModuleOp> parseSpec(llvm::SourceMgr &sourceMgr,
                                            mlir::MLIRContext *context);

} // namespace collc::spec

#endif // COLLC_SPEC_SPECPARSER_H
