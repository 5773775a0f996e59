//===- SimulatePass.cpp - run schedules in the interpreter ------*- C++ -*-===//

#include "collc/Interpreter/Interpreter.h"
#include "collc/Interpreter/Passes.h"
#include "collc/Interpreter/Trace.h"
#include "collc/Interpreter/Verify.h"

#include "Common.h"

#include "collc/Dialect/Coll/IR/CollOps.h"
#include "collc/Dialect/Snac/IR/SnacOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

namespace collc::interp {
#define GEN_PASS_DEF_SNACSIMULATE
#include "collc/Interpreter/Passes.h.inc"
} // namespace collc::interp

using namespace mlir;
using namespace collc;
using namespace collc::interp;

namespace {

/// Every (a, b) of two lists, a major.
SmallVector<std::pair<int, int>> pairs(ArrayRef<int> as, ArrayRef<int> bs) {
  SmallVector<std::pair<int, int>> all;
  for (int a : as)
    for (int b : bs)
      all.push_back({a, b});
  return all;
}

struct SnacSimulatePass
    : public collc::interp::impl::SnacSimulateBase<SnacSimulatePass> {
  using Base::Base;

  SmallVector<int64_t> worldSizes;
  /// --trace: the runs kept for the file, and the subjects already in it.
  Trace kept;
  std::set<std::string> tracedSubjects;

  /// Runs `sim` with `o`, traced when --trace is set: the first run of
  /// `subject` and a failing one are kept for the file.
  LogicalResult traced(const std::string &subject, SimOptions o,
                       llvm::function_ref<LogicalResult(SimOptions &)> sim) {
    if (trace.empty())
      return sim(o);
    Trace run;
    run.beginRun(subject + ", " + describe(o));
    o.trace = &run;
    LogicalResult result = sim(o);
    if (failed(result) || tracedSubjects.insert(subject).second)
      kept.append(std::move(run));
    return result;
  }

  /// One seeded run of the (world size, shape, seed) grid: types and
  /// strategies rotate across it.
  SimOptions seeded(ArrayRef<sim::ElemType> types, size_t ni, int64_t n,
                    size_t si, sim::Shape shape, unsigned seed) {
    SimOptions o;
    o.worldSize = n;
    o.shape = shape;
    o.type = types[(seed + si + ni) % types.size()];
    o.seed = 1 + seed + 100 * si + 10000 * n;
    o.calls = calls;
    o.strategy = static_cast<Strategy>((seed + ni) % kNumStrategies);
    o.count = count;
    return o;
  }

  /// The options of exhaustive run number `runs` (its element type and seed
  /// follow the run count).
  SimOptions exhaustiveRun(ArrayRef<sim::ElemType> types, unsigned runs,
                           int64_t n, sim::Shape shape) {
    SimOptions o;
    o.worldSize = n;
    o.shape = shape;
    o.type = types[runs % types.size()];
    o.seed = 1 + runs;
    o.calls = calls;
    o.exhaustive = true;
    o.stateBudget = budget;
    return o;
  }

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
            SimOptions o = exhaustiveRun(types, runs, n, shape);
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

  /// Every world size x shape x seed (or the exhaustive configurations) of
  /// one program, once per encoding.
  LogicalResult runProgram(ModuleOp module, snac::ProgramOp program,
                           ArrayRef<int> encodingList,
                           ArrayRef<int> speculateList,
                           ArrayRef<sim::Shape> shapeList) {
    auto collective = collectiveNextTo(program, program.getCollective());
    if (!collective)
      return program.emitError() << "no coll.collective named @"
                                 << program.getCollective();
    std::vector<sim::ElemType> types = elemTypesOf(collective);
    for (auto [encoding, speculate] : pairs(encodingList, speculateList)) {
      // A zero-copy program has one readiness (flag, its verifier's rule):
      // forced encodings leave it as it is, run once.
      if (program.isZeroCopy() && encoding >= 0 &&
          encoding != static_cast<int>(program.getEncoding()))
        continue;
      int e = encoding >= 0 ? encoding
                            : static_cast<int>(program.getEncoding());
      // Flag never speculates: one run of it, under the first setting.
      if (e == 0 && speculate != speculateList.front())
        continue;
      bool speculative =
          e != 0 && (speculate >= 0 ? speculate == 1
                                    : program.getPolicy().getSpeculate());
      bool chunked = program.getPolicy().isChunked();
      SimStats stats;
      unsigned runs = 0;
      auto one = [&](SimOptions o) {
        o.encoding = encoding;
        o.speculate = speculate;
        o.workers = workers;
        o.chunkUnits = chunkUnits;
        o.specialInputs = inputs == "special" ||
                          (inputs == "mixed" && runs % 2 == 1);
        o.counts.assign(counts.begin(), counts.end());
        if (stagingSlots >= 1)
          o.stagingSlots = stagingSlots;
        else
          o.stagingSlots = -1;
        ++runs;
        return traced(
            llvm::formatv("@{0} program {1}:{2}{3}", collective.getSymName(),
                          snac::stringifyVariant(program.getVariant()),
                          e == 0 ? "flag" : e == 1 ? "ll16" : "sentinel",
                          program.isZeroCopy() ? " (zero-copy)"
                          : chunked            ? " (chunked)"
                                               : "")
                .str(),
            o, [&](SimOptions &opts) {
              return simulateProgram(program, opts, &stats);
            });
      };
      for (auto [ni, n] : llvm::enumerate(worldSizes))
        for (auto [si, shape] : llvm::enumerate(shapeList)) {
          if (exhaustive) {
            // A chunked program: one step, then two (the second a unit on
            // CTA 0 and padding on the others).
            int64_t more = chunked ? workers * chunkUnits + 1 : workers + 1;
            for (int64_t units : {int64_t(1), more}) {
              SimOptions o = exhaustiveRun(types, runs, n, shape);
              int64_t bytes = sim::elemBits(o.type) / 8;
              int64_t perUnit = std::max<int64_t>(
                  1, (encoding == 1 ||
                      (encoding < 0 && program.getEncoding() ==
                                           snac::Encoding::ll16)
                          ? 8
                          : 16) /
                         std::max<int64_t>(1, bytes));
              o.count = units * perUnit;
              if (failed(one(o)))
                return failure();
            }
            continue;
          }
          // A program moves n^2 regions per call: one seed per shape at
          // NVL72 scale keeps the library's simulation fast. A chunked one
          // moves them per CTA and step: there, only the last shape (skew,
          // the zero-sized partitions and the steps of the hot one).
          unsigned programSeeds = n >= 32 ? 1 : seeds.getValue();
          if (n >= 32 && chunked && si + 1 != shapeList.size())
            continue;
          for (unsigned seed = 0; seed < programSeeds; ++seed) {
            SimOptions o = seeded(types, ni, n, si, shape, seed);
            if (failed(one(o)))
              return failure();
          }
        }
      if (report) {
        const char *names[] = {"flag", "ll16", "sentinel"};
        llvm::outs() << llvm::formatv(
            "{0} program @{1} ({2}{7}{8}): {3} runs ok ({4} calls each; {5} "
            "{6})\n",
            exhaustive ? "exhaustive" : "simulate", collective.getSymName(),
            names[e], runs, calls.getValue(),
            exhaustive ? stats.states : stats.actions,
            exhaustive
                ? llvm::formatv("states, {0} interleavings", stats.traces).str()
                : std::string("steps"),
            speculative ? ", speculative" : "",
            program.isZeroCopy() ? ", zero-copy"
            : chunked            ? ", chunked"
            // The in-switch programs say which (an AllReduce has two).
            : program.isMultimem()
                ? ", " + snac::stringifyVariant(program.getVariant()).str()
                : std::string());
      }
    }
    return success();
  }

  /// Reads each of `words` as one of `choices` into `out` (`fallback` alone
  /// when there are none); an unknown word is an error at `module`.
  template <typename T>
  static LogicalResult
  parseChoices(ModuleOp module, StringRef what, ArrayRef<std::string> words,
               ArrayRef<std::pair<StringRef, T>> choices, T fallback,
               SmallVectorImpl<T> &out) {
    for (const std::string &word : words) {
      const auto *it = llvm::find_if(
          choices, [&](const auto &c) { return c.first == word; });
      if (it == choices.end()) {
        std::string expected;
        for (auto [i, c] : llvm::enumerate(choices))
          expected += (i == 0                  ? ""
                       : i + 1 < choices.size() ? ", "
                                                : " or ") +
                      c.first.str();
        return module.emitError() << "unknown " << what << " '" << word
                                  << "'; expected " << expected;
      }
      out.push_back(it->second);
    }
    if (out.empty())
      out.push_back(fallback);
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!trace.empty() && exhaustive) {
      module.emitError() << "--trace records seeded runs; the exhaustive "
                            "search has no single run to show (drop one of "
                            "them)";
      return signalPassFailure();
    }
    LogicalResult result = runAll(module);
    if (!trace.empty()) {
      std::error_code ec;
      llvm::raw_fd_ostream os(trace, ec);
      if (ec) {
        module.emitError() << "cannot write the trace " << trace << ": "
                           << ec.message();
        return signalPassFailure();
      }
      kept.write(os);
      if (report)
        llvm::outs() << llvm::formatv("trace: {0} runs, {1} events in {2}\n",
                                      kept.runs(), kept.events(), trace);
    }
    if (failed(result))
      signalPassFailure();
  }

  LogicalResult runAll(ModuleOp module) {
    worldSizes.assign(ranks.begin(), ranks.end());
    if (worldSizes.empty()) {
      worldSizes.push_back(2);
      if (exhaustive)
        worldSizes.push_back(3);
    }
    SmallVector<sim::Shape> shapeList;
    SmallVector<int> inputList, encodingList, speculateList;
    if (failed(parseChoices<sim::Shape>(module, "partition shape", shapes,
                                        {{"uniform", sim::Shape::Uniform},
                                         {"zipf", sim::Shape::Zipf},
                                         {"skew", sim::Shape::Skew}},
                                        sim::Shape::Uniform, shapeList)) ||
        failed(parseChoices<int>(module, "inputs", {inputs.getValue()},
                                 {{"random", 0}, {"special", 1}, {"mixed", 2}},
                                 0, inputList)) ||
        failed(parseChoices<int>(module, "encoding", encodings,
                                 {{"flag", 0}, {"ll16", 1}, {"sentinel", 2}},
                                 -1, encodingList)) ||
        failed(parseChoices<int>(module, "speculation setting", speculate,
                                 {{"on", 1}, {"off", 0}}, -1, speculateList)))
      return failure();
    for (auto program : module.getOps<snac::ProgramOp>()) {
      if (gate) {
        if (failed(verifyProgram(program, report ? &llvm::outs() : nullptr)))
          return failure();
        continue;
      }
      if (failed(runProgram(module, program, encodingList, speculateList,
                            shapeList)))
        return failure();
    }

    for (auto schedule : module.getOps<snac::ScheduleOp>()) {
      auto collective = collectiveNextTo(schedule, schedule.getCollective());
      if (!collective) {
        schedule.emitError() << "no coll.collective named @"
                             << schedule.getCollective();
        return failure();
      }
      std::vector<sim::ElemType> types = elemTypesOf(collective);
      SimStats stats;
      unsigned runs = 0;
      if (exhaustive) {
        if (failed(runExhaustive(schedule, types, shapeList, stats, runs)))
          return failure();
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
            SimOptions o = seeded(types, ni, n, si, shape, seed);
            o.chunkBytes = chunkBytes;
            o.stagingSlots = stagingSlots == -2 ? (seed % 2 ? 2 : -1)
                                                : stagingSlots.getValue();
            ++runs;
            if (failed(traced(
                    ("@" + collective.getSymName() + " schedule").str(), o,
                    [&](SimOptions &opts) {
                      return simulate(schedule, opts, &stats);
                    })))
              return failure();
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
    return success();
  }
};

} // namespace
