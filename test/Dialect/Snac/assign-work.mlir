// RUN: collc-opt %s --snac-assign-work | FileCheck %s
// RUN: collc-opt %s --snac-assign-work="targets=sm_80,sm_90a" | FileCheck %s
// RUN: collc-opt %s --snac-assign-work="targets=sm_80,sm_86 threads=256 max-ctas=8" | FileCheck %s --check-prefix=SM80
// RUN: not collc-opt %s --snac-assign-work="targets=gfx90a" 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not collc-opt %s --snac-assign-work="threads=48" 2>&1 | FileCheck %s --check-prefix=THREADS

// TARGET: error: snac-assign-work: unknown target 'gfx90a'; expected sm_<version>, e.g. sm_90a
// THREADS: error: snac-assign-work: threads and chunked-threads must be multiples of 32 up to 1024, max-ctas and chunked-ctas at least 1, got 48, 512, 128 and 16

// LL16 moves 8 bytes per thread-step: 64 KiB / (256 * 8) = 32 CTAs.
// CHECK-LABEL: snac.program for @ll16 variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 32, threads = 256, grain = 8, pdl = true>
// 256 threads, at most 8 CTAs; no target has PDL.
// SM80-LABEL:  snac.program for @ll16 variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 8, threads = 256, grain = 8, pdl = false>
snac.program for @ll16 variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output packed sizes row
  snac.program_buffer @rx receive scattered sizes column
}

// Sentinel and flag move 16 bytes: 64 KiB / (256 * 16) = 16 CTAs; 1 KiB
// would need one CTA and gets two (measured faster).
// CHECK-LABEL: snac.program for @sentinel variant one_shot policy #snac.policy<encoding = sentinel, slots = 2, band = [0, 65536], ctas = 16, threads = 256, grain = 16, pdl = true>
// CHECK-LABEL: snac.program for @flag variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 1024], ctas = 2, threads = 256, grain = 16, pdl = true>
// SM80-LABEL:  snac.program for @sentinel variant one_shot policy #snac.policy<encoding = sentinel, slots = 2, band = [0, 65536], ctas = 8, threads = 256, grain = 16, pdl = false>
// SM80-LABEL:  snac.program for @flag variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 1024], ctas = 2, threads = 256, grain = 16, pdl = false>
snac.program for @sentinel variant one_shot policy #snac.policy<encoding = sentinel, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output packed sizes row
  snac.program_buffer @rx receive scattered sizes column
}
snac.program for @flag variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 1024], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output packed sizes row
  snac.program_buffer @rx receive scattered sizes column
}

// A large band is capped at max-ctas (1 MiB / (256 * 16) = 256 CTAs, capped
// at 128); what is already decided (the spec's CTA budget) is kept.
// CHECK-LABEL: snac.program for @large variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 1048576], ctas = 128, threads = 256, grain = 16, pdl = true>
// CHECK-LABEL: snac.program for @budget variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 3, threads = 256, grain = 8, pdl = true>
// SM80-LABEL:  snac.program for @large variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 1048576], ctas = 8,
// SM80-LABEL:  snac.program for @budget variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 3,
snac.program for @large variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 1048576], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output packed sizes row
  snac.program_buffer @rx receive scattered sizes column
}
snac.program for @budget variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 3, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output packed sizes row
  snac.program_buffer @rx receive scattered sizes column
}

// Two-shot ops move one partition, at most half the band's top (two
// ranks): 16 KiB / (256 threads x 8 bytes) = 8 CTAs, where one-shot's whole
// 32 KiB would take 16.
// CHECK-LABEL: snac.program for @two_shot variant two_shot policy #snac.policy<encoding = ll16, slots = 2, band = [1025, 32768], ctas = 8, threads = 256, grain = 8, pdl = true>
// SM80-LABEL:  snac.program for @two_shot variant two_shot policy #snac.policy<encoding = ll16, slots = 2, band = [1025, 32768], ctas = 8,
snac.program for @two_shot variant two_shot policy #snac.policy<encoding = ll16, slots = 2, band = [1025, 32768], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output scattered sizes row
  snac.program_buffer @rx receive scattered sizes column
  snac.program_buffer @fwd receive scattered sizes row
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.reduce_take sum @rx[%e, *] -> @output[%r]
  snac.put @output[%r] -> @fwd[%e] to all
  snac.take @fwd[%e, %r] -> @output[%r]
}
