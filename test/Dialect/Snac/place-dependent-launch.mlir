// RUN: collc-opt %s --snac-place-dependent-launch | FileCheck %s --implicit-check-not=snac.launch_dependents
// The pass is idempotent.
// RUN: collc-opt %s --snac-place-dependent-launch --snac-place-dependent-launch | FileCheck %s --implicit-check-not=snac.launch_dependents

// Right after the put, before the wait of the reduction.
// CHECK-LABEL: snac.program for @all_reduce
// CHECK:         snac.put
// CHECK-NEXT:    snac.launch_dependents
// CHECK-NEXT:    snac.reduce_take
snac.program for @all_reduce variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 16, threads = 512, grain = 8, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output packed sizes row
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.reduce_take sum @rx[%e, *] -> @output[%c0]
}

// After the loop of puts, not inside it; one placed too late is moved.
// CHECK-LABEL: snac.program for @all_to_all
// CHECK:         scf.for
// CHECK-NEXT:      snac.put
// CHECK-NEXT:    }
// CHECK-NEXT:    snac.launch_dependents
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      snac.take
snac.program for @all_to_all variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 16, threads = 512, grain = 8, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output transposed sizes column
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = snac.epoch
  scf.for %k = %c0 to %n step %c1 {
    snac.put @input[%k] -> @rx[%e] to %k
  }
  scf.for %p = %c0 to %n step %c1 {
    snac.take @rx[%e, %p] -> @output[%p]
  }
  snac.launch_dependents
}

// snac.put_each is a remote write: right after it.
// CHECK-LABEL: snac.program for @reduce_scatter
// CHECK:         snac.put_each
// CHECK-NEXT:    snac.launch_dependents
// CHECK-NEXT:    snac.reduce_take
snac.program for @reduce_scatter variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 16, threads = 512, grain = 8, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output packed sizes column
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.reduce_take sum @rx[%e, *] -> @output[%c0]
}

// The last of several: after a put_each followed by a put (the pass looks
// at the order only; the exchange itself would write one region twice).
// CHECK-LABEL: snac.program for @two_puts
// CHECK:         snac.put_each
// CHECK-NEXT:    snac.put
// CHECK-NEXT:    snac.launch_dependents
// CHECK-NEXT:    snac.take_each
snac.program for @two_puts variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 16, threads = 512, grain = 8, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output transposed sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.put @input[%r] -> @rx[%e] to %r
  snac.take_each @rx[%e] -> @output
}

// Two-shot, as coll-derive-programs derives it: the put_each of the first
// phase is not the last remote write; the forwards are, so the launch goes
// after their loop (the verifier refuses one right after the put_each,
// program-two-shot-invalid.mlir).
// CHECK-LABEL: snac.program for @two_shot
// CHECK:         snac.put_each
// CHECK-NEXT:    snac.reduce_take
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      arith.addi
// CHECK-NEXT:      arith.remui
// CHECK-NEXT:      snac.put @output
// CHECK-NEXT:    }
// CHECK-NEXT:    snac.launch_dependents
// CHECK-NEXT:    scf.for
snac.program for @two_shot variant two_shot policy #snac.policy<encoding = ll16, slots = 2, band = [65537, 1048576], ctas = 16, threads = 512, grain = 8, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output scattered sizes row
  snac.program_buffer @rx receive scattered sizes column
  snac.program_buffer @fwd receive scattered sizes row
  %c1 = arith.constant 1 : index
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.reduce_take sum @rx[%e, *] -> @output[%r]
  scf.for %i = %c1 to %n step %c1 {
    %s = arith.addi %r, %i : index
    %q = arith.remui %s, %n : index
    snac.put @output[%r] -> @fwd[%e] to %q
  }
  scf.for %i = %c1 to %n step %c1 {
    %s = arith.addi %r, %i : index
    %q = arith.remui %s, %n : index
    snac.take @fwd[%e, %q] -> @output[%q]
  }
}

// Without PDL: none, and one written by hand is removed.
// CHECK-LABEL: snac.program for @no_pdl
// CHECK:         snac.put
// CHECK-NEXT:    snac.reduce_take
snac.program for @no_pdl variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 65536], ctas = 8, threads = 512, grain = 16, pdl = false> {
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

// A spread stores to the owners' outputs: after it, before the retire.
// CHECK-LABEL: snac.program for @reduce_scatter_v
// CHECK:         snac.put_each
// CHECK-NEXT:    snac.reduce_spread
// CHECK-NEXT:    snac.launch_dependents
// CHECK-NEXT:    snac.retire
snac.program for @reduce_scatter_v variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [65537, 9223372036854775807], ctas = 16, threads = 512, grain = 128, pdl = true, chunk = 1073741824> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output packed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column in_place
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.reduce_spread sum @rx[%e, *] -> @output
  snac.retire %e
}
