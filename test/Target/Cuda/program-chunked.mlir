// Chunked programs -> CUDA: the ops after snac.epoch run once per step,
// each step with its own epoch, the counter advanced by the call's steps;
// regions hold one step (a chunk and, flag, one ready word per CTA). Then
// through NVRTC and ptxas for sm_80, sm_90 and sm_100, every encoding.
// RUN: collc-translate --snac-to-cuda %s | FileCheck %s
// RUN: collc-translate --snac-to-ptx --cuda-target=sm_80 %s -o %t.sm80.ptx
// RUN: FileCheck %s --check-prefix=PTX --implicit-check-not=griddepcontrol < %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// RUN: collc-translate --snac-to-ptx --cuda-target=sm_90 %s -o %t.sm90.ptx
// RUN: FileCheck %s --check-prefixes=PTX,SM90 < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// RUN: collc-translate --snac-to-ptx --cuda-target=sm_100 %s -o %t.sm100.ptx
// RUN: FileCheck %s --check-prefixes=PTX,SM90 < %t.sm100.ptx
// RUN: %ptxas -arch=sm_100 %t.sm100.ptx -o %t.sm100.cubin

// Two-shot AllReduce, flag, 16 CTAs of 128 KiB: a region is 16 chunks and
// 16 ready words (2 MiB + 128 bytes), whatever the world size.
// CHECK-LABEL: //===- @all_reduce: two_shot program, flag, band [1048577, 9223372036854775807] bytes, chunks of 131072 bytes per CTA -===//
// CHECK:      collc_all_reduce__two_shot_flag_chunked_bf16_n2(collcProgramParams p, const __grid_constant__ collc::prog::Peers<2> rx,
// CHECK:        Program<__nv_bfloat16, 2, Encoding::flag, /*Slots=*/2, /*RegionBytes=*/2097280,
// CHECK-NEXT:           /*InputPacked=*/false, /*Grain=*/1, /*Speculate=*/false, /*OutputByRow=*/true, /*ChunkBytes=*/131072> g(p, rx, sizes);
// CHECK-NEXT:   g.wait_previous();
// CHECK-NEXT:   const Epoch e0 = g.epoch();
// CHECK-NEXT:   const long long steps = g.steps();
// CHECK-NEXT:   for (long long s = 0; s < steps; ++s) {
// CHECK-NEXT:     const Epoch e = e0.step(s);
// CHECK-NEXT:     g.put_each(/*op=*/0, e, [&](int k) { return g.input(/*part=*/k); },
// CHECK-NEXT:                [&](int k) { return g.count(/*producer=*/g.rank(), /*part=*/k); });
// CHECK-NEXT:     g.reduce_take<RedOp::Sum>(/*op=*/1, e, g.output(/*part=*/g.rank()), g.count(/*producer=*/g.rank(), /*part=*/g.rank()));
// CHECK-NEXT:     for (long long [[I:v[0-9]+]] = 1; [[I]] < 2; [[I]] += 1) {
// CHECK:            g.put(/*op=*/2, e.in(/*buffer=*/1), g.output(/*part=*/g.rank()),
// CHECK:          }
// CHECK-NEXT:     g.launch_dependents();
// CHECK-NEXT:     for (long long [[J:v[0-9]+]] = 1; [[J]] < 2; [[J]] += 1) {
// CHECK:            g.take(/*op=*/3, e.in(/*buffer=*/1),
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   g.finish(e0.step(steps - 1));
// CHECK-NEXT: }
// CHECK:      collc_all_reduce__two_shot_flag_chunked_bf16_n4(
// CHECK:        Program<__nv_bfloat16, 4, Encoding::flag, /*Slots=*/2, /*RegionBytes=*/2097280,
// One-shot AllGather, LL16 (a chunk's packets take twice its bytes) and
// sentinel, 4 CTAs of 4 KiB.
// CHECK-LABEL: //===- @all_gather: one_shot program, ll16, band [65537, 9223372036854775807] bytes, chunks of 4096 bytes per CTA -===//
// CHECK:      collc_all_gather__one_shot_ll16_chunked_bytes_n2(
// CHECK:        Program<unsigned char, 2, Encoding::ll16, /*Slots=*/2, /*RegionBytes=*/32768,
// CHECK-NEXT:           /*InputPacked=*/true, /*Grain=*/1, /*Speculate=*/true, /*OutputByRow=*/false, /*ChunkBytes=*/4096> g(p, rx, sizes);
// CHECK:          g.put(/*op=*/0, e, g.input(/*part=*/0), g.count(/*producer=*/g.rank(), /*part=*/0), kAllRanks);
// CHECK-NEXT:     g.take_each(/*op=*/1, e,
// CHECK-LABEL: //===- @all_gather: one_shot program, sentinel, band [65537, 9223372036854775807] bytes, chunks of 4096 bytes per CTA -===//
// CHECK:        Program<float, 2, Encoding::sentinel, /*Slots=*/2, /*RegionBytes=*/16384,

// PTX: .entry collc_all_reduce__two_shot_flag_chunked_bf16_n2(
// SM90: griddepcontrol.launch_dependents
// PTX: .entry collc_all_gather__one_shot_ll16_chunked_bytes_n2(
// PTX: .entry collc_all_gather__one_shot_sentinel_chunked_f32_n2(

coll.collective @all_reduce types [bf16] ranks [2, 4] {
  coll.transform reduce<sum> scattered -> packed
  coll.transform copy packed -> scattered
}
snac.program for @all_reduce variant two_shot policy #snac.policy<encoding = flag, slots = 2, band = [1048577, 9223372036854775807], ctas = 16, threads = 512, grain = 16, pdl = true, chunk = 131072> {
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
  snac.launch_dependents
  scf.for %i = %c1 to %n step %c1 {
    %s = arith.addi %r, %i : index
    %q = arith.remui %s, %n : index
    snac.take @fwd[%e, %q] -> @output[%q]
  }
}

coll.collective @all_gather types [f32] ranks [2] {
  coll.transform copy packed -> scattered
}
snac.program for @all_gather variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [65537, 9223372036854775807], ctas = 4, threads = 128, grain = 8, pdl = true, speculate = true, chunk = 4096> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.take_each @rx[%e] -> @output
}
snac.program for @all_gather variant one_shot policy #snac.policy<encoding = sentinel, slots = 2, band = [65537, 9223372036854775807], ctas = 4, threads = 128, grain = 16, pdl = false, chunk = 4096> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.take_each @rx[%e] -> @output
}
