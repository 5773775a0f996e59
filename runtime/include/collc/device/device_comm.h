/*===- device_comm.h - The device handle of a communicator ---------*- C -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// collcDeviceComm: what a user's own kernel needs to communicate on a collc
/// communicator (Purlin R3, docs/device-api.md): the rank, the world size,
/// the peers' addresses of one registered window, and the readiness words.
/// Filled on the host by collcCommGetDeviceHandle (collc.h) and passed to
/// kernels by value; used on the device through collc/device/api.cuh. Plain
/// C with no includes, so that C hosts, nvcc and NVRTC read the same layout.
///
/// Readiness is counted, not stamped: rank p signals rank q on slot s by
/// adding 1 to word [s * nranks + p] of q's inbox; q's wait for p on s adds 1
/// to its own expected count [s * nranks + p] and waits until the inbox word
/// reaches it. Both counts live in device memory and only grow, so the same
/// kernel works launched again, from any stream, and replayed in a CUDA
/// graph, with no call counter passed from the host. A signal and its wait
/// pair up in order: for each (slot, sender) pair, the k-th wait of the
/// receiver consumes the k-th signal of the sender.
///
//===----------------------------------------------------------------------===*/

#ifndef COLLC_DEVICE_DEVICE_COMM_H
#define COLLC_DEVICE_DEVICE_COMM_H

/// The layout version of collcDeviceComm. The caller of
/// collcCommGetDeviceHandle sets `version` to the one its code was compiled
/// with (COLLC_DEVICE_COMM_INITIALIZER does); the library refuses another,
/// so kernels built against other headers never read a handle of the wrong
/// layout.
#define COLLC_DEVICE_API_VERSION 1
#define COLLC_DEVICE_COMM_INITIALIZER {COLLC_DEVICE_API_VERSION}

/// Readiness slots per (receiver, sender) pair: independent signal streams,
/// e.g. one per CTA of a kernel, or one per phase.
#define COLLC_DEVICE_SIGNAL_SLOTS 64

/// Words of the error record a timed-out device-API wait fills (the first
/// one wins): [0] COLLC_DEVICE_WAIT_TIMEOUT, [1] the slot, [2] the rank
/// waiting, [3] the peer waited for, [4] the count expected, [5] the count
/// seen, [6] the block (blockIdx.x), [7] the kind (COLLC_DEVICE_WAIT_*).
#define COLLC_DEVICE_ERROR_WORDS 8
#define COLLC_DEVICE_WAIT_TIMEOUT 1
/// What was waited for: a signal (collc::dev::wait), an LL packet.
#define COLLC_DEVICE_WAIT_SIGNAL 0
#define COLLC_DEVICE_WAIT_PACKET 1

typedef struct collcDeviceComm {
  /// COLLC_DEVICE_API_VERSION: set by the caller, checked by the library.
  unsigned int version;
  int rank;
  int nranks;
  /// COLLC_DEVICE_SIGNAL_SLOTS.
  int slots;
  /// Device array of nranks pointers: every rank's registered buffer of the
  /// window as this rank maps it (peers[rank] is its own), or NULL when the
  /// handle was made without a window.
  void *const *peers;
  /// This rank's window bytes (0 without a window); ranks' sizes may differ.
  unsigned long long bytes;
  /// Device array of nranks pointers: every rank's inbox as this rank maps
  /// it, slots * nranks words, [s * nranks + sender].
  unsigned long long *const *inbox;
  /// This rank's expected counts, slots * nranks words, [s * nranks + peer]
  /// (touched only by this rank's waits).
  unsigned long long *expected;
  /// Host-mapped error record (COLLC_DEVICE_ERROR_WORDS words):
  /// collcCommGetAsyncError reports a wait that timed out.
  unsigned long long *error;
  /// Bound of every wait, in nanoseconds (the communicator's timeout).
  unsigned long long timeoutNs;
} collcDeviceComm;

#endif /* COLLC_DEVICE_DEVICE_COMM_H */
