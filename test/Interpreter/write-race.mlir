// RUN: not collc-opt %s --snac-simulate="ranks=1 seeds=1 calls=1 count=4" 2>&1 | FileCheck %s
// Two role groups write the same output chunk with nothing ordering them.
// CHECK: error: simulation of @bcast ({{.*}}) failed: call 0: rank 0 role '{{a|b}}' writes 'output' of rank 0 partition 0 chunk 0 while rank 0 role '{{a|b}}' may still be writing it (call 0, chunk 0)

coll.collective @bcast types [f32] ranks [1] {
  coll.transform copy packed -> packed root producer
}
snac.schedule for @bcast chunk_bytes 64 staging_slots 0 {
  snac.buffer @input input geometry input_of 0
  snac.buffer @output output geometry output_of 0
  snac.role @a all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %nc = snac.num_chunks @input[%r, %c0]
    scf.for %c = %c0 to %nc step %c1 {
      snac.copy @input[%r, %c0, %c] -> @output[%r, %c0, %c]
    }
  }
  snac.role @b all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %nc = snac.num_chunks @input[%r, %c0]
    scf.for %c = %c0 to %nc step %c1 {
      snac.copy @input[%r, %c0, %c] -> @output[%r, %c0, %c]
    }
  }
}

