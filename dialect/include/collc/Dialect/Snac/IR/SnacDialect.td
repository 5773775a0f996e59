//===- SnacDialect.td - snac dialect definition ------------*- tablegen -*-===//
//
// The orchestration layer: Stage, Notify And Consume (Purlin section 3.2),
// derived from the coll dialect by `coll-derive-schedule`, never written by
// hand.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_DIALECT_SNAC_IR_SNACDIALECT_TD
#define COLLC_DIALECT_SNAC_IR_SNACDIALECT_TD

include "mlir/IR/OpBase.td"

def Snac_Dialect : Dialect {
  let name = "snac";
  let cppNamespace = "::collc::snac";
  let summary = "SNAC schedules: who stages, notifies, awaits and consumes";
  let description = [{
    A `snac.schedule` is the orchestration of one collective: the buffers it
    touches, the readiness events between its CTA role groups, and one
    `snac.role` per group. A role's body runs on every participating rank
    (block arguments: the rank, the world size, the root rank) and is a loop
    nest (scf.for over partitions and chunks) of four kinds of step:

    - `snac.copy` / `snac.reduce`: consume a chunk region into another;
    - `snac.notify`: publish an event (key: partition, chunk or slot) to a
      rank or to every rank, with release order;
    - `snac.await`: acquire an event from a rank or from every rank.

    Rank, world size, root, counts and V partition sizes are run-time values;
    chunk size, staging slots, CTA split and readiness encoding are policy
    (attributes).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
  let useDefaultAttributePrinterParser = 1;
}

class Snac_Op<string mnemonic, list<Trait> traits = []>
    : Op<Snac_Dialect, mnemonic, traits>;

#endif // COLLC_DIALECT_SNAC_IR_SNACDIALECT_TD
