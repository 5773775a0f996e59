// The in-switch programs (option multimem: collc --enable-multimem).
// (The last case of the file is an error: its output is checked apart.)
// RUN: not collc-opt %s --coll-derive-programs="multimem=true stream-chunk-bytes=0" --split-input-file 2>/dev/null | FileCheck %s
// RUN: not collc-opt %s --coll-derive-programs="multimem=true multimem-pull-max-bytes=0 stream-chunk-bytes=0" --split-input-file 2>/dev/null | FileCheck %s --check-prefix=NOPULL
// NOPULL-NOT: variant multimem_pull
// NOPULL: snac.program for @all_reduce variant multimem policy
// Without the option nothing in-switch is derived, and `multimem = on` is an
// error (the path is compiled in only on request).
// RUN: not collc-opt %s --coll-derive-programs="stream-chunk-bytes=0" --split-input-file 2>&1 | FileCheck %s --check-prefix=OFF
// The spec's policy may insist only where the program exists.
// RUN: not collc-opt %s --coll-derive-programs="multimem=true stream-chunk-bytes=0" --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

// OFF: error: policy multimem = on needs the in-switch path compiled in (collc --enable-multimem)
// OFF-NOT: variant multimem

// AllReduce (ReduceScatter then AllGather): first, up to 32 KiB (option
// multimem-pull-max-bytes), SiFAR's redundant pull: every rank has the
// switch reduce the whole input into its own output; then the one hop for
// every size: the switch reduces this rank's shard and stores it to every
// rank; each between two barriers.
// CHECK-LABEL: snac.program for @all_reduce variant multimem_pull policy #snac.policy<encoding = flag, slots = 2, band = [0, 32768], ctas = 0, threads = 0, grain = 0, pdl = true>
// CHECK-NEXT:  ^bb0(%rank: index, %n: index):
// CHECK-NEXT:    snac.program_buffer @input input packed sizes row multicast
// CHECK-NEXT:    snac.program_buffer @output output packed sizes row{{$}}
// CHECK-NEXT:    %[[P:.*]] = snac.epoch
// CHECK-NEXT:    snac.mc_barrier %[[P]]
// CHECK-NEXT:    snac.mc_reduce_local sum @input -> @output
// CHECK-NEXT:    snac.mc_barrier %[[P]]
// CHECK-NEXT:  }
// CHECK-NEXT:  snac.program for @all_reduce variant multimem policy #snac.policy<encoding = flag, slots = 2, band = [0, 9223372036854775807], ctas = 0, threads = 0, grain = 0, pdl = true>
// CHECK-NEXT:  ^bb0(%rank: index, %n: index):
// CHECK-NEXT:    snac.program_buffer @input input packed sizes row multicast
// CHECK-NEXT:    snac.program_buffer @output output packed sizes row multicast
// CHECK-NEXT:    %[[E:.*]] = snac.epoch
// CHECK-NEXT:    snac.mc_barrier %[[E]]
// CHECK-NEXT:    snac.mc_reduce sum @input -> @output
// CHECK-NEXT:    snac.mc_barrier %[[E]]
// CHECK-NEXT:  }
// CHECK:       snac.program for @all_reduce variant one_shot
// CHECK:       snac.program for @all_reduce variant two_shot
coll.collective @all_reduce types [bf16] ranks [2] {
  coll.transform reduce<sum> scattered -> packed
  coll.transform copy packed -> scattered
}

// ReduceScatter: partition `rank` of every rank's input, reduced in the
// switch, into this rank's (ordinary) output.
// CHECK-LABEL: snac.program for @reduce_scatter variant multimem
// CHECK:         snac.program_buffer @input input scattered sizes row multicast
// CHECK-NEXT:    snac.program_buffer @output output packed sizes column{{$}}
// CHECK:         snac.mc_barrier
// CHECK-NEXT:    snac.mc_reduce_local sum @input -> @output
// CHECK-NEXT:    snac.mc_barrier
coll.collective @reduce_scatter types [f32] ranks [2] policy {multimem = "on"} {
  coll.transform reduce<sum> scattered -> packed
}

// AllGather: this rank's input stored into its partition of every rank's
// output through the switch.
// CHECK-LABEL: snac.program for @all_gather variant multimem
// CHECK:         snac.program_buffer @input input packed sizes row{{$}}
// CHECK-NEXT:    snac.program_buffer @output output scattered sizes column multicast
// CHECK:         snac.mc_barrier
// CHECK-NEXT:    snac.mc_put @input -> @output
// CHECK-NEXT:    snac.mc_barrier
coll.collective @all_gather types [bf16] ranks [2] {
  coll.transform copy packed -> scattered
}

// Left out by its policy; and no in-switch program for what the switch
// cannot do in one pass (a transposing copy, variable sizes, a root).
// CHECK-NOT: snac.program for @opted_out variant multimem
// CHECK-NOT: snac.program for @all_to_all variant multimem
// CHECK-NOT: snac.program for @all_gather_v variant multimem
// CHECK-NOT: snac.program for @broadcast variant multimem
coll.collective @opted_out types [bf16] ranks [2] policy {multimem = "off"} {
  coll.transform copy packed -> scattered
}
coll.collective @all_to_all types [bf16] ranks [2] {
  coll.transform copy scattered -> transposed
}
coll.collective @all_gather_v types [bf16] ranks [2] {
  coll.transform copy packed_v -> scattered_v
}
coll.collective @broadcast types [bf16] ranks [2] {
  coll.transform copy scattered -> packed root producer
  coll.transform copy packed -> scattered
}

// -----

// BAD: error: policy multimem = on, but the collective has no in-switch program: multimem serves an AllReduce, ReduceScatter or AllGather of fixed sizes, reducing with sum
coll.collective @all_to_all types [bf16] ranks [2] policy {multimem = "on"} {
  coll.transform copy scattered -> transposed
}
