// A v1 schedule and a program of the same collective in one module: both
// kernels in one CUDA source (the v1 support and program.cuh side by side,
// as collc --emit=ptx|module compiles them), which NVRTC compiles and
// ptxas assembles.
// RUN: collc-translate --snac-to-cuda --cuda-target=sm_90 %s | FileCheck %s --check-prefix=CUDA
// RUN: collc-translate --snac-to-ptx --cuda-target=sm_90 %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// CUDA:      #include "collc/device/atom.cuh"
// CUDA-NEXT: #include "collc/device/snac/schedule.cuh"
// CUDA-NEXT: #include "collc/device/snac/program.cuh"
// CUDA:      using namespace collc::dev::snac;
// CUDA:      collc_ag_bytes_n2(const collcKernelParams params,
// CUDA:      collc_ag__one_shot_ll16_bytes_n2(collcProgramParams p, const __grid_constant__ collc::prog::Peers<2> rx,
// CHECK-DAG: .entry collc_ag_bytes_n2(
// CHECK-DAG: .entry collc_ag__one_shot_ll16_bytes_n2(
coll.collective @ag types [f32] ranks [2] {
  coll.transform copy packed -> scattered
}
snac.schedule for @ag chunk_bytes 65536 staging_slots 4 {
  snac.buffer @input input geometry input_of 0
  snac.buffer @staging staging geometry input_of 0
  snac.buffer @output output geometry output_of 0
  snac.event @staged ready encoding flag
  snac.event @stage_free free encoding flag
  snac.role @stage all ctas 8 part 0 {
  ^bb0(%rank: index, %n: index, %root: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %0 = snac.num_chunks @input[%rank, %c0]
    scf.for %arg0 = %c0 to %0 step %c1 {
      %1 = snac.slot @staging[%arg0]
      snac.await @stage_free[%c0, %1] from all quota %n
      snac.copy @input[%rank, %c0, %arg0] -> @staging[%rank, %c0, %arg0]
      snac.notify @staged[%c0, %arg0] to all
    }
  }
  snac.role @copy all ctas 8 part 0 {
  ^bb0(%rank: index, %n: index, %root: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %0 = snac.max_chunks @output[%rank]
    scf.for %arg0 = %c0 to %0 step %c1 {
      scf.for %arg1 = %c0 to %n step %c1 {
        %1 = snac.num_chunks @output[%rank, %arg1]
        scf.for %arg2 = %arg0 to %1 step %0 {
          %2 = snac.slot @staging[%arg2]
          snac.await @staged[%c0, %arg2] from %arg1
          snac.copy @staging[%arg1, %c0, %arg2] -> @output[%rank, %arg1, %arg2]
          snac.notify @stage_free[%c0, %2] to %arg1
        }
      }
    }
  }
}
snac.program for @ag variant one_shot policy #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 8, threads = 512, grain = 8, pdl = true> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = snac.epoch
  snac.put @input[%c0] -> @rx[%e] to all
  snac.launch_dependents
  scf.for %p = %c0 to %n step %c1 {
    snac.take @rx[%e, %p] -> @output[%p]
  }
}
