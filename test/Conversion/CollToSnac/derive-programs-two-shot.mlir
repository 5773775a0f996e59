// RUN: collc-opt %s --coll-derive-programs="stream-chunk-bytes=0" | FileCheck %s --implicit-check-not="snac.program for"
// (Chunked programs, the band above: derive-programs-chunked.mlir.)
// Capacity bands (collc --policy-table): every band starts at 0, its top
// unchanged; the module's table chooses among them.
// RUN: collc-opt %s --coll-derive-programs="capacity-bands=true" | FileCheck %s --check-prefix=CAPACITY
// CAPACITY: snac.program for @sum_then_spread variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536],
// CAPACITY: snac.program for @sum_then_spread variant two_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 1048576],
// CAPACITY: snac.program for @sum_then_spread variant two_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 9223372036854775807],
// RUN: collc-opt %s --coll-derive-programs="one-hop-max-bytes=4096 two-shot-max-bytes=65536 protocol=sentinel stream-chunk-bytes=0" | FileCheck %s --check-prefix=OPTS --implicit-check-not="snac.program for"

// ReduceScatter then AllGather (found by the layout algebra, whatever its
// name): a one-shot program up to one_hop_max_bytes and a two-shot one in
// the band above, up to two_shot_max_bytes (1 MiB by default, ll16 and
// speculative by `auto`).
// CHECK-LABEL: snac.program for @sum_then_spread variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536],
// CHECK-LABEL: snac.program for @sum_then_spread variant two_shot policy #snac.policy<encoding = ll16, slots = 2, band = [65537, 1048576], ctas = 0, threads = 0, grain = 0, pdl = true, speculate = true> {
// CHECK-NEXT:  ^bb0(%[[RANK:.+]]: index, %[[N:.+]]: index):
// CHECK-NEXT:    snac.program_buffer @input input scattered sizes row
// CHECK-NEXT:    snac.program_buffer @output output scattered sizes row
// CHECK-NEXT:    snac.program_buffer @rx receive scattered sizes column
// CHECK-NEXT:    snac.program_buffer @fwd receive scattered sizes row
// CHECK-NEXT:    %[[C1:.+]] = arith.constant 1 : index
// CHECK-NEXT:    %[[E:.+]] = snac.epoch
// CHECK-NEXT:    snac.put_each @input -> @rx[%[[E]]]
// CHECK-NEXT:    snac.reduce_take max @rx[%[[E]], *] -> @output[%[[RANK]]]
// CHECK-NEXT:    scf.for %[[I:.+]] = %[[C1]] to %[[N]] step %[[C1]] {
// CHECK-NEXT:      %[[S:.+]] = arith.addi %[[RANK]], %[[I]] : index
// CHECK-NEXT:      %[[Q:.+]] = arith.remui %[[S]], %[[N]] : index
// CHECK-NEXT:      snac.put @output[%[[RANK]]] -> @fwd[%[[E]]] to %[[Q]]
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.for %[[J:.+]] = %[[C1]] to %[[N]] step %[[C1]] {
// CHECK-NEXT:      %[[S2:.+]] = arith.addi %[[RANK]], %[[J]] : index
// CHECK-NEXT:      %[[Q2:.+]] = arith.remui %[[S2]], %[[N]] : index
// CHECK-NEXT:      snac.take @fwd[%[[E]], %[[Q2]]] -> @output[%[[Q2]]]
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// OPTS-LABEL: snac.program for @sum_then_spread variant one_shot policy #snac.policy<encoding = sentinel, slots = 2, band = [0, 4096],
// OPTS-LABEL: snac.program for @sum_then_spread variant two_shot policy #snac.policy<encoding = sentinel, slots = 2, band = [4097, 65536],
coll.collective @sum_then_spread types [bf16] ranks [2] {
  coll.transform reduce<max> scattered -> packed
  coll.transform copy packed -> scattered
}

// The spec's two_shot_max_bytes is the two-shot band's top; 0: none.
// CHECK-LABEL: snac.program for @spec_top variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536],
// CHECK-LABEL: snac.program for @spec_top variant two_shot policy #snac.policy<encoding = ll16, slots = 2, band = [65537, 262144],
// OPTS-LABEL: snac.program for @spec_top variant one_shot policy #snac.policy<encoding = sentinel, slots = 2, band = [0, 4096],
// OPTS-LABEL: snac.program for @spec_top variant two_shot policy #snac.policy<encoding = sentinel, slots = 2, band = [4097, 262144],
coll.collective @spec_top types [bf16] ranks [2] policy {two_shot_max_bytes = 262144 : i64} {
  coll.transform reduce<sum> scattered -> packed
  coll.transform copy packed -> scattered
}
// CHECK-LABEL: snac.program for @no_two_shot variant one_shot
// OPTS-LABEL: snac.program for @no_two_shot variant one_shot
coll.collective @no_two_shot types [bf16] ranks [2] policy {two_shot_max_bytes = 0 : i64} {
  coll.transform reduce<sum> scattered -> packed
  coll.transform copy packed -> scattered
}

// The _v form: a partition may be the whole input, so one-shot only.
// CHECK-LABEL: snac.program for @all_reduce_v variant one_shot
// OPTS-LABEL: snac.program for @all_reduce_v variant one_shot
coll.collective @all_reduce_v types [bf16] ranks [2] {
  coll.transform reduce<sum> scattered_v -> packed_v
  coll.transform copy packed_v -> scattered_v
}

// Single transforms have no second phase.
// CHECK-LABEL: snac.program for @reduce_scatter variant one_shot
// OPTS-LABEL: snac.program for @reduce_scatter variant one_shot
coll.collective @reduce_scatter types [bf16] ranks [2] {
  coll.transform reduce<sum> scattered -> packed
}
