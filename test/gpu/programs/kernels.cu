//===- kernels.cu - hand-written programs in the emitter's form -----------===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// One-shot programs of the four unrooted collectives (bf16; 2, 3, 5, 8 ranks;
// LL16, sentinel and flag), written exactly as the emitter prints them
// (v2-contract.md), so that the runtime's program path (manifest, receive
// buffers, routing, launch, errors) runs on a GPU before the emitter lands.
// make_module.py wraps their PTX in a module file; runtime_programs.cpp runs
// it through the C API. Band: [0, 64 KiB] of a rank's input; grid 16 x 256
// (8 ranks sharing one GPU, each with two grids resident under PDL, must
// fit at once).
//
//===----------------------------------------------------------------------===//

#include "collc/device/snac/program.cuh"

// Region bytes for a 64 KiB band at 16 x 256 threads (128 warp segments):
// collcRxRegionBytes(encoding, 65536, 128); make_module.py checks them.
#define REGION_ll16 131072ull
#define REGION_sentinel 65536ull
#define REGION_flag 66560ull

#define PROGRAM(COLL, ENC, N)                                                  \
  extern "C" __global__ void __launch_bounds__(256, 1)                         \
      collc_##COLL##__one_shot_##ENC##_bf16_n##N(                              \
          collcProgramParams p,                                                \
          const __grid_constant__ collc::prog::Peers<N> rx,                    \
          const __grid_constant__ collc::prog::Sizes<N> sizes) {               \
    using namespace collc::prog;                                               \
    Program<__nv_bfloat16, N, Encoding::ENC, 2, REGION_##ENC,                  \
            INPUT_PACKED_##COLL>                                               \
        g(p, rx, sizes);                                                       \
    g.wait_previous();                                                         \
    const Epoch e = g.epoch();                                                 \
    BODY_##COLL(N)                                                             \
    g.finish(e);                                                               \
  }

#define INPUT_PACKED_all_reduce true
#define BODY_all_reduce(N)                                                     \
  g.put(0, e, g.input(0), g.count(g.rank(), 0), kAllRanks);                    \
  g.launch_dependents();                                                       \
  g.reduce_take<RedOp::Sum>(1, e, g.output(0), g.count(g.rank(), 0));

#define INPUT_PACKED_all_gather true
#define BODY_all_gather(N)                                                     \
  g.put(0, e, g.input(0), g.count(g.rank(), 0), kAllRanks);                    \
  g.launch_dependents();                                                       \
  for (int k = 0; k < N; ++k)                                                  \
    g.take(1, e, k, g.output(k), g.count(k, 0));

#define INPUT_PACKED_reduce_scatter false
#define BODY_reduce_scatter(N)                                                 \
  for (int k = 0; k < N; ++k)                                                  \
    g.put(0, e, g.input(k), g.count(g.rank(), k), k);                          \
  g.launch_dependents();                                                       \
  g.reduce_take<RedOp::Sum>(1, e, g.output(0),                             \
                                g.count(g.rank(), g.rank()));

#define INPUT_PACKED_all_to_all false
#define BODY_all_to_all(N)                                                     \
  for (int k = 0; k < N; ++k)                                                  \
    g.put(0, e, g.input(k), g.count(g.rank(), k), k);                          \
  g.launch_dependents();                                                       \
  for (int k = 0; k < N; ++k)                                                  \
    g.take(1, e, k, g.output(k), g.count(k, g.rank()));

#define ALL_ENCODINGS(COLL, N)                                                 \
  PROGRAM(COLL, ll16, N)                                                       \
  PROGRAM(COLL, sentinel, N)                                                   \
  PROGRAM(COLL, flag, N)

#define ALL_COLLECTIVES(N)                                                     \
  ALL_ENCODINGS(all_reduce, N)                                                 \
  ALL_ENCODINGS(all_gather, N)                                                 \
  ALL_ENCODINGS(reduce_scatter, N)                                             \
  ALL_ENCODINGS(all_to_all, N)

// NVRTC_CHECK_ONLY (test/Target/Cuda/device-headers.test): one world size
// instantiates every op and encoding, at a quarter of the compile time.
ALL_COLLECTIVES(3)
#ifndef NVRTC_CHECK_ONLY
ALL_COLLECTIVES(2)
ALL_COLLECTIVES(5)
ALL_COLLECTIVES(8)
#endif
