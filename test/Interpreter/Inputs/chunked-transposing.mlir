// A transposing `_v` copy written as a chunked program: the AllToAll_v
// exchange (scattered_v -> transposed_v), which coll-derive-programs does
// not chunk. Each rank counts its steps from its own row and column of the
// size matrix, and those differ across ranks. In the interpreter's shapes a
// plain AllToAll_v has every row and column a rotation of one vector (the
// same largest entry everywhere), so the exchange runs here as the carrier
// of Scatter_v (only the root's row) and Gather_v (every row into the
// root's column): the same program body, size matrices whose rows and
// columns differ.
// The two programs are split apart (split-file), each run on its own.

//--- scatter.mlir
coll.collective @scatter_v types [bf16, f16, f32] ranks [2, 4, 8] {
  coll.transform copy scattered_v -> packed_v root producer
}
snac.program for @scatter_v variant one_shot root producer policy #snac.policy<encoding = flag, slots = 2, band = [65537, 1099511627776], ctas = 0, threads = 0, grain = 0, pdl = true, chunk = 131072> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output transposed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.launch_dependents
  snac.take_each @rx[%e] -> @output
}

//--- gather.mlir
coll.collective @gather_v types [bf16, f16, f32] ranks [2, 4, 8] {
  coll.transform copy packed_v -> scattered_v root consumer
}
snac.program for @gather_v variant one_shot root consumer policy #snac.policy<encoding = flag, slots = 2, band = [65537, 1099511627776], ctas = 0, threads = 0, grain = 0, pdl = true, chunk = 131072> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input scattered_v sizes row
  snac.program_buffer @output output transposed_v sizes column
  snac.program_buffer @rx receive scattered_v sizes column
  %e = snac.epoch
  snac.put_each @input -> @rx[%e]
  snac.launch_dependents
  snac.take_each @rx[%e] -> @output
}
