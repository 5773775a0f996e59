//===- host_include.cpp - atom.cuh included by a plain C++ compiler -------===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// Compiled by the host C++ compiler (no CUDA): the host-visible parts of the
// device headers (RedOp, shared-memory sizes, packet layouts) must compile
// there, and the device parts must be hidden behind COLLC_DEVICE_COMPILE.
//
//===----------------------------------------------------------------------===//

#include "collc/device/atom.cuh"

#if defined(COLLC_DEVICE_COMPILE)
#error "COLLC_DEVICE_COMPILE must not be defined by a host C++ compiler"
#endif

static_assert(sizeof(collc::dev::ll::Packet) == 16, "LL packet");
static_assert(sizeof(collc::dev::sentinel::Pack16) == 16, "sentinel pack");
static_assert(collc::dev::kCopySmemBytes<4, 8192> == 32768, "smem size");

/// Called by atom_test.cu: the default copy pipeline's shared memory, as the
/// host computes it.
size_t hostDefaultCopySmemBytes() {
  return collc::dev::kCopySmemBytesDefault +
         static_cast<size_t>(collc::dev::RedOp::Sum) +
         collc::dev::ll::next_seq(0xFFFFFFFFu) - 1;
}
