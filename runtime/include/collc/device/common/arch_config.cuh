//===- arch_config.cuh - Architecture and feature macros --------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The first header every collc device header includes. It says whether the
/// code is being compiled for the device and which PTX features may be used.
///
/// Two kinds of feature macro, kept apart as in CUTLASS:
///  - COLLC_ARCH_<FEAT>_SM<NN>_SUPPORTED: the compiler (nvcc or NVRTC) is new
///    enough to emit the instruction; from the CUDA version macros.
///  - COLLC_ARCH_<FEAT>_SM<NN>_ENABLED: additionally, the architecture being
///    compiled for (__CUDA_ARCH__) has it. Code paths that emit the
///    instruction test this one.
/// Each is defined to 1 when true and left undefined otherwise, so both
/// `#if defined(X)` and `#ifdef X` work.
///
/// Safe under NVRTC: host-only includes sit behind !__CUDACC_RTC__.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_DEVICE_COMMON_ARCH_CONFIG_CUH
#define COLLC_DEVICE_COMMON_ARCH_CONFIG_CUH

#if !defined(__CUDACC_RTC__)
#include <cstdio>
#include <cstdlib>
#endif

//===----------------------------------------------------------------------===//
// Compilation mode
//===----------------------------------------------------------------------===//

/// Defined when a CUDA compiler is compiling this translation unit (both of
/// nvcc's passes, and NVRTC). Keyed on __CUDACC__ because NVRTC defines it
/// but does not define __NVCC__.
#if defined(__CUDACC__)
#define COLLC_DEVICE_COMPILE 1
#endif

#if defined(COLLC_DEVICE_COMPILE)
/// Device functions of the collc device library: always inlined, since they
/// wrap single instructions or short sequences on the hot path.
#define COLLC_DEVICE_INLINE __device__ __forceinline__
/// Helpers that are also useful on the host (index arithmetic, layouts).
#define COLLC_HOST_DEVICE_INLINE __host__ __device__ __forceinline__
#else
#define COLLC_DEVICE_INLINE inline
#define COLLC_HOST_DEVICE_INLINE inline
#endif

/// `#pragma unroll` usable inside macros.
#define COLLC_PRAGMA_UNROLL _Pragma("unroll")

//===----------------------------------------------------------------------===//
// Toolkit support (SUPPORTED)
//===----------------------------------------------------------------------===//

#if defined(__CUDACC_VER_MAJOR__)
#define COLLC_CUDA_VERSION_AT_LEAST(MAJOR, MINOR)                              \
  (__CUDACC_VER_MAJOR__ > (MAJOR) ||                                           \
   (__CUDACC_VER_MAJOR__ == (MAJOR) && __CUDACC_VER_MINOR__ >= (MINOR)))
#else
// Not a CUDA compiler: nothing device-side can be emitted.
#define COLLC_CUDA_VERSION_AT_LEAST(MAJOR, MINOR) 0
#endif

// cp.async: PTX ISA 7.0, CUDA 11.0.
#if COLLC_CUDA_VERSION_AT_LEAST(11, 0)
#define COLLC_ARCH_CP_ASYNC_SM80_SUPPORTED 1
#endif

// griddepcontrol (programmatic dependent launch): PTX ISA 7.8, CUDA 11.8.
#if COLLC_CUDA_VERSION_AT_LEAST(11, 8)
#define COLLC_ARCH_PDL_SM90_SUPPORTED 1
#endif

// multimem.ld_reduce / st / red: PTX ISA 8.1, CUDA 12.1.
#if COLLC_CUDA_VERSION_AT_LEAST(12, 1)
#define COLLC_ARCH_MULTIMEM_SM90_SUPPORTED 1
#endif

// 256-bit global loads and stores (ld/st.global.v8.b32, .v4.b64): PTX ISA 8.8;
// emitted through the 32-byte-aligned vector types (ulonglong4_32a) that
// CUDA 13.0 introduced.
#if COLLC_CUDA_VERSION_AT_LEAST(13, 0)
#define COLLC_ARCH_LDST256_SM100_SUPPORTED 1
#endif

//===----------------------------------------------------------------------===//
// Target architecture (ENABLED)
//===----------------------------------------------------------------------===//

// __CUDA_ARCH__ is only defined in the device pass (and always under NVRTC),
// so in nvcc's host pass no ENABLED macro is set.
#if defined(__CUDA_ARCH__)

#if defined(COLLC_ARCH_CP_ASYNC_SM80_SUPPORTED) && __CUDA_ARCH__ >= 800
#define COLLC_ARCH_CP_ASYNC_SM80_ENABLED 1
#endif

#if defined(COLLC_ARCH_PDL_SM90_SUPPORTED) && __CUDA_ARCH__ >= 900
#define COLLC_ARCH_PDL_SM90_ENABLED 1
#endif

// Enabling the instructions is not permission to use NVLink multicast on a
// given machine: the runtime decides that (see DESIGN.md, "GPU machines").
#if defined(COLLC_ARCH_MULTIMEM_SM90_SUPPORTED) && __CUDA_ARCH__ >= 900
#define COLLC_ARCH_MULTIMEM_SM90_ENABLED 1
#endif

// ptxas 13 rejects 256-bit loads/stores below sm_100 ("requires .target
// sm_100 or higher").
#if defined(COLLC_ARCH_LDST256_SM100_SUPPORTED) && __CUDA_ARCH__ >= 1000
#define COLLC_ARCH_LDST256_SM100_ENABLED 1
#endif

// Hardware float <-> fp8 conversion (cvt.rn.satfinite.e4m3x2.f32,
// cvt.rn.f16x2.e4m3x2): sm_89 and newer, PTX ISA 7.8, CUDA 11.8.
#if COLLC_CUDA_VERSION_AT_LEAST(11, 8) && __CUDA_ARCH__ >= 890
#define COLLC_ARCH_CVT_FP8_SM89_ENABLED 1
#endif

#endif // defined(__CUDA_ARCH__)

//===----------------------------------------------------------------------===//
// Unreachable paths
//===----------------------------------------------------------------------===//

/// Marks a path that must not run, e.g. a PTX wrapper on an architecture
/// without the instruction. It stops loudly, never compiles to an empty body:
/// on the device it prints the message and traps (the kernel fails with
/// cudaErrorLaunchFailure), on the host it prints and aborts.
#if defined(__CUDA_ARCH__)
#define COLLC_INVALID_CONTROL_PATH(msg)                                        \
  do {                                                                         \
    printf("collc: invalid control path at %s:%d: %s\n", __FILE__, __LINE__,   \
           msg);                                                               \
    __trap();                                                                  \
  } while (0)
#else
#define COLLC_INVALID_CONTROL_PATH(msg)                                        \
  do {                                                                         \
    std::fprintf(stderr, "collc: invalid control path at %s:%d: %s\n",         \
                 __FILE__, __LINE__, msg);                                     \
    std::abort();                                                              \
  } while (0)
#endif

//===----------------------------------------------------------------------===//
// Instruction variants
//===----------------------------------------------------------------------===//

/// `asm volatile` with one of three instruction texts, T1 if C1, else T2 if
/// C2, else T3, picked at compile time (`if constexpr`): an asm text must be
/// a string literal, so a variant (a scope, a vector type) cannot be a
/// run-time string. The operands follow as in asm (": outputs : inputs").
#define COLLC_ASM_PICK3(C1, T1, C2, T2, T3, ...)                               \
  do {                                                                         \
    if constexpr (C1)                                                          \
      asm volatile(T1 __VA_ARGS__);                                            \
    else if constexpr (C2)                                                     \
      asm volatile(T2 __VA_ARGS__);                                            \
    else                                                                       \
      asm volatile(T3 __VA_ARGS__);                                            \
  } while (0)

#endif // COLLC_DEVICE_COMMON_ARCH_CONFIG_CUH
