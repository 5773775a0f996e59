// RUN: collc-opt %s | FileCheck %s
// RUN: collc-opt %s | collc-opt | FileCheck %s
// RUN: collc-opt %s --mlir-print-op-generic | collc-opt | FileCheck %s

// One-shot AllReduce: push the whole input to every rank, reduce in rank
// order.
// CHECK-LABEL: snac.program for @all_reduce variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 16, threads = 512, grain = 8, pdl = true> {
// CHECK-NEXT:  ^bb0(%rank: index, %n: index):
// CHECK-NEXT:    snac.program_buffer @input input packed sizes row
// CHECK-NEXT:    snac.program_buffer @output output packed sizes row
// CHECK-NEXT:    snac.program_buffer @rx receive scattered sizes column
// CHECK-NEXT:    %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[E:.+]] = snac.epoch
// CHECK-NEXT:    snac.put @input[%[[C0]]] -> @rx[%[[E]]] to all
// CHECK-NEXT:    snac.launch_dependents
// CHECK-NEXT:    snac.reduce_take sum @rx[%[[E]], *] -> @output[%[[C0]]]
// CHECK-NEXT:  }
snac.program for @all_reduce variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 16, threads = 512, grain = 8, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output packed sizes row
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.launch_dependents
  snac.reduce_take sum @rx[%e, *] -> @output[%c0]
}

// AllToAll_v: partition k to rank k, then every source's region into its
// partition; work not assigned yet, sentinel readiness, no PDL.
// CHECK-LABEL: snac.program for @all_to_all_v variant one_shot policy #snac.policy<encoding = sentinel, slots = 4, band = [1, 1024], ctas = 0, threads = 0, grain = 0, pdl = false> {
// CHECK:         snac.program_buffer @input input scattered_v sizes row
// CHECK-NEXT:    snac.program_buffer @output output transposed_v sizes column
// CHECK-NEXT:    snac.program_buffer @rx receive scattered_v sizes column
// CHECK:         %[[E:.+]] = snac.epoch
// CHECK:         scf.for %[[K:.+]] = %{{.+}} to %n step
// CHECK-NEXT:      snac.put @input[%[[K]]] -> @rx[%[[E]]] to %[[K]]
// CHECK:         scf.for %[[P:.+]] = %{{.+}} to %n step
// CHECK-NEXT:      snac.take @rx[%[[E]], %[[P]]] -> @output[%[[P]]]
snac.program for @all_to_all_v variant one_shot policy #snac.policy<encoding = sentinel, slots = 4, band = [1, 1024], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output transposed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = snac.epoch
  scf.for %k = %c0 to %n step %c1 {
    snac.put @input[%k] -> @rx[%e] to %k
  }
  scf.for %p = %c0 to %n step %c1 {
    snac.take @rx[%e, %p] -> @output[%p]
  }
}

// The same exchange in batched per-peer ops: partition k to rank k and
// source p into partition p, every k and p in one op each.
// CHECK-LABEL: snac.program for @all_to_all variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 32, threads = 256, grain = 8, pdl = true, speculate = true> {
// CHECK-NEXT:  ^bb0(%rank: index, %n: index):
// CHECK-NEXT:    snac.program_buffer @input input scattered sizes row
// CHECK-NEXT:    snac.program_buffer @output output transposed sizes column
// CHECK-NEXT:    snac.program_buffer @rx receive scattered sizes column
// CHECK-NEXT:    %[[E:.+]] = snac.epoch
// CHECK-NEXT:    snac.put_each @input -> @rx[%[[E]]]
// CHECK-NEXT:    snac.launch_dependents
// CHECK-NEXT:    snac.take_each @rx[%[[E]]] -> @output
// CHECK-NEXT:  }
snac.program for @all_to_all variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 32, threads = 256, grain = 8, pdl = true, speculate = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output transposed sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.launch_dependents
  snac.take_each @rx[%e] -> @output
}

// Flag readiness, a program beside a v1 schedule of the same collective.
// CHECK-LABEL: snac.program for @all_gather variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 0], ctas = 1, threads = 32, grain = 16, pdl = false> {
// CHECK-LABEL: snac.schedule for @all_gather
snac.program for @all_gather variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 0], ctas = 1, threads = 32, grain = 16, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  scf.for %p = %c0 to %n step %c1 {
    snac.take @rx[%e, %p] -> @output[%p]
  }
}
snac.schedule for @all_gather chunk_bytes 64 staging_slots 2 {
  snac.buffer @input input geometry input_of 0
  snac.role @r all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
  }
}

// Speculative takes: printed only when true.
// CHECK-LABEL: snac.program for @all_gather variant one_shot policy #snac.policy<encoding = sentinel, slots = 2, band = [0, 1024], ctas = 0, threads = 0, grain = 0, pdl = false, speculate = true> {
snac.program for @all_gather variant one_shot policy #snac.policy<encoding = sentinel, slots = 2, band = [0, 1024], ctas = 0, threads = 0, grain = 0, pdl = false, speculate = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  scf.for %p = %c0 to %n step %c1 {
    snac.take @rx[%e, %p] -> @output[%p]
  }
}

// Speculation off is the default and is not printed.
// CHECK-LABEL: snac.program for @all_gather_off variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 1024], ctas = 0, threads = 0, grain = 0, pdl = false> {
snac.program for @all_gather_off variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 1024], ctas = 0, threads = 0, grain = 0, pdl = false, speculate = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  scf.for %p = %c0 to %n step %c1 {
    snac.take @rx[%e, %p] -> @output[%p]
  }
}

// A rooted collective's program (Gather): the unrooted AllToAll_v, its
// sizes shaped by the root (`root consumer`).
// CHECK-LABEL: snac.program for @gather variant one_shot root consumer policy #snac.policy<encoding = sentinel,
// CHECK-NEXT:  ^bb0(%rank: index, %n: index):
// CHECK-NEXT:    snac.program_buffer @input input scattered_v sizes row
// CHECK:         snac.put_each @input -> @rx[%{{.+}}]
// CHECK-NEXT:    snac.take_each @rx[%{{.+}}] -> @output
snac.program for @gather variant one_shot root consumer policy #snac.policy<encoding = sentinel, slots = 2, band = [0, 65536], ctas = 16, threads = 512, grain = 8, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output transposed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.take_each @rx[%e] -> @output
}

// A chunked program: the body runs once per step, a chunk of every
// partition per CTA; `chunk` printed last, `speculate` only when true.
// CHECK-LABEL: snac.program for @all_gather_chunked variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [65537, 9223372036854775807], ctas = 16, threads = 512, grain = 16, pdl = true, chunk = 131072> {
// CHECK-LABEL: snac.program for @reduce_scatter_chunked variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [65537, 9223372036854775807], ctas = 16, threads = 512, grain = 8, pdl = false, speculate = true, chunk = 4096> {
snac.program for @all_gather_chunked variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [65537, 9223372036854775807], ctas = 16, threads = 512, grain = 16, pdl = true, speculate = false, chunk = 131072> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.take_each @rx[%e] -> @output
}
snac.program for @reduce_scatter_chunked variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [65537, 9223372036854775807], ctas = 16, threads = 512, grain = 8, pdl = false, speculate = true, chunk = 4096> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output packed sizes row
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.reduce_take sum @rx[%e, *] -> @output[%c0]
}

// A zero-copy program: in_place receive buffers, the retire last.
// CHECK-LABEL: snac.program for @zero_copy variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [65537, 9223372036854775807], ctas = 16, threads = 512, grain = 16, pdl = true, chunk = 1073741824> {
// CHECK:         snac.program_buffer @rx receive scattered sizes column in_place
// CHECK:         snac.take_each @rx[%[[E:.+]]] -> @output
// CHECK-NEXT:    snac.retire %[[E]]
snac.program for @zero_copy variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [65537, 9223372036854775807], ctas = 16, threads = 512, grain = 16, pdl = true, chunk = 1073741824> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column in_place
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.take_each @rx[%e] -> @output
  snac.retire %e
}

// A spread (a `_v` reduction's zero-copy twin): no partition operand.
// CHECK-LABEL: snac.program for @spread variant one_shot
// CHECK:         snac.reduce_spread max @rx[%[[E:.+]], *] -> @output
// CHECK-NEXT:    snac.retire %[[E]]
snac.program for @spread variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [65537, 9223372036854775807], ctas = 16, threads = 512, grain = 128, pdl = true, chunk = 1073741824> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output packed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column in_place
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.reduce_spread max @rx[%e, *] -> @output
  snac.retire %e
}

// Agreed steps (a transposing `_v` copy): `agree` printed last, only when
// true.
// CHECK-LABEL: snac.program for @all_to_all_v_agreed variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 9223372036854775807], ctas = 16, threads = 512, grain = 128, pdl = true, chunk = 131072, agree = true> {
// CHECK-LABEL: snac.program for @all_gather_unagreed variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [65537, 9223372036854775807], ctas = 16, threads = 512, grain = 128, pdl = true, chunk = 131072> {
snac.program for @all_to_all_v_agreed variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 9223372036854775807], ctas = 16, threads = 512, grain = 128, pdl = true, chunk = 131072, agree = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output transposed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.take_each @rx[%e] -> @output
}

snac.program for @all_gather_unagreed variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [65537, 9223372036854775807], ctas = 16, threads = 512, grain = 128, pdl = true, chunk = 131072, agree = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.take_each @rx[%e] -> @output
}

// Pair steps (the same exchange, each pair of ranks at its own steps):
// `pairs` printed last, only when true.
// CHECK-LABEL: snac.program for @all_to_all_v_pairs variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 9223372036854775807], ctas = 16, threads = 512, grain = 128, pdl = true, chunk = 131072, pairs = true> {
// CHECK-NEXT: ^bb0
// CHECK: snac.put_each
// CHECK: snac.take_each
snac.program for @all_to_all_v_pairs variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 9223372036854775807], ctas = 16, threads = 512, grain = 128, pdl = true, chunk = 131072, agree = false, pairs = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output transposed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.take_each @rx[%e] -> @output
}

// Small pairs by LL16: `pair_ll16` printed after `pairs`, only when not 0.
// CHECK-LABEL: snac.program for @all_to_all_v_ll variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 9223372036854775807], ctas = 16, threads = 512, grain = 128, pdl = true, chunk = 131072, pairs = true, pair_ll16 = 65536> {
snac.program for @all_to_all_v_ll variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 9223372036854775807], ctas = 16, threads = 512, grain = 128, pdl = true, chunk = 131072, pairs = true, pair_ll16 = 65536> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output transposed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.take_each @rx[%e] -> @output
}
