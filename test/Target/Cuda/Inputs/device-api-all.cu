// Every function of collc/device/api.cuh instantiated once (scopes, types,
// encodings), so that NVRTC and ptxas check them all (device-api.test).
#include "collc/device/api.cuh"

using namespace collc::dev;

extern "C" __global__ void every_function(collcDeviceComm c, float *f,
                                          __nv_bfloat16 *b, ll::Packet *pk,
                                          uint32_t *slot, uint32_t *words) {
  reduce_peers_cta<float>(f, c, 0, 1000);
  reduce_peers_cta<__nv_bfloat16, RedOp::Max>(b, c, 64, 1000);
  const float *srcs[2] = {f, f + 4};
  reduce_thread<float>(f, srcs, 2, 100);
  reduce_warp<float, RedOp::Min>(f, srcs, 2, 100);
  reduce_cta<float>(f, srcs, 2, 100);
  copy_thread(f, f + 100, 37);
  copy_warp(f, f + 100, 1000);
  copy_cta(f, f + 100, 1000);
  bool ok = barrier_cta(c, 1);
  put_cta(c, 1, 0, f, 400, 3);
  put_warp(c, 1, 0, f, 400, 3);
  put_thread(c, 1, 0, f, 400, 3);
  signal(c, 1, 4);
  signal_warp(c, 1, 4);
  signal_cta(c, 1, 4);
  signal_all_cta(c, 5);
  ok = ok && wait_cta(c, 1, 3) && wait_warp(c, 1, 3) && wait(c, 1, 3) &&
       wait_all_cta(c, 5);
  ll_put_cta(pk, f, 64, 5);
  ll_put_warp(pk, f, 64, 5);
  ll_put_thread(pk, f, 64, 5);
  ok = ok && ll_get_cta(c, 1, pk, f, 64, 5) && ll_get_warp(c, 1, pk, f, 64, 5) &&
       ll_get_thread(c, 1, pk, f, 64, 5);
  sentinel_put_cta<float>(slot, words, 16);
  sentinel_put_warp<__nv_bfloat16>(slot, words, 16);
  sentinel_put_thread<float>(slot, words, 16);
  ok = ok && sentinel_get_cta(c, 1, slot, words, 16) &&
       sentinel_get_warp(c, 1, slot, words, 16) &&
       sentinel_get_thread(c, 1, slot, words, 16);
  if (!ok)
    peer_ptr<float>(c, c.rank, 0)[0] = 0.f;
}
