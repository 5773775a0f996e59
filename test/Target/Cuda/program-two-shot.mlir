// The two-shot AllReduce program -> CUDA, op by op, then through NVRTC and
// ptxas for sm_80, sm_90 and sm_100, every encoding.
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

// Regions hold one partition of the band's top (abi.h collcRxPayloadBytes:
// 1 MiB over 2 ranks, 512 KiB, plus 128 flag words = 525312 bytes; over 4
// ranks 256 KiB + 1 KiB). The output's partitions are sized by this
// rank's row (OutputByRow). The reduce-scatter phase is one put_each, as
// in one-shot ReduceScatter. The forward's epoch addresses the second
// receive buffer (`e.in(1)`); launch_dependents follows it.
// CHECK-LABEL: //===- @all_reduce: two_shot program, flag, band [65537, 1048576] bytes -===//
// CHECK:      collc_all_reduce__two_shot_flag_bf16_n2(collcProgramParams p, const __grid_constant__ collc::prog::Peers<2> rx,
// CHECK:        Program<__nv_bfloat16, 2, Encoding::flag, /*Slots=*/2, /*RegionBytes=*/525312,
// CHECK-NEXT:           /*InputPacked=*/false, /*Grain=*/1, /*Speculate=*/false, /*OutputByRow=*/true> g(p, rx, sizes);
// CHECK-NEXT:   g.wait_previous();
// CHECK-NEXT:   const Epoch e = g.epoch();
// CHECK-NEXT:   g.put_each(/*op=*/0, e, [&](int k) { return g.input(/*part=*/k); },
// CHECK-NEXT:              [&](int k) { return g.count(/*producer=*/g.rank(), /*part=*/k); });
// CHECK-NEXT:   g.reduce_take<RedOp::Sum>(/*op=*/1, e, g.output(/*part=*/g.rank()), g.count(/*producer=*/g.rank(), /*part=*/g.rank()));
// CHECK-NEXT:   for (long long [[I:v[0-9]+]] = 1; [[I]] < 2; [[I]] += 1) {
// CHECK-NEXT:     const long long [[S:v[0-9]+]] = g.rank() + [[I]];
// CHECK-NEXT:     const long long [[Q:v[0-9]+]] = [[S]] % 2;
// CHECK-NEXT:     g.put(/*op=*/2, e.in(/*buffer=*/1), g.output(/*part=*/g.rank()), g.count(/*producer=*/g.rank(), /*part=*/g.rank()), [[Q]]);
// CHECK-NEXT:   }
// CHECK-NEXT:   g.launch_dependents();
// CHECK-NEXT:   for (long long [[J:v[0-9]+]] = 1; [[J]] < 2; [[J]] += 1) {
// CHECK-NEXT:     const long long [[S2:v[0-9]+]] = g.rank() + [[J]];
// CHECK-NEXT:     const long long [[Q2:v[0-9]+]] = [[S2]] % 2;
// CHECK-NEXT:     g.take(/*op=*/3, e.in(/*buffer=*/1), /*src=*/[[Q2]], g.output(/*part=*/[[Q2]]), g.count(/*producer=*/g.rank(), /*part=*/[[Q2]]));
// CHECK-NEXT:   }
// CHECK-NEXT:   g.finish(e);
// CHECK-NEXT: }
// CHECK:      collc_all_reduce__two_shot_flag_bf16_n4(
// CHECK:        Program<__nv_bfloat16, 4, Encoding::flag, /*Slots=*/2, /*RegionBytes=*/263168,
// CHECK-LABEL: //===- @all_reduce: two_shot program, ll16, band [65537, 262144] bytes -===//
// CHECK:      collc_all_reduce__two_shot_ll16_bf16_n2(
// CHECK:        Program<__nv_bfloat16, 2, Encoding::ll16, /*Slots=*/2, /*RegionBytes=*/262144,
// CHECK-LABEL: //===- @all_reduce: two_shot program, sentinel, band [65537, 262144] bytes -===//
// CHECK:      collc_all_reduce__two_shot_sentinel_bf16_n2(
// CHECK:        Program<__nv_bfloat16, 2, Encoding::sentinel, /*Slots=*/2, /*RegionBytes=*/131072,

// PTX: .entry collc_all_reduce__two_shot_flag_bf16_n2(
// SM90: griddepcontrol.launch_dependents
// PTX: .entry collc_all_reduce__two_shot_ll16_bf16_n4(
// PTX: .entry collc_all_reduce__two_shot_sentinel_bf16_n4(

coll.collective @all_reduce types [bf16] ranks [2, 4] {
  coll.transform reduce<sum> scattered -> packed
  coll.transform copy packed -> scattered
}
snac.program for @all_reduce variant two_shot policy #snac.policy<encoding = flag, slots = 2, band = [65537, 1048576], ctas = 16, threads = 256, grain = 16, pdl = true> {
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
snac.program for @all_reduce variant two_shot policy #snac.policy<encoding = ll16, slots = 2, band = [65537, 262144], ctas = 16, threads = 256, grain = 8, pdl = true> {
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
snac.program for @all_reduce variant two_shot policy #snac.policy<encoding = sentinel, slots = 2, band = [65537, 262144], ctas = 16, threads = 256, grain = 16, pdl = true> {
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
