// RUN: collc-opt %s --coll-derive-programs="stream-chunk-bytes=0" | FileCheck %s --implicit-check-not="snac.program for"
// (Chunked programs, the band above: derive-programs-chunked.mlir.)
// RUN: collc-opt %s --coll-derive-programs="stream-chunk-bytes=0" | collc-opt | FileCheck %s --implicit-check-not="snac.program for"
// The pass is idempotent.
// RUN: collc-opt %s --coll-derive-programs="stream-chunk-bytes=0" --coll-derive-programs="stream-chunk-bytes=0" | FileCheck %s --implicit-check-not="snac.program for"

// Every unrooted single transform gets a one-shot program; defaults: ll16
// (auto, band up to 64 KiB), 2 slots, work left to snac-assign-work, PDL.

// AllGather: the packed input to every rank; source p's region into
// output partition p, every p in one op.
// CHECK-LABEL: snac.program for @all_gather variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true, speculate = true> {
// CHECK-NEXT:  ^bb0(%rank: index, %n: index):
// CHECK-NEXT:    snac.program_buffer @input input packed sizes row
// CHECK-NEXT:    snac.program_buffer @output output scattered sizes column
// CHECK-NEXT:    snac.program_buffer @rx receive scattered sizes column
// CHECK-NEXT:    %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[E:.+]] = snac.epoch
// CHECK-NEXT:    snac.put @input[%[[C0]]] -> @rx[%[[E]]] to all
// CHECK-NEXT:    snac.take_each @rx[%[[E]]] -> @output
// CHECK-NEXT:  }
coll.collective @all_gather types [bf16] ranks [2] {
  coll.transform copy packed -> scattered
}

// ReduceScatter: partition k to rank k, every k in one op; every source
// reduced in rank order.
// CHECK-LABEL: snac.program for @reduce_scatter variant one_shot
// CHECK-NEXT:  ^bb0(%rank: index, %n: index):
// CHECK-NEXT:    snac.program_buffer @input input scattered sizes row
// CHECK-NEXT:    snac.program_buffer @output output packed sizes column
// CHECK-NEXT:    snac.program_buffer @rx receive scattered sizes column
// CHECK-NEXT:    %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[E:.+]] = snac.epoch
// CHECK-NEXT:    snac.put_each @input -> @rx[%[[E]]]
// CHECK-NEXT:    snac.reduce_take sum @rx[%[[E]], *] -> @output[%[[C0]]]
// CHECK-NEXT:  }
coll.collective @reduce_scatter types [bf16] ranks [2] {
  coll.transform reduce<sum> scattered -> packed
}

// AllToAll: partition k to rank k; source p's region into partition p; no
// index arithmetic left.
// CHECK-LABEL: snac.program for @all_to_all variant one_shot
// CHECK-NEXT:  ^bb0(%rank: index, %n: index):
// CHECK-NEXT:    snac.program_buffer @input input scattered sizes row
// CHECK-NEXT:    snac.program_buffer @output output transposed sizes column
// CHECK-NEXT:    snac.program_buffer @rx receive scattered sizes column
// CHECK-NEXT:    %[[E:.+]] = snac.epoch
// CHECK-NEXT:    snac.put_each @input -> @rx[%[[E]]]
// CHECK-NEXT:    snac.take_each @rx[%[[E]]] -> @output
// CHECK-NEXT:  }
coll.collective @all_to_all types [f32] ranks [2] {
  coll.transform copy scattered -> transposed
}

// One-shot AllReduce: the packed input to every rank, reduced in rank order
// into an output as long as the input.
// CHECK-LABEL: snac.program for @all_reduce_one_shot variant one_shot
// CHECK:         snac.program_buffer @input input packed sizes row
// CHECK-NEXT:    snac.program_buffer @output output packed sizes row
// CHECK-NEXT:    snac.program_buffer @rx receive scattered sizes column
// CHECK:         %[[E:.+]] = snac.epoch
// CHECK-NEXT:    snac.put @input[%[[C0:.+]]] -> @rx[%[[E]]] to all
// CHECK-NEXT:    snac.reduce_take max @rx[%[[E]], *] -> @output[%[[C0]]]
// CHECK-NEXT:  }
coll.collective @all_reduce_one_shot types [f32] ranks [2] {
  coll.transform reduce<max> packed -> packed
}

// The _v forms keep their layouts; the receive buffer is scattered_v.
// CHECK-LABEL: snac.program for @all_gather_v variant one_shot
// CHECK:         snac.program_buffer @input input packed_v sizes row
// CHECK-NEXT:    snac.program_buffer @output output scattered_v sizes column
// CHECK-NEXT:    snac.program_buffer @rx receive scattered_v sizes column
// CHECK:         %[[E:.+]] = snac.epoch
// CHECK-NEXT:    snac.put @input[%{{.+}}] -> @rx[%[[E]]] to all
// CHECK-NEXT:    snac.take_each @rx[%[[E]]] -> @output
// CHECK-NEXT:  }
coll.collective @all_gather_v types [bf16] ranks [2] {
  coll.transform copy packed_v -> scattered_v
}

// CHECK-LABEL: snac.program for @reduce_scatter_v variant one_shot
// CHECK:         snac.program_buffer @input input scattered_v sizes row
// CHECK-NEXT:    snac.program_buffer @output output packed_v sizes column
// CHECK-NEXT:    snac.program_buffer @rx receive scattered_v sizes column
// CHECK:         %[[E:.+]] = snac.epoch
// CHECK-NEXT:    snac.put_each @input -> @rx[%[[E]]]
// CHECK-NEXT:    snac.reduce_take avg @rx[%[[E]], *] -> @output[%{{.+}}]
// CHECK-NEXT:  }
coll.collective @reduce_scatter_v types [bf16] ranks [2] {
  coll.transform reduce<avg> scattered_v -> packed_v
}

// No program for AllToAll_v without a chunk: its ranks know no size in
// common to pick a band by, so only the chunked program whose ranks agree
// on its steps serves it (derive-programs-chunked.mlir); the v1 schedule
// does here.
coll.collective @all_to_all_v types [bf16] ranks [2] {
  coll.transform copy scattered_v -> transposed_v
}

// The composition ReduceScatter then AllGather is reduce(packed -> packed)
// over the whole input, by the layout algebra (no `origin` needed), the _v
// form too.
// CHECK-LABEL: snac.program for @all_reduce variant one_shot
// CHECK:         snac.program_buffer @input input packed sizes row
// CHECK-NEXT:    snac.program_buffer @output output packed sizes row
// CHECK-NEXT:    snac.program_buffer @rx receive scattered sizes column
// CHECK:         %[[E:.+]] = snac.epoch
// CHECK-NEXT:    snac.put @input[%[[C0:.+]]] -> @rx[%[[E]]] to all
// CHECK-NEXT:    snac.reduce_take min @rx[%[[E]], *] -> @output[%[[C0]]]
// CHECK-NEXT:  }
// Above its band, the two-shot program (derive-programs-two-shot.mlir).
// CHECK-LABEL: snac.program for @all_reduce variant two_shot
coll.collective @all_reduce types [bf16] ranks [2] {
  coll.transform reduce<min> scattered -> packed
  coll.transform copy packed -> scattered
}

// CHECK-LABEL: snac.program for @all_reduce_v variant one_shot
// CHECK:         snac.program_buffer @input input packed sizes row
// CHECK-NEXT:    snac.program_buffer @output output packed sizes row
// CHECK:         snac.reduce_take sum
coll.collective @all_reduce_v types [bf16] ranks [2] {
  coll.transform reduce<sum> scattered_v -> packed_v
  coll.transform copy packed_v -> scattered_v
}

// A rooted collective's program is the unrooted `_v` exchange that carries
// its data; `root` tells the runtime how to shape the call's sizes
// (vocab::programSize), so every pair still trades a region per call.
// Gather: AllToAll_v, every rank's input into partition `root`.
// CHECK-LABEL: snac.program for @gather variant one_shot root consumer policy
// CHECK-NEXT:  ^bb0(%rank: index, %n: index):
// CHECK-NEXT:    snac.program_buffer @input input scattered_v sizes row
// CHECK-NEXT:    snac.program_buffer @output output transposed_v sizes column
// CHECK-NEXT:    snac.program_buffer @rx receive scattered_v sizes column
// CHECK-NEXT:    %[[E:.+]] = snac.epoch
// CHECK-NEXT:    snac.put_each @input -> @rx[%[[E]]]
// CHECK-NEXT:    snac.take_each @rx[%[[E]]] -> @output
// CHECK-NEXT:  }
coll.collective @gather types [bf16] ranks [2] {
  coll.transform copy packed -> scattered root consumer
}
// Scatter: AllToAll_v, only the root's row.
// CHECK-LABEL: snac.program for @scatter variant one_shot root producer policy
// CHECK-NEXT:  ^bb0(%rank: index, %n: index):
// CHECK-NEXT:    snac.program_buffer @input input scattered_v sizes row
// CHECK-NEXT:    snac.program_buffer @output output transposed_v sizes column
// CHECK-NEXT:    snac.program_buffer @rx receive scattered_v sizes column
// CHECK-NEXT:    %[[E:.+]] = snac.epoch
// CHECK-NEXT:    snac.put_each @input -> @rx[%[[E]]]
// CHECK-NEXT:    snac.take_each @rx[%[[E]]] -> @output
// CHECK-NEXT:  }
coll.collective @scatter types [bf16] ranks [2] {
  coll.transform copy scattered -> packed root producer
}
// Broadcast: AllGather_v, only the root contributes.
// CHECK-LABEL: snac.program for @broadcast variant one_shot root producer policy
// CHECK-NEXT:  ^bb0(%rank: index, %n: index):
// CHECK-NEXT:    snac.program_buffer @input input packed_v sizes row
// CHECK-NEXT:    snac.program_buffer @output output scattered_v sizes column
// CHECK-NEXT:    snac.program_buffer @rx receive scattered_v sizes column
// CHECK-NEXT:    %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[E:.+]] = snac.epoch
// CHECK-NEXT:    snac.put @input[%[[C0]]] -> @rx[%[[E]]] to all
// CHECK-NEXT:    snac.take_each @rx[%[[E]]] -> @output
// CHECK-NEXT:  }
coll.collective @broadcast types [bf16] ranks [2] {
  coll.transform copy packed -> packed root producer
}
// Reduce: ReduceScatter_v whose partition `root` is the whole input.
// CHECK-LABEL: snac.program for @reduce variant one_shot root consumer policy
// CHECK-NEXT:  ^bb0(%rank: index, %n: index):
// CHECK-NEXT:    snac.program_buffer @input input scattered_v sizes row
// CHECK-NEXT:    snac.program_buffer @output output packed_v sizes column
// CHECK-NEXT:    snac.program_buffer @rx receive scattered_v sizes column
// CHECK-NEXT:    %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[E:.+]] = snac.epoch
// CHECK-NEXT:    snac.put_each @input -> @rx[%[[E]]]
// CHECK-NEXT:    snac.reduce_take sum @rx[%[[E]], *] -> @output[%[[C0]]]
// CHECK-NEXT:  }
coll.collective @reduce types [bf16] ranks [2] {
  coll.transform reduce<sum> packed -> packed root consumer
}
// The compositions: Scatter then AllGather is Broadcast, ReduceScatter then
// Gather is Reduce (their partitions are contiguous in rank order).
// CHECK-LABEL: snac.program for @scatter_then_all_gather variant one_shot root producer
// CHECK:         snac.program_buffer @input input packed_v sizes row
// CHECK:         snac.put @input
// CHECK-NEXT:    snac.take_each
coll.collective @scatter_then_all_gather types [bf16] ranks [2] {
  coll.transform copy scattered -> packed root producer
  coll.transform copy packed -> scattered
}
// CHECK-LABEL: snac.program for @reduce_scatter_then_gather variant one_shot root consumer
// CHECK:         snac.program_buffer @input input scattered_v sizes row
// CHECK:         snac.put_each @input
// CHECK-NEXT:    snac.reduce_take max
coll.collective @reduce_scatter_then_gather types [bf16] ranks [2] {
  coll.transform reduce<max> scattered -> packed
  coll.transform copy packed -> scattered root consumer
}

// No program: the rooted transforms and compositions the algebra has no
// rule for.
coll.collective @gather_then_all_to_all types [bf16] ranks [2] {
  coll.transform copy packed -> scattered
  coll.transform copy scattered -> transposed
}
coll.collective @scatter_then_all_reduce types [bf16] ranks [2] {
  coll.transform copy scattered -> packed root producer
  coll.transform reduce<sum> packed -> packed
}
