// Zero-copy programs -> CUDA (docs/snac.md "Zero-copy programs"): a put into
// an in_place buffer is `expose` (put_each: `expose_each`), publishing where
// the partition is in its window; takes are the same calls, which the
// device runs from the producers' buffers (InPlace); snac.retire is
// `retire`; the kernel takes the window parameters; a region holds the
// where, retire, output where and ready words of every CTA (16 CTAs: 4 x
// 128 bytes). A spread (snac.reduce_spread) is `reduce_spread`, and its
// put_each also publishes where the output is (`expose_each<Spread>`). The
// manifest names the buffers a call must have registered. Then NVRTC and
// ptxas for sm_80, sm_90 and sm_100.
// RUN: collc-translate --snac-to-cuda %s | FileCheck %s
// RUN: collc-translate --snac-to-ptx --cuda-target=sm_80 %s -o %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// RUN: collc-translate --snac-to-ptx --cuda-target=sm_90 %s -o %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// RUN: collc-translate --snac-to-ptx --cuda-target=sm_100 %s -o %t.sm100.ptx
// RUN: %ptxas -arch=sm_100 %t.sm100.ptx -o %t.sm100.cubin

// CHECK-LABEL: //===- @all_reduce: two_shot program, flag, band [1048577, 9223372036854775807] bytes, zero-copy, parts of up to 1073741824 bytes per CTA -===//
// CHECK:      collc_all_reduce__two_shot_flag_zero_copy_bf16_n2(collcProgramParams p, const __grid_constant__ collc::prog::Peers<2> rx,
// CHECK-NEXT:   const __grid_constant__ collc::prog::Sizes<2> sizes, collcWindowParams win) {
// CHECK:        Program<__nv_bfloat16, 2, Encoding::flag, /*Slots=*/2, /*RegionBytes=*/512,
// CHECK-NEXT:           /*InputPacked=*/false, /*Grain=*/1, /*Speculate=*/false, /*OutputByRow=*/true, /*ChunkBytes=*/1073741824, /*InPlace=*/true> g(p, rx, sizes, win);
// CHECK:          g.expose_each(/*op=*/0, e, [&](int k) { return g.input_where(/*part=*/k); });
// CHECK-NEXT:     g.reduce_take<RedOp::Sum>(/*op=*/1, e, g.output(/*part=*/g.rank()), g.count(/*producer=*/g.rank(), /*part=*/g.rank()));
// CHECK:            g.expose(/*op=*/2, e.in(/*buffer=*/1), g.output_where(/*part=*/g.rank()), [[Q:v[0-9]+]]);
// CHECK:            g.take(/*op=*/3, e.in(/*buffer=*/1),
// CHECK:          g.retire(/*op=*/4, e);
// CHECK-NEXT:   }
// CHECK-NEXT:   g.finish(e0.step(steps - 1));
// CHECK-LABEL: //===- @all_gather: one_shot program, flag,
// CHECK:          g.expose(/*op=*/0, e, g.input_where(/*part=*/0), kAllRanks);
// CHECK-NEXT:     g.take_each(/*op=*/1, e,
// CHECK:          g.retire(/*op=*/2, e);
// CHECK-LABEL: //===- @reduce_scatter_v: one_shot program, flag,
// CHECK:          g.expose_each</*Spread=*/true>(/*op=*/0, e, [&](int k) { return g.input_where(/*part=*/k); }, g.output_where(/*part=*/0));
// CHECK-NEXT:     g.reduce_spread<RedOp::Sum>(/*op=*/1, e);
// CHECK-NEXT:     g.launch_dependents();
// CHECK-NEXT:     g.retire(/*op=*/2, e);

// PTX: .entry collc_all_reduce__two_shot_flag_zero_copy_bf16_n2(
// PTX: ld.global.cg.v2.u64
// PTX: .entry collc_all_gather__one_shot_flag_zero_copy_bytes_n4(
// PTX: .entry collc_reduce_scatter_v__one_shot_flag_zero_copy_bf16_n3(

coll.collective @all_reduce types [bf16] ranks [2] {
  coll.transform reduce<sum> scattered -> packed
  coll.transform copy packed -> scattered
}
snac.program for @all_reduce variant two_shot policy #snac.policy<encoding = flag, slots = 2, band = [1048577, 9223372036854775807], ctas = 16, threads = 512, grain = 16, pdl = true, chunk = 1073741824> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output scattered sizes row
  snac.program_buffer @rx receive scattered sizes column in_place
  snac.program_buffer @fwd receive scattered sizes row in_place
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
  snac.retire %e
}

coll.collective @all_gather types [f32] ranks [4] {
  coll.transform copy packed -> scattered
}
snac.program for @all_gather variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [65537, 9223372036854775807], ctas = 4, threads = 512, grain = 16, pdl = true, chunk = 1073741824> {
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

coll.collective @reduce_scatter_v types [bf16] ranks [3] {
  coll.transform reduce<sum> scattered_v -> packed_v
}
snac.program for @reduce_scatter_v variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [65537, 9223372036854775807], ctas = 16, threads = 512, grain = 128, pdl = true, chunk = 1073741824> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output packed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column in_place
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.reduce_spread sum @rx[%e, *] -> @output
  snac.launch_dependents
  snac.retire %e
}
