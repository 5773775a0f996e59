// Verification before emission covers programs: a program the reference
// interpreter has not passed never becomes a kernel. The interpreter does
// not run programs yet, so this one is left out (and said so with
// --verify-report) while the v1 kernel of its collective is emitted.
// RUN: collc %s --emit=cuda --target=sm_90 --verify-report 2>%t.report | FileCheck %s --implicit-check-not=__one_shot --implicit-check-not=program.cuh
// RUN: FileCheck %s --check-prefix=REPORT < %t.report
// REPORT: verified @ag: {{[0-9]+}} simulations
// REPORT: not verified @ag: one_shot ll16 program (band [0, 1024] bytes) not emitted; the interpreter does not run programs yet
// CHECK: extern "C" __global__ void __launch_bounds__(COLLC_KERNEL_THREADS, 1)
// CHECK-NEXT: collc_ag_f32_n2(
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
  snac.put @input[%c0] -> @rx[%e] to all
  snac.launch_dependents
  scf.for %p = %c0 to %n step %c1 {
    snac.take @rx[%e, %p] -> @output[%p]
  }
}
