// RUN: collc-opt %s -split-input-file -verify-diagnostics
// The zero-copy rules (docs/snac.md "Zero-copy programs"): in_place receive
// buffers only, flag readiness, a chunk, no speculation, one snac.retire as
// the body's last op; in_place only on a receive buffer; snac.retire only in
// a program with in-place buffers, its epoch from snac.epoch; snac.reduce_spread
// only from an in_place buffer into a packed output, of a scattered input,
// with a snac.put_each into that buffer.

// expected-error@+1 {{has 1 of 2 receive buffers in_place: a zero-copy program reads every source in place}}
snac.program for @x variant two_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 1024> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output scattered sizes row
  snac.program_buffer @rx receive scattered sizes column in_place
  snac.program_buffer @fwd receive scattered sizes row
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.reduce_take sum @rx[%e, *] -> @output[%r]
  snac.put @output[%r] -> @fwd[%e] to all
  snac.retire %e
}

// -----

// expected-error@+1 {{is zero-copy (in_place receive buffers), which needs flag readiness, a chunk and no speculation}}
snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 1024> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column in_place
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.take_each @rx[%e] -> @output
  snac.retire %e
}

// -----

// expected-error@+1 {{is zero-copy (in_place receive buffers), which needs flag readiness, a chunk and no speculation}}
snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column in_place
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.take_each @rx[%e] -> @output
  snac.retire %e
}

// -----

// expected-error@+1 {{is zero-copy and must end with one snac.retire (producers keep their buffers until every reader is done), found 0}}
snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 1024> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column in_place
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.take_each @rx[%e] -> @output
}

// -----

// expected-error@+1 {{is zero-copy and must end with one snac.retire (producers keep their buffers until every reader is done), found 1}}
snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 1024> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column in_place
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.retire %e
  snac.take_each @rx[%e] -> @output
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 1024> {
^bb0(%r: index, %n: index):
  // expected-error@+1 {{is in_place, which only a receive buffer can be (its regions are the producers' own buffers)}}
  snac.program_buffer @input input packed sizes row in_place
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 1024> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.take_each @rx[%e] -> @output
  // expected-error@+1 {{ends a zero-copy step, but no receive buffer of the program is in_place}}
  snac.retire %e
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 1024> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column in_place
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : i64
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.take_each @rx[%e] -> @output
  // expected-error@+1 {{takes its epoch from snac.epoch}}
  snac.retire %c1
}

// -----

// A spread reads the sources in place and stores the owners' outputs there.
snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 1024> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output packed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  // expected-error@+1 {{reads every source's input where it lies, but 'rx' is not in_place (a zero-copy program's)}}
  snac.reduce_spread sum @rx[%e, *] -> @output
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 1024> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output scattered_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column in_place
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  // expected-error@+1 {{stores each owner's one reduced partition, but 'output' has one partition per rank}}
  snac.reduce_spread sum @rx[%e, *] -> @output
  snac.retire %e
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 1024> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output packed sizes row
  snac.program_buffer @rx receive scattered sizes column in_place
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  // expected-error@+1 {{spreads the partitions of a scattered input, but 'input' has one partition (every rank reduces the whole of it: snac.reduce_take)}}
  snac.reduce_spread sum @rx[%e, *] -> @output
  snac.retire %e
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 1024> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output packed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column in_place
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  // expected-error@+1 {{takes from 'output', which is not a receive buffer}}
  snac.reduce_spread sum @output[%e, *] -> @output
  snac.retire %e
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 1024> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output packed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column in_place
  %c1 = arith.constant 1 : index
  %e = snac.epoch
  scf.for %k = %r to %n step %c1 {
    snac.put @input[%k] -> @rx[%e] to %k
  }
  // expected-error@+1 {{needs a snac.put_each of the input into 'rx': it publishes where each rank's output is}}
  snac.reduce_spread sum @rx[%e, *] -> @output
  snac.retire %e
}
