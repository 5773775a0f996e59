//===- Sweep.h - collc --sweep ----------------------------------*- C++ -*-===//
//
// The CI sweep of the whole legal space of the spec language: every
// transform and every composition of two the front end accepts, derived and
// simulated (Sweep.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_TOOLS_COLLC_SWEEP_H
#define COLLC_TOOLS_COLLC_SWEEP_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace collc {

struct SweepOptions {
  /// World sizes each collective runs at.
  llvm::SmallVector<int64_t> ranks = {2, 3, 5, 8};
  /// Seeds per (world size, slot count, strategy).
  unsigned seeds = 1;
  unsigned calls = 3;
  int64_t chunkBytes = 32;
  /// snac-test-inject-fault applied after the derivation (tests of the
  /// sweep itself); empty for none.
  std::string fault;
  /// One line per collective, not only failures and the summary.
  bool verbose = false;
};

/// Runs the sweep, prints a summary (candidates, legal, simulations,
/// failures) and each failure to `os`, the interpreter's findings through
/// the context's diagnostics. Returns the process exit code.
int runSweep(mlir::MLIRContext &context, const SweepOptions &options,
             llvm::raw_ostream &os);

} // namespace collc

#endif // COLLC_TOOLS_COLLC_SWEEP_H
