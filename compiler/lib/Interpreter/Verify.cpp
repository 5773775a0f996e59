//===- Verify.cpp - prove a schedule before emitting it ---------*- C++ -*-===//
//
// A dozen short simulations per schedule. Small worlds find what large ones
// do (a cycle of waits needs two ranks, a wrong partition three), and slot
// counts of 1 and 2 force every staging and intermediate slot to be reused
// within a call, where a missing or miscounted release deadlocks.
//
//===----------------------------------------------------------------------===//

#include "collc/Interpreter/Verify.h"

#include "collc/Interpreter/Interpreter.h"

#include "Common.h"

#include "collc/Dialect/Coll/IR/CollOps.h"
#include "collc/Dialect/Snac/IR/SnacOps.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
using namespace collc;
using namespace collc::interp;

namespace {

/// The runs of one schedule: world sizes 2 and 3, two seeds, the schedule's
/// own slot count and 1 and 2; shapes, types and strategies rotate.
std::vector<SimOptions> configurations(snac::ScheduleOp schedule,
                                       coll::CollectiveOp collective) {
  std::vector<sim::ElemType> types = elemTypesOf(collective);
  std::vector<SimOptions> runs;
  int64_t own = schedule.getStagingSlots();
  SmallVector<int64_t, 3> slotCounts = {own};
  for (int64_t s : {1, 2})
    if (s != own)
      slotCounts.push_back(s);
  unsigned index = 0;
  for (int n : {2, 3})
    for (int64_t slots : slotCounts)
      for (uint64_t seed : {1, 2}) {
        SimOptions o;
        o.worldSize = n;
        o.seed = seed + 10 * slots + 1000 * n;
        // Skewed sizes make zero-sized and uneven partitions (V layouts).
        o.shape = seed == 1 ? sim::Shape::Uniform : sim::Shape::Skew;
        o.type = types[index % types.size()];
        o.strategy = static_cast<Strategy>(index % kNumStrategies);
        o.calls = 3;
        // Small chunks: a few elements take several chunks per slot.
        o.chunkBytes = 32;
        o.stagingSlots = slots;
        runs.push_back(o);
        ++index;
      }
  return runs;
}

} // namespace

LogicalResult interp::capture(MLIRContext *context,
                              std::optional<Finding> &finding,
                              llvm::function_ref<LogicalResult()> simulation) {
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
    if (diag.getSeverity() != DiagnosticSeverity::Error || finding)
      return success();
    finding = Finding{diag.getLocation(), diag.str(), {}};
    for (Diagnostic &note : diag.getNotes())
      finding->notes.push_back({note.getLocation(), note.str()});
    return success();
  });
  return simulation();
}

void interp::refuse(InFlightDiagnostic &&error,
                    const std::optional<Finding> &finding) {
  if (!finding)
    return;
  error.attachNote(finding->loc) << finding->message;
  for (auto &[loc, text] : finding->notes)
    error.attachNote(loc) << text;
}

double interp::countVerified(VerifyStats *stats, size_t runs,
                             std::chrono::steady_clock::time_point start) {
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  if (stats) {
    ++stats->schedules;
    stats->runs += runs;
    stats->seconds += seconds;
  }
  return seconds;
}

namespace {

/// Beyond verifyProgram's runs: every interleaving at 2 ranks of three calls
/// whose middle one is empty, where only padding units travel. A padding
/// unit that is not published lets a producer reuse a slot its consumer
/// still reads, which seeded interleavings rarely order that way.
LogicalResult verifyPadding(snac::ProgramOp program,
                            coll::CollectiveOp collective) {
  SimOptions o;
  o.worldSize = 2;
  o.exhaustive = true;
  o.calls = 3;
  o.counts = {4, 0, 4};
  o.specialInputs = true;
  if (auto type = elemTypeOf(
          cast<TypeAttr>(collective.getElementTypes()[0]).getValue()))
    o.type = *type;
  std::optional<Finding> finding;
  if (succeeded(capture(program.getContext(), finding,
                        [&] { return simulateProgram(program, o); })))
    return success();
  refuse(collective.emitError()
             << "refusing to emit the "
             << snac::stringifyEncoding(program.getEncoding())
             << " program of @" << collective.getSymName()
             << ": it fails verification in the reference interpreter ("
             << describe(o)
             << " counts=4,0,4); this is a collc bug, please report it with "
                "this spec",
         finding);
  return failure();
}

} // namespace

LogicalResult interp::verifyBeforeEmit(ModuleOp module, raw_ostream *report,
                                       VerifyStats *stats) {
  bool ok = true;
  for (auto schedule : module.getOps<snac::ScheduleOp>()) {
    auto collective = collectiveNextTo(schedule, schedule.getCollective());
    if (!collective)
      return schedule.emitError()
             << "no coll.collective named @" << schedule.getCollective()
             << " next to this schedule";
    auto start = std::chrono::steady_clock::now();
    std::vector<SimOptions> runs = configurations(schedule, collective);
    bool passed = true;
    for (const SimOptions &o : runs) {
      std::optional<Finding> finding;
      if (succeeded(capture(module.getContext(), finding,
                            [&] { return simulate(schedule, o); })))
        continue;
      refuse(collective.emitError()
                 << "refusing to emit code for @" << collective.getSymName()
                 << ": its derived schedule fails verification in the "
                    "reference interpreter ("
                 << describe(o) << " staging_slots=" << o.stagingSlots
                 << "); this is a collc bug, please report it with this spec",
             finding);
      passed = false;
      break;
    }
    // Every collective is checked, so one compilation lists every refusal.
    if (!passed) {
      ok = false;
      continue;
    }
    double seconds = countVerified(stats, runs.size(), start);
    if (report)
      *report << llvm::formatv("verified @{0}: {1} simulations in {2:F1} ms\n",
                               collective.getSymName(), runs.size(),
                               seconds * 1e3);
  }
  // Programs (SNAC v2) likewise, each with the encoding it is emitted
  // with (VerifyProgram.cpp, then the padding run above); every one is
  // checked, so that one compilation lists every refusal.
  for (auto program : module.getOps<snac::ProgramOp>()) {
    if (failed(verifyProgram(program, report, stats))) {
      ok = false;
      continue;
    }
    // An in-switch program has no receive slot for a padding unit to
    // prove.
    if (program.isMultimem())
      continue;
    auto collective = collectiveNextTo(program, program.getCollective());
    if (failed(verifyPadding(program, collective)))
      ok = false;
  }
  return success(ok);
}
