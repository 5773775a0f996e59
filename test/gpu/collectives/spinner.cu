//===- spinner.cu - a compute kernel that holds SMs -------------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The co-residency test's stand-in for a concurrent compute kernel: one
/// CTA per SM (it asks for all the shared memory an SM has, so no collc CTA
/// fits beside it) spinning until the host writes the release flag.
///
//===----------------------------------------------------------------------===//

#include "spinner.h"

#include <cuda_runtime.h>

namespace {

__global__ void spin(volatile int *release, int *started) {
  extern __shared__ char pad[];
  if (threadIdx.x == 0) {
    atomicAdd(started, 1);
    __threadfence_system();
    while (*release == 0)
      __nanosleep(1000);
  }
  __syncthreads();
  pad[threadIdx.x] = 0;
}

} // namespace

namespace ct {

bool launchSpinner(int device, int sms, cudaStream_t stream,
                   volatile int *release, int *started, std::string *why) {
  int smem = 0;
  cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                         device);
  cudaError_t e = cudaFuncSetAttribute(
      spin, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  if (e == cudaSuccess) {
    spin<<<sms, 1024, smem, stream>>>(release, started);
    e = cudaGetLastError();
  }
  if (e != cudaSuccess && why)
    *why = cudaGetErrorString(e);
  return e == cudaSuccess;
}

} // namespace ct
