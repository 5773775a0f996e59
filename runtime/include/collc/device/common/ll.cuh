//===- ll.cuh - LL packets: 8 bytes of payload + sequence number -*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Sequence-number readiness (DESIGN.md "LL packets", flash-comm 3.1): a
/// 16-byte packet carries 8 bytes of payload and the call's 32-bit sequence
/// number twice, laid out {data0, seq, data1, seq} as in NCCL's LL protocol.
/// The producer writes the whole packet with one 16-byte store; each 8-byte
/// half {dataK, seq} is single-copy atomic, so a reader that sees the
/// expected sequence number in both halves has both payload words of this
/// call, whatever the interconnect does with the 16 bytes. One store carries
/// data and readiness; no fence, no flag, at twice the bytes.
///
/// Sequence numbers: a packet buffer starts zeroed, so calls number from 1;
/// a 32-bit counter that wraps must skip 0 (ll::next_seq does). Stale packets
/// from call s - 2^32 are not distinguished: rotate buffers well before that.
///
/// Both accesses are `volatile` (PTX: relaxed, system scope, never cached in
/// L1), generic-addressed, so packets may live in peer or host memory.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_DEVICE_COMMON_LL_CUH
#define COLLC_DEVICE_COMMON_LL_CUH

#include "collc/device/common/arch_config.cuh"
#include "collc/device/common/flags.cuh"
#include "collc/device/common/types.cuh"

namespace collc {
namespace dev {
namespace ll {

/// One LL packet: payload word 0, sequence number, payload word 1, sequence
/// number. Shared with the host (sizing staging buffers).
struct alignas(16) Packet {
  uint32_t data0;
  uint32_t seq0;
  uint32_t data1;
  uint32_t seq1;
};
static_assert(sizeof(Packet) == 16, "an LL packet is 16 bytes");

/// Payload bytes per packet (half of the packet).
constexpr unsigned kPayloadBytes = 8;

/// The sequence number after `seq`, skipping 0 (the value of a fresh buffer).
COLLC_HOST_DEVICE_INLINE uint32_t next_seq(uint32_t seq) {
  return seq + 1 == 0 ? 1u : seq + 1;
}

#if defined(COLLC_DEVICE_COMPILE)

/// Writes `payload` with sequence number `seq` into `*p` with one 16-byte
/// volatile store (st.volatile.v4.u32).
COLLC_DEVICE_INLINE void store(Packet *p, u64 payload, uint32_t seq) {
  const uint32_t lo = static_cast<uint32_t>(payload);
  const uint32_t hi = static_cast<uint32_t>(payload >> 32);
  asm volatile("st.volatile.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(lo),
               "r"(seq), "r"(hi), "r"(seq)
               : "memory");
}

/// Reads `*p` once with one 16-byte volatile load; returns true and sets
/// `*payload` when both sequence numbers equal `seq`.
COLLC_DEVICE_INLINE bool try_read(const Packet *p, uint32_t seq,
                                  u64 *payload) {
  uint32_t d0, s0, d1, s1;
  asm volatile("ld.volatile.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(d0), "=r"(s0), "=r"(d1), "=r"(s1)
               : "l"(p)
               : "memory");
  if (s0 != seq || s1 != seq)
    return false;
  *payload = (static_cast<u64>(d1) << 32) | d0;
  return true;
}

/// Polls `*p` (single thread) until it carries sequence number `seq`, then
/// sets `*payload` and returns true; returns false on bounded_poll's timeout.
COLLC_DEVICE_INLINE bool poll(const Packet *p, uint32_t seq, u64 *payload,
                              unsigned long long timeoutNs) {
  if (bounded_poll(timeoutNs, [&] { return try_read(p, seq, payload); }))
    return true;
#if defined(COLLC_DEVICE_TRAP_ON_TIMEOUT)
  printf("collc: LL poll timed out: packet seq == %u after %llu ns\n", seq,
         timeoutNs);
  __trap();
#endif
  return false;
}

#endif // defined(COLLC_DEVICE_COMPILE)

} // namespace ll
} // namespace dev
} // namespace collc

#endif // COLLC_DEVICE_COMMON_LL_CUH
