//===- collc-translate.cpp - snac to CUDA as a translation ------*- C++ -*-===//
//
// mlirTranslateMain with collc's translations (`--snac-to-cuda`), so the
// CUDA backend is tested op by op from hand-written .mlir with FileCheck
// (`-o`, `--split-input-file` and `--verify-diagnostics` come with it).
//
//===----------------------------------------------------------------------===//

#include "collc/Target/Cuda/TranslateRegistration.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  collc::cuda::registerSnacToCudaTranslation();
  return mlir::failed(
             mlir::mlirTranslateMain(argc, argv, "collc translation driver\n"))
             ? 1
             : 0;
}
