//===- PlaceDependentLaunch.cpp - PDL after the last remote write -*- C++ -*-===//
//
// Programmatic dependent launch lets the next kernel start its prologue
// before this one ends; triggering it at exit (what the schedules do) hides
// nothing. A program's remote writes are its puts (snac.put, put_each),
// a spread's stores to the owners' outputs (snac.reduce_spread) and the
// in-switch ops (snac.mc_reduce, mc_reduce_local, mc_put):
// once the last is issued, what remains is waiting and local copying, which
// the next kernel's address arithmetic can overlap.
//
//===----------------------------------------------------------------------===//

#include "collc/Dialect/Snac/IR/SnacOps.h"
#include "collc/Dialect/Snac/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace collc::snac {
#define GEN_PASS_DEF_SNACPLACEDEPENDENTLAUNCH
#include "collc/Dialect/Snac/Transforms/Passes.h.inc"
} // namespace collc::snac

using namespace mlir;
using namespace collc::snac;

namespace {
struct SnacPlaceDependentLaunchPass
    : public collc::snac::impl::SnacPlaceDependentLaunchBase<
          SnacPlaceDependentLaunchPass> {
  void runOnOperation() override {
    for (auto program : getOperation().getOps<ProgramOp>()) {
      for (auto launch : llvm::make_early_inc_range(
               program.getBody().front().getOps<LaunchDependentsOp>()))
        launch.erase();
      if (!program.getPolicy().getPdl())
        continue;
      // The last put (snac.put or snac.put_each) in program order;
      // launch_dependents goes after the op of the program's body that
      // holds it (its loop, if any).
      Operation *last = nullptr;
      program.getBody().walk([&](Operation *op) {
        if (isa<PutOp, PutEachOp, ReduceSpreadOp, McReduceOp, McReduceLocalOp,
                McPutOp>(op))
          last = op;
      });
      if (!last)
        continue;
      Block *body = &program.getBody().front();
      Operation *anchor = body->findAncestorOpInBlock(*last);
      OpBuilder b(anchor->getContext());
      b.setInsertionPointAfter(anchor);
      LaunchDependentsOp::create(b, last->getLoc());
    }
  }
};
} // namespace
