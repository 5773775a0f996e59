//===- Sweep.cpp - collc --sweep: the whole legal space, simulated -*- C++ -*-===//
//
// Spells every transform the spec grammar can write (each consume op and
// reduction, each input and output layout, each root clause) and every
// composition of two accepted ones, keeps what the front end accepts, and
// runs each kept collective in the reference interpreter over world sizes,
// slot counts, interleaving strategies, partition shapes and element types.
// The candidates come from the vocabulary (the ODS enums the parser maps
// keywords to), never from a list of known-good collectives, so a layout or
// an op added to the language joins the sweep without a line changed here,
// and the verifiers alone decide what is legal.
//
//===----------------------------------------------------------------------===//

#include "Sweep.h"

#include "collc/Dialect/Coll/IR/CollOps.h"
#include "collc/Conversion/CollToSnac/Passes.h"
#include "collc/Dialect/Snac/IR/SnacOps.h"
#include "collc/Dialect/Snac/Transforms/Passes.h"
#include "collc/Interpreter/Interpreter.h"
#include "collc/Spec/SpecParser.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <chrono>

using namespace mlir;
using namespace collc;
using llvm::formatv;

namespace {

/// Every transform the grammar spells: `consume(in -> out)` plus an optional
/// root clause, over the whole vocabulary.
std::vector<std::string> spellTransforms() {
  std::vector<std::string> consumes;
  for (unsigned c = 0; c <= coll::getMaxEnumValForConsumeOp(); ++c) {
    auto consume = coll::symbolizeConsumeOp(c);
    if (!consume)
      continue;
    if (*consume == coll::ConsumeOp::copy) {
      consumes.push_back(coll::stringifyConsumeOp(*consume).str());
      continue;
    }
    for (unsigned r = 0; r <= coll::getMaxEnumValForReduction(); ++r)
      if (auto red = coll::symbolizeReduction(r))
        consumes.push_back((coll::stringifyConsumeOp(*consume) + "<" +
                            coll::stringifyReduction(*red) + ">")
                               .str());
  }
  std::vector<std::string> layouts;
  for (unsigned l = 0; l <= coll::getMaxEnumValForLayout(); ++l)
    if (auto layout = coll::symbolizeLayout(l))
      layouts.push_back(coll::stringifyLayout(*layout).str());
  // No clause, and `root <role>` for every role (`root none` included: the
  // front end, not this list, says it is not written).
  std::vector<std::string> roots = {""};
  for (unsigned r = 0; r <= coll::getMaxEnumValForRoot(); ++r)
    if (auto root = coll::symbolizeRoot(r))
      roots.push_back((" root " + coll::stringifyRoot(*root)).str());

  std::vector<std::string> terms;
  for (const std::string &c : consumes)
    for (const std::string &in : layouts)
      for (const std::string &out : layouts)
        for (const std::string &root : roots)
          terms.push_back(c + "(" + in + " -> " + out + ")" + root);
  return terms;
}

/// A spec of one collective `c` = `expr`, every element type.
std::string specText(StringRef expr) {
  return (Twine("types ") + coll::supportedElementTypesText() +
          "\ncollective c = " + expr + "\n")
      .str();
}

/// Parses `text` as a spec named `name`; diagnostics go to `sourceMgr`'s
/// handler when `quiet` is false, nowhere otherwise.
OwningOpRef<ModuleOp> parse(MLIRContext &context, llvm::SourceMgr &sourceMgr,
                            StringRef text, StringRef name, bool quiet) {
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, name),
                               llvm::SMLoc());
  if (!quiet)
    return spec::parseSpec(sourceMgr, &context);
  ScopedDiagnosticHandler drop(&context, [](Diagnostic &) { return success(); });
  return spec::parseSpec(sourceMgr, &context);
}

bool accepted(MLIRContext &context, StringRef expr) {
  llvm::SourceMgr sourceMgr;
  return static_cast<bool>(
      parse(context, sourceMgr, specText(expr), "candidate.coll", true));
}

} // namespace

int collc::runSweep(MLIRContext &context, const SweepOptions &options,
                    llvm::raw_ostream &os) {
  auto start = std::chrono::steady_clock::now();
  // The candidates, and what the front end keeps of them.
  std::vector<std::string> terms = spellTransforms();
  std::vector<std::string> singles;
  for (const std::string &t : terms)
    if (accepted(context, t))
      singles.push_back(t);
  std::vector<std::string> compositions;
  size_t pairCandidates = 0;
  for (const std::string &f : singles)
    for (const std::string &g : singles) {
      ++pairCandidates;
      std::string expr = f + " then " + g;
      if (accepted(context, expr))
        compositions.push_back(expr);
    }
  os << formatv("sweep: {0} transform candidates, {1} legal; {2} "
                "compositions of two legal transforms, {3} legal\n",
                terms.size(), singles.size(), pairCandidates,
                compositions.size());

  std::vector<std::string> legal = singles;
  legal.insert(legal.end(), compositions.begin(), compositions.end());
  // Slot counts: one (every chunk reuses the slot), two, the schedule's own
  // (-1) and one slot per chunk (0: no reuse within a call).
  const int64_t slotCounts[] = {1, 2, -1, 0};
  const sim::Shape shapes[] = {sim::Shape::Uniform, sim::Shape::Zipf,
                               sim::Shape::Skew};
  uint64_t runs = 0, steps = 0;
  unsigned failures = 0, index = 0;
  for (const std::string &expr : legal) {
    ++index;
    std::string name = formatv("sweep-{0}.coll", index).str();
    llvm::SourceMgr sourceMgr;
    SourceMgrDiagnosticHandler handler(sourceMgr, &context);
    OwningOpRef<ModuleOp> module =
        parse(context, sourceMgr, specText(expr), name, false);
    PassManager pm(&context);
    pm.addPass(createCollDeriveSchedule());
    if (!options.fault.empty()) {
      snac::SnacTestInjectFaultOptions fault;
      fault.fault = options.fault;
      pm.addPass(snac::createSnacTestInjectFault(fault));
    }
    if (!module || failed(pm.run(*module))) {
      ++failures;
      os << "FAIL " << name << ": " << expr << " (derivation)\n";
      continue;
    }
    auto schedule = *module->getOps<snac::ScheduleOp>().begin();
    auto collective = *module->getOps<coll::CollectiveOp>().begin();
    std::vector<sim::ElemType> types;
    for (Attribute t : collective.getElementTypes())
      if (auto e = interp::elemTypeOf(cast<TypeAttr>(t).getValue()))
        types.push_back(*e);
    unsigned config = 0;
    bool ok = true;
    interp::SimStats stats;
    for (int64_t n : options.ranks)
      for (int64_t slots : slotCounts)
        for (int strategy = 0; strategy < interp::kNumStrategies && ok;
             ++strategy)
          for (unsigned seed = 0; seed < options.seeds && ok; ++seed) {
            interp::SimOptions o;
            o.worldSize = n;
            o.stagingSlots = slots;
            o.strategy = static_cast<interp::Strategy>(strategy);
            // Shapes and types rotate so that every pair of (world size,
            // slot count) sees several of each.
            o.shape = shapes[(config + seed) % std::size(shapes)];
            o.type = types[(config / 2 + index) % types.size()];
            o.seed = 1 + seed + 7 * config + 1000 * index;
            o.calls = options.calls;
            o.chunkBytes = options.chunkBytes;
            ++config;
            ++runs;
            ok = succeeded(interp::simulate(schedule, o, &stats));
          }
    steps += stats.actions;
    if (!ok) {
      ++failures;
      os << "FAIL " << name << ": " << expr << "\n";
    } else if (options.verbose) {
      os << formatv("ok {0}: {1} ({2} simulations)\n", name, expr, config);
    }
  }
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  os << formatv("sweep: {0} collectives, {1} simulations ({2} steps) in "
                "{3:F1} s: {4} failed\n",
                legal.size(), runs, steps, seconds, failures);
  return failures ? 1 : 0;
}
