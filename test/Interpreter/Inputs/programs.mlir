// One-shot programs of every unrooted single transform, of AllReduce and of
// the rooted collectives (their unrooted `_v` exchanges, `root` shaping
// the sizes), written out by hand in the form coll-derive-programs derives (batched
// per-peer ops: snac.put_each for a scattered input, snac.take_each for a
// copy), and AllReduce's two-shot program, each beside the
// coll.collective the oracle reads. programs-loops.mlir has the one-shot
// ones as loops of snac.put and snac.take.
coll.collective @reduce_scatter types [bf16, f16, f32] ranks [2, 4, 8] {
  coll.transform reduce<sum> scattered -> packed
}
coll.collective @all_gather types [bf16, f16, f32, f8E4M3FN, f8E5M2] ranks [2, 4, 8] {
  coll.transform copy packed -> scattered
}
coll.collective @all_to_all types [bf16, f16, f32, f8E4M3FN, f8E5M2] ranks [2, 4, 8] {
  coll.transform copy scattered -> transposed
}
coll.collective @all_reduce types [bf16, f16, f32] ranks [2, 4, 8] {
  coll.transform reduce<sum> scattered -> packed
  coll.transform copy packed -> scattered
}
coll.collective @all_gather_v types [bf16, f16, f32, f8E4M3FN, f8E5M2] ranks [2, 4, 8] {
  coll.transform copy packed_v -> scattered_v
}
coll.collective @reduce_scatter_v types [bf16, f16, f32] ranks [2, 4, 8] {
  coll.transform reduce<sum> scattered_v -> packed_v
}
coll.collective @all_to_all_v types [bf16, f16, f32, f8E4M3FN, f8E5M2] ranks [2, 4, 8] {
  coll.transform copy scattered_v -> transposed_v
}
coll.collective @scatter types [bf16, f16, f32] ranks [2, 4, 8] {
  coll.transform copy scattered -> packed root producer
}
coll.collective @gather types [bf16, f16, f32] ranks [2, 4, 8] {
  coll.transform copy packed -> scattered root consumer
}
coll.collective @broadcast types [bf16, f16, f32] ranks [2, 4, 8] {
  coll.transform copy scattered -> packed root producer
  coll.transform copy packed -> scattered
}
coll.collective @reduce types [bf16, f16, f32] ranks [2, 4, 8] {
  coll.transform reduce<sum> scattered -> packed
  coll.transform copy packed -> scattered root consumer
}

snac.program for @reduce_scatter variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output packed sizes column
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.launch_dependents
  snac.reduce_take sum @rx[%e, *] -> @output[%c0]
}
snac.program for @all_gather variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.launch_dependents
  snac.take_each @rx[%e] -> @output
}
snac.program for @all_to_all variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output transposed sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.launch_dependents
  snac.take_each @rx[%e] -> @output
}
snac.program for @all_reduce variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output packed sizes row
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.launch_dependents
  snac.reduce_take sum @rx[%e, *] -> @output[%c0]
}
// Two-shot: partition k reduced on rank k, forwarded to every other rank.
snac.program for @all_reduce variant two_shot policy #snac.policy<encoding = flag, slots = 2, band = [65537, 1048576], ctas = 0, threads = 0, grain = 0, pdl = true> {
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
snac.program for @all_gather_v variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed_v sizes row
  snac.program_buffer @output output scattered_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.launch_dependents
  snac.take_each @rx[%e] -> @output
}
snac.program for @reduce_scatter_v variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output packed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.launch_dependents
  snac.reduce_take sum @rx[%e, *] -> @output[%c0]
}
snac.program for @all_to_all_v variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output transposed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.launch_dependents
  snac.take_each @rx[%e] -> @output
}
// Scatter: AllToAll_v with only the root's row.
snac.program for @scatter variant one_shot root producer policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output transposed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.launch_dependents
  snac.take_each @rx[%e] -> @output
}
// Gather: AllToAll_v, every rank's input in partition `root`.
snac.program for @gather variant one_shot root consumer policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output transposed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.launch_dependents
  snac.take_each @rx[%e] -> @output
}
// Broadcast: AllGather_v, only the root contributes.
snac.program for @broadcast variant one_shot root producer policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed_v sizes row
  snac.program_buffer @output output scattered_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.launch_dependents
  snac.take_each @rx[%e] -> @output
}
// Reduce: ReduceScatter_v whose partition `root` is the whole input.
snac.program for @reduce variant one_shot root consumer policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output packed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.launch_dependents
  snac.reduce_take sum @rx[%e, *] -> @output[%c0]
}
