//===- Passes.td - interpreter passes ----------------------*- tablegen -*-===//

#ifndef COLLC_INTERPRETER_PASSES_TD
#define COLLC_INTERPRETER_PASSES_TD

include "mlir/Pass/PassBase.td"

def SnacSimulate : Pass<"snac-simulate", "::mlir::ModuleOp"> {
  let summary = "Run every snac.schedule in the reference interpreter";
  let description = [{
    Executes each schedule for every world size in `ranks`, every partition
    shape in `shapes` and `seeds` seeds, `calls` back-to-back calls each, and
    checks outputs, readiness, buffer reuse and progress (see
    collc/Interpreter/Interpreter.h). The element type rotates through the
    collective's types; the interleaving strategy through uniform,
    run-to-block, consumers-first, round-robin and starve-rank; the staging
    slots between the
    schedule's policy and a ring of two (unless `staging-slots` is set).
    A problem is an error at the op that caused it.
  }];
  let options = [
    ListOption<"ranks", "ranks", "int64_t", "World sizes to simulate">,
    Option<"seeds", "seeds", "unsigned", /*default=*/"1", "Seeds per world size and shape">,
    Option<"calls", "calls", "unsigned", /*default=*/"3", "Back-to-back calls per run">,
    ListOption<"shapes", "shapes", "std::string",
               "Partition shapes: uniform, zipf, skew (default: uniform)">,
    Option<"chunkBytes", "chunk-bytes", "int64_t", /*default=*/"32",
           "Chunk size for the simulation (0: the schedule's policy)">,
    Option<"stagingSlots", "staging-slots", "int64_t", /*default=*/"-2",
           "Staging slots (-1: the schedule's; -2: alternate the schedule's "
           "and 2 by seed)">,
    Option<"count", "count", "int64_t", /*default=*/"-1",
           "Elements per partition (-1: random per call)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Print one summary line per schedule to stdout">
  ];
}

#endif // COLLC_INTERPRETER_PASSES_TD
