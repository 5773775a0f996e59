//===- Passes.td - coll -> snac conversion passes ----------*- tablegen -*-===//

#ifndef COLLC_CONVERSION_COLLTOSNAC_PASSES_TD
#define COLLC_CONVERSION_COLLTOSNAC_PASSES_TD

include "mlir/Pass/PassBase.td"

def CollDerivePrograms : Pass<"coll-derive-programs", "::mlir::ModuleOp"> {
  let summary = "Derive the one-shot snac.program of every unrooted collective";
  let description = [{
    For each `coll.collective` that is one unrooted transform, or that the
    layout algebra reduces to one, adds a `snac.program` of variant
    `one_shot` (SNAC v2, beside the schedule of `coll-derive-schedule`):

    - a packed input is pushed whole into every rank's receive buffer;
      partition k of a scattered input into rank k's;
    - a reduction reduces every source's region in rank order into its
      packed output (`snac.reduce_take`); a copy takes source p's region
      into output partition p (`snac.take`);
    - `reduce(scattered -> packed) then copy(packed -> scattered)` (and its
      `_v` form) is `reduce(packed -> packed)` over the whole input: the
      scattered partitions are contiguous in rank order, and so are the
      gathered ones, so it gets that transform's program.

    Rooted transforms (scatter, gather, broadcast, reduce) and the other
    compositions get no program: their reuse of a receive slot is not
    proven by a symmetric exchange.

    The rules are keyed on layouts, consume op and root only. Policy:
    `protocol` (the encoding; `auto` picks by band), `one_hop_max_bytes`
    (the band's `hi`; 0: no program) and `ctas` (the CTA budget) from the
    spec, the options below otherwise.
  }];
  let options = [
    Option<"slots", "slots", "int64_t", /*default=*/"2",
           "receive-buffer slots of every program (at least 2)">,
    Option<"oneHopMaxBytes", "one-hop-max-bytes", "int64_t",
           /*default=*/"65536",
           "default band hi: the largest input, in bytes, of a one-shot "
           "program (0: none)">,
    Option<"protocol", "protocol", "std::string", /*default=*/"\"auto\"",
           "default encoding: flag | ll16 | sentinel | auto">,
    Option<"ll16MaxBytes", "ll16-max-bytes", "int64_t", /*default=*/"65536",
           "auto picks ll16 for a band whose hi is at most this, flag above">
  ];
  let dependentDialects = [
    "::collc::snac::SnacDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect"
  ];
}

#endif // COLLC_CONVERSION_COLLTOSNAC_PASSES_TD
