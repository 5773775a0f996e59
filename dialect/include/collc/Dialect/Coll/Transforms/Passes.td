//===- Passes.td - coll dialect passes ---------------------*- tablegen -*-===//

#ifndef COLLC_DIALECT_COLL_TRANSFORMS_PASSES_TD
#define COLLC_DIALECT_COLL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def CollDeriveSchedule : Pass<"coll-derive-schedule", "::mlir::ModuleOp"> {
  let summary = "Derive the SNAC schedule of every collective from its layouts";
  let description = [{
    For each `coll.collective`, adds a `snac.schedule` that stages, notifies,
    awaits and consumes chunk by chunk (Purlin 3.2, listing 2, algorithm 1).
    The rules are keyed on the input and output layouts, the consume op and
    the root role only, never on the collective's name:

    - a producer stages each input partition it owns, chunk by chunk; a
      packed input is published to every consumer, partition k of a
      scattered input to rank k;
    - a consumer of a packed output reduces (or, with a root producer,
      copies) the partition meant for it from every producer; a consumer of a
      scattered or transposed output copies producer p's partition into its
      partition p;
    - the second transform of a composition consumes the first one's result
      in place from a peer-accessible intermediate buffer, chunk by chunk, in
      its own CTA group;
    - every reused region (staging slots, the intermediate) is guarded by a
      `free` event its consumers publish after reading it.

    Policy (from `coll.policy` and the collective's `policy`): `chunk_bytes`,
    `staging_slots`, `ctas`, `protocol`.
  }];
  let dependentDialects = [
    "::collc::snac::SnacDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect"
  ];
}

#endif // COLLC_DIALECT_COLL_TRANSFORMS_PASSES_TD
