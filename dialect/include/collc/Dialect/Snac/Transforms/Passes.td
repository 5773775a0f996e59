//===- Passes.td - snac dialect passes ---------------------*- tablegen -*-===//

#ifndef COLLC_DIALECT_SNAC_TRANSFORMS_PASSES_TD
#define COLLC_DIALECT_SNAC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SnacTestInjectFault : Pass<"snac-test-inject-fault", "::mlir::ModuleOp"> {
  let summary = "Test only: break a derived schedule in one known way";
  let description = [{
    Injects one orchestration bug into every `snac.schedule`, so tests can
    check that the reference interpreter catches it and names the event, rank
    and chunk:

    - `missing-await`: drop the first await of a `ready` event in a consumer
      role (a read before readiness);
    - `wrong-notify-target`: the stage role publishes partition k to rank
      k+1 (mod n) instead of its consumer (a deadlock);
    - `early-slot-reuse`: drop the await of the `free` event in the stage
      role (a staging slot rewritten before it was consumed);
    - `wrong-reduce-source`: a reduce reads partition q+1 (mod n) instead of
      q (a read of data no awaited event published).

    and into every `snac.program`, as a `snac.test_fault` attribute that only
    the interpreter reads (the verifiers refuse the IR these would need):

    - `sentinel-not-canonicalized`: puts publish an all-ones value as is;
    - `program-early-slot-reuse`: slot = epoch mod 1 (a slot reused by the
      very next call);
    - `wrong-sequence-next` / `wrong-sequence-previous`: puts tag their
      packets and ready words with epoch + 1 / epoch - 1;
    - `padding-dropped`: an empty put publishes nothing and an empty take
      waits for nothing;
    - `validation-skipped`: a speculative take accepts what it loaded
      without validating it (the interpreter applies it when the take
      speculates);
    - `retire-skipped`: a zero-copy program's `snac.retire` does nothing (a
      producer's call ends while its readers still read its buffers);
    - `agree-skipped`: a program with policy `agree` counts each call's
      steps from the rank's own size vector, without the agreement;
    - `pair-steps-one-sided`: a program with policy `pairs` runs each
      direction of a pair for the steps of its own count only (not the
      larger of the pair's two), and counts the pair's epochs by them;
    - `pair-ll16-one-sided`: a program with policy `pair_ll16` has each
      rank judge a pair small (LL16 packets) or not (flag-ready chunks) by
      its own count only (what it sends), so the two ranks of a pair can
      choose different exchanges;
    - `mc-first-barrier-skipped` / `mc-last-barrier-skipped`: an in-switch
      (multimem) program's first / last `snac.mc_barrier` does nothing
      (ranks reach peers' buffers before those peers start the call, or
      end their call while peers still read and write their buffers).
  }];
  let options = [
    Option<"fault", "fault", "std::string", /*default=*/"\"\"",
           "missing-await | wrong-notify-target | early-slot-reuse | "
           "wrong-reduce-source | sentinel-not-canonicalized | "
           "program-early-slot-reuse | wrong-sequence-next | "
           "wrong-sequence-previous | padding-dropped | validation-skipped | "
           "retire-skipped | agree-skipped | pair-steps-one-sided | "
           "pair-ll16-one-sided | mc-first-barrier-skipped | "
           "mc-last-barrier-skipped">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def SnacAssignWork : Pass<"snac-assign-work", "::mlir::ModuleOp"> {
  let summary = "Decide the grid and the grain of every snac.program";
  let description = [{
    Fills the work assignment of each program's policy that is still 0
    (unassigned), from its encoding, its band and the targets:

    - `grain`, payload bytes one thread moves per step: 8 for ll16 (one
      16-byte packet carries 8 bytes), 16 for flag and sentinel (one
      16-byte store);
    - `threads`: the option (256);
    - `ctas`: enough for one step of every thread to cover the band's hi,
      ceil(hi / (threads * grain)), between 2 and `max-ctas` (128).

    The defaults are what measured fastest on one H200 for every encoding
    (bench/results/2026-12-01-nvidia-h200/README.md, "Work assignment"):
    one packet per thread at the band's top beat fewer threads moving
    several (by 0.05-0.3 us up to 64 KiB), 256-thread CTAs beat 512, and
    2 CTAs beat 1 for the smallest bands; at 2 ranks, 32 CTAs for a
    64 KiB band (1.85 us against 2.26 with 16), and the most CTAs for the
    largest (a 1 MiB band: 4.71 us at 1 MiB with 128 CTAs, 6.40 with 64,
    11.57 with 32; bench/results/2026-12-01-nvidia-h200, "Ablation"). The
    runtime launches fewer where the ranks sharing a device cannot all
    keep the grid resident (residency admission, docs/runtime.md), so the
    cap need not fit 8 ranks on one GPU;
    - `pdl` is cleared when no target has programmatic dependent launch
      (before sm_90); kept otherwise (the emitter launches with PDL on the
      targets that have it).

    A chunked program (policy `chunk`, the bandwidth regime) gets
    `chunked-ctas` CTAs (16: the issue's budget for the link's rate) of
    `chunked-threads` threads (512: the Atom's register copy moved the most
    per CTA with 512, runtime/include/collc/device/THROUGHPUT.md); each CTA
    is a channel that moves one chunk of every partition per step.

    A value the spec set (the CTA budget) is kept. Every op of a program
    splits its elements over all threads of the grid (of the CTA, in a
    chunked program), so producer and consumer agree on the segments from
    (count, ctas, threads) alone.
  }];
  let options = [
    ListOption<"targets", "targets", "std::string",
               "the GPU targets the programs are compiled for (sm_80, "
               "sm_90a, ...); none: keep pdl">,
    Option<"threads", "threads", "int64_t", /*default=*/"256",
           "threads per CTA">,
    Option<"maxCtas", "max-ctas", "int64_t", /*default=*/"128",
           "most CTAs of a program">,
    Option<"chunkedCtas", "chunked-ctas", "int64_t", /*default=*/"16",
           "CTAs (channels) of a chunked program">,
    Option<"chunkedThreads", "chunked-threads", "int64_t", /*default=*/"512",
           "threads per CTA of a chunked program">
  ];
}

def SnacPlaceDependentLaunch
    : Pass<"snac-place-dependent-launch", "::mlir::ModuleOp"> {
  let summary = "Put snac.launch_dependents right after the last remote write";
  let description = [{
    In every program whose policy has `pdl`, places one
    `snac.launch_dependents` right after the last `snac.put` (after the
    loop that holds it): the next kernel's prologue (address and slot
    arithmetic up to its `griddepcontrol.wait`) then overlaps this one's
    waits and local copies, not its remote writes. A program without `pdl`
    gets none; one placed before is moved.
  }];
}

#endif // COLLC_DIALECT_SNAC_TRANSFORMS_PASSES_TD
