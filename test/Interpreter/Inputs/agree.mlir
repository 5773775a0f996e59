// The transposing `_v` copies, whose ranks see only their row and column of
// the size matrix: coll-derive-programs gives each one chunked flag program
// with policy agree (and its zero-copy twin), serving every size.
coll.collective @all_to_all_v types [bf16] ranks [2] {
  coll.transform copy scattered_v -> transposed_v
}
coll.collective @scatter_v types [f16] ranks [2] {
  coll.transform copy scattered_v -> packed_v root producer
}
coll.collective @gather_v types [f32] ranks [2] {
  coll.transform copy packed_v -> scattered_v root consumer
}
