// The generated programs compile with NVRTC against the embedded
// collc/device/snac/program.cuh for every target, and ptxas assembles the
// PTX: every encoding, copies and a reduction, fp8 and bf16. PDL only from
// sm_90 on (program.cuh makes wait_previous and launch_dependents nothing
// on sm_80); the LL16 path is one 16-byte store per packet, the flag path
// a system-scope ready word. The ll16 and sentinel programs speculate (the
// readiness-first paths compile in device-headers.test).
// RUN: collc-translate --snac-to-ptx --cuda-target=sm_80 %s -o %t.sm80.ptx
// RUN: FileCheck %s --implicit-check-not=griddepcontrol < %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// RUN: collc-translate --snac-to-ptx --cuda-target=sm_90 %s -o %t.sm90.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// RUN: collc-translate --snac-to-ptx --cuda-target=sm_100 %s -o %t.sm100.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.sm100.ptx
// RUN: %ptxas -arch=sm_100 %t.sm100.ptx -o %t.sm100.cubin

// CHECK-LABEL: .entry collc_all_reduce__one_shot_ll16_bf16_n2(
// SM90:          griddepcontrol.wait
// CHECK:         st.volatile.v4.u32
// SM90:          griddepcontrol.launch_dependents
// CHECK-LABEL: .entry collc_all_to_all__one_shot_sentinel_f8e4m3_n4(
// CHECK-LABEL: .entry collc_all_gather__one_shot_flag_bytes_n2(
// CHECK:         st.{{(release|relaxed)}}.sys.u64
coll.collective @all_reduce types [bf16] ranks [2] {
  coll.transform reduce<sum> packed -> packed
}
snac.program for @all_reduce variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 16, threads = 512, grain = 8, pdl = true, speculate = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output packed sizes row
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.launch_dependents
  snac.reduce_take sum @rx[%e, *] -> @output[%c0]
}

coll.collective @all_to_all types [f8E4M3FN] ranks [4] {
  coll.transform copy scattered -> transposed
}
snac.program for @all_to_all variant one_shot policy #snac.policy<encoding = sentinel, slots = 2, band = [0, 8192], ctas = 4, threads = 256, grain = 16, pdl = true, speculate = true> {
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

coll.collective @all_gather types [f32] ranks [2] {
  coll.transform copy packed -> scattered
}
snac.program for @all_gather variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [0, 4096], ctas = 2, threads = 128, grain = 16, pdl = false> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  scf.for %p = %c0 to %n step %c1 {
    snac.take @rx[%e, %p] -> @output[%p]
  }
}
