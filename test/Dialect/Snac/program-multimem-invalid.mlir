// RUN: collc-opt %s -split-input-file -verify-diagnostics
// The in-switch rules (docs/snac.md "In-switch programs"): a multimem
// program has no receive buffer, flag policy, unchunked; its data ops are
// the snac.mc_* ops, each between two snac.mc_barriers; multicast buffers
// and mc ops only there; each op's buffers of the right kind, layout and
// binding, reducing with sum.

// expected-error@+1 {{is multimem and must declare one input and one output snac.program_buffer and no receive buffer (the switch carries the data)}}
snac.program for @x variant multimem policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row multicast
  snac.program_buffer @output output packed sizes row multicast
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
  snac.mc_barrier %e
  snac.mc_reduce sum @input -> @output
  snac.mc_barrier %e
}

// -----

// expected-error@+1 {{is multimem, whose readiness is its barriers' counters: it needs encoding flag, no chunk, no speculation and no agreement}}
snac.program for @x variant multimem policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row multicast
  snac.program_buffer @output output packed sizes row multicast
  %e = snac.epoch
  snac.mc_barrier %e
  snac.mc_reduce sum @input -> @output
  snac.mc_barrier %e
}

// -----

snac.program for @x variant multimem policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row multicast
  snac.program_buffer @output output packed sizes row multicast
  %e = snac.epoch
  // expected-error@+1 {{reaches every rank's buffers before any snac.mc_barrier: a peer may still run its previous call on them}}
  snac.mc_reduce sum @input -> @output
  snac.mc_barrier %e
}

// -----

snac.program for @x variant multimem policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row multicast
  snac.program_buffer @output output packed sizes row multicast
  %e = snac.epoch
  snac.mc_barrier %e
  // expected-error@+1 {{is not followed by a snac.mc_barrier: a rank could end its call (and the host rewrite its buffers) while peers still read or write them}}
  snac.mc_reduce sum @input -> @output
}

// -----

// expected-error@+1 {{is multimem but moves nothing: it needs snac.mc_reduce, snac.mc_reduce_local or snac.mc_put}}
snac.program for @x variant multimem policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row multicast
  snac.program_buffer @output output packed sizes row multicast
  %e = snac.epoch
  snac.mc_barrier %e
  snac.mc_barrier %e
}

// -----

snac.program for @x variant multimem policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row multicast
  snac.program_buffer @output output packed sizes row multicast
  // expected-error@+1 {{cannot be in a multimem program (its body is snac.epoch, snac.mc_barrier and the in-switch data ops)}}
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.mc_barrier %e
  snac.mc_reduce sum @input -> @output
  snac.mc_barrier %e
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  // expected-error@+1 {{is an in-switch op, which only a multimem program runs}}
  snac.mc_barrier %e
  snac.put @input[%c0] -> @rx[%e] to all
  snac.take_each @rx[%e] -> @output
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  // expected-error@+1 {{is multicast, which only a multimem program's buffers are}}
  snac.program_buffer @input input packed sizes row multicast
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.take_each @rx[%e] -> @output
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  // expected-error@+1 {{is multicast, which only a program's input or output can be (the user's registered buffer bound to a multicast object)}}
  snac.program_buffer @rx receive scattered sizes column multicast
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.take_each @rx[%e] -> @output
}

// -----

snac.program for @x variant multimem policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row multicast
  snac.program_buffer @output output packed sizes row multicast
  %e = snac.epoch
  snac.mc_barrier %e
  // expected-error@+1 {{reduces with 'max'; the in-switch programs reduce with sum}}
  snac.mc_reduce max @input -> @output
  snac.mc_barrier %e
}

// -----

snac.program for @x variant multimem policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output packed sizes row multicast
  %e = snac.epoch
  snac.mc_barrier %e
  // expected-error@+1 {{reaches every rank's 'input' through the switch: it must be a multicast program_buffer}}
  snac.mc_reduce sum @input -> @output
  snac.mc_barrier %e
}

// -----

snac.program for @x variant multimem policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row multicast
  snac.program_buffer @output output packed sizes row multicast
  %e = snac.epoch
  snac.mc_barrier %e
  // expected-error@+1 {{needs a scattered output, got 'packed'}}
  snac.mc_put @input -> @output
  snac.mc_barrier %e
}

// -----

snac.program for @x variant multimem policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row multicast
  snac.program_buffer @output output packed sizes row multicast
  %e = snac.epoch
  snac.mc_barrier %e
  // expected-error@+1 {{needs the program's input as 'output'}}
  snac.mc_put @output -> @input
  snac.mc_barrier %e
}

// -----

snac.program for @x variant multimem policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row multicast
  snac.program_buffer @output output packed sizes row multicast
  %e = snac.epoch
  snac.mc_barrier %e
  // expected-error@+1 {{'nope' is not a snac.program_buffer of this program}}
  snac.mc_reduce sum @nope -> @output
  snac.mc_barrier %e
}

// -----

snac.program for @x variant multimem policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row multicast
  snac.program_buffer @output output packed sizes row multicast
  %e = snac.epoch
  %c0 = arith.constant 0 : i64
  // expected-error@+1 {{takes its epoch from snac.epoch}}
  snac.mc_barrier %c0
  snac.mc_reduce sum @input -> @output
  snac.mc_barrier %e
}
