//===- collc-opt.cpp - pass driver for the collc dialects -------*- C++ -*-===//
//
// MlirOptMain with the coll dialect and collc's passes: the tool pass tests
// run through (`--pass-pipeline`, `--verify-diagnostics`, `--mlir-print-ir-*`
// come with it).
//
//===----------------------------------------------------------------------===//

#include "collc/Dialect/Coll/IR/CollDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<collc::coll::CollDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "collc optimizer driver\n", registry));
}
