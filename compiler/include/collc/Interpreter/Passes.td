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

    With `exhaustive`, each schedule instead runs in every interleaving up to
    partial-order reduction (persistent and sleep sets, see Interpreter.cpp)
    for every world size in `ranks` (default 2 and 3), with 1 and 2 chunks
    per partition (`count` is then derived from `chunk-bytes`), each shape,
    and staging slots 1 and 2 (or `staging-slots` when set to a count), `calls`
    calls each; a run that visits more than `budget` states fails.

    Every snac.program runs the same way (world sizes x shapes x seeds, or
    exhaustively), once per encoding in `encodings` (default: the policy's)
    and speculation setting in `speculate` (default: the policy's),
    with `workers` CTAs per rank, random and special inputs alternating by
    seed (`inputs`), and receive slots from `staging-slots` when it is a
    count. In the exhaustive mode its calls carry one unit and `workers + 1`
    units per partition (a chunked program: one unit and
    `workers * chunk-units + 1`, one step and two).
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
           "Print one summary line per schedule to stdout">,
    Option<"exhaustive", "exhaustive", "bool", /*default=*/"false",
           "Explore every interleaving (partial-order reduced) instead of "
           "seeded ones">,
    Option<"budget", "budget", "uint64_t", /*default=*/"2000000",
           "Exhaustive mode: states per run before it fails">,
    ListOption<"encodings", "encodings", "std::string",
               "Programs: encodings to force (flag, ll16, sentinel; default: "
               "the policy's)">,
    ListOption<"speculate", "speculate", "std::string",
               "Programs: speculation to force (on, off; default: the "
               "policy's; flag never speculates, so it runs once, off)">,
    Option<"workers", "workers", "int", /*default=*/"2",
           "Programs: CTAs per rank in the model">,
    Option<"chunkUnits", "chunk-units", "int64_t", /*default=*/"2",
           "Chunked programs: the model's chunk, in units of the encoding, "
           "per CTA, partition and step">,
    Option<"inputs", "inputs", "std::string", /*default=*/"\"mixed\"",
           "Input data: random, special or mixed (alternating by seed)">,
    Option<"gate", "gate", "bool", /*default=*/"false",
           "Programs: run verifyProgram (the emission gate of "
           "collc/Interpreter/Verify.h) on each instead">,
    ListOption<"counts", "counts", "int64_t",
               "Elements per partition of each call in turn (overrides "
               "count)">,
    Option<"trace", "trace", "std::string", /*default=*/"\"\"",
           "Write a Chrome trace (JSON) of the first seeded run of every "
           "schedule and program (per encoding) and of a failing run to "
           "this file (collc/Interpreter/Trace.h); not with exhaustive">
  ];
}

#endif // COLLC_INTERPRETER_PASSES_TD
