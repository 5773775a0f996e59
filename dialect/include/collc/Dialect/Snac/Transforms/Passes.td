//===- Passes.td - snac dialect passes ---------------------*- tablegen -*-===//

#ifndef COLLC_DIALECT_SNAC_TRANSFORMS_PASSES_TD
#define COLLC_DIALECT_SNAC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SnacTestInjectFault : Pass<"snac-test-inject-fault", "::mlir::ModuleOp"> {
  let summary = "Test only: break a derived schedule in one known way";
  let description = [{
    Injects one orchestration bug into every `snac.schedule`, so tests can
    check that the reference interpreter catches it and names the event, rank
    and chunk:

    - `missing-await`: drop the first await of a `ready` event in a consumer
      role (a read before readiness);
    - `wrong-notify-target`: the stage role publishes partition k to rank
      k+1 (mod n) instead of its consumer (a deadlock);
    - `early-slot-reuse`: drop the await of the `free` event in the stage
      role (a staging slot rewritten before it was consumed);
    - `wrong-reduce-source`: a reduce reads partition q+1 (mod n) instead of
      q (a read of data no awaited event published).
  }];
  let options = [
    Option<"fault", "fault", "std::string", /*default=*/"\"\"",
           "missing-await | wrong-notify-target | early-slot-reuse | "
           "wrong-reduce-source">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // COLLC_DIALECT_SNAC_TRANSFORMS_PASSES_TD
