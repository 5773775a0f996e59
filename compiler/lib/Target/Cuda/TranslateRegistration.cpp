//===- TranslateRegistration.cpp - snac to CUDA translation -----*- C++ -*-===//

#include "collc/Target/Cuda/TranslateRegistration.h"

#include "collc/Dialect/Coll/IR/CollDialect.h"
#include "collc/Dialect/Snac/IR/SnacDialect.h"
#include "collc/Target/Cuda/EmitCuda.h"
#include "collc/Target/Cuda/Nvrtc.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;
using namespace collc;

static void registerDialects(DialectRegistry &registry) {
  registry.insert<coll::CollDialect, snac::SnacDialect, arith::ArithDialect,
                  scf::SCFDialect>();
}

void cuda::registerSnacToCudaTranslation() {
  // Function-local statics: registered once, before the command line is
  // parsed, and only in the tools that ask for this translation.
  static llvm::cl::opt<std::string> targetName(
      "cuda-target",
      llvm::cl::desc("GPU target of --snac-to-cuda (sm_80, sm_90, sm_100...)"),
      llvm::cl::init("sm_90"));
  static TranslateFromMLIRRegistration registration(
      "snac-to-cuda", "snac programs and schedules to CUDA C++",
      [](ModuleOp module, llvm::raw_ostream &os) -> LogicalResult {
        FailureOr<Target> target = parseTarget(targetName);
        if (failed(target))
          return module.emitError()
                 << "unknown target '" << targetName << "' in --cuda-target";
        return emitCuda(module, *target, os);
      },
      registerDialects);
  // Through NVRTC with the embedded device headers, as collc --emit=ptx:
  // what a test needs to see the generated code compile for each target.
  static TranslateFromMLIRRegistration ptxRegistration(
      "snac-to-ptx", "snac programs and schedules to PTX (NVRTC)",
      [](ModuleOp module, llvm::raw_ostream &os) -> LogicalResult {
        FailureOr<Target> target = parseTarget(targetName);
        if (failed(target))
          return module.emitError()
                 << "unknown target '" << targetName << "' in --cuda-target";
        std::string source, ptx, log;
        llvm::raw_string_ostream sourceStream(source);
        if (failed(emitCuda(module, *target, sourceStream)))
          return failure();
        if (!compileToPtx(source, "snac.cu", *target, ptx, log))
          return module.emitError()
                 << "NVRTC failed to compile the generated CUDA for "
                 << target->name << ":\n"
                 << log;
        os << ptx;
        return success();
      },
      registerDialects);
}
