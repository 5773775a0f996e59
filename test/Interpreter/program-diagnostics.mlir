// Bad simulation requests and a program the interpreter cannot run get a
// diagnostic, never a crash.
// RUN: not collc-opt %s --mlir-print-op-on-diagnostic=false --snac-simulate="encodings=ll8" 2>&1 | FileCheck %s --check-prefix=ENCODING
// RUN: not collc-opt %s --mlir-print-op-on-diagnostic=false --snac-simulate="speculate=maybe" 2>&1 | FileCheck %s --check-prefix=SPECULATE
// RUN: not collc-opt %s --mlir-print-op-on-diagnostic=false --snac-simulate="inputs=weird" 2>&1 | FileCheck %s --check-prefix=INPUTS
// RUN: not collc-opt %s --mlir-print-op-on-diagnostic=false --snac-simulate="counts=4000" 2>&1 | FileCheck %s --check-prefix=BAND
// ENCODING: error: unknown encoding 'll8'; expected flag, ll16 or sentinel
// SPECULATE: error: unknown speculation setting 'maybe'; expected on or off
// INPUTS: error: unknown inputs 'weird'; expected random, special or mixed
// BAND: error: simulation of the ll16 program of @all_gather ({{.*}}) failed: call 0: rank 0's input of 16000 bytes is outside the program's band [0, 1024]: choose counts within it

coll.collective @all_gather types [f32] ranks [2] {
  coll.transform copy packed -> scattered
}
snac.program for @all_gather variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 1024], ctas = 0, threads = 0, grain = 0, pdl = false> {
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
