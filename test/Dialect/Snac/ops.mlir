// RUN: collc-opt %s | FileCheck %s
// RUN: collc-opt %s | collc-opt | FileCheck %s
// RUN: collc-opt %s --mlir-print-op-generic | collc-opt | FileCheck %s

// CHECK-LABEL: snac.schedule for @ag chunk_bytes 128 staging_slots 2 {
snac.schedule for @ag chunk_bytes 128 staging_slots 2 {
  // CHECK: snac.buffer @input input geometry input_of 0
  // CHECK: snac.buffer @staging staging geometry input_of 0
  // CHECK: snac.buffer @inter intermediate geometry output_of 0
  // CHECK: snac.buffer @output output geometry output_of 1
  snac.buffer @input input geometry input_of 0
  snac.buffer @staging staging geometry input_of 0
  snac.buffer @inter intermediate geometry output_of 0
  snac.buffer @output output geometry output_of 1
  // CHECK: snac.event @staged ready encoding ll16
  // CHECK: snac.event @stage_free free encoding flag
  // CHECK: snac.event @other ready encoding sentinel
  snac.event @staged ready encoding ll16
  snac.event @stage_free free encoding flag
  snac.event @other ready encoding sentinel
  // CHECK: snac.role @stage root ctas 2 part 0 {
  // CHECK: ^bb0(%rank: index, %n: index, %root: index):
  snac.role @stage root ctas 2 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
    %c0 = arith.constant 0 : index
    // CHECK: %[[NC:.+]] = snac.num_chunks @input[%rank, %c0]
    %nc = snac.num_chunks @input[%r, %c0]
    // CHECK: snac.max_chunks @input[%rank]
    %mc = snac.max_chunks @input[%r]
    // CHECK: %[[S:.+]] = snac.slot @staging[%[[NC]]]
    %s = snac.slot @staging[%nc]
    // CHECK: snac.await @stage_free[%c0, %[[S]]] from all quota %n
    snac.await @stage_free[%c0, %s] from all quota %n
    // CHECK: snac.copy @input[%rank, %c0, %c0] -> @staging[%rank, %c0, %c0]
    snac.copy @input[%r, %c0, %c0] -> @staging[%r, %c0, %c0]
    // CHECK: snac.notify @staged[%c0, %c0] to all
    snac.notify @staged[%c0, %c0] to all
    // CHECK: snac.notify @other[%c0] to %root
    snac.notify @other[%c0] to %root
  }
  // CHECK: snac.role @reduce all ctas 1 part 0 {
  snac.role @reduce all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
    %c0 = arith.constant 0 : index
    // CHECK: snac.await @staged[%rank, %c0] from all
    snac.await @staged[%r, %c0] from all
    // CHECK: snac.await @other[%c0] from %root
    snac.await @other[%c0] from %root
    // CHECK: snac.reduce avg @staging[*, %rank, %c0] -> @inter[%rank, %c0, %c0]
    snac.reduce avg @staging[*, %r, %c0] -> @inter[%r, %c0, %c0]
    // CHECK: snac.notify @stage_free[%rank, %c0] to all
    snac.notify @stage_free[%r, %c0] to all
  }
}
