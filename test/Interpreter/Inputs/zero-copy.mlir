// The collectives whose chunked flag programs get a zero-copy twin
// (coll-derive-programs): fixed sizes, `_v` forms whose size vector holds the
// largest entry, rooted ones through their `_v` carriers.
coll.collective @all_gather types [bf16] ranks [2] {
  coll.transform copy packed -> scattered
}
coll.collective @reduce_scatter types [f32] ranks [2] {
  coll.transform reduce<sum> scattered -> packed
}
coll.collective @all_to_all types [bf16] ranks [2] {
  coll.transform copy scattered -> transposed
}
coll.collective @all_reduce types [bf16] ranks [2] {
  coll.transform reduce<sum> scattered -> packed
  coll.transform copy packed -> scattered
}
coll.collective @all_gather_v types [f16] ranks [2] {
  coll.transform copy packed_v -> scattered_v
}
coll.collective @reduce_scatter_v types [bf16] ranks [2] {
  coll.transform reduce<max> scattered_v -> packed_v
}
coll.collective @broadcast types [bf16] ranks [2] {
  coll.transform copy scattered -> packed root producer
  coll.transform copy packed -> scattered
}
coll.collective @reduce types [f32] ranks [2] {
  coll.transform reduce<sum> scattered -> packed
  coll.transform copy packed -> scattered root consumer
}
