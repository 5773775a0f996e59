//===- FrontEndFuzz.cpp - one fuzz input through the whole front end -----===//

#include "FrontEndFuzz.h"

#include "collc/Dialect/Coll/IR/CollDialect.h"
#include "collc/Conversion/CollToSnac/Passes.h"
#include "collc/Dialect/Snac/IR/SnacDialect.h"
#include "collc/Dialect/Snac/Transforms/Passes.h"
#include "collc/Interpreter/Passes.h"
#include "collc/Spec/SpecParser.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace collc;

namespace collc::fuzz {

static constexpr const char *kBufferName = "fuzz.coll";

StringRef findingKindName(FindingKind kind) {
  switch (kind) {
  case FindingKind::None:
    return "none";
  case FindingKind::Unlocated:
    return "unlocated-error";
  case FindingKind::Accepted:
    return "accepted-with-errors";
  case FindingKind::Derivation:
    return "derivation-refused-accepted-spec";
  case FindingKind::Simulation:
    return "simulation-failed";
  }
  return "unknown";
}

namespace {
/// Every error the context reports, with what is wrong with its location.
struct DiagnosticLog {
  std::string text;           // All errors, one per line.
  std::string locationProblem; // The first badly located error, if any.
  unsigned errors = 0;
};
} // namespace

/// An error must point into the input: a FileLineColLoc in the fuzz buffer,
/// on one of its lines, at a column no further than one past the line's end.
static std::string checkLocation(Location loc, StringRef text) {
  auto flc = dyn_cast<FileLineColLoc>(loc);
  if (!flc)
    return "no file:line:col";
  if (flc.getFilename() != kBufferName)
    return ("location in '" + flc.getFilename().getValue() +
            "', not the input")
        .str();
  SmallVector<StringRef> lines;
  text.split(lines, '\n');
  unsigned line = flc.getLine(), col = flc.getColumn();
  if (line < 1 || line > lines.size())
    return "line " + std::to_string(line) + " outside the input's " +
           std::to_string(lines.size()) + " lines";
  if (col < 1 || col > lines[line - 1].size() + 1)
    return "column " + std::to_string(col) + " outside line " +
           std::to_string(line) + " (" +
           std::to_string(lines[line - 1].size()) + " bytes)";
  return "";
}

Result checkSpec(StringRef text, const Options &options) {
  DialectRegistry registry;
  registry.insert<coll::CollDialect, snac::SnacDialect>();
  // A fresh context per input: attributes are uniqued for a context's
  // lifetime, so a shared one would grow with every input.
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);

  DiagnosticLog log;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() != DiagnosticSeverity::Error)
      return success();
    ++log.errors;
    std::string where;
    llvm::raw_string_ostream os(where);
    os << diag.getLocation();
    log.text += where + ": " + diag.str() + "\n";
    std::string problem = checkLocation(diag.getLocation(), text);
    if (!problem.empty() && log.locationProblem.empty())
      log.locationProblem = problem + ": " + where + ": " + diag.str();
    return success();
  });

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, kBufferName), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = spec::parseSpec(sourceMgr, &context);

  Result result;
  auto found = [&](FindingKind kind, const std::string &why) {
    result.outcome = Outcome::Finding;
    result.kind = kind;
    result.finding = why;
    return result;
  };
  if (!module) {
    if (log.errors == 0)
      return found(FindingKind::Unlocated, "rejected without an error");
    if (!log.locationProblem.empty())
      return found(FindingKind::Unlocated, log.locationProblem);
    result.outcome = Outcome::Rejected;
    return result;
  }
  if (log.errors)
    return found(FindingKind::Accepted, log.text);

  PassManager derive(&context);
  derive.addPass(createCollDeriveSchedule());
  if (!options.injectFault.empty())
    derive.addPass(snac::createSnacTestInjectFault({options.injectFault}));
  if (failed(derive.run(*module)))
    return found(FindingKind::Derivation, log.text);
  if (!options.simulate)
    return result;

  // Small rank counts (odd and even), both staging rings (the schedule's
  // and two slots, which reuses slots early), small chunks so even short
  // buffers take several, and an odd count so the last chunk is partial.
  interp::SnacSimulateOptions sim;
  sim.ranks = {2, 3};
  sim.shapes = {"uniform", "skew"};
  sim.seeds = 2;
  sim.calls = 2;
  sim.chunkBytes = 8;
  sim.stagingSlots = -2;
  sim.count = 13;
  PassManager simulate(&context);
  simulate.addPass(interp::createSnacSimulate(sim));
  if (failed(simulate.run(*module)))
    return found(FindingKind::Simulation, log.text);
  return result;
}

} // namespace collc::fuzz
