// RUN: collc-opt %s -split-input-file -verify-diagnostics
// snac.put_each and snac.take_each: the rules of snac.put and snac.take,
// and one partition per rank where they index by rank.

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output transposed sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
  // expected-error@+1 {{'nope' is not a snac.program_buffer of this program}}
  snac.put_each @nope -> @rx[%e]
}

// -----

// A forward sends the one partition its reduce_take wrote: a snac.put.
snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output transposed sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
  // expected-error@+1 {{pushes from 'output', which is not the program's input (a forward of a reduced partition is a snac.put)}}
  snac.put_each @output -> @rx[%e]
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
  // expected-error@+1 {{sends partition k of 'input' to rank k, but its layout 'packed' has one partition (put it to all with snac.put)}}
  snac.put_each @input -> @rx[%e]
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed_v sizes row
  snac.program_buffer @output output scattered_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %e = snac.epoch
  // expected-error@+1 {{sends partition k of 'input' to rank k, but its layout 'packed_v' has one partition}}
  snac.put_each @input -> @rx[%e]
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output transposed sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
  // expected-error@+1 {{pushes into 'output', which is not a receive buffer}}
  snac.put_each @input -> @output[%e]
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output transposed sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = arith.constant 1 : i64
  // expected-error@+1 {{takes its epoch from snac.epoch}}
  snac.put_each @input -> @rx[%e]
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output transposed sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
  snac.launch_dependents
  // expected-error@+1 {{follows snac.launch_dependents, which must come after the last remote write}}
  snac.put_each @input -> @rx[%e]
}

// -----

// One receive buffer filled from the input by put_each and from the output
// by a forward.
snac.program for @x variant two_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output scattered sizes row
  snac.program_buffer @rx receive scattered sizes column
  snac.program_buffer @fwd receive scattered sizes row
  %e = snac.epoch
  snac.put @input[%r] -> @rx[%e] to %r
  snac.reduce_take sum @rx[%e, *] -> @output[%r]
  snac.put @output[%r] -> @fwd[%e] to all
  // expected-error@+1 {{writes 'fwd' from the output, which other puts fill from the input; each phase of a two-shot program has its own receive buffer}}
  snac.put_each @input -> @fwd[%e]
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output transposed sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
  // expected-error@+1 {{takes from 'input', which is not a receive buffer}}
  snac.take_each @input[%e] -> @output
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output transposed sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
  // expected-error@+1 {{writes 'input', which is not the program's output}}
  snac.take_each @rx[%e] -> @input
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output transposed sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
  // expected-error@+1 {{'nope' is not a snac.program_buffer of this program}}
  snac.take_each @rx[%e] -> @nope
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output packed sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
  // expected-error@+1 {{copies source p's region into partition p of 'output', but its layout 'packed' has one partition}}
  snac.take_each @rx[%e] -> @output
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output transposed sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = arith.constant 1 : i64
  // expected-error@+1 {{takes its epoch from snac.epoch}}
  snac.take_each @rx[%e] -> @output
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output transposed sizes column
  snac.program_buffer @rx receive scattered sizes column
}
%e = arith.constant 1 : i64
// expected-error@+1 {{must be inside a snac.program}}
snac.take_each @rx[%e] -> @output

// -----

// A take_each writes the output: a forward after it reads what no reduce
// of this thread just wrote.
snac.program for @x variant two_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output scattered sizes row
  snac.program_buffer @rx receive scattered sizes column
  snac.program_buffer @fwd receive scattered sizes row
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.reduce_take sum @rx[%e, *] -> @output[%r]
  snac.take_each @rx[%e] -> @output
  // expected-error@+1 {{forwards a partition of the output 'output' that the last op writing the output before it did not reduce}}
  snac.put @output[%r] -> @fwd[%e] to all
}
