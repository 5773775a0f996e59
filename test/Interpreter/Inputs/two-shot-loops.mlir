// The two-shot AllReduce program of two-shot.mlir with its first phase
// written as the loop snac.put_each stands for (the form before issue 10
// step 3): program-two-shot.test holds the interpreter's runs of both forms
// to the same steps.
coll.collective @all_reduce types [bf16, f16, f32] ranks [2, 4, 8] {
  coll.transform reduce<sum> scattered -> packed
  coll.transform copy packed -> scattered
}
// Two-shot: partition k reduced on rank k, forwarded to every other rank.
snac.program for @all_reduce variant two_shot policy #snac.policy<encoding = flag, slots = 2, band = [65537, 1048576], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output scattered sizes row
  snac.program_buffer @rx receive scattered sizes column
  snac.program_buffer @fwd receive scattered sizes row
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = snac.epoch
  scf.for %k = %c0 to %n step %c1 {
    snac.put @input[%k] -> @rx[%e] to %k
  }
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
