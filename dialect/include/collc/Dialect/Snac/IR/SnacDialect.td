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

    A `snac.program` (SNAC v2, beside the schedules until it replaces them)
    is one kernel for the calls of a size band: every producer pushes
    (`snac.put`) into the receive buffers of its consumers, readiness
    travelling with the data (flag, LL16 packets or sentinel), and every
    consumer takes (`snac.take`, `snac.reduce_take`) from its own receive
    buffer, whose slots rotate with the call number `snac.epoch`. Its policy
    is the typed `#snac.policy`; its buffers carry their own geometry, so
    nothing downstream reads the coll dialect.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
  let useDefaultAttributePrinterParser = 1;
}

class Snac_Op<string mnemonic, list<Trait> traits = []>
    : Op<Snac_Dialect, mnemonic, traits>;

#endif // COLLC_DIALECT_SNAC_IR_SNACDIALECT_TD
