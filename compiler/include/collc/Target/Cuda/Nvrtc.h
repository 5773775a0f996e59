//===- Nvrtc.h - compile generated CUDA in process --------------*- C++ -*-===//
//
// NVRTC turns the generated CUDA C++ into PTX for one target, with collc's
// device headers embedded in the compiler (so an installed collc needs no
// source tree); nvJitLink assembles that PTX with ptxas for the resource
// report (registers, spills, shared memory) and the cubin.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_TARGET_CUDA_NVRTC_H
#define COLLC_TARGET_CUDA_NVRTC_H

#include "collc/Target/Cuda/EmitCuda.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <utility>
#include <vector>

namespace collc::cuda {

/// The device headers compiled into collc: (include path, contents).
llvm::ArrayRef<std::pair<const char *, const char *>> embeddedHeaders();

/// The NVRTC version as "major.minor".
std::string nvrtcVersion();

/// How hard NVVM optimizes (NVRTC's --Ofast-compile): `Full` is NVRTC's
/// default; the others trade the kernels' speed for compile time.
enum class FastCompile { Full, Min, Mid, Max };

/// Compiles `source` to PTX for `target`. Extra `defines` are passed as -D.
/// On failure returns false and puts NVRTC's log in `log`. (Not NVRTC's
/// --split-compile: NVRTC 13.0 fails with "Failed to read bitcode" on the
/// v1 byte-copy kernels beside any other kernel, docs/compile-time.md.)
bool compileToPtx(llvm::StringRef source, llvm::StringRef programName,
                  const Target &target, std::string &ptx, std::string &log,
                  llvm::ArrayRef<std::string> defines = {},
                  FastCompile fast = FastCompile::Full);

/// Resources ptxas reports for one kernel.
struct ResourceUsage {
  std::string kernel;
  int registers = 0;
  int spillStoreBytes = 0;
  int spillLoadBytes = 0;
  int stackBytes = 0;
  int sharedBytes = 0;
};

/// Assembles `ptx` for `target` with ptxas (through nvJitLink): the cubin and
/// the per-kernel resources. On failure returns false with the log. (Not
/// ptxas' -split-compile: its code differs with the thread count, and a
/// module must not depend on the machine that compiled it.)
bool assemble(llvm::StringRef ptx, const Target &target, std::string &cubin,
              std::vector<ResourceUsage> &usage, std::string &log);

} // namespace collc::cuda

#endif // COLLC_TARGET_CUDA_NVRTC_H
