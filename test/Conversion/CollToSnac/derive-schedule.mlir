// RUN: collc-opt %s --coll-derive-schedule | FileCheck %s
// RUN: collc-opt %s --coll-derive-schedule | collc-opt | FileCheck %s

// Policy: the collective's overrides the file's, which overrides the default;
// the CTA budget is split between the role groups; `protocol` is the
// programs' encoding (coll-derive-programs): schedules keep flag readiness.
module attributes {coll.policy = {chunk_bytes = 4096 : i64, ctas = 32 : i64}} {

// CHECK-LABEL: snac.schedule for @ag chunk_bytes 4096 staging_slots 4 {
// CHECK:         snac.event @staged ready encoding flag
// CHECK:         snac.event @stage_free free encoding flag
// CHECK:         snac.role @stage all ctas 6 part 0
// CHECK:         snac.role @copy all ctas 6 part 0
coll.collective @ag types [f32] ranks [2] policy {staging_slots = 4 : i64, ctas = 12 : i64, protocol = "ll16"} {
  coll.transform copy packed -> scattered
}

// CHECK-LABEL: snac.schedule for @ar chunk_bytes 4096 staging_slots 4 {
// CHECK:         snac.role @stage all ctas 10 part 0
// CHECK:         snac.role @reduce all ctas 10 part 0
// CHECK:           snac.reduce max
// CHECK:         snac.role @copy all ctas 12 part 1
coll.collective @ar types [f32] ranks [2] {
  coll.transform reduce<max> scattered -> packed
  coll.transform copy packed -> scattered
}
}
