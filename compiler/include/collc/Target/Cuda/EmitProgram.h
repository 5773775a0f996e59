//===- EmitProgram.h - snac programs to CUDA C++ ----------------*- C++ -*-===//
//
// Lowers every snac.program (SNAC v2) of a module to CUDA C++ kernels on the
// device API of collc/device/snac/program.cuh: one kernel per program,
// element type and world size, its policy baked in as template arguments,
// one device call per op. emitCuda calls it after the v1 schedules.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_TARGET_CUDA_EMITPROGRAM_H
#define COLLC_TARGET_CUDA_EMITPROGRAM_H

#include "collc/Target/Cuda/EmitCuda.h"

namespace collc::cuda {

/// Whether `module` holds a snac.program.
bool hasPrograms(mlir::ModuleOp module);

/// Emits the kernels of every snac.program of `module` for `target` into
/// `os` (after `#include "collc/device/snac/program.cuh"`, which the caller
/// prints), and appends a KernelInfo with its ProgramInfo per kernel. What
/// the device API cannot run is refused at the op.
mlir::LogicalResult emitPrograms(mlir::ModuleOp module, const Target &target,
                                 llvm::raw_ostream &os,
                                 std::vector<KernelInfo> *kernels = nullptr);

} // namespace collc::cuda

#endif // COLLC_TARGET_CUDA_EMITPROGRAM_H
