// A failure that only some interleavings show: role @spurious publishes
// 'staged' once more without writing anything, and role @consume's first
// await takes whichever of the two notifies came first. Seeded runs pass when
// @write happens to notify first; the exhaustive search finds the race
// between the two notifies of one channel, reverses it and reports the read.
// RUN: collc-opt %s --snac-simulate="ranks=1 seeds=1 calls=1 count=4" | FileCheck %s --check-prefix=SEEDED
// RUN: not collc-opt %s --snac-simulate="ranks=1 calls=1 count=4 exhaustive=true staging-slots=1" 2>&1 | FileCheck %s
// SEEDED-NOT: error
// CHECK: error: simulation of @bcast (ranks=1 {{.*}} strategy=exhaustive calls=1 count={{[0-9]+}}) failed: call 0: rank 0 role 'consume' reads 'staging' of rank 0 partition 0 chunk 0 before its readiness event 'staged'

coll.collective @bcast types [f32] ranks [1] {
  coll.transform copy packed -> packed root producer
}
snac.schedule for @bcast chunk_bytes 64 staging_slots 1 {
  snac.buffer @input input geometry input_of 0
  snac.buffer @staging staging geometry input_of 0
  snac.buffer @output output geometry output_of 0
  snac.event @staged ready encoding flag
  snac.role @write all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
    %c0 = arith.constant 0 : index
    snac.copy @input[%r, %c0, %c0] -> @staging[%r, %c0, %c0]
    snac.notify @staged[%c0, %c0] to %r
  }
  snac.role @spurious all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
    %c0 = arith.constant 0 : index
    snac.notify @staged[%c0, %c0] to %r
  }
  snac.role @consume all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
    %c0 = arith.constant 0 : index
    snac.await @staged[%c0, %c0] from %r
    snac.copy @staging[%r, %c0, %c0] -> @output[%r, %c0, %c0]
    snac.await @staged[%c0, %c0] from %r
  }
}
