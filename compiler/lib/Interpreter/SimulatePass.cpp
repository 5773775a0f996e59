//===- SimulatePass.cpp - run schedules in the interpreter ------*- C++ -*-===//

#include "collc/Interpreter/Interpreter.h"
#include "collc/Interpreter/Passes.h"

#include "collc/Dialect/Coll/IR/CollOps.h"
#include "collc/Dialect/Snac/IR/SnacOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace collc::interp {
#define GEN_PASS_DEF_SNACSIMULATE
#include "collc/Interpreter/Passes.h.inc"
} // namespace collc::interp

using namespace mlir;
using namespace collc;
using namespace collc::interp;

namespace {

struct SnacSimulatePass
    : public collc::interp::impl::SnacSimulateBase<SnacSimulatePass> {
  using Base::Base;

  SmallVector<int64_t> worldSizes;

  /// Every world size x 1 and 2 chunks per partition x shape x slot count,
  /// each in every interleaving.
  LogicalResult runExhaustive(snac::ScheduleOp schedule,
                              ArrayRef<sim::ElemType> types,
                              ArrayRef<sim::Shape> shapeList, SimStats &stats,
                              unsigned &runs) {
    SmallVector<int64_t, 2> slotCounts = {1, 2};
    if (stagingSlots >= 0)
      slotCounts = {stagingSlots.getValue()};
    else if (stagingSlots == -1)
      slotCounts = {schedule.getStagingSlots()};
    for (int64_t n : worldSizes)
      for (int64_t chunks : {1, 2})
        for (auto [si, shape] : llvm::enumerate(shapeList))
          for (int64_t slots : slotCounts) {
            SimOptions o;
            o.worldSize = n;
            o.shape = shape;
            o.type = types[runs % types.size()];
            o.seed = 1 + runs;
            o.calls = calls;
            o.exhaustive = true;
            o.stateBudget = budget;
            o.chunkBytes = chunkBytes;
            int64_t bytes =
                chunkBytes > 0 ? chunkBytes.getValue() : schedule.getChunkBytes();
            o.count = chunks *
                      std::max<int64_t>(1, bytes * 8 / sim::elemBits(o.type));
            o.stagingSlots = slots;
            ++runs;
            if (failed(simulate(schedule, o, &stats)))
              return failure();
          }
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<sim::Shape> shapeList;
    for (const std::string &s : shapes) {
      auto shape = llvm::StringSwitch<std::optional<sim::Shape>>(s)
                       .Case("uniform", sim::Shape::Uniform)
                       .Case("zipf", sim::Shape::Zipf)
                       .Case("skew", sim::Shape::Skew)
                       .Default(std::nullopt);
      if (!shape) {
        module.emitError() << "unknown partition shape '" << s
                           << "'; expected uniform, zipf or skew";
        return signalPassFailure();
      }
      shapeList.push_back(*shape);
    }
    if (shapeList.empty())
      shapeList.push_back(sim::Shape::Uniform);
    worldSizes.assign(ranks.begin(), ranks.end());
    if (worldSizes.empty()) {
      worldSizes.push_back(2);
      if (exhaustive)
        worldSizes.push_back(3);
    }

    for (auto schedule : module.getOps<snac::ScheduleOp>()) {
      auto collective =
          module.lookupSymbol<coll::CollectiveOp>(schedule.getCollective());
      if (!collective) {
        schedule.emitError() << "no coll.collective named @"
                             << schedule.getCollective();
        return signalPassFailure();
      }
      SmallVector<sim::ElemType> types;
      for (Attribute t : collective.getElementTypes())
        if (auto e = elemTypeOf(cast<TypeAttr>(t).getValue()))
          types.push_back(*e);
      if (types.empty())
        types.push_back(sim::ElemType::F32);
      SimStats stats;
      unsigned runs = 0;
      if (exhaustive) {
        if (failed(runExhaustive(schedule, types, shapeList, stats, runs)))
          return signalPassFailure();
        if (report)
          llvm::outs() << llvm::formatv(
              "exhaustive @{0}: {1} runs ok ({2} calls each; {3} states, {4} "
              "interleavings)\n",
              collective.getSymName(), runs, calls.getValue(), stats.states,
              stats.traces);
        continue;
      }
      for (auto [ni, n] : llvm::enumerate(worldSizes)) {
        for (auto [si, shape] : llvm::enumerate(shapeList)) {
          for (unsigned seed = 0; seed < seeds; ++seed) {
            SimOptions o;
            o.worldSize = n;
            o.shape = shape;
            o.type = types[(seed + si + ni) % types.size()];
            o.seed = 1 + seed + 100 * si + 10000 * n;
            o.calls = calls;
            o.strategy = static_cast<Strategy>((seed + ni) % kNumStrategies);
            o.count = count;
            o.chunkBytes = chunkBytes;
            o.stagingSlots = stagingSlots == -2 ? (seed % 2 ? 2 : -1)
                                                : stagingSlots.getValue();
            ++runs;
            if (failed(simulate(schedule, o, &stats)))
              return signalPassFailure();
          }
        }
      }
      if (report)
        llvm::outs() << llvm::formatv(
            "simulate @{0}: {1} runs ok ({2} calls each; {3} steps, {4} "
            "elements moved)\n",
            collective.getSymName(), runs, calls.getValue(), stats.actions,
            stats.elements);
    }
  }
};

} // namespace
