//===- collc-opt.cpp - pass driver for the collc dialects -------*- C++ -*-===//
//
// MlirOptMain with the coll dialect and collc's passes: the tool pass tests
// run through (`--pass-pipeline`, `--verify-diagnostics`, `--mlir-print-ir-*`
// come with it).
//
//===----------------------------------------------------------------------===//

#include "collc/Conversion/CollToSnac/Passes.h"
#include "collc/Dialect/Coll/IR/CollDialect.h"
#include "collc/Dialect/Snac/IR/SnacDialect.h"
#include "collc/Dialect/Snac/Transforms/Passes.h"
#include "collc/Interpreter/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<collc::coll::CollDialect, collc::snac::SnacDialect,
                  mlir::arith::ArithDialect, mlir::scf::SCFDialect>();
  collc::registerCollToSnacPasses();
  collc::snac::registerSnacPasses();
  collc::interp::registerInterpreterPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "collc optimizer driver\n", registry));
}
