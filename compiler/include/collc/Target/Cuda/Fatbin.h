//===- Fatbin.h - pack a target's code into a compressed fatbin -*- C++ -*-===//
//
// A module stores each target's code as a CUDA fat binary: the cubin, plus
// PTX where the module keeps it for forward compatibility, compressed by the
// toolkit's `fatbinary` (the driver decompresses it in cuModuleLoadData).
// Compressed, a target's cubin takes about a tenth of its size (the kernels
// of a spec repeat one another).
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_TARGET_CUDA_FATBIN_H
#define COLLC_TARGET_CUDA_FATBIN_H

#include "collc/Target/Cuda/EmitCuda.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace collc::cuda {

/// Packs `cubin` (required) and `ptx` (empty: none) of `target` into one
/// compressed fat binary. Thread-safe. On failure returns false with why in
/// `log`.
bool makeFatbin(const Target &target, llvm::StringRef cubin,
                llvm::StringRef ptx, std::string &fatbin, std::string &log);

} // namespace collc::cuda

#endif // COLLC_TARGET_CUDA_FATBIN_H
