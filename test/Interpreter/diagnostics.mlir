// RUN: collc-opt %s -split-input-file -verify-diagnostics --snac-simulate="ranks=1 seeds=1 calls=2 count=4"
//
// Each interpreter diagnostic, on a small hand-written schedule (a one-shot
// broadcast from the root; with one rank, a local copy).

coll.collective @bcast types [f32] ranks [1] {
  coll.transform copy packed -> packed root producer
}
// expected-error@+1 {{output partition 0 chunk 0 element 0 (offset 0) is 0xFFFFFFFF, expected}}
snac.schedule for @bcast chunk_bytes 64 staging_slots 0 {
  snac.buffer @input input geometry input_of 0
  snac.buffer @output output geometry output_of 0
  snac.role @idle all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
  }
}

// -----

coll.collective @bcast types [f32] ranks [1] {
  coll.transform copy packed -> packed root producer
}
snac.schedule for @bcast chunk_bytes 64 staging_slots 0 {
  snac.buffer @input input geometry input_of 0
  snac.buffer @output output geometry output_of 0
  snac.role @r all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
    // expected-error@+1 {{partition 1 of 'input' at rank 0 is out of range (1 partitions)}}
    %nc = snac.num_chunks @input[%r, %n]
  }
}

// -----

coll.collective @bcast types [f32] ranks [1] {
  coll.transform copy packed -> packed root producer
}
snac.schedule for @bcast chunk_bytes 64 staging_slots 0 {
  snac.buffer @input input geometry input_of 0
  snac.buffer @output output geometry output_of 0
  snac.role @r all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
    // expected-error@+1 {{rank 1 is out of range for 'input' (world size 1)}}
    %mc = snac.max_chunks @input[%n]
  }
}
// -----

coll.collective @bcast types [f32] ranks [1] {
  coll.transform copy packed -> packed root producer
}
snac.schedule for @bcast chunk_bytes 64 staging_slots 0 {
  snac.buffer @input input geometry input_of 0
  snac.buffer @output output geometry output_of 0
  snac.role @r all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
    // expected-error@+1 {{the interpreter cannot execute 'arith.maxui'}}
    %m = arith.maxui %r, %n : index
  }
}

// -----

coll.collective @bcast types [f32] ranks [1] {
  coll.transform copy packed -> packed root producer
}
snac.schedule for @bcast chunk_bytes 64 staging_slots 0 {
  snac.buffer @input input geometry input_of 0
  snac.buffer @output output geometry output_of 0
  snac.event @extra ready encoding flag
  snac.role @r all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %nc = snac.num_chunks @input[%r, %c0]
    scf.for %c = %c0 to %nc step %c1 {
      snac.copy @input[%r, %c0, %c] -> @output[%r, %c0, %c]
    }
    // expected-error@+1 {{rank 0 role 'r' published 'extra'[0, 0] (partition 0, chunk 0) to rank 0 2 time(s) more than rank 0 awaited it}}
    snac.notify @extra[%c0] to all
  }
}

// -----

// expected-error@+1 {{no coll.collective named @missing}}
snac.schedule for @missing chunk_bytes 64 staging_slots 0 {
  snac.role @r all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
  }
}
