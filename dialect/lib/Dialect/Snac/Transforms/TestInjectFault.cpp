//===- TestInjectFault.cpp - break a schedule on purpose --------*- C++ -*-===//
//
// Test only. Each fault is one mistake a hand-written orchestration makes;
// the reference interpreter must catch each and say where.
//
//===----------------------------------------------------------------------===//

#include "collc/Dialect/Snac/IR/SnacOps.h"
#include "collc/Dialect/Snac/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace collc::snac {
#define GEN_PASS_DEF_SNACTESTINJECTFAULT
#include "collc/Dialect/Snac/Transforms/Passes.h.inc"
} // namespace collc::snac

using namespace mlir;
using namespace collc::snac;

namespace {

EventKind kindOf(ScheduleOp schedule, FlatSymbolRefAttr event) {
  return schedule.lookup<EventOp>(event).getKind();
}

/// `(v + 1) mod n`, inserted before `op`.
Value nextRank(OpBuilder &b, Operation *op, Value v, RoleOp role) {
  b.setInsertionPoint(op);
  Location loc = op->getLoc();
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value sum = arith::AddIOp::create(b, loc, v, one);
  return arith::RemUIOp::create(b, loc, sum, role.getWorldSize());
}

struct SnacTestInjectFaultPass
    : public collc::snac::impl::SnacTestInjectFaultBase<
          SnacTestInjectFaultPass> {
  using Base::Base;

  void runOnOperation() override {
    if (fault != "missing-await" && fault != "wrong-notify-target" &&
        fault != "early-slot-reuse" && fault != "wrong-reduce-source") {
      getOperation().emitError()
          << "unknown fault '" << fault
          << "'; expected missing-await, wrong-notify-target, "
             "early-slot-reuse or wrong-reduce-source";
      return signalPassFailure();
    }
    // Schedules the fault does not apply to (no reduce, say) stay intact.
    bool injected = false;
    for (auto schedule : getOperation().getOps<ScheduleOp>())
      injected |= inject(schedule);
    if (!injected) {
      getOperation().emitError()
          << "no schedule has a place to inject fault '" << fault << "'";
      return signalPassFailure();
    }
  }

  /// Returns false when the schedule has no op the fault applies to.
  bool inject(ScheduleOp schedule) {
    OpBuilder b(schedule.getContext());
    for (auto role : schedule.getBody().getOps<RoleOp>()) {
      bool isStage = role.getSymName() == "stage";
      Operation *target = nullptr;
      role.walk([&](Operation *op) {
        if (target)
          return;
        if (auto await = dyn_cast<AwaitOp>(op)) {
          EventKind kind = kindOf(schedule, await.getEventAttr());
          if ((fault == "missing-await" && !isStage &&
               kind == EventKind::ready) ||
              (fault == "early-slot-reuse" && isStage &&
               kind == EventKind::free))
            target = op;
        } else if (auto notify = dyn_cast<NotifyOp>(op)) {
          if (fault == "wrong-notify-target" && isStage && notify.getTarget())
            target = op;
        } else if (isa<ReduceOp>(op) && fault == "wrong-reduce-source") {
          target = op;
        }
      });
      if (!target)
        continue;
      if (isa<AwaitOp>(target)) {
        target->erase();
      } else if (auto notify = dyn_cast<NotifyOp>(target)) {
        Value wrong = nextRank(b, notify, notify.getTarget(), role);
        notify.getTargetMutable().assign(wrong);
      } else {
        auto reduce = cast<ReduceOp>(target);
        Value wrong = nextRank(b, reduce, reduce.getSrcPart(), role);
        reduce.getSrcPartMutable().assign(wrong);
      }
      return true;
    }
    return false;
  }
};

} // namespace
