// The in-switch programs coll-derive-programs gives with option multimem
// (test/Interpreter/program-multimem.test): AllReduce (the redundant pull
// and the one hop), ReduceScatter, AllGather.
coll.collective @all_reduce types [bf16, f32] ranks [2, 3, 4, 8] {
  coll.transform reduce<sum> scattered -> packed
  coll.transform copy packed -> scattered
}
coll.collective @reduce_scatter types [f32] ranks [2, 3, 4, 8] {
  coll.transform reduce<sum> scattered -> packed
}
coll.collective @all_gather types [bf16] ranks [2, 3, 4, 8] {
  coll.transform copy packed -> scattered
}
