// Chunked programs (policy `chunk`, the bandwidth regime), written out by
// hand in the forms coll-derive-programs derives above the top band: the
// body runs once per step, CTA h moving elements [(s*H + h)*ce, +ce) of
// every partition in step s (the interpreter's ce: `chunk-units` units of
// the encoding). Each beside the coll.collective the oracle reads. The
// band reaches far above what the simulations move: nothing in the model
// depends on it.
coll.collective @all_gather types [bf16, f16, f32, f8E4M3FN, f8E5M2] ranks [2, 4, 8] {
  coll.transform copy packed -> scattered
}
coll.collective @reduce_scatter types [bf16, f16, f32] ranks [2, 4, 8] {
  coll.transform reduce<sum> scattered -> packed
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
coll.collective @broadcast types [bf16, f16, f32] ranks [2, 4, 8] {
  coll.transform copy scattered -> packed root producer
  coll.transform copy packed -> scattered
}

// One-shot AllGather: the whole input to every rank, every source taken.
snac.program for @all_gather variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [65537, 1099511627776], ctas = 0, threads = 0, grain = 0, pdl = true, chunk = 131072> {
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
// ReduceScatter: partition k to rank k, every source reduced.
snac.program for @reduce_scatter variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [65537, 1099511627776], ctas = 0, threads = 0, grain = 0, pdl = true, chunk = 131072> {
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
// AllToAll (fixed sizes: every rank counts the same steps).
snac.program for @all_to_all variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [65537, 1099511627776], ctas = 0, threads = 0, grain = 0, pdl = true, chunk = 131072> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output transposed sizes column
  snac.program_buffer @rx receive scattered sizes column
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.launch_dependents
  snac.take_each @rx[%e] -> @output
}
// Two-shot AllReduce: in step s each CTA reduces its part of partition
// `rank` and forwards exactly that part (what it reduced itself).
snac.program for @all_reduce variant two_shot policy #snac.policy<encoding = flag, slots = 2, band = [1048577, 1099511627776], ctas = 0, threads = 0, grain = 0, pdl = true, chunk = 131072> {
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
// AllGather_v: a packed input, so every rank counts the steps from every
// rank's size (the largest).
snac.program for @all_gather_v variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [65537, 1099511627776], ctas = 0, threads = 0, grain = 0, pdl = true, chunk = 131072> {
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
// Broadcast: AllGather_v with only the root's size (the root moves every
// call); the other ranks publish padding units every step.
snac.program for @broadcast variant one_shot root producer policy #snac.policy<encoding = flag, slots = 2, band = [65537, 1099511627776], ctas = 0, threads = 0, grain = 0, pdl = true, chunk = 131072> {
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
