// RUN: collc-opt %s -split-input-file -verify-diagnostics

// expected-error@+1 {{policy needs at least 2 slots, got 1}}
snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 1, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
}

// -----

// A flag orders what was written before it, not a payload loaded before it.
// expected-error@+1 {{policy speculate needs ll16 or sentinel readiness: a flag does not validate a payload loaded before it}}
snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, speculate = true> {
^bb0(%r: index, %n: index):
}

// -----

// expected-error@+1 {{expected 'true' or 'false', got 'maybe'}}
snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, speculate = maybe> {
^bb0(%r: index, %n: index):
}

// -----

// expected-error@+1 {{policy band [64, 63] is not a range of byte counts}}
snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [64, 63], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
}

// -----

// expected-error@+1 {{policy ctas, threads and grain must not be negative (0: not assigned yet)}}
snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = -1, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
}

// -----

// expected-error@+1 {{policy threads must be a multiple of 32 up to 1024, got 48}}
snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 1, threads = 48, grain = 8, pdl = false> {
^bb0(%r: index, %n: index):
}

// -----

// expected-error@+1 {{policy grain must be 8 or 16 bytes, got 4}}
snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 1, threads = 32, grain = 4, pdl = false> {
^bb0(%r: index, %n: index):
}

// -----

// Only a chunked flag program keeps several vectors in flight per thread.
// expected-error@+1 {{policy grain must be 8 or 16 bytes, got 128}}
snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 1, threads = 32, grain = 128, pdl = false> {
^bb0(%r: index, %n: index):
}

// -----

// expected-error@+1 {{policy grain of a chunked flag program must be a multiple of 16 bytes up to 256 (vectors in flight per thread), got 512}}
snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 1, threads = 32, grain = 512, pdl = false, chunk = 1024> {
^bb0(%r: index, %n: index):
}

// -----

// expected-error@+1 {{policy grain of a chunked flag program must be a multiple of 16 bytes up to 256 (vectors in flight per thread), got 40}}
snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 1, threads = 32, grain = 40, pdl = false, chunk = 1024> {
^bb0(%r: index, %n: index):
}

// -----

// expected-error@+1 {{expected 'true' or 'false', got 'yes'}}
snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 1, threads = 32, grain = 8, pdl = yes> {
^bb0(%r: index, %n: index):
}

// -----

// expected-error@+1 {{body must take two index arguments (rank, world size), got 3}}
snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index, %root: index):
}

// -----

// expected-error@+1 {{must declare one input, one output and at least one receive snac.program_buffer}}
snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output packed sizes row
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output packed sizes row
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
  // expected-error@+1 {{is the second snac.epoch of its program}}
  %f = snac.epoch
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output packed sizes row
  snac.program_buffer @rx receive scattered sizes column
  snac.launch_dependents
  // expected-error@+1 {{is the second snac.launch_dependents of its program}}
  snac.launch_dependents
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output packed sizes column
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = snac.epoch
  snac.launch_dependents
  scf.for %k = %c0 to %n step %c1 {
    // expected-error@+1 {{follows snac.launch_dependents, which must come after the last remote write}}
    snac.put @input[%k] -> @rx[%e] to %k
  }
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  // expected-error@+1 {{has kind 'staging'; a program buffer is input, output or receive}}
  snac.program_buffer @stage staging packed sizes row
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  // expected-error@+1 {{is a receive buffer, indexed by source: its geometry is 'scattered sizes column' or 'scattered sizes row' (or scattered_v)}}
  snac.program_buffer @rx receive packed sizes column
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  // expected-error@+1 {{is the input, whose partition sizes are its row of the size matrix: write 'sizes row'}}
  snac.program_buffer @input input packed sizes column
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output packed sizes row
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  // expected-error@+1 {{'nope' is not a snac.program_buffer of this program}}
  snac.put @nope[%c0] -> @rx[%e] to all
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output packed sizes row
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  // expected-error@+1 {{forwards a partition of the output 'output' that the last op writing the output before it did not reduce}}
  snac.put @output[%c0] -> @rx[%e] to all
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output packed sizes row
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  // expected-error@+1 {{pushes into 'output', which is not a receive buffer}}
  snac.put @input[%c0] -> @output[%e] to all
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output packed sizes row
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %e = arith.constant 1 : i64
  // expected-error@+1 {{takes its epoch from snac.epoch}}
  snac.put @input[%c0] -> @rx[%e] to all
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
  // expected-error@+1 {{takes from 'input', which is not a receive buffer}}
  snac.take @input[%e, %r] -> @output[%r]
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output packed sizes row
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  // expected-error@+1 {{writes 'input', which is not the program's output}}
  snac.reduce_take sum @rx[%e, *] -> @input[%c0]
}

// -----

snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output packed sizes row
  snac.program_buffer @rx receive scattered sizes column
}
%c0 = arith.constant 0 : index
%e = arith.constant 1 : i64
// expected-error@+1 {{must be inside a snac.program}}
snac.take @rx[%e, %c0] -> @output[%c0]

// -----

snac.schedule for @x chunk_bytes 64 staging_slots 0 {
  // expected-error@+1 {{declares a receive buffer, which belongs to a snac.program}}
  snac.buffer @rx receive geometry input_of 0
  snac.role @r all ctas 1 part 0 {
  ^bb0(%r: index, %n: index, %root: index):
  }
}

// -----

// A rooted call's shaped sizes have empty partitions: run-time sizes.
// expected-error@+1 {{is the program of a rooted collective (root producer), so its input needs run-time sizes (packed_v or scattered_v), got packed}}
snac.program for @x variant one_shot root producer policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
}

// -----

// expected-error@+1 {{has root consumer, which sends each rank's input to partition `root`: its input must be scattered_v, got packed_v}}
snac.program for @x variant one_shot root consumer policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed_v sizes row
  snac.program_buffer @output output scattered_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
}

// -----

// expected-error@+1 {{unexpected keyword 'leader'}}
snac.program for @x variant one_shot root leader policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false> {
^bb0(%r: index, %n: index):
}

// -----

// A chunk is whole 16-byte units of every encoding's payload.
// expected-error@+1 {{policy chunk must be a non-negative multiple of 16 bytes (0: not chunked), got 24}}
snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 24> {
^bb0(%r: index, %n: index):
}

// -----

// The optional entries after `pdl` come in one order, each once.
// expected-error@+1 {{expected 'speculate', 'chunk', 'agree', 'pairs' or 'pair_ll16' (in that order, each at most once) after 'pdl', got 'speculate'}}
snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 16, speculate = true> {
^bb0(%r: index, %n: index):
}

// -----

// expected-error@+1 {{expected 'speculate', 'chunk', 'agree', 'pairs' or 'pair_ll16' (in that order, each at most once) after 'pdl', got 'chunk'}}
snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, agree = true, chunk = 16> {
^bb0(%r: index, %n: index):
}

// -----

// The agreement is on a chunked call's steps, in words beside the flag
// ready words.
// expected-error@+1 {{policy agree needs a chunked flag program (it agrees on a chunked call's steps), got no chunk}}
snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, agree = true> {
^bb0(%r: index, %n: index):
}

// -----

// expected-error@+1 {{policy agree needs a chunked flag program (it agrees on a chunked call's steps), got another encoding}}
snac.program for @x variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 16, agree = true> {
^bb0(%r: index, %n: index):
}

// -----

// expected-error@+1 {{expected 'speculate', 'chunk', 'agree', 'pairs' or 'pair_ll16' (in that order, each at most once) after 'pdl', got 'agree'}}
snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 16, pairs = true, agree = true> {
^bb0(%r: index, %n: index):
}

// -----

// Pair steps are a chunked call's, each pair's ready words flag words.
// expected-error@+1 {{policy pairs needs a chunked flag program (each pair runs its own steps of a chunked call), got no chunk}}
snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, pairs = true> {
^bb0(%r: index, %n: index):
}

// -----

// expected-error@+1 {{policy pairs needs a chunked flag program (each pair runs its own steps of a chunked call), got another encoding}}
snac.program for @x variant one_shot policy #snac.policy<encoding = sentinel, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 16, pairs = true> {
^bb0(%r: index, %n: index):
}

// -----

// expected-error@+1 {{policy pairs and agree are two ways of counting a call's steps: choose one}}
snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 16, agree = true, pairs = true> {
^bb0(%r: index, %n: index):
}

// -----

// Small pairs by LL16 choose by each pair's own counts: pair steps only.
// expected-error@+1 {{policy pair_ll16 needs pairs (a pair chooses its own exchange by its own counts)}}
snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 64, pair_ll16 = 32> {
^bb0(%r: index, %n: index):
}

// -----

// expected-error@+1 {{policy pair_ll16 must be a non-negative multiple of 16 bytes, got 24}}
snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 64, pairs = true, pair_ll16 = 24> {
^bb0(%r: index, %n: index):
}

// -----

// A small pair's parts are one step's: within the chunk.
// expected-error@+1 {{policy pair_ll16 (128 bytes) exceeds the chunk (64): a small pair's parts are one step's}}
snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 64, pairs = true, pair_ll16 = 128> {
^bb0(%r: index, %n: index):
}

// -----

// expected-error@+1 {{expected 'speculate', 'chunk', 'agree', 'pairs' or 'pair_ll16' (in that order, each at most once) after 'pdl', got 'pairs'}}
snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 64, pair_ll16 = 32, pairs = true> {
^bb0(%r: index, %n: index):
}

// -----

// A zero-copy program's regions hold words only: no room for packets.
coll.collective @a2av types [bf16] ranks [2] {
  coll.transform copy scattered_v -> transposed_v
}
// expected-error@+1 {{'snac.program' op has policy pair_ll16 and in_place receive buffers: small pairs stage their parts as LL16 packets, which a zero-copy program has no room for}}
snac.program for @a2av variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 9223372036854775807], ctas = 0, threads = 0, grain = 0, pdl = true, chunk = 1073741824, pairs = true, pair_ll16 = 65536> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output transposed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column in_place
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.take_each @rx[%e] -> @output
  snac.retire %e
}

// -----

// Pair steps run per-peer ops, each peer at its own steps: an op that
// reaches every rank at once has no pair to count by.
snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 16, pairs = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output packed sizes row
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  // expected-error@+1 {{'snac.put' op runs in a program with policy pairs, whose ops each go to one peer at a time (snac.put_each, snac.take_each, snac.retire): each pair of ranks counts its own steps}}
  snac.put @input[%c0] -> @rx[%e] to all
  snac.reduce_take sum @rx[%e, *] -> @output[%c0]
}

// -----

// A chunked AllToAll_v exchange whose ranks count steps from their own row
// and column: two could count different steps.
// expected-error@+1 {{'snac.program' op is chunked with a transposed_v output and neither policy agree nor pairs: its ranks see only their row and column of the size matrix and could count different steps (deadlock); add `agree = true` or `pairs = true`}}
snac.program for @x variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 64], ctas = 0, threads = 0, grain = 0, pdl = false, chunk = 16> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output transposed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.take_each @rx[%e] -> @output
}
