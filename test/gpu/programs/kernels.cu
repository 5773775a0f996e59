//===- kernels.cu - hand-written programs in the emitter's form -----------===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// One-shot programs of the four unrooted collectives (bf16; 2 and 3 ranks;
// LL16, sentinel and flag), written exactly as the emitter prints them
// (v2-contract.md), so that the runtime's program path (manifest, receive
// buffers, routing, launch, errors) runs on a GPU before the emitter lands.
// make_module.py wraps their PTX in a module file; runtime_programs.cpp runs
// it through the C API. Band: [0, 64 KiB] of a rank's input; grid 16 x 512.
//
//===----------------------------------------------------------------------===//

#include "collc/device/snac/program.cuh"

// Region bytes for a 64 KiB band at 16 x 512 threads (256 warp segments):
// collcRxRegionBytes(encoding, 65536, 256); make_module.py checks them.
#define REGION_ll16 131072ull
#define REGION_sentinel 65536ull
#define REGION_flag 67584ull

#define PROGRAM(COLL, ENC, N)                                                  \
  extern "C" __global__ void __launch_bounds__(512, 1)                         \
      collc_##COLL##__one_shot_##ENC##_bf16_n##N(collcProgramParams p,         \
                                                 collc::prog::Peers<N> rx,     \
                                                 collc::prog::Sizes<N> sizes) { \
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
  g.reduce_take<Reduction::sum>(1, e, g.output(0), g.count(g.rank(), 0));

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
  g.reduce_take<Reduction::sum>(1, e, g.output(0),                             \
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

ALL_ENCODINGS(all_reduce, 2)
ALL_ENCODINGS(all_reduce, 3)
ALL_ENCODINGS(all_gather, 2)
ALL_ENCODINGS(all_gather, 3)
ALL_ENCODINGS(reduce_scatter, 2)
ALL_ENCODINGS(reduce_scatter, 3)
ALL_ENCODINGS(all_to_all, 2)
ALL_ENCODINGS(all_to_all, 3)
