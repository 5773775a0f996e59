//===- collc.cpp - the collc compiler driver --------------------*- C++ -*-===//
//
// collc [options] [input.coll|input.mlir]
//
// Reads a .coll spec (or coll IR in .mlir) and prints the stage asked for
// with --emit. With no input it compiles every spec of the shipped library.
//
//===----------------------------------------------------------------------===//

#include "collc/Dialect/Coll/IR/CollDialect.h"
#include "collc/Dialect/Coll/IR/CollOps.h"
#include "collc/Dialect/Coll/Transforms/Passes.h"
#include "collc/Dialect/Snac/IR/SnacDialect.h"
#include "collc/Interpreter/Passes.h"
#include "collc/Spec/SpecParser.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>
#include <cstdlib>

using namespace mlir;
using namespace llvm;
using namespace collc;

namespace {
enum class Emit { Coll, Snac };
enum class InputFormat { Auto, Spec, Mlir };

cl::OptionCategory collcCategory("collc options");

cl::opt<std::string> inputFilename(cl::Positional,
                                   cl::desc("<input .coll or .mlir>"),
                                   cl::init(""), cl::cat(collcCategory));
cl::opt<std::string> outputFilename("o", cl::desc("Output file ('-' is stdout)"),
                                    cl::value_desc("file"), cl::init("-"),
                                    cl::cat(collcCategory));
cl::opt<Emit> emitStage(
    "emit", cl::desc("Stage to print"), cl::init(Emit::Coll),
    cl::values(clEnumValN(Emit::Coll, "coll", "coll dialect (semantics)"),
               clEnumValN(Emit::Snac, "snac",
                          "coll plus the derived snac schedules "
                          "(orchestration)")),
    cl::cat(collcCategory));

cl::OptionCategory simCategory(
    "collc --simulate options (reference interpreter)");
cl::opt<bool> simulate(
    "simulate",
    cl::desc("Derive the schedules and run each in the reference interpreter "
             "for every world size, partition shape and seed; print one line "
             "per collective"),
    cl::init(false), cl::cat(simCategory));
cl::list<int64_t> simRanks("sim-ranks",
                           cl::desc("World sizes (default: 2,3,4,5,8)"),
                           cl::CommaSeparated, cl::cat(simCategory));
cl::list<std::string>
    simShapes("sim-shapes",
              cl::desc("Partition shapes: uniform, zipf, skew (default: all)"),
              cl::CommaSeparated, cl::cat(simCategory));
cl::opt<unsigned> simSeeds("sim-seeds", cl::desc("Seeds per world size and shape"),
                           cl::init(3), cl::cat(simCategory));
cl::opt<unsigned> simCalls("sim-calls", cl::desc("Back-to-back calls per run"),
                           cl::init(3), cl::cat(simCategory));
cl::opt<int64_t> simChunkBytes(
    "sim-chunk-bytes",
    cl::desc("Chunk size in the simulation (0: the schedule's policy)"),
    cl::init(32), cl::cat(simCategory));
cl::opt<int64_t> simStagingSlots(
    "sim-staging-slots",
    cl::desc("Staging slots (-1: the schedule's; -2: alternate it with 2)"),
    cl::init(-2), cl::cat(simCategory));
cl::list<std::string>
    targetList("target",
               cl::desc("GPU targets, overriding the spec's (e.g. sm_90)"),
               cl::CommaSeparated, cl::cat(collcCategory));
cl::opt<InputFormat> inputFormat(
    "x", cl::desc("Input format (default: from the file extension)"),
    cl::init(InputFormat::Auto),
    cl::values(clEnumValN(InputFormat::Auto, "auto", ".mlir is IR, else spec"),
               clEnumValN(InputFormat::Spec, "coll", ".coll spec"),
               clEnumValN(InputFormat::Mlir, "mlir", "coll dialect IR")),
    cl::cat(collcCategory));
cl::opt<std::string> specDir(
    "spec-dir",
    cl::desc("Spec library compiled when no input is given (default: "
             "$COLLC_SPEC_DIR or the source tree's specs/)"),
    cl::init(""), cl::cat(collcCategory));
cl::opt<bool> verifyDiagnostics(
    "verify-diagnostics",
    cl::desc("Check emitted diagnostics against expected-* lines in the input"),
    cl::init(false), cl::cat(collcCategory));
} // namespace

/// Parses one input file into a verified coll module.
static OwningOpRef<ModuleOp> loadInput(SourceMgr &sourceMgr,
                                       MLIRContext &context) {
  StringRef name =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBufferIdentifier();
  bool isMlir = inputFormat == InputFormat::Mlir ||
                (inputFormat == InputFormat::Auto && name.ends_with(".mlir"));
  if (!isMlir)
    return spec::parseSpec(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (module && failed(verify(*module)))
    return nullptr;
  return module;
}

/// Applies --target: the command line wins over the spec's `target` line.
static LogicalResult applyTargetOverride(ModuleOp module) {
  if (targetList.empty())
    return success();
  Builder builder(module.getContext());
  SmallVector<Attribute> targets;
  for (const std::string &t : targetList) {
    if (!coll::isSupportedTarget(t)) {
      WithColor::error(errs(), "collc")
          << "unknown target '" << t << "' in --target; supported targets: "
          << coll::supportedTargetsText() << "\n";
      return failure();
    }
    targets.push_back(builder.getStringAttr(t));
  }
  module->setAttr(coll::CollDialect::kTargetsAttrName,
                  builder.getArrayAttr(targets));
  return success();
}

/// Compiles one file and prints the requested stage to `os`.
static LogicalResult compileFile(StringRef path, MLIRContext &context,
                                 raw_ostream &os) {
  std::string errorMessage;
  std::unique_ptr<MemoryBuffer> file = openInputFile(path, &errorMessage);
  if (!file) {
    WithColor::error(errs(), "collc") << errorMessage << "\n";
    return failure();
  }
  SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());

  if (verifyDiagnostics) {
    SourceMgrDiagnosticVerifierHandler handler(sourceMgr, &context);
    OwningOpRef<ModuleOp> module = loadInput(sourceMgr, context);
    (void)module;
    return handler.verify();
  }
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = loadInput(sourceMgr, context);
  if (!module || failed(applyTargetOverride(*module)))
    return failure();
  if (simulate || emitStage == Emit::Snac) {
    PassManager pm(&context);
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    pm.addPass(coll::createCollDeriveSchedule());
    if (simulate) {
      interp::SnacSimulateOptions options;
      options.ranks.assign(simRanks.begin(), simRanks.end());
      if (options.ranks.empty())
        options.ranks = {2, 3, 4, 5, 8};
      options.shapes.assign(simShapes.begin(), simShapes.end());
      if (options.shapes.empty())
        options.shapes = {"uniform", "zipf", "skew"};
      options.seeds = simSeeds;
      options.calls = simCalls;
      options.chunkBytes = simChunkBytes;
      options.stagingSlots = simStagingSlots;
      options.report = true;
      pm.addPass(interp::createSnacSimulate(options));
    }
    if (failed(pm.run(*module)))
      return failure();
    if (simulate)
      return success();
  }
  module->print(os);
  os << "\n";
  return success();
}

/// The .coll files of the spec library, sorted so output is stable.
static LogicalResult listLibrary(SmallVectorImpl<std::string> &paths) {
  std::string dir = specDir;
  if (dir.empty())
    if (const char *env = std::getenv("COLLC_SPEC_DIR"))
      dir = env;
  if (dir.empty())
    dir = COLLC_DEFAULT_SPEC_DIR;
  std::error_code ec;
  for (sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    if (sys::path::extension(it->path()) == ".coll")
      paths.push_back(it->path());
  if (ec || paths.empty()) {
    WithColor::error(errs(), "collc")
        << "no .coll specs found in spec library '" << dir << "'"
        << (ec ? " (" + ec.message() + ")" : std::string())
        << "; pass an input file or --spec-dir\n";
    return failure();
  }
  llvm::sort(paths);
  return success();
}

int main(int argc, char **argv) {
  InitLLVM y(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "collc " << COLLC_VERSION_STRING << "\n";
  });
  cl::HideUnrelatedOptions({&collcCategory, &simCategory, &getColorCategory()});
  cl::ParseCommandLineOptions(
      argc, argv,
      "collc: compiles collective-communication specs (.coll) for GPUs in one "
      "NVLink domain\n");

  DialectRegistry registry;
  registry.insert<coll::CollDialect, snac::SnacDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics point into the spec; a generic dump of the op adds noise.
  context.printOpOnDiagnostic(false);

  std::string errorMessage;
  std::unique_ptr<ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    WithColor::error(errs(), "collc") << errorMessage << "\n";
    return EXIT_FAILURE;
  }

  SmallVector<std::string> inputs;
  if (!inputFilename.empty())
    inputs.push_back(inputFilename);
  else if (failed(listLibrary(inputs)))
    return EXIT_FAILURE;

  bool ok = true;
  for (const std::string &path : inputs) {
    if (inputs.size() > 1)
      output->os() << "// spec: " << sys::path::filename(path) << "\n";
    ok &= succeeded(compileFile(path, context, output->os()));
  }
  if (!ok)
    return EXIT_FAILURE;
  output->keep();
  return EXIT_SUCCESS;
}
