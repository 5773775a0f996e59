//===- Passes.td - coll -> snac conversion passes ----------*- tablegen -*-===//

#ifndef COLLC_CONVERSION_COLLTOSNAC_PASSES_TD
#define COLLC_CONVERSION_COLLTOSNAC_PASSES_TD

include "mlir/Pass/PassBase.td"

def CollDeriveSchedule : Pass<"coll-derive-schedule", "::mlir::ModuleOp"> {
  let summary = "Derive the SNAC schedule of every collective from its layouts";
  let description = [{
    For each `coll.collective`, adds a `snac.schedule` that stages, notifies,
    awaits and consumes chunk by chunk (Purlin 3.2, listing 2, algorithm 1).
    The rules are keyed on the input and output layouts, the consume op and
    the root role only, never on the collective's name:

    - a producer stages each input partition it owns, chunk by chunk; a
      packed input is published to every consumer, partition k of a
      scattered input to rank k;
    - a consumer of a packed output reduces (or, with a root producer,
      copies) the partition meant for it from every producer; a consumer of a
      scattered or transposed output copies producer p's partition into its
      partition p;
    - the second transform of a composition consumes the first one's result
      in place from a peer-accessible intermediate buffer, chunk by chunk, in
      its own CTA group;
    - every reused region (staging slots, the intermediate) is guarded by a
      `free` event its consumers publish after reading it.

    Policy (from `coll.policy` and the collective's `policy`): `chunk_bytes`,
    `staging_slots`, `ctas`, `protocol`.
  }];
  let dependentDialects = [
    "::collc::snac::SnacDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def CollDerivePrograms : Pass<"coll-derive-programs", "::mlir::ModuleOp"> {
  let summary = "Derive the one-shot snac.program of every collective";
  let description = [{
    For each `coll.collective` that is one transform, or that the layout
    algebra reduces to one, adds a `snac.program` of variant
    `one_shot` (SNAC v2, beside the schedule of `coll-derive-schedule`):

    - a packed input is pushed whole into every rank's receive buffer;
      partition k of a scattered input into rank k's;
    - a reduction reduces every source's region in rank order into its
      packed output (`snac.reduce_take`); a copy takes source p's region
      into output partition p (`snac.take`);
    - `reduce(scattered -> packed) then copy(packed -> scattered)` (and its
      `_v` form) is `reduce(packed -> packed)` over the whole input: the
      scattered partitions are contiguous in rank order, and so are the
      gathered ones, so it gets that transform's program.

    `reduce(scattered -> packed) then copy(packed -> scattered)` with fixed
    sizes also gets a `two_shot` program for the band above: input
    partition k pushed to rank k, reduced there in rank order, forwarded to
    every other rank through a second receive buffer (`two_shot_max_bytes`
    in the spec, else the option, is its band's top).

    A rooted collective (scatter, gather, broadcast = scatter then
    all_gather, reduce = reduce_scatter then gather) gets the program of
    the unrooted `_v` exchange that carries its data, marked `root producer`
    or `root consumer`: the runtime shapes the call's sizes by the root
    (collc::vocab::programSize), so every pair still trades one region per
    call, which is what proves the reuse of a receive slot. Other
    compositions get no program.

    Above the other bands (up to any size), a chunked program of the same
    shape (two-shot for AllReduce) runs its body once per step, each CTA
    moving one chunk of every partition per step (`stream_chunk_bytes` in
    the spec, else the option; 0: none), so its receive regions hold one
    step. Not for a transposing `_v` copy (AllToAll_v, Scatter, Gather),
    whose ranks could count different steps. Every chunked flag program has
    a zero-copy twin before it (`zero-copy-chunk-bytes`; 0: none): the same
    body with every receive buffer `in_place` (a put publishes where its
    partition is, a take reads the producer's registered buffer) and a
    final `snac.retire`; the runtime runs it when the call's buffers are
    registered.

    With option `multimem` (collc --enable-multimem), an AllReduce,
    ReduceScatter or AllGather of fixed sizes reducing with sum (if any)
    also gets a `multimem` program, before the others and serving every
    size: its input and output `multicast`, its body `snac.mc_barrier`, one
    in-switch op (`snac.mc_reduce`, `mc_reduce_local`, `mc_put`) and
    `snac.mc_barrier`; an AllReduce first a `multimem_pull` program for
    the inputs up to `multimem-pull-max-bytes` (SiFAR's redundant pull:
    `snac.mc_reduce_local` of the whole packed input). The spec's `multimem = off` leaves a collective out;
    `multimem = on` without the option, or on a collective with no such
    program, is an error.

    The rules are keyed on layouts, consume op and root only. Policy:
    `protocol` (the encoding; `auto` picks by band), `one_hop_max_bytes`
    (the band's `hi`; 0: no program) and `ctas` (the CTA budget) from the
    spec, the options below otherwise. Speculation is the derivation's
    choice (option `speculate`): on for ll16 and sentinel, never for flag.
  }];
  let options = [
    Option<"slots", "slots", "int64_t", /*default=*/"2",
           "receive-buffer slots of every program (at least 2)">,
    Option<"oneHopMaxBytes", "one-hop-max-bytes", "int64_t",
           /*default=*/"65536",
           "default band hi: the largest input, in bytes, of a one-shot "
           "program (0: none)">,
    Option<"twoShotMaxBytes", "two-shot-max-bytes", "int64_t",
           /*default=*/"1048576",
           "default top of the two-shot band [one-hop-max-bytes + 1, this] "
           "of a ReduceScatter-then-AllGather collective (0 or at most "
           "one-hop-max-bytes: none)">,
    Option<"streamChunkBytes", "stream-chunk-bytes", "int64_t",
           /*default=*/"131072",
           "default chunk of the chunked program that serves every input "
           "above the other bands: payload bytes per CTA, partition and step "
           "(0: none)">,
    Option<"zeroCopyChunkBytes", "zero-copy-chunk-bytes", "int64_t",
           /*default=*/"1073741824",
           "payload bytes per CTA, partition and step of the zero-copy twin "
           "of every chunked flag program (registered buffers read in "
           "place; a multiple of 16, at most 2^30; 0: none)">,
    Option<"pairSteps", "pair-steps", "bool", /*default=*/"false",
           "a transposing `_v` copy (AllToAll_v, and the Scatter_v and "
           "Gather_v it carries) gets programs whose pairs of ranks each run "
           "their own steps (policy pairs) instead of agreeing on the call's "
           "steps first (policy agree) (docs/snac.md \"Pair steps\"; collc "
           "--pair-steps)">,
    Option<"pairLL16Bytes", "pair-ll16-bytes", "int64_t", /*default=*/"0",
           "with pair-steps: a pair whose larger count is at most this many "
           "bytes exchanges by LL16 packets in one step (policy pair_ll16; "
           "a multiple of 16, at most the stream chunk; 0: none; "
           "docs/snac.md \"Small pairs by LL16\")">,
    Option<"protocol", "protocol", "std::string", /*default=*/"\"auto\"",
           "default encoding: flag | ll16 | sentinel | auto">,
    Option<"ll16MaxBytes", "ll16-max-bytes", "int64_t", /*default=*/"65536",
           "auto picks ll16 for a band whose hi is at most this, flag above">,
    Option<"capacityBands", "capacity-bands", "bool", /*default=*/"false",
           "every program's band starts at 0: what it can serve, not what "
           "it is chosen for (a policy table chooses; collc --policy-table)">,
    Option<"multimem", "multimem", "bool", /*default=*/"false",
           "derive the in-switch (multimem) program of every AllReduce, "
           "ReduceScatter and AllGather of fixed sizes whose policy does not "
           "say `multimem = off`, first in band order (the runtime selects "
           "it only for registered buffers on a communicator whose ranks "
           "opted in and whose devices support multicast)">,
    Option<"multimemPullMaxBytes", "multimem-pull-max-bytes", "int64_t",
           /*default=*/"32768",
           "with multimem: the band [0, this] of the AllReduce's redundant-"
           "pull program (every rank has the switch reduce the whole input "
           "for itself; SiFAR measured it fastest up to tens of KiB), before "
           "the one-hop in-switch program (0: none)">,
    Option<"speculate", "speculate", "bool", /*default=*/"true",
           "speculative takes (load and compute, then validate) for the ll16 "
           "and sentinel encodings; off: readiness first (the ablation)">
  ];
  let dependentDialects = [
    "::collc::snac::SnacDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect"
  ];
}

#endif // COLLC_CONVERSION_COLLTOSNAC_PASSES_TD
