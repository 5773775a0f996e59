//===- TestInjectFault.cpp - break a schedule on purpose --------*- C++ -*-===//
//
// Test only. Each fault is one mistake a hand-written orchestration makes;
// the reference interpreter must catch each and say where. A program's
// faults are mistakes of the code a put or take becomes (the IR cannot
// spell them: the verifiers refuse one slot or an epoch not from
// snac.epoch), so they are a `snac.test_fault` attribute that only the
// interpreter reads.
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
    bool programFault =
        fault == "sentinel-not-canonicalized" ||
        fault == "program-early-slot-reuse" ||
        fault == "wrong-sequence-next" || fault == "wrong-sequence-previous" ||
        fault == "padding-dropped" || fault == "validation-skipped" ||
        fault == "retire-skipped" || fault == "agree-skipped" ||
        fault == "pair-steps-one-sided" || fault == "pair-ll16-one-sided" ||
        fault == "mc-first-barrier-skipped" ||
        fault == "mc-last-barrier-skipped";
    if (!programFault && fault != "missing-await" &&
        fault != "wrong-notify-target" && fault != "early-slot-reuse" &&
        fault != "wrong-reduce-source") {
      getOperation().emitError()
          << "unknown fault '" << fault
          << "'; expected missing-await, wrong-notify-target, "
             "early-slot-reuse, wrong-reduce-source, "
             "sentinel-not-canonicalized, program-early-slot-reuse, "
             "wrong-sequence-next, wrong-sequence-previous, "
             "padding-dropped, validation-skipped, retire-skipped, "
             "agree-skipped, pair-steps-one-sided, pair-ll16-one-sided, "
             "mc-first-barrier-skipped or mc-last-barrier-skipped";
      return signalPassFailure();
    }
    // Schedules the fault does not apply to (no reduce, say) stay intact.
    bool injected = false;
    if (programFault) {
      for (auto program : getOperation().getOps<ProgramOp>())
        injected |= injectProgram(program);
    } else {
      for (auto schedule : getOperation().getOps<ScheduleOp>())
        injected |= inject(schedule);
    }
    if (!injected) {
      getOperation().emitError()
          << "no schedule has a place to inject fault '" << fault << "'";
      return signalPassFailure();
    }
  }

  /// Marks the ops of `program` the fault changes; false if none.
  bool injectProgram(ProgramOp program) {
    auto mark = [&](Operation *op) {
      op->setAttr("snac.test_fault", StringAttr::get(op->getContext(), fault));
    };
    if (fault == "program-early-slot-reuse") {
      mark(program);
      return true;
    }
    // An in-switch program without its first or its last barrier.
    if (fault == "mc-first-barrier-skipped" ||
        fault == "mc-last-barrier-skipped") {
      auto barriers = llvm::to_vector(
          program.getBody().front().getOps<McBarrierOp>());
      if (barriers.empty())
        return false;
      mark(fault == "mc-first-barrier-skipped" ? barriers.front()
                                               : barriers.back());
      return true;
    }
    bool any = false;
    program.walk([&](Operation *op) {
      if (fault == "agree-skipped" || fault == "pair-steps-one-sided" ||
          fault == "pair-ll16-one-sided") {
        bool counts = fault == "agree-skipped" ? program.getPolicy().getAgree()
                      : fault == "pair-steps-one-sided"
                          ? program.getPolicy().getPairs()
                          : program.getPolicy().getPairLl16() != 0;
        if (isa<EpochOp>(op) && counts) {
          mark(op);
          any = true;
        }
        return;
      }
      if (fault == "retire-skipped") {
        if (isa<RetireOp>(op)) {
          mark(op);
          any = true;
        }
        return;
      }
      bool take = isa<TakeOp, TakeEachOp, ReduceTakeOp>(op);
      bool onTake =
          fault == "padding-dropped" || fault == "validation-skipped";
      if ((isa<PutOp, PutEachOp>(op) && fault != "validation-skipped") ||
          (take && onTake)) {
        mark(op);
        any = true;
      }
    });
    return any;
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
