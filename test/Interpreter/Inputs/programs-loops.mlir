// The one-shot programs of programs.mlir that move one partition per peer
// (the rooted collectives' included),
// written as the loops snac.put_each and snac.take_each stand for (the
// shape of issue 10 step 1): program-each.test holds the interpreter's
// runs of both forms to the same steps.
coll.collective @reduce_scatter types [bf16, f16, f32] ranks [2, 4, 8] {
  coll.transform reduce<sum> scattered -> packed
}
coll.collective @all_gather types [bf16, f16, f32, f8E4M3FN, f8E5M2] ranks [2, 4, 8] {
  coll.transform copy packed -> scattered
}
coll.collective @all_to_all types [bf16, f16, f32, f8E4M3FN, f8E5M2] ranks [2, 4, 8] {
  coll.transform copy scattered -> transposed
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
  %c1 = arith.constant 1 : index
  %e = snac.epoch
  scf.for %k = %c0 to %n step %c1 {
    snac.put @input[%k] -> @rx[%e] to %k
  }
  snac.launch_dependents
  snac.reduce_take sum @rx[%e, *] -> @output[%c0]
}
snac.program for @all_gather variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.launch_dependents
  scf.for %p = %c0 to %n step %c1 {
    snac.take @rx[%e, %p] -> @output[%p]
  }
}
snac.program for @all_to_all variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered sizes row
  snac.program_buffer @output output transposed sizes column
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = snac.epoch
  scf.for %k = %c0 to %n step %c1 {
    snac.put @input[%k] -> @rx[%e] to %k
  }
  snac.launch_dependents
  scf.for %p = %c0 to %n step %c1 {
    snac.take @rx[%e, %p] -> @output[%p]
  }
}
snac.program for @all_gather_v variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed_v sizes row
  snac.program_buffer @output output scattered_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.launch_dependents
  scf.for %p = %c0 to %n step %c1 {
    snac.take @rx[%e, %p] -> @output[%p]
  }
}
snac.program for @reduce_scatter_v variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output packed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = snac.epoch
  scf.for %k = %c0 to %n step %c1 {
    snac.put @input[%k] -> @rx[%e] to %k
  }
  snac.launch_dependents
  snac.reduce_take sum @rx[%e, *] -> @output[%c0]
}
snac.program for @all_to_all_v variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output transposed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = snac.epoch
  scf.for %k = %c0 to %n step %c1 {
    snac.put @input[%k] -> @rx[%e] to %k
  }
  snac.launch_dependents
  scf.for %p = %c0 to %n step %c1 {
    snac.take @rx[%e, %p] -> @output[%p]
  }
}
snac.program for @scatter variant one_shot root producer policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output transposed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = snac.epoch
  scf.for %k = %c0 to %n step %c1 {
    snac.put @input[%k] -> @rx[%e] to %k
  }
  snac.launch_dependents
  scf.for %p = %c0 to %n step %c1 {
    snac.take @rx[%e, %p] -> @output[%p]
  }
}
snac.program for @gather variant one_shot root consumer policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output transposed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = snac.epoch
  scf.for %k = %c0 to %n step %c1 {
    snac.put @input[%k] -> @rx[%e] to %k
  }
  snac.launch_dependents
  scf.for %p = %c0 to %n step %c1 {
    snac.take @rx[%e, %p] -> @output[%p]
  }
}
snac.program for @broadcast variant one_shot root producer policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed_v sizes row
  snac.program_buffer @output output scattered_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.launch_dependents
  scf.for %p = %c0 to %n step %c1 {
    snac.take @rx[%e, %p] -> @output[%p]
  }
}
snac.program for @reduce variant one_shot root consumer policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output packed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = snac.epoch
  scf.for %k = %c0 to %n step %c1 {
    snac.put @input[%k] -> @rx[%e] to %k
  }
  snac.launch_dependents
  snac.reduce_take sum @rx[%e, *] -> @output[%c0]
}
