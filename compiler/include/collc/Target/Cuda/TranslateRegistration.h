//===- TranslateRegistration.h - snac to CUDA translation -------*- C++ -*-===//
//
// Registers `--snac-to-cuda` with mlir-translate: a module of snac programs
// (and v1 schedules with their coll collectives) to CUDA C++ for the target
// given by `--cuda-target` (default sm_90); `--snac-to-ptx` compiles that
// with NVRTC.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_TARGET_CUDA_TRANSLATEREGISTRATION_H
#define COLLC_TARGET_CUDA_TRANSLATEREGISTRATION_H

namespace collc::cuda {

/// Registers the `snac-to-cuda` and `snac-to-ptx` translations and their
/// option; call before the command line is parsed.
void registerSnacToCudaTranslation();

} // namespace collc::cuda

#endif // COLLC_TARGET_CUDA_TRANSLATEREGISTRATION_H
