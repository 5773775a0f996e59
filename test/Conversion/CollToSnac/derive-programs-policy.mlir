// RUN: collc-opt %s --coll-derive-programs="stream-chunk-bytes=0" | FileCheck %s --implicit-check-not="snac.program for"
// (Chunked programs, the band above: derive-programs-chunked.mlir.)
// RUN: collc-opt %s --coll-derive-programs="slots=4 protocol=flag one-hop-max-bytes=4096 ll16-max-bytes=1024 stream-chunk-bytes=0" | FileCheck %s --check-prefix=OPTS
// RUN: collc-opt %s --coll-derive-programs="speculate=false stream-chunk-bytes=0" | FileCheck %s --check-prefix=NOSPEC
// RUN: not collc-opt %s --coll-derive-programs="slots=1 stream-chunk-bytes=0" 2>&1 | FileCheck %s --check-prefix=SLOTS
// RUN: not collc-opt %s --coll-derive-programs="protocol=smoke stream-chunk-bytes=0" 2>&1 | FileCheck %s --check-prefix=PROTO

// Speculation is the derivation's choice (ll16, sentinel); off for the
// ablation, and never printed when off.
// NOSPEC-NOT: speculate
// SLOTS: error: coll-derive-programs: slots must be at least 2, got 1
// PROTO: error: coll-derive-programs: unknown protocol 'smoke'; expected flag, ll16, sentinel or auto

// The spec's policy (the collective's, else the file's) wins over the
// options, which are the defaults.
module attributes {coll.policy = {protocol = "sentinel"}} {

// From the file: sentinel.
// CHECK-LABEL: snac.program for @file_protocol variant one_shot policy #snac.policy<encoding = sentinel, slots = 2, band = [0, 65536], ctas = 0, threads = 0, grain = 0, pdl = true, speculate = true>
// OPTS-LABEL:  snac.program for @file_protocol variant one_shot policy #snac.policy<encoding = sentinel, slots = 4, band = [0, 4096], ctas = 0, threads = 0, grain = 0, pdl = true, speculate = true>
coll.collective @file_protocol types [bf16] ranks [2] {
  coll.transform copy packed -> scattered
}

// The collective's: flag; `ll` is the alias of ll16; the CTA budget is kept.
// CHECK-LABEL: snac.program for @own_protocol variant one_shot policy #snac.policy<encoding = flag,
// CHECK-LABEL: snac.program for @ll_alias variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 4,
// OPTS-LABEL:  snac.program for @own_protocol variant one_shot policy #snac.policy<encoding = flag,
// OPTS-LABEL:  snac.program for @ll_alias variant one_shot policy #snac.policy<encoding = ll16, slots = 4, band = [0, 4096], ctas = 4,
coll.collective @own_protocol types [bf16] ranks [2] policy {protocol = "flag"} {
  coll.transform copy packed -> scattered
}
coll.collective @ll_alias types [bf16] ranks [2] policy {protocol = "ll", ctas = 4 : i64} {
  coll.transform copy packed -> scattered
}

// one_hop_max_bytes is the band's hi; auto picks ll16 up to 64 KiB (the
// option ll16-max-bytes), flag above.
// CHECK-LABEL: snac.program for @small_band variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 1024],
// CHECK-LABEL: snac.program for @large_band variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 1048576],
// OPTS-LABEL:  snac.program for @small_band variant one_shot policy #snac.policy<encoding = ll16, slots = 4, band = [0, 1024],
// OPTS-LABEL:  snac.program for @large_band variant one_shot policy #snac.policy<encoding = flag, slots = 4, band = [0, 1048576],
coll.collective @small_band types [bf16] ranks [2] policy {protocol = "auto", one_hop_max_bytes = 1024 : i64} {
  coll.transform reduce<sum> packed -> packed
}
coll.collective @large_band types [bf16] ranks [2] policy {protocol = "auto", one_hop_max_bytes = 1048576 : i64} {
  coll.transform reduce<sum> packed -> packed
}

// one_hop_max_bytes = 0: no program.
coll.collective @no_program types [bf16] ranks [2] policy {one_hop_max_bytes = 0 : i64} {
  coll.transform reduce<sum> packed -> packed
}

}
