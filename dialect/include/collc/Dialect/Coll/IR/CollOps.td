//===- CollOps.td - coll operations ------------------------*- tablegen -*-===//

#ifndef COLLC_DIALECT_COLL_IR_COLLOPS_TD
#define COLLC_DIALECT_COLL_IR_COLLOPS_TD

include "collc/Dialect/Coll/IR/CollDialect.td"
include "collc/Dialect/Coll/IR/CollAttrs.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"

def Coll_CollectiveOp : Coll_Op<"collective", [
    Symbol, IsolatedFromAbove, SingleBlock, NoTerminator]> {
  let summary = "A named collective: one transform, or two composed";
  let description = [{
    Declares a collective. The body holds one `coll.transform`, or two that
    run as `F then G` in one kernel (out(F) = in(G); F's intermediate is
    consumed in place). `types` lists the element types to compile for,
    `ranks` the world sizes; `policy` holds overrides of the orchestration
    policy (CTA budget, regime thresholds, ...).

    Example:

    ```mlir
    coll.collective @all_reduce types [bf16, f32] ranks [2, 4, 8] {
      coll.transform reduce<sum> scattered -> packed {origin = @reduce_scatter}
      coll.transform copy packed -> scattered {origin = @all_gather}
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeArrayAttr:$element_types,
                       DenseI64ArrayAttr:$world_sizes,
                       OptionalAttr<DictionaryAttr>:$policy);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `types` $element_types `ranks` $world_sizes
    (`policy` $policy^)? attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The transforms of the body, in execution order (one or two).
    ::llvm::SmallVector<TransformOp, 2> getTransforms();
    /// True if the body is a composition `F then G`.
    bool isComposition();
    /// Input layout of the first transform, output layout of the last.
    Layout getInputLayout();
    Layout getOutputLayout();
    /// The rooted role of the collective (none unless a part is rooted).
    Root getRootRole();
    /// The policy value of `key`: the collective's, else the file's (the
    /// module's `coll.policy`), else null.
    ::mlir::Attribute lookupPolicy(::llvm::StringRef key);
  }];
}

def Coll_TransformOp : Coll_Op<"transform", [HasParent<"CollectiveOp">]> {
  let summary = "A consume op applied from an input layout to an output layout";
  let description = [{
    One layout transformation. `copy` places contributions in distinct output
    regions; `reduce<op>` combines corresponding elements. `root` restricts
    production (`producer`) or consumption (`consumer`) to a root rank given at
    run time. `origin` names the spec collective this transform came from when
    it was composed by name.

    Legal pairs (the V variants pair only with V variants):

    | consume  | input     | output     | root                | collective            |
    |----------|-----------|------------|---------------------|-----------------------|
    | copy     | packed    | scattered  | none / consumer     | AllGather / Gather    |
    | copy     | scattered | packed     | producer            | Scatter               |
    | copy     | scattered | transposed | none                | AllToAll              |
    | copy     | packed    | packed     | producer            | one-shot Broadcast    |
    | reduce   | scattered | packed     | none                | ReduceScatter         |
    | reduce   | packed    | packed     | none / consumer     | one-shot AllReduce / Reduce |

    Example:

    ```mlir
    coll.transform copy scattered -> packed root producer
    ```
  }];
  let arguments = (ins Coll_ConsumeOpAttr:$consume,
                       OptionalAttr<Coll_ReductionAttr>:$reduction,
                       Coll_LayoutAttr:$input,
                       Coll_LayoutAttr:$output,
                       OptionalAttr<Coll_RootAttr>:$root,
                       OptionalAttr<FlatSymbolRefAttr>:$origin);
  // `reduce<sum> scattered -> packed root consumer`, as in the spec language.
  let assemblyFormat = [{
    custom<TransformSignature>($consume, $reduction, $input, $output, $root)
    attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The root role, `none` when the attribute is absent.
    Root getRootRole() { return getRoot().value_or(Root::none); }
  }];
}

#endif // COLLC_DIALECT_COLL_IR_COLLOPS_TD
