// What the CUDA backend cannot lower from a snac program is refused at the
// op, with what it needs instead.
// RUN: collc-translate --snac-to-cuda %s -split-input-file -verify-diagnostics
// RUN: not collc-translate --snac-to-cuda --cuda-target=volta %S/program-ops.mlir 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: unknown target 'volta' in --cuda-target

coll.collective @ag types [f32] ranks [2] {
  coll.transform copy packed -> scattered
}
// expected-error@+1 {{the CUDA backend needs the program's work assigned (ctas, threads and grain are 0 in its policy); run snac-assign-work first}}
snac.program for @ag variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 1024], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
}

// -----

coll.collective @ag types [f32] ranks [2] {
  coll.transform copy packed -> scattered
}
// expected-error@+1 {{the device API moves 16-byte units with encoding sentinel; grain = 8 bytes is not a multiple of it}}
snac.program for @ag variant one_shot policy #snac.policy<encoding = sentinel, slots = 2, band = [0, 1024], ctas = 1, threads = 32, grain = 8, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
}

// -----

coll.collective @ag types [f32] ranks [2] {
  coll.transform copy packed -> scattered
}
snac.program for @ag variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 1024], ctas = 1, threads = 32, grain = 8, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = snac.epoch
  // expected-error@+1 {{the CUDA backend lowers scf.for without loop-carried values in a program}}
  %s = scf.for %p = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    snac.take @rx[%e, %p] -> @output[%p]
    scf.yield %acc : index
  }
}

// -----

coll.collective @ag types [f32] ranks [2] {
  coll.transform copy packed -> scattered
}
snac.program for @ag variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 1024], ctas = 1, threads = 32, grain = 8, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
  // expected-error@+1 {{the CUDA backend cannot lower 'arith.maxui' in a snac.program}}
  %m = arith.maxui %r, %n : index
}

// -----

coll.collective @ag types [f32] ranks [2] {
  coll.transform copy packed -> scattered
}
// expected-error@+1 {{the CUDA backend needs the program's snac.epoch (the call counter every call stores)}}
snac.program for @ag variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 1024], ctas = 1, threads = 32, grain = 8, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
}

// -----

// expected-error@+1 {{no coll.collective named @ag (its element types and world sizes name the kernels)}}
snac.program for @ag variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 1024], ctas = 1, threads = 32, grain = 8, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
}

// -----

coll.collective @ag types [f32] ranks [2] {
  coll.transform copy packed -> scattered
}
snac.program for @ag variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 1024], ctas = 1, threads = 32, grain = 8, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
}
// Another band, but the same kernel name: the runtime could not tell them
// apart.
// expected-error@+1 {{a second one_shot ll16 program for @ag (kernel collc_ag__one_shot_ll16_bytes_n2); the CUDA backend needs one per collective, variant and encoding}}
snac.program for @ag variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [1025, 4096], ctas = 1, threads = 32, grain = 8, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
}

// -----

// Parameters by value: 48 bytes, then 8 a rank for the peers and 16 for the
// size vector; 168 ranks fit (4080 bytes), 169 do not: no program kernel
// there (the runtime runs the v1 kernel), said with a warning.
coll.collective @ag types [f32] ranks [168, 169] {
  coll.transform copy packed -> scattered
}
// expected-warning@+1 {{no program kernel at 169 ranks: its parameters would take 4104 bytes (24 bytes a rank), more than the 4096-byte launch limit; calls at 169 ranks run the v1 kernel}}
snac.program for @ag variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 1024], ctas = 1, threads = 32, grain = 8, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
}
