//===- CollDialect.td - coll dialect definition ------------*- tablegen -*-===//
//
// The semantics layer: a collective is a consume op and an input/output
// layout pair, or a composition of two such transforms (Purlin section 3.1).
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_DIALECT_COLL_IR_COLLDIALECT_TD
#define COLLC_DIALECT_COLL_IR_COLLDIALECT_TD

include "mlir/IR/OpBase.td"

def Coll_Dialect : Dialect {
  let name = "coll";
  let cppNamespace = "::collc::coll";
  let summary = "Collective-communication semantics: layouts and consume ops";
  let description = [{
    The `coll` dialect states *what* a collective computes, never how: each
    `coll.collective` holds one `coll.transform` (a consume op applied to an
    input layout, producing an output layout) or two, composed `F then G`
    with out(F) = in(G). The orchestration (the `snac` dialect) is derived
    from these attributes alone.

    Module attributes:
    - `coll.targets`: array of GPU targets ("sm_80", "sm_90", ...).
    - `coll.policy`: file-level policy defaults (dictionary).
    - `coll.source`: the spec file the module was parsed from.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Names of the discardable module attributes this dialect owns.
    static constexpr ::llvm::StringLiteral kTargetsAttrName = "coll.targets";
    static constexpr ::llvm::StringLiteral kPolicyAttrName = "coll.policy";
    static constexpr ::llvm::StringLiteral kSourceAttrName = "coll.source";

    /// The module's targets, in the order written; empty if none are set.
    static ::llvm::SmallVector<::llvm::StringRef>
    getTargets(::mlir::ModuleOp module);
  }];
}

class Coll_Op<string mnemonic, list<Trait> traits = []>
    : Op<Coll_Dialect, mnemonic, traits>;

#endif // COLLC_DIALECT_COLL_IR_COLLDIALECT_TD
