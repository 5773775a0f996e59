// RUN: not collc-opt %s --coll-derive-programs 2>&1 | FileCheck %s --check-prefix=EMPTY
// A two-shot band at or below the one-shot band is refused at the collective.

// EMPTY: derive-programs-two-shot-invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: two_shot_max_bytes = 32768 does not exceed one_hop_max_bytes = 65536: the two-shot band [one_hop_max_bytes + 1, two_shot_max_bytes] would be empty (0: no two-shot program)
coll.collective @low_top types [bf16] ranks [2] policy {two_shot_max_bytes = 32768 : i64} {
  coll.transform reduce<sum> scattered -> packed
  coll.transform copy packed -> scattered
}
