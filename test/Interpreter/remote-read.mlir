// RUN: collc-opt %s -verify-diagnostics --snac-simulate="ranks=2 seeds=1 calls=1 count=4"
// A rank reads another rank's ordinary (not peer-accessible) input.

coll.collective @bcast types [f32] ranks [2] {
  coll.transform copy packed -> packed root producer
}
snac.schedule for @bcast chunk_bytes 64 staging_slots 0 {
  snac.buffer @input input geometry input_of 0
  snac.buffer @output output geometry output_of 0
  snac.role @r all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
    %c0 = arith.constant 0 : index
    %nc = snac.num_chunks @output[%r, %c0]
    %c1 = arith.constant 1 : index
    scf.for %c = %c0 to %nc step %c1 {
      // expected-error@+1 {{reads 'input' of rank 1 partition 0 chunk 0, which is not peer-accessible}}
      snac.copy @input[%root, %c0, %c] -> @output[%r, %c0, %c]
    }
  }
}
