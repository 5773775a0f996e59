// A program's `root` sizing rule must match the collective: a rooted
// collective's calls have to be shaped by the root, an unrooted one's must
// not be; and without a root, a scattered program input needs a scattered
// collective. The interpreter refuses each before it runs a call.
// RUN: not collc-opt %s -split-input-file --mlir-print-op-on-diagnostic=false --snac-simulate 2>&1 | FileCheck %s
// CHECK: error: simulation of the ll16 program of @gather ({{.*}}) failed: the collective is rooted but the program has no `root` sizing rule
// CHECK: error: simulation of the ll16 program of @all_to_all ({{.*}}) failed: the program has a `root` sizing rule but the collective is not rooted
// CHECK: error: simulation of the ll16 program of @all_gather ({{.*}}) failed: the program's input is scattered but the collective's is packed

coll.collective @gather types [f32] ranks [2] {
  coll.transform copy packed -> scattered root consumer
}
snac.program for @gather variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 1024], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output transposed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.take_each @rx[%e] -> @output
}

// -----

coll.collective @all_to_all types [f32] ranks [2] {
  coll.transform copy scattered_v -> transposed_v
}
snac.program for @all_to_all variant one_shot root producer policy #snac.policy<encoding = ll16, slots = 2, band = [0, 1024], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output transposed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.take_each @rx[%e] -> @output
}

// -----

// Without a root, a scattered program input needs a scattered collective.
coll.collective @all_gather types [f32] ranks [2] {
  coll.transform copy packed -> scattered
}
snac.program for @all_gather variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 1024], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.take_each @rx[%e] -> @output
}
