//===- Verify.h - prove a schedule before emitting it -----------*- C++ -*-===//
//
// The gate between the derivation and code generation: every schedule about
// to become a kernel first runs in the reference interpreter, briefly but
// adversarially (small worlds, slot reuse forced, several interleavings). A
// schedule that deadlocks, races or computes a wrong output never reaches
// the GPU, where it would hang or corrupt silently.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_INTERPRETER_VERIFY_H
#define COLLC_INTERPRETER_VERIFY_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

#include <cstdint>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace collc::snac {
class ProgramOp;
} // namespace collc::snac

namespace collc::interp {

/// What verifyBeforeEmit did, per schedule.
struct VerifyStats {
  unsigned schedules = 0;
  unsigned runs = 0;
  double seconds = 0;
};

/// Simulates every snac.schedule of `module` at 2 and 3 ranks, two seeds
/// each, with the schedule's own staging slots and with 1 and 2 (so slots
/// are reused), skewed and uniform partition sizes, rotating the element
/// types and interleaving strategies. For each schedule that fails, it
/// reports an error at its collective (the spec's file:line:col) with the
/// interpreter's first finding attached as a note; it fails if any did. With
/// `report`, it prints one line per schedule that passed (runs and time).
/// Every snac.program goes through verifyProgram (below) the same way, then
/// through every interleaving at 2 ranks of three calls with the middle one
/// empty (where a missing padding unit breaks slot reuse).
mlir::LogicalResult verifyBeforeEmit(mlir::ModuleOp module,
                                     llvm::raw_ostream *report = nullptr,
                                     VerifyStats *stats = nullptr);

/// The gate for one snac.program (SNAC v2) about to become a kernel: it runs
/// in the interpreter with the encoding it will be emitted with, at 2, 3 and
/// 5 ranks, every interleaving strategy, random and special inputs, uniform
/// and skewed sizes, three calls with the middle one empty (padding units),
/// and exhaustively at 2 ranks, two calls. A program that fails is an error
/// at its collective (the spec's file:line:col) with the interpreter's first
/// finding attached as a note. With `report`, one line when it passes.
mlir::LogicalResult verifyProgram(snac::ProgramOp program,
                                  llvm::raw_ostream *report = nullptr,
                                  VerifyStats *stats = nullptr);

} // namespace collc::interp

#endif // COLLC_INTERPRETER_VERIFY_H
