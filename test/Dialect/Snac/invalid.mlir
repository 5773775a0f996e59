// RUN: collc-opt %s -split-input-file -verify-diagnostics

// expected-error@+1 {{has no snac.role}}
snac.schedule for @x chunk_bytes 64 staging_slots 0 {
  snac.buffer @input input geometry input_of 0
}

// -----

// expected-error@+1 {{'chunk_bytes' failed to satisfy constraint}}
snac.schedule for @x chunk_bytes 0 staging_slots 0 {
}

// -----

snac.schedule for @x chunk_bytes 64 staging_slots 0 {
  // expected-error@+1 {{'arith.constant' op is not allowed in a snac.schedule; expected snac.buffer, snac.event or snac.role}}
  %c0 = arith.constant 0 : index
}

// -----

snac.schedule for @x chunk_bytes 64 staging_slots 0 {
  // expected-error@+1 {{body must take three index arguments (rank, world size, root), got 1}}
  snac.role @r all ctas 1 part 0 {
  ^bb0(%a: index):
  }
}

// -----

snac.schedule for @x chunk_bytes 64 staging_slots 0 {
  snac.buffer @input input geometry input_of 0
  snac.role @r all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
    // expected-error@+1 {{'nope' is not a snac.buffer of this schedule}}
    %0 = snac.num_chunks @nope[%r, %r]
  }
}

// -----

snac.schedule for @x chunk_bytes 64 staging_slots 0 {
  snac.role @r all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
    // expected-error@+1 {{'nope' is not a snac.buffer of this schedule}}
    %0 = snac.max_chunks @nope[%r]
  }
}

// -----

snac.schedule for @x chunk_bytes 64 staging_slots 0 {
  snac.buffer @input input geometry input_of 0
  snac.role @r all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
    // expected-error@+1 {{'input' is not a snac.event of this schedule}}
    snac.notify @input[%r] to all
  }
}

// -----

snac.schedule for @x chunk_bytes 64 staging_slots 0 {
  snac.buffer @input input geometry input_of 0
  snac.buffer @output output geometry output_of 0
  snac.role @r all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
    // expected-error@+1 {{writes the input buffer 'input'}}
    snac.copy @output[%r, %r, %r] -> @input[%r, %r, %r]
  }
}

// -----

snac.schedule for @x chunk_bytes 64 staging_slots 0 {
  snac.buffer @input input geometry input_of 0
  snac.buffer @output output geometry output_of 0
  snac.role @r all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
    // expected-error@+1 {{reads the output buffer 'output'}}
    snac.copy @output[%r, %r, %r] -> @output[%r, %r, %r]
  }
}

// -----

snac.schedule for @x chunk_bytes 64 staging_slots 0 {
  snac.buffer @input input geometry input_of 0
  snac.buffer @output output geometry output_of 0
  snac.role @r all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
    // expected-error@+1 {{reads every rank's 'input', which is not peer-accessible}}
    snac.reduce sum @input[*, %r, %r] -> @output[%r, %r, %r]
  }
}

// -----

snac.schedule for @x chunk_bytes 64 staging_slots 0 {
  snac.event @free free encoding flag
  snac.role @r all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
    // expected-error@+1 {{awaits the free event 'free', which is counted from all ranks: write 'from all quota %n'}}
    snac.await @free[%r] from %root
  }
}

// -----

snac.schedule for @x chunk_bytes 64 staging_slots 0 {
  snac.event @ready ready encoding flag
  snac.role @r all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
    // expected-error@+1 {{takes no quota: 'ready' is a ready event}}
    snac.await @ready[%r] from all quota %n
  }
}

// -----

snac.schedule for @x chunk_bytes 64 staging_slots 0 {
  snac.event @ready ready encoding flag
  snac.role @r all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
    // expected-error@+1 {{needs a key}}
    snac.notify @ready[] to all
  }
}

// -----

snac.schedule for @x chunk_bytes 64 staging_slots 0 {
  // expected-error@+1 {{unexpected keyword 'scratch'}}
  snac.buffer @b scratch geometry input_of 0
}

// -----

// expected-error@+1 {{expects parent op 'snac.schedule'}}
snac.event @e ready encoding flag
