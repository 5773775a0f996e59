// The `_v` reductions whose zero-copy twins spread (coll-derive-programs:
// snac.reduce_spread): ReduceScatter_v, and Reduce through its
// ReduceScatter_v carrier (partition `root` is the whole input).
coll.collective @reduce_scatter_v types [bf16] ranks [2] {
  coll.transform reduce<sum> scattered_v -> packed_v
}
coll.collective @reduce types [f32] ranks [2] {
  coll.transform reduce<max> scattered -> packed
  coll.transform copy packed -> scattered root consumer
}
