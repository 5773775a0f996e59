//===- collc_nccl.h - bootstrap collc from an NCCL communicator -*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Header-only glue: an allgather callback for collcCommInitRank that runs
/// over an existing NCCL communicator, so a job that already has NCCL (one
/// process per GPU, from an ncclUniqueId) needs no other bootstrap. libcollc
/// itself does not depend on NCCL; including this header does.
///
/// \code
///   ncclComm_t nccl;  // from ncclCommInitRank(&nccl, n, id, rank)
///   collcNcclBootstrap boot = {nccl, stream};
///   collcCommInitRank(&comm, module, n, rank, device,
///                     collcNcclAllGather, &boot, &config);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_COLLC_NCCL_H
#define COLLC_COLLC_NCCL_H

#include "collc/collc.h"

#include <cuda_runtime.h>
#include <nccl.h>

/// What collcNcclAllGather needs: the NCCL communicator and a stream on the
/// same device.
typedef struct {
  ncclComm_t comm;
  cudaStream_t stream;
} collcNcclBootstrap;

/// collcAllGatherFn_t over NCCL: stages the bytes through device memory,
/// gathers them with ncclAllGather, waits, copies them back. Returns 0 on
/// success.
static inline int collcNcclAllGather(const void *send, void *recv,
                                     size_t bytes, void *userData) {
  collcNcclBootstrap *boot = (collcNcclBootstrap *)userData;
  int nranks = 0;
  if (ncclCommCount(boot->comm, &nranks) != ncclSuccess)
    return 1;
  void *d = NULL;
  if (cudaMalloc(&d, bytes * (size_t)(nranks + 1)) != cudaSuccess)
    return 1;
  char *dsend = (char *)d + bytes * (size_t)nranks;
  int ok = cudaMemcpy(dsend, send, bytes, cudaMemcpyHostToDevice) ==
               cudaSuccess &&
           ncclAllGather(dsend, d, bytes, ncclChar, boot->comm,
                         boot->stream) == ncclSuccess &&
           cudaStreamSynchronize(boot->stream) == cudaSuccess &&
           cudaMemcpy(recv, d, bytes * (size_t)nranks,
                      cudaMemcpyDeviceToHost) == cudaSuccess;
  cudaFree(d);
  return ok ? 0 : 1;
}

#endif // COLLC_COLLC_NCCL_H
