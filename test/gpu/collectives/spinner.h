//===- spinner.h - a compute kernel that holds SMs --------------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_TEST_GPU_COLLECTIVES_SPINNER_H
#define COLLC_TEST_GPU_COLLECTIVES_SPINNER_H

#include <cuda_runtime.h>

#include <string>

namespace ct {

/// Launches `sms` CTAs on `stream`, one per SM (each takes an SM's whole
/// shared memory), that spin until *release != 0; each adds 1 to *started
/// when it runs. Both pointers are host-mapped memory.
bool launchSpinner(int device, int sms, cudaStream_t stream,
                   volatile int *release, int *started, std::string *why);

} // namespace ct

#endif // COLLC_TEST_GPU_COLLECTIVES_SPINNER_H
