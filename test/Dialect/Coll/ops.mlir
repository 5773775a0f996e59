// RUN: collc-opt %s | FileCheck %s
// RUN: collc-opt %s | collc-opt | FileCheck %s
// RUN: collc-opt %s --mlir-print-op-generic | collc-opt | FileCheck %s

// CHECK: module attributes {coll.policy = {ctas = 16 : i64}, coll.source = "lib.coll", coll.targets = ["sm_80", "sm_90a"]}
module attributes {coll.targets = ["sm_80", "sm_90a"], coll.policy = {ctas = 16 : i64}, coll.source = "lib.coll"} {

// CHECK-LABEL: coll.collective @all_gather types [bf16, f8E4M3FN, f8E5M2] ranks [2, 4, 8] {
// CHECK-NEXT:    coll.transform copy packed -> scattered
// CHECK-NEXT:  }
coll.collective @all_gather types [bf16, f8E4M3FN, f8E5M2] ranks [2, 4, 8] {
  coll.transform copy packed -> scattered
}

// CHECK-LABEL: coll.collective @all_reduce types [f32] ranks [2] policy {chunk_bytes = 65536 : i64, protocol = "flag"} {
// CHECK-NEXT:    coll.transform reduce<sum> scattered -> packed {origin = @reduce_scatter}
// CHECK-NEXT:    coll.transform copy packed -> scattered {origin = @all_gather}
coll.collective @all_reduce types [f32] ranks [2] policy {chunk_bytes = 65536 : i64, protocol = "flag"} {
  coll.transform reduce<sum> scattered -> packed {origin = @reduce_scatter}
  coll.transform copy packed -> scattered {origin = @all_gather}
}

// CHECK-LABEL: coll.collective @reduce_max
// CHECK-NEXT:    coll.transform reduce<max> scattered_v -> packed_v
coll.collective @reduce_max types [f16] ranks [8] {
  coll.transform reduce<max> scattered_v -> packed_v
}

// CHECK-LABEL: coll.collective @alltoallv
// CHECK-NEXT:    coll.transform copy scattered_v -> transposed_v
coll.collective @alltoallv types [f16] ranks [8] {
  coll.transform copy scattered_v -> transposed_v
}

// CHECK-LABEL: coll.collective @broadcast
// CHECK-NEXT:    coll.transform copy scattered -> packed root producer
// CHECK-NEXT:    coll.transform copy packed -> scattered
coll.collective @broadcast types [bf16] ranks [2, 72] {
  coll.transform copy scattered -> packed root producer
  coll.transform copy packed -> scattered
}

// CHECK-LABEL: coll.collective @one_shot_reduce
// CHECK-NEXT:    coll.transform reduce<avg> packed -> packed root consumer
coll.collective @one_shot_reduce types [f32] ranks [4] {
  coll.transform reduce<avg> packed -> packed root consumer
}

// CHECK-LABEL: coll.collective @one_shot_min
// CHECK-NEXT:    coll.transform reduce<min> packed -> packed
coll.collective @one_shot_min types [bf16] ranks [1] {
  coll.transform reduce<min> packed -> packed
}
}
