// RUN: collc-opt %s --coll-derive-programs | FileCheck %s
// RUN: collc-opt %s --coll-derive-programs="stream-chunk-bytes=4096 protocol=sentinel" | FileCheck %s --check-prefix=OPTS
// Exactly the ten below are chunked; with the option 0 only the one whose
// spec sets its chunk.
// RUN: collc-opt %s --coll-derive-programs="zero-copy-chunk-bytes=0" | grep "chunk = " | sed -e 's/ variant.*//' | FileCheck %s --check-prefix=WHICH
// RUN: collc-opt %s --coll-derive-programs="stream-chunk-bytes=0 zero-copy-chunk-bytes=0" | grep "chunk = " | sed -e 's/ variant.*//' | FileCheck %s --check-prefix=NONE
// RUN: not collc-opt %s --coll-derive-programs="stream-chunk-bytes=24" 2>&1 | FileCheck %s --check-prefix=ALIGN
// Every chunked flag program has a zero-copy twin before it (the same body,
// receive buffers in_place, snac.retire last, parts up to the option's
// bytes; docs/snac.md "Zero-copy programs"); a sentinel chunked program
// (OPTS) has none; zero-copy-chunk-bytes=0: none; not a multiple of 16 or
// above 2^30: an error.
// RUN: collc-opt %s --coll-derive-programs | grep "chunk = 1073741824" | sed -e 's/ variant.*//' | FileCheck %s --check-prefix=ZCWHICH
// RUN: collc-opt %s --coll-derive-programs | FileCheck %s --check-prefix=ZC
// RUN: collc-opt %s --coll-derive-programs="stream-chunk-bytes=4096 protocol=sentinel" | FileCheck %s --check-prefix=NOZC --implicit-check-not=in_place
// RUN: collc-opt %s --coll-derive-programs="zero-copy-chunk-bytes=0" | FileCheck %s --check-prefix=NOZC --implicit-check-not=in_place
// RUN: not collc-opt %s --coll-derive-programs="zero-copy-chunk-bytes=24" 2>&1 | FileCheck %s --check-prefix=ZCALIGN
// RUN: not collc-opt %s --coll-derive-programs="zero-copy-chunk-bytes=2147483648" 2>&1 | FileCheck %s --check-prefix=ZCALIGN

// Above the other bands, every input size: a chunked program of the same
// shape, its body run once per step, each CTA moving one chunk of every
// partition per step (docs/snac.md, "Chunked programs"). `auto` is flag
// there; the chunk is the option's (128 KiB) unless the spec sets
// `stream_chunk_bytes`; the grid is snac-assign-work's.

// WHICH:      @all_gather
// WHICH-NEXT: @reduce_scatter
// WHICH-NEXT: @all_reduce
// WHICH-NEXT: @all_gather_v
// WHICH-NEXT: @reduce_scatter_v
// WHICH-NEXT: @all_to_all_v
// WHICH-NEXT: @broadcast
// WHICH-NEXT: @reduce
// WHICH-NEXT: @scatter
// WHICH-NEXT: @gather
// WHICH-NOT:  @
// NONE:       @reduce_scatter
// NONE-NOT:   @
// NOZC: snac.program for @all_gather
// ZCALIGN: error: zero-copy-chunk-bytes = {{[0-9]+}} is not a multiple of 16 in [0, 2^30]

// ZCWHICH: @all_gather
// ZCWHICH: @reduce_scatter
// ZCWHICH: @all_reduce
// ZCWHICH: @all_gather_v
// ZCWHICH: @reduce_scatter_v
// ZCWHICH: @all_to_all_v
// ZCWHICH: @broadcast
// ZCWHICH: @reduce
// ZCWHICH: @scatter
// ZCWHICH: @gather
// ZCWHICH-NOT: @
// ZC-LABEL: snac.program for @all_gather variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [65537, 9223372036854775807], ctas = 0, threads = 0, grain = 0, pdl = true, chunk = 1073741824> {
// ZC-NEXT:  ^bb0(%rank: index, %n: index):
// ZC-NEXT:    snac.program_buffer @input input packed sizes row
// ZC-NEXT:    snac.program_buffer @output output scattered sizes column
// ZC-NEXT:    snac.program_buffer @rx receive scattered sizes column in_place
// ZC-NEXT:    %[[C0:.+]] = arith.constant 0 : index
// ZC-NEXT:    %[[E:.+]] = snac.epoch
// ZC-NEXT:    snac.put @input[%[[C0]]] -> @rx[%[[E]]] to all
// ZC-NEXT:    snac.take_each @rx[%[[E]]] -> @output
// ZC-NEXT:    snac.retire %[[E]]
// ZC-NEXT:  }
// ZC-NEXT:  snac.program for @all_gather variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [65537, 9223372036854775807], ctas = 0, threads = 0, grain = 0, pdl = true, chunk = 131072> {
// ZC-LABEL: snac.program for @all_reduce variant two_shot policy #snac.policy<encoding = flag, {{.*}}, chunk = 1073741824> {
// ZC:         snac.program_buffer @rx receive scattered sizes column in_place
// ZC-NEXT:    snac.program_buffer @fwd receive scattered sizes row in_place
// ZC:         snac.put @output[%rank] -> @fwd
// ZC:         snac.retire
// ZC-NEXT:  }
// ALIGN: error: stream_chunk_bytes = 24 is not a multiple of 16: a chunk is whole 16-byte units of every encoding's payload (0: no chunked program)

// CHECK-LABEL: snac.program for @all_gather variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536]
// CHECK-LABEL: snac.program for @all_gather variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [65537, 9223372036854775807], ctas = 0, threads = 0, grain = 0, pdl = true, chunk = 131072> {
// CHECK-NEXT:  ^bb0(%rank: index, %n: index):
// CHECK-NEXT:    snac.program_buffer @input input packed sizes row
// CHECK-NEXT:    snac.program_buffer @output output scattered sizes column
// CHECK-NEXT:    snac.program_buffer @rx receive scattered sizes column
// CHECK-NEXT:    %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[E:.+]] = snac.epoch
// CHECK-NEXT:    snac.put @input[%[[C0]]] -> @rx[%[[E]]] to all
// CHECK-NEXT:    snac.take_each @rx[%[[E]]] -> @output
// CHECK-NEXT:  }
// OPTS-LABEL:  snac.program for @all_gather variant one_shot policy #snac.policy<encoding = sentinel, slots = 2, band = [65537, 9223372036854775807], ctas = 0, threads = 0, grain = 0, pdl = true, speculate = true, chunk = 4096> {
coll.collective @all_gather types [bf16] ranks [2] {
  coll.transform copy packed -> scattered
}

// The spec's chunk, and its CTA budget.
// CHECK-LABEL: snac.program for @reduce_scatter variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [65537, 9223372036854775807], ctas = 8, threads = 0, grain = 0, pdl = true, chunk = 65536> {
// CHECK:         snac.put_each @input -> @rx[%[[E:.+]]]
// CHECK-NEXT:    snac.reduce_take sum @rx[%[[E]], *] -> @output
// OPTS-LABEL:  snac.program for @reduce_scatter variant one_shot policy #snac.policy<encoding = sentinel, {{.*}}, chunk = 65536> {
coll.collective @reduce_scatter types [bf16] ranks [2] policy {ctas = 8 : i64, stream_chunk_bytes = 65536 : i64} {
  coll.transform reduce<sum> scattered -> packed
}

// `stream_chunk_bytes = 0`: no chunked program.
coll.collective @no_chunk types [bf16] ranks [2] policy {stream_chunk_bytes = 0 : i64} {
  coll.transform copy scattered -> transposed
}

// AllReduce: above the two-shot band, two-shot chunked (each step reduces
// a chunk of the rank's partition and forwards it: the two phases
// pipelined chunk by chunk).
// CHECK-LABEL: snac.program for @all_reduce variant two_shot policy #snac.policy<encoding = ll16, slots = 2, band = [65537, 1048576]
// CHECK-LABEL: snac.program for @all_reduce variant two_shot policy #snac.policy<encoding = flag, slots = 2, band = [1048577, 9223372036854775807], ctas = 0, threads = 0, grain = 0, pdl = true, chunk = 131072> {
// CHECK:         snac.put_each @input -> @rx
// CHECK-NEXT:    snac.reduce_take sum @rx[%{{.+}}, *] -> @output[%rank]
// CHECK:         snac.put @output[%rank] -> @fwd
// CHECK:         snac.take @fwd
// OPTS-LABEL:  snac.program for @all_reduce variant two_shot policy #snac.policy<encoding = sentinel, {{.*}}, chunk = 4096> {
coll.collective @all_reduce types [bf16] ranks [2] {
  coll.transform reduce<sum> scattered -> packed
  coll.transform copy packed -> scattered
}

// `_v` forms whose size vector holds the largest entry of the size matrix
// (a packed input: every rank's size; a reduction: one size per
// partition on every rank) are chunked. A transposing `_v` copy's rank r
// sees only its row and column, so two ranks could count different steps:
// its chunked program agrees on them (policy agree) and serves every size
// (the ranks know no size in common to pick a band by), so it has no
// one-shot program; with another protocol than flag (OPTS), none at all.
// CHECK-LABEL: snac.program for @all_gather_v variant one_shot policy #snac.policy<encoding = flag, {{.*}}, chunk = 131072>
// OPTS-LABEL:  snac.program for @all_gather_v variant one_shot policy #snac.policy<encoding = sentinel, {{.*}}, chunk = 4096>
coll.collective @all_gather_v types [bf16] ranks [2] {
  coll.transform copy packed_v -> scattered_v
}
// CHECK-LABEL: snac.program for @reduce_scatter_v variant one_shot policy #snac.policy<encoding = flag, {{.*}}, chunk = 131072>
// OPTS-LABEL:  snac.program for @reduce_scatter_v variant one_shot policy #snac.policy<encoding = sentinel, {{.*}}, chunk = 4096>
coll.collective @reduce_scatter_v types [bf16] ranks [2] {
  coll.transform reduce<sum> scattered_v -> packed_v
}
// CHECK-NOT:   snac.program for @all_to_all_v variant one_shot policy #snac.policy<encoding = ll16
// CHECK-LABEL: snac.program for @all_to_all_v variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 9223372036854775807], ctas = 0, threads = 0, grain = 0, pdl = true, chunk = 131072, agree = true>
// CHECK-NOT:   snac.program for @all_to_all_v
// ZC-LABEL: snac.program for @all_to_all_v variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 9223372036854775807], ctas = 0, threads = 0, grain = 0, pdl = true, chunk = 1073741824, agree = true> {
// ZC:         snac.program_buffer @rx receive scattered_v sizes column in_place
// OPTS-NOT:    snac.program for @all_to_all_v
coll.collective @all_to_all_v types [bf16] ranks [2] {
  coll.transform copy scattered_v -> transposed_v
}

// Rooted: Broadcast (AllGather_v carrier) and Reduce (ReduceScatter_v)
// chunked; Scatter and Gather (AllToAll_v, not chunked itself) too: their
// sizes are fixed.
// CHECK-LABEL: snac.program for @broadcast variant one_shot root producer policy #snac.policy<encoding = flag, {{.*}}, chunk = 131072>
// OPTS-LABEL:  snac.program for @broadcast variant one_shot root producer policy #snac.policy<encoding = sentinel, {{.*}}, chunk = 4096>
coll.collective @broadcast types [bf16] ranks [2] {
  coll.transform copy scattered -> packed root producer
  coll.transform copy packed -> scattered
}
// CHECK-LABEL: snac.program for @reduce variant one_shot root consumer policy #snac.policy<encoding = flag, {{.*}}, chunk = 131072>
// OPTS-LABEL:  snac.program for @reduce variant one_shot root consumer policy #snac.policy<encoding = sentinel, {{.*}}, chunk = 4096>
coll.collective @reduce types [bf16] ranks [2] {
  coll.transform reduce<sum> scattered -> packed
  coll.transform copy packed -> scattered root consumer
}
coll.collective @scatter types [bf16] ranks [2] {
  coll.transform copy scattered -> packed root producer
}
coll.collective @gather types [bf16] ranks [2] {
  coll.transform copy packed -> scattered root consumer
}
