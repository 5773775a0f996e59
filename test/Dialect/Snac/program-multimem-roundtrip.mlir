// RUN: collc-opt %s | collc-opt | FileCheck %s
// The in-switch programs print and parse back.

// CHECK-LABEL: snac.program for @all_reduce variant multimem
// CHECK: snac.program_buffer @input input packed sizes row multicast
// CHECK: snac.program_buffer @output output packed sizes row multicast
// CHECK: snac.mc_barrier %{{.*}}
// CHECK: snac.mc_reduce sum @input -> @output
// CHECK: snac.launch_dependents
// CHECK: snac.mc_barrier %{{.*}}
snac.program for @all_reduce variant multimem policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 4, threads = 256, grain = 16, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row multicast
  snac.program_buffer @output output packed sizes row multicast
  %e = snac.epoch
  snac.mc_barrier %e
  snac.mc_reduce sum @input -> @output
  snac.launch_dependents
  snac.mc_barrier %e
}
// CHECK-LABEL: snac.program for @reduce_scatter variant multimem
// CHECK: snac.mc_reduce_local sum @input -> @output
snac.program for @reduce_scatter variant multimem policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 4, threads = 256, grain = 16, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row multicast
  snac.program_buffer @output output packed sizes column
  %e = snac.epoch
  snac.mc_barrier %e
  snac.mc_reduce_local sum @input -> @output
  snac.mc_barrier %e
}
// CHECK-LABEL: snac.program for @all_gather variant multimem
// CHECK: snac.mc_put @input -> @output
snac.program for @all_gather variant multimem policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 4, threads = 256, grain = 16, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column multicast
  %e = snac.epoch
  snac.mc_barrier %e
  snac.mc_put @input -> @output
  snac.mc_barrier %e
}
// CHECK-LABEL: snac.program for @all_reduce variant multimem_pull
// CHECK: snac.program_buffer @output output packed sizes row{{$}}
// CHECK: snac.mc_reduce_local sum @input -> @output
snac.program for @all_reduce variant multimem_pull policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 4, threads = 256, grain = 16, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row multicast
  snac.program_buffer @output output packed sizes row
  %e = snac.epoch
  snac.mc_barrier %e
  snac.mc_reduce_local sum @input -> @output
  snac.mc_barrier %e
}
