// The two-shot AllReduce program alone, as coll-derive-programs derives it
// (program-two-shot.test; two-shot-loops.mlir has its first phase as the
// loop of snac.put that snac.put_each stands for).
coll.collective @all_reduce types [bf16, f16, f32] ranks [2, 4, 8] {
  coll.transform reduce<sum> scattered -> packed
  coll.transform copy packed -> scattered
}
// Two-shot: partition k pushed to rank k (put_each), reduced there, and
// forwarded to every other rank.
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
