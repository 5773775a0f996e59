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
#include "collc/Conversion/CollToSnac/Passes.h"
#include "collc/Dialect/Snac/IR/SnacDialect.h"
#include "collc/Dialect/Snac/IR/SnacOps.h"
#include "collc/Dialect/Snac/Transforms/Passes.h"
#include "collc/Interpreter/Passes.h"
#include "collc/Interpreter/Verify.h"
#include "collc/Spec/IRNesting.h"
#include "collc/Spec/SpecParser.h"
#include "collc/Target/Cuda/EmitCuda.h"
#include "collc/Target/Cuda/Fatbin.h"
#include "collc/Target/Cuda/Nvrtc.h"
#include "collc/Target/Module/ModuleFile.h"

#include "Sweep.h"
// The runtime's policy-table entries (manifest.h, collc_manifest).
#include "manifest.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

using namespace mlir;
using namespace llvm;
using namespace collc;

namespace {
enum class Emit { Coll, Snac, Cuda, Ptx, Module };
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
                          "(orchestration)"),
               clEnumValN(Emit::Cuda, "cuda", "CUDA C++ of every kernel"),
               clEnumValN(Emit::Ptx, "ptx", "PTX from NVRTC"),
               clEnumValN(Emit::Module, "module",
                          "the module file: manifest and a compressed fat "
                          "binary per target, its cubin (and the newest "
                          "target's PTX) (docs/module-format.md)")),
    cl::cat(collcCategory));
cl::opt<bool> resourceReport(
    "resource-report",
    cl::desc("With --emit=module: print registers, spills, shared memory and "
             "CTAs of every kernel to stderr"),
    cl::init(false), cl::cat(collcCategory));
cl::opt<bool> enableMultimem(
    "enable-multimem",
    cl::desc("Derive the in-switch (NVLink SHARP, multimem) program of "
             "every AllReduce, ReduceScatter and AllGather of fixed sizes "
             "whose policy does not say multimem = off, and compile it for "
             "the sm_90+ targets; the runtime runs it only with "
             "COLLC_MULTIMEM=1 on devices that support multicast. Never run "
             "multicast on machines where it is not allowed"),
    cl::init(false), cl::cat(collcCategory));
cl::opt<bool> pairSteps(
    "pair-steps",
    cl::desc("Give the transposing _v copies (AllToAll_v, and the Scatter_v "
             "and Gather_v it carries) programs whose pairs of ranks each run "
             "their own steps instead of agreeing on the call's steps first "
             "(policy pairs; docs/snac.md \"Pair steps\")"),
    cl::init(false), cl::cat(collcCategory));
cl::opt<int64_t> pairLL16Bytes(
    "pair-ll16-bytes",
    cl::desc("With --pair-steps: a pair of ranks whose larger count is at "
             "most this many bytes exchanges its parts in one step as LL16 "
             "packets instead of flag-ready chunks (policy pair_ll16; a "
             "multiple of 16, at most the stream chunk; 0: none; "
             "docs/snac.md \"Small pairs by LL16\")"),
    cl::init(0), cl::cat(collcCategory));
cl::opt<bool> deviceTrace(
    "device-trace",
    cl::desc("With --emit=ptx|module: compile the device timeline hooks in "
             "(trace.cuh): with COLLC_TRACE set, the runtime records each "
             "CTA's calls, waits and ready words (docs/runtime.md, \"Device "
             "timelines\"); the module says so in its manifest"),
    cl::init(false), cl::cat(collcCategory));
cl::opt<bool> progress(
    "progress",
    cl::desc("With --emit=ptx|module: print one line per spec and target to "
             "stderr (the collectives compiled, kernel count, and the time in "
             "code generation, NVRTC and ptxas); NVRTC takes tens of seconds"),
    cl::init(false), cl::cat(collcCategory));
cl::opt<unsigned> compileJobs(
    "jobs",
    cl::desc("With --emit=ptx|module: targets compiled at once (NVRTC "
             "and ptxas, one thread each; 0: every target at once)"),
    cl::init(0), cl::cat(collcCategory));
cl::opt<cuda::FastCompile> fastCompile(
    "fast-compile",
    cl::desc("With --emit=ptx|module: NVRTC's --Ofast-compile, less NVVM "
             "optimization, for quick local builds: `mid` compiled the "
             "library's sm_90 code in 110 s instead of 155 and its kernels "
             "ran 1.2-5x slower (bench/results/2026-12-02-nvidia-h200)"),
    cl::init(cuda::FastCompile::Full),
    cl::values(clEnumValN(cuda::FastCompile::Full, "0", "full optimization"),
               clEnumValN(cuda::FastCompile::Min, "min", "NVRTC's min"),
               clEnumValN(cuda::FastCompile::Mid, "mid", "NVRTC's mid"),
               clEnumValN(cuda::FastCompile::Max, "max", "NVRTC's max")),
    cl::cat(collcCategory));
cl::opt<std::string> policyTableFile(
    "policy-table",
    cl::desc("A calibration's policy table (collc-bench --calibrate; "
             "docs/module-format.md, \"Policy tables\"), baked into the "
             "module: every program's band starts at 0 and the runtime "
             "selects among them by the table"),
    cl::value_desc("file"), cl::init(""), cl::cat(collcCategory));
/// The --policy-table file, read once: its text (empty: none) and entries.
struct {
  std::string text;
  std::vector<PolicyEntry> entries;
} policyTable;

cl::opt<std::string> validateModule(
    "validate-module", cl::desc("Check a module file and exit"),
    cl::value_desc("file"), cl::init(""), cl::cat(collcCategory));
cl::opt<bool> checkDeviceHeaders(
    "check-device-headers",
    cl::desc("Compile every embedded device header on its own with NVRTC "
             "and assemble it with ptxas, for each --target (default sm_80, "
             "sm_90, sm_100), and exit"),
    cl::init(false), cl::cat(collcCategory));

cl::opt<bool> verifyReport(
    "verify-report",
    cl::desc("With --emit=cuda|ptx|module: print how each schedule was "
             "verified in the reference interpreter before emission "
             "(simulations, time) to stderr"),
    cl::init(false), cl::cat(collcCategory));
cl::opt<std::string> testInjectFault(
    "test-inject-fault",
    cl::desc("Test only: break every derived schedule with "
             "snac-test-inject-fault=fault=<fault> before it is verified"),
    cl::value_desc("fault"), cl::init(""), cl::Hidden, cl::cat(collcCategory));

cl::OptionCategory simCategory(
    "collc --simulate options (reference interpreter)");
cl::opt<bool> simulate(
    "simulate",
    cl::desc("Derive the schedules and run each in the reference interpreter "
             "for every world size, partition shape and seed; print one line "
             "per collective"),
    cl::init(false), cl::cat(simCategory));
cl::opt<bool> sweep(
    "sweep",
    cl::desc("Spell every transform and every composition of two that the "
             "grammar can write, keep what the front end accepts, and "
             "simulate each over world sizes (--sim-ranks, default 2,3,5,8), "
             "slot counts 1, 2, the schedule's and one per chunk, every "
             "interleaving strategy, partition shapes and element types; "
             "fail on any problem"),
    cl::init(false), cl::cat(simCategory));
cl::opt<unsigned> sweepSeeds(
    "sweep-seeds",
    cl::desc("With --sweep: seeds per world size, slot count and strategy"),
    cl::init(1), cl::cat(simCategory));
cl::opt<bool> sweepVerbose(
    "sweep-verbose", cl::desc("With --sweep: one line per collective"),
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
cl::opt<bool> simExhaustive(
    "sim-exhaustive",
    cl::desc("With --simulate: run every interleaving (partial-order "
             "reduced) instead of seeded ones, at --sim-ranks (default 2,3), "
             "1 and 2 chunks per partition, staging slots 1 and 2, "
             "--sim-calls (default 2) calls; fail if a run exceeds "
             "--sim-budget states"),
    cl::init(false), cl::cat(simCategory));
cl::list<std::string> simEncodings(
    "sim-encodings",
    cl::desc("With --simulate: simulate every program once per encoding "
             "forced (flag, ll16, sentinel; default: each program's own)"),
    cl::CommaSeparated, cl::cat(simCategory));
cl::list<std::string> simSpeculate(
    "sim-speculate",
    cl::desc("With --simulate: simulate every ll16 and sentinel program "
             "once per speculation setting forced (on, off; default: each "
             "program's own)"),
    cl::CommaSeparated, cl::cat(simCategory));
cl::opt<std::string> simTrace(
    "trace",
    cl::desc("With --simulate: write a Chrome trace (JSON, for Perfetto or "
             "chrome://tracing) of the first seeded run of every schedule "
             "and program (per encoding), and of a failing run, to this "
             "file: a process per rank, a track per role or CTA, a slice per "
             "step, flows from each notify or write to the await that "
             "accepts it (docs/snac.md, \"Traces\")"),
    cl::value_desc("file"), cl::cat(simCategory));
cl::opt<uint64_t> simBudget(
    "sim-budget",
    cl::desc("With --sim-exhaustive: states per run before the run fails"),
    cl::init(2000000), cl::cat(simCategory));
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
  if (failed(spec::checkIRNesting(sourceMgr, &context)))
    return nullptr;
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

/// The macros the generated code is compiled with (opt-ins).
static SmallVector<std::string> compileDefines() {
  SmallVector<std::string> defines;
  if (enableMultimem)
    defines.push_back("COLLC_ENABLE_MULTIMEM=1");
  if (deviceTrace)
    defines.push_back("COLLC_DEVICE_TRACE=1");
  return defines;
}

namespace {
/// Seconds since construction, for --progress.
struct Stopwatch {
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
  double lap() {
    auto now = std::chrono::steady_clock::now();
    double s = std::chrono::duration<double>(now - start).count();
    start = now;
    return s;
  }
};

/// One target's work: its CUDA source (emitted in order, on this thread),
/// then NVRTC and ptxas (on the pool, targets in parallel).
struct TargetJob {
  cuda::Target target;
  std::string programName; // NVRTC's name of the source: <spec>_<target>.cu
  std::string source;
  std::vector<cuda::KernelInfo> kernels;
  /// Whether the module keeps this target's PTX (the newest target's, for
  /// GPUs newer than every target).
  bool withPtx = false;
  double emitSec = 0, nvrtcSec = 0, ptxasSec = 0, fatbinSec = 0;
  std::string ptx, cubin, fatbin, log;
  std::vector<cuda::ResourceUsage> resources;
  /// Where it failed: NVRTC, ptxas or fatbinary; none: it succeeded.
  bool nvrtcFailed = false, ptxasFailed = false, fatbinFailed = false;
};

/// NVRTC, then (for a module) ptxas through nvJitLink and the compressed fat
/// binary. Thread-safe: each job owns its NVRTC program, nvJitLink handle
/// and temporary files, and touches no MLIR.
void compileJob(TargetJob &job, bool assemble,
                ArrayRef<std::string> defines) {
  Stopwatch clock;
  if (!cuda::compileToPtx(job.source, job.programName, job.target,
                          job.ptx, job.log, defines, fastCompile)) {
    job.nvrtcFailed = true;
    return;
  }
  job.nvrtcSec = clock.lap();
  if (!assemble)
    return;
  if (!cuda::assemble(job.ptx, job.target, job.cubin, job.resources,
                      job.log)) {
    job.ptxasFailed = true;
    return;
  }
  job.ptxasSec = clock.lap();
  if (!cuda::makeFatbin(job.target, job.cubin,
                        job.withPtx ? StringRef(job.ptx) : StringRef(),
                        job.fatbin, job.log))
    job.fatbinFailed = true;
  job.fatbinSec = clock.lap();
}

/// The --progress line of one target: which collectives, how many kernels,
/// and where the time went (printed in target order once it is done).
void printProgress(StringRef spec, size_t targetIndex, size_t targetCount,
                   const TargetJob &job, bool assembled) {
  SmallVector<StringRef> names;
  llvm::StringSet<> entryPoints;
  for (const cuda::KernelInfo &k : job.kernels) {
    if (!llvm::is_contained(names, k.collective))
      names.push_back(k.collective);
    entryPoints.insert(k.name);
  }
  // Entries per (collective, type, world size); kernels compiled (one may
  // serve several world sizes or collectives).
  errs() << formatv("collc: {0} [{1}/{2}] {3}: {4} collectives ({5}), {6} "
                    "kernels for {7} entries ...",
                    spec, targetIndex + 1, targetCount, job.target.name,
                    names.size(), llvm::join(names, ", "), entryPoints.size(),
                    job.kernels.size());
  if (job.nvrtcFailed || job.ptxasFailed || job.fatbinFailed)
    errs() << " failed\n";
  else if (!assembled)
    errs() << formatv(" codegen {0:f1} s, NVRTC {1:f1} s\n", job.emitSec,
                      job.nvrtcSec);
  else
    errs() << formatv(" codegen {0:f1} s, NVRTC {1:f1} s, ptxas {2:f1} s, "
                      "fatbin {3:f1} s, {4:f1} MB{5}\n",
                      job.emitSec, job.nvrtcSec, job.ptxasSec, job.fatbinSec,
                      job.fatbin.size() / 1e6,
                      job.withPtx ? " (cubin + PTX)" : " (cubin)");
}
} // namespace

/// The CUDA stages: source, PTX or the module file, for every target. The
/// sources are emitted in target order; NVRTC and ptxas, which take nearly
/// all the time, run for the targets in parallel (--jobs), and the results
/// are reported and written in target order.
static LogicalResult emitTargets(ModuleOp module, SourceMgr &sourceMgr,
                                 raw_ostream &os) {
  const MemoryBuffer *spec = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  SmallVector<StringRef> targetNames(coll::CollDialect::getTargets(module));
  StringRef specName = sys::path::filename(spec->getBufferIdentifier());
  std::vector<TargetJob> jobs;
  for (StringRef name : targetNames) {
    Stopwatch clock;
    FailureOr<cuda::Target> target = cuda::parseTarget(name);
    if (failed(target))
      return module.emitError() << "unknown target '" << name << "'";
    TargetJob job{*target};
    job.programName =
        (sys::path::stem(spec->getBufferIdentifier()) + "_" + name + ".cu")
            .str();
    llvm::raw_string_ostream sourceStream(job.source);
    if (failed(cuda::emitCuda(module, *target, sourceStream, &job.kernels)))
      return failure();
    if (emitStage == Emit::Cuda) {
      os << job.source << "\n";
      continue;
    }
    job.emitSec = clock.lap();
    jobs.push_back(std::move(job));
  }
  if (emitStage == Emit::Cuda)
    return success();

  const bool assemble = emitStage == Emit::Module;
  // The module keeps PTX for one target, the newest (an 'a' or 'f' target's
  // PTX runs on that architecture alone, so a plain one if there is one):
  // the driver JIT-compiles it for a GPU newer than every target. Older
  // GPUs of a target's major run its cubin.
  if (assemble && !jobs.empty()) {
    auto plain = [](const TargetJob &j) {
      return j.target.name.find_first_of("af", 3) == std::string::npos;
    };
    TargetJob *newest = nullptr;
    for (TargetJob &job : jobs)
      if (!newest || std::make_pair(plain(job), job.target.capability) >
                         std::make_pair(plain(*newest),
                                        newest->target.capability))
        newest = &job;
    newest->withPtx = true;
  }
  const SmallVector<std::string> defines = compileDefines();
  {
    // By default every target at once: the cores share them, where a pool
    // of one thread per core left the last target alone on one core at the
    // end (a target cannot be split: cuda::compileToPtx, cuda::assemble).
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(
        compileJobs ? compileJobs.getValue()
                    : static_cast<unsigned>(jobs.size())));
    for (TargetJob &job : jobs)
      pool.async([&job, assemble, &defines] {
        compileJob(job, assemble, defines);
      });
    pool.wait();
  }

  std::vector<module::TargetImage> images;
  for (auto [index, job] : llvm::enumerate(jobs)) {
    const std::string &name = job.target.name;
    if (progress)
      printProgress(specName, index, jobs.size(), job, assemble);
    if (job.nvrtcFailed)
      return module.emitError()
             << "NVRTC failed to compile the generated CUDA for " << name
             << " (a collc bug; rerun with --emit=cuda to see the source):\n"
             << job.log;
    if (job.ptxasFailed)
      return module.emitError() << "ptxas rejected the PTX for " << name
                                << " (a collc bug):\n" << job.log;
    if (job.fatbinFailed)
      return module.emitError() << "cannot pack the code for " << name
                                << " into a fat binary: " << job.log;
    if (!assemble) {
      os << "// target: " << name << "\n" << job.ptx << "\n";
      continue;
    }
    if (resourceReport)
      for (const cuda::ResourceUsage &r : job.resources) {
        int grid = 0;
        for (const cuda::KernelInfo &k : job.kernels)
          if (k.name == r.kernel)
            grid = k.grid;
        errs() << formatv("{0,-8} {1,-44} regs {2,3}  spill st/ld {3}/{4} B  "
                          "stack {5} B  smem {6} B  ctas {7}\n",
                          name, r.kernel, r.registers, r.spillStoreBytes,
                          r.spillLoadBytes, r.stackBytes, r.sharedBytes, grid);
      }
    images.push_back(module::TargetImage{job.target, std::move(job.fatbin),
                                         job.withPtx,
                                         std::move(job.kernels),
                                         std::move(job.resources)});
  }
  if (emitStage == Emit::Module)
    module::write(module, sys::path::filename(spec->getBufferIdentifier()),
                  spec->getBuffer(), images, os, policyTable.text,
                  deviceTrace);
  return success();
}

/// Compiles every embedded device header on its own, per target.
static int runHeaderCheck() {
  SmallVector<std::string> targets(targetList.begin(), targetList.end());
  if (targets.empty())
    targets = {"sm_80", "sm_90", "sm_100"};
  int failures = 0, checked = 0;
  for (const std::string &name : targets) {
    FailureOr<cuda::Target> target = cuda::parseTarget(name);
    if (failed(target)) {
      WithColor::error(errs(), "collc") << "unknown target '" << name << "'\n";
      return EXIT_FAILURE;
    }
    for (const auto &[header, text] : cuda::embeddedHeaders()) {
      // The multicast wrappers exist only when opted in.
      SmallVector<std::string> defines;
      if (StringRef(header).contains("multimem"))
        defines.push_back("COLLC_ENABLE_MULTIMEM=1");
      // The trace hooks compiled in (off, they are empty).
      if (StringRef(header).contains("trace"))
        defines.push_back("COLLC_DEVICE_TRACE=1");
      std::string source = (Twine("#include \"") + header + "\"\n").str();
      std::string ptx, log, cubin;
      std::vector<cuda::ResourceUsage> usage;
      ++checked;
      if (!cuda::compileToPtx(source, "check.cu", *target, ptx, log, defines) ||
          !cuda::assemble(ptx, *target, cubin, usage, log)) {
        ++failures;
        WithColor::error(errs(), "collc")
            << header << " does not compile on its own for " << name
            << ":\n" << log << "\n";
      }
    }
  }
  outs() << "checked " << checked << " header compilations ("
         << cuda::embeddedHeaders().size() << " headers x " << targets.size()
         << " targets): " << (checked - failures) << " ok, " << failures
         << " failed\n";
  return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}

static int runValidate() {
  std::string errorMessage;
  std::unique_ptr<MemoryBuffer> file =
      openInputFile(validateModule, &errorMessage);
  if (!file) {
    WithColor::error(errs(), "collc") << errorMessage << "\n";
    return EXIT_FAILURE;
  }
  std::string summary;
  std::string problem = module::validate(file->getBuffer(), &summary);
  if (!problem.empty()) {
    WithColor::error(errs(), "collc") << validateModule << ": " << problem
                                      << "\n";
    return EXIT_FAILURE;
  }
  outs() << validateModule << ": valid collc module (" << summary << ")\n";
  return EXIT_SUCCESS;
}

/// Reads --policy-table, if given, for `specs` specs (a table is one
/// spec's calibration).
static LogicalResult loadPolicyTable(size_t specs) {
  if (policyTableFile.empty())
    return success();
  auto fail = [](const Twine &message) {
    WithColor::error(errs(), "collc") << message << "\n";
    return failure();
  };
  if (specs != 1)
    return fail("--policy-table is one spec's calibration; compile one spec "
                "with it, not " + Twine(specs));
  if (emitStage == Emit::Coll && !simulate)
    return fail("--policy-table chooses among the derived programs; use it "
                "with --emit=snac, cuda, ptx or module");
  std::string errorMessage;
  std::unique_ptr<MemoryBuffer> file =
      openInputFile(policyTableFile, &errorMessage);
  if (!file)
    return fail(errorMessage);
  std::string error;
  if (failed(module::readPolicyTable(policyTableFile, file->getBuffer(),
                                     policyTable.entries, error)))
    return fail(error);
  policyTable.text = file->getBuffer().str();
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
  if (simulate || emitStage != Emit::Coll) {
    PassManager pm(&context);
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    pm.addPass(createCollDeriveSchedule());
    // SNAC v2 programs beside the schedules: derived, then their work
    // assigned for the module's targets, then the dependent launch placed.
    // Under a policy table a program's band is what it can serve (from 0).
    CollDeriveProgramsOptions derive;
    derive.capacityBands = !policyTable.text.empty();
    derive.multimem = enableMultimem;
    derive.pairSteps = pairSteps;
    derive.pairLL16Bytes = pairLL16Bytes;
    pm.addPass(createCollDerivePrograms(derive));
    snac::SnacAssignWorkOptions work;
    for (StringRef target : coll::CollDialect::getTargets(*module))
      work.targets.push_back(target.str());
    pm.addPass(snac::createSnacAssignWork(work));
    pm.addPass(snac::createSnacPlaceDependentLaunch());
    if (!testInjectFault.empty()) {
      snac::SnacTestInjectFaultOptions fault;
      fault.fault = testInjectFault;
      pm.addPass(snac::createSnacTestInjectFault(fault));
    }
    if (simulate) {
      interp::SnacSimulateOptions options;
      options.ranks.assign(simRanks.begin(), simRanks.end());
      if (options.ranks.empty())
        options.ranks = simExhaustive ? SmallVector<int64_t>{2, 3}
                                      : SmallVector<int64_t>{2, 3, 4, 5, 8};
      options.shapes.assign(simShapes.begin(), simShapes.end());
      if (options.shapes.empty())
        options.shapes = simExhaustive
                             ? SmallVector<std::string>{"uniform"}
                             : SmallVector<std::string>{"uniform", "zipf",
                                                        "skew"};
      options.seeds = simSeeds;
      options.calls = simExhaustive && !simCalls.getNumOccurrences()
                          ? 2u
                          : simCalls.getValue();
      options.chunkBytes = simChunkBytes;
      options.stagingSlots = simStagingSlots;
      options.exhaustive = simExhaustive;
      options.budget = simBudget;
      options.encodings.assign(simEncodings.begin(), simEncodings.end());
      options.speculate.assign(simSpeculate.begin(), simSpeculate.end());
      options.report = true;
      options.trace = simTrace;
      pm.addPass(interp::createSnacSimulate(options));
    }
    if (failed(pm.run(*module)))
      return failure();
    // An option that changes nothing is refused, not ignored.
    if (enableMultimem &&
        llvm::none_of(module->getOps<snac::ProgramOp>(),
                      [](snac::ProgramOp p) { return p.isMultimem(); })) {
      WithColor::error(errs(), "collc")
          << "--enable-multimem: no collective of the spec has an in-switch "
             "program (an AllReduce, ReduceScatter or AllGather of fixed "
             "sizes reducing with sum, without `multimem = off`), so it "
             "would change no kernel\n";
      return failure();
    }
    if (simulate)
      return success();
    if (!policyTable.text.empty() &&
        failed(module::checkPolicyTable(*module, policyTableFile,
                                        policyTable.entries)))
      return failure();
  }
  if (emitStage == Emit::Coll || emitStage == Emit::Snac) {
    module->print(os);
    os << "\n";
    return success();
  }
  // No kernel for a schedule the interpreter has not passed: on a GPU a
  // wrong one hangs or corrupts silently.
  if (failed(interp::verifyBeforeEmit(*module,
                                      verifyReport ? &errs() : nullptr)))
    return failure();
  return emitTargets(*module, sourceMgr, os);
}

/// Writes `text` to `path` ('-': stdout), only once it is complete.
static LogicalResult writeOutput(StringRef path, StringRef text) {
  std::string errorMessage;
  std::unique_ptr<ToolOutputFile> file = openOutputFile(path, &errorMessage);
  if (!file) {
    WithColor::error(errs(), "collc") << errorMessage << "\n";
    return failure();
  }
  file->os() << text;
  file->os().flush();
  if (file->os().has_error()) {
    WithColor::error(errs(), "collc")
        << "cannot write '" << path << "': " << file->os().error().message()
        << "\n";
    file->os().clear_error();
    return failure();
  }
  file->keep();
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

  if (!validateModule.empty())
    return runValidate();
  if (checkDeviceHeaders)
    return runHeaderCheck();

  DialectRegistry registry;
  registry.insert<coll::CollDialect, snac::SnacDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics point into the spec; a generic dump of the op adds noise.
  context.printOpOnDiagnostic(false);

  if (sweep) {
    SweepOptions options;
    if (!simRanks.empty())
      options.ranks.assign(simRanks.begin(), simRanks.end());
    options.seeds = sweepSeeds;
    options.calls = simCalls;
    options.chunkBytes = simChunkBytes;
    options.fault = testInjectFault;
    options.verbose = sweepVerbose;
    return runSweep(context, options, outs());
  }

  SmallVector<std::string> inputs;
  if (!inputFilename.empty())
    inputs.push_back(inputFilename);
  else if (failed(listLibrary(inputs)))
    return EXIT_FAILURE;
  if (failed(loadPolicyTable(inputs.size())))
    return EXIT_FAILURE;
  if (!simTrace.empty() && !simulate) {
    WithColor::error(errs(), "collc")
        << "--trace records the interpreter's runs; use it with --simulate\n";
    return EXIT_FAILURE;
  }
  if (deviceTrace && (simulate || (emitStage != Emit::Ptx &&
                                   emitStage != Emit::Module))) {
    WithColor::error(errs(), "collc")
        << "--device-trace compiles the kernels' timeline hooks in; use it "
           "with --emit=ptx or --emit=module\n";
    return EXIT_FAILURE;
  }

  // Module files are one per spec: the whole library goes to a directory.
  if (emitStage == Emit::Module && inputs.size() > 1 && !simulate) {
    if (outputFilename == "-") {
      WithColor::error(errs(), "collc")
          << "--emit=module of the whole spec library needs -o <directory>\n";
      return EXIT_FAILURE;
    }
    if (std::error_code ec = sys::fs::create_directories(outputFilename)) {
      WithColor::error(errs(), "collc") << "cannot create directory '"
                                        << outputFilename << "': "
                                        << ec.message() << "\n";
      return EXIT_FAILURE;
    }
    bool ok = true;
    for (const std::string &path : inputs) {
      SmallString<256> out(outputFilename);
      sys::path::append(out, sys::path::stem(path) + ".collcmod");
      std::string text;
      raw_string_ostream os(text);
      if (failed(compileFile(path, context, os)))
        ok = false;
      else if (failed(writeOutput(out, text)))
        return EXIT_FAILURE;
    }
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
  }

  // Compiled in memory first: a failed compilation leaves an existing -o
  // file as it was and creates none.
  std::string text;
  raw_string_ostream os(text);
  bool ok = true;
  for (const std::string &path : inputs) {
    if (inputs.size() > 1)
      os << "// spec: " << sys::path::filename(path) << "\n";
    ok &= succeeded(compileFile(path, context, os));
  }
  if (!ok || failed(writeOutput(outputFilename, text)))
    return EXIT_FAILURE;
  return EXIT_SUCCESS;
}
