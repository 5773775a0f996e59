// RUN: collc-opt %s -split-input-file -verify-diagnostics
// The variant rules of snac.program and the forward rule of snac.put, with
// the first phase a snac.put and, below, a snac.put_each.

// expected-error@+1 {{is two_shot and needs two receive buffers (the pushed input's and the forwarded partitions'), got 1}}
snac.program for @x variant two_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output scattered sizes row
  snac.program_buffer @rx receive scattered sizes column
}

// -----

// expected-error@+1 {{is two_shot but forwards nothing: it needs a snac.put from the output of the partition it reduced}}
snac.program for @x variant two_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output scattered sizes row
  snac.program_buffer @rx receive scattered sizes column
  snac.program_buffer @fwd receive scattered sizes row
}

// -----

// expected-error@+1 {{is one_shot and needs one receive buffer, got 2}}
snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output packed sizes row
  snac.program_buffer @rx receive scattered sizes column
  snac.program_buffer @fwd receive scattered sizes row
}

// -----

// expected-error@+1 {{is one_shot but forwards a partition of its output (a snac.put from the output): that is a two_shot program}}
snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output packed sizes row
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.reduce_take sum @rx[%e, *] -> @output[%c0]
  snac.put @output[%c0] -> @rx[%e] to all
}

// -----

snac.program for @x variant two_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output scattered sizes row
  snac.program_buffer @rx receive scattered sizes column
  snac.program_buffer @fwd receive scattered sizes row
  %e = snac.epoch
  snac.put @input[%r] -> @rx[%e] to %r
  snac.reduce_take sum @rx[%e, *] -> @output[%r]
  // expected-error@+1 {{writes 'rx' from the output, which other puts fill from the input; each phase of a two-shot program has its own receive buffer}}
  snac.put @output[%r] -> @rx[%e] to all
}

// -----

// The forward reads what the reduce_take of the same partition wrote: a
// take in between, or another partition, is refused.
snac.program for @x variant two_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output scattered sizes row
  snac.program_buffer @rx receive scattered sizes column
  snac.program_buffer @fwd receive scattered sizes row
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put @input[%r] -> @rx[%e] to %r
  snac.reduce_take sum @rx[%e, *] -> @output[%c0]
  // expected-error@+1 {{forwards a partition of the output 'output' that the last op writing the output before it did not reduce: a forward must follow the snac.reduce_take of that partition (each thread then reads back what it just wrote)}}
  snac.put @output[%r] -> @fwd[%e] to all
}

// -----

snac.program for @x variant two_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output scattered sizes row
  snac.program_buffer @rx receive scattered sizes column
  snac.program_buffer @fwd receive scattered sizes row
  %e = snac.epoch
  snac.put @input[%r] -> @rx[%e] to %r
  snac.reduce_take sum @rx[%e, *] -> @output[%r]
  snac.take @fwd[%e, %r] -> @output[%r]
  // expected-error@+1 {{forwards a partition of the output 'output' that the last op writing the output before it did not reduce}}
  snac.put @output[%r] -> @fwd[%e] to all
}

// -----

// The same rules with the first phase a snac.put_each (the form
// coll-derive-programs derives). That form itself verifies:
snac.program for @x variant two_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output scattered sizes row
  snac.program_buffer @rx receive scattered sizes column
  snac.program_buffer @fwd receive scattered sizes row
  %c1 = arith.constant 1 : index
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.reduce_take sum @rx[%e, *] -> @output[%r]
  scf.for %i = %c1 to %n step %c1 {
    %s = arith.addi %r, %i : index
    %q = arith.remui %s, %n : index
    snac.put @output[%r] -> @fwd[%e] to %q
  }
  snac.launch_dependents
  scf.for %i = %c1 to %n step %c1 {
    %s = arith.addi %r, %i : index
    %q = arith.remui %s, %n : index
    snac.take @fwd[%e, %q] -> @output[%q]
  }
}

// -----

// expected-error@+1 {{is two_shot but forwards nothing: it needs a snac.put from the output of the partition it reduced}}
snac.program for @x variant two_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output scattered sizes row
  snac.program_buffer @rx receive scattered sizes column
  snac.program_buffer @fwd receive scattered sizes row
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.reduce_take sum @rx[%e, *] -> @output[%r]
}

// -----

// A forward into the buffer put_each fills.
snac.program for @x variant two_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output scattered sizes row
  snac.program_buffer @rx receive scattered sizes column
  snac.program_buffer @fwd receive scattered sizes row
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.reduce_take sum @rx[%e, *] -> @output[%r]
  snac.put @output[%r] -> @fwd[%e] to all
  // expected-error@+1 {{writes 'rx' from the output, which other puts fill from the input; each phase of a two-shot program has its own receive buffer}}
  snac.put @output[%r] -> @rx[%e] to all
}

// -----

// put_each writes no output: a forward right after it (no reduce_take)
// reads what nothing wrote.
snac.program for @x variant two_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output scattered sizes row
  snac.program_buffer @rx receive scattered sizes column
  snac.program_buffer @fwd receive scattered sizes row
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  // expected-error@+1 {{forwards a partition of the output 'output' that the last op writing the output before it did not reduce}}
  snac.put @output[%r] -> @fwd[%e] to all
  snac.reduce_take sum @rx[%e, *] -> @output[%r]
}

// -----

// After put_each, the reduce_take of another partition than the forward's.
snac.program for @x variant two_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output scattered sizes row
  snac.program_buffer @rx receive scattered sizes column
  snac.program_buffer @fwd receive scattered sizes row
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.reduce_take sum @rx[%e, *] -> @output[%c0]
  // expected-error@+1 {{forwards a partition of the output 'output' that the last op writing the output before it did not reduce}}
  snac.put @output[%r] -> @fwd[%e] to all
}

// -----

// The put_each is not the last remote write: the forwards come after it.
snac.program for @x variant two_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output scattered sizes row
  snac.program_buffer @rx receive scattered sizes column
  snac.program_buffer @fwd receive scattered sizes row
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.launch_dependents
  snac.reduce_take sum @rx[%e, *] -> @output[%r]
  // expected-error@+1 {{follows snac.launch_dependents, which must come after the last remote write}}
  snac.put @output[%r] -> @fwd[%e] to all
}
