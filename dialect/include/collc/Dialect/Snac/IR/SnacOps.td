//===- SnacOps.td - snac operations ------------------------*- tablegen -*-===//

#ifndef COLLC_DIALECT_SNAC_IR_SNACOPS_TD
#define COLLC_DIALECT_SNAC_IR_SNACOPS_TD

include "collc/Dialect/Snac/IR/SnacDialect.td"
include "collc/Dialect/Snac/IR/SnacAttrs.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

// Not a symbol itself: it is found through the collective it orchestrates,
// whose name it must not shadow.
def Snac_ScheduleOp : Snac_Op<"schedule", [
    SymbolTable, IsolatedFromAbove, SingleBlock, NoTerminator]> {
  let summary = "The derived orchestration of one collective";
  let description = [{
    Holds the buffers, events and CTA role groups of the collective named by
    `for`. `chunk_bytes` is the SNAC chunk (policy); `staging_slots` is the
    number of chunk slots per partition of the peer-accessible buffers
    (staging, intermediate; 0: one per chunk, i.e. they hold a whole call) — chunks rotate through the slots, and
    a `free` event guards each reuse.

    ```mlir
    snac.schedule for @all_gather chunk_bytes 65536 staging_slots 0 {
      snac.buffer @input input geometry input_of 0
      ...
    }
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$collective,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$chunk_bytes,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$staging_slots);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `for` $collective `chunk_bytes` $chunk_bytes
    `staging_slots` $staging_slots attr-dict-with-keyword $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The buffer, event or role of this schedule named `name`, or null.
    template <typename OpT>
    OpT lookup(::mlir::FlatSymbolRefAttr name) {
      return ::llvm::dyn_cast_or_null<OpT>(
          ::mlir::SymbolTable::lookupSymbolIn(*this, name));
    }
  }];
}

def Snac_BufferOp : Snac_Op<"buffer", [Symbol, HasParent<"ScheduleOp">]> {
  let summary = "A buffer the schedule reads or writes";
  let description = [{
    `kind` says what the buffer is (the user's input or output, or the
    peer-accessible staging and intermediate buffers); the geometry (its
    partitions and their run-time sizes) is that of the input or output
    layout of transform `part` of the collective.

    ```mlir
    snac.buffer @stage staging geometry input_of 0
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       Snac_BufferKindAttr:$kind,
                       Snac_GeometrySideAttr:$side,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$part);
  let assemblyFormat = [{
    $sym_name custom<Keyword>($kind) `geometry` custom<Keyword>($side) $part
    attr-dict
  }];
  let extraClassDeclaration = [{
    /// Staging and intermediate buffers are readable by every rank.
    bool isPeerAccessible() {
      return getKind() == BufferKind::staging ||
             getKind() == BufferKind::intermediate;
    }
  }];
}

def Snac_EventOp : Snac_Op<"event", [Symbol, HasParent<"ScheduleOp">]> {
  let summary = "A readiness or release event between role groups";
  let description = [{
    Declares an event. `snac.notify` publishes it (release order) under a key
    (partition and chunk, or slot) to a rank; `snac.await` acquires it. `kind`
    says how a notify and an await match (see `ready` and `free`); `encoding`
    how the readiness is carried (flag, LL packet, sentinel), chosen by policy.

    ```mlir
    snac.event @staged ready encoding flag
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       Snac_EventKindAttr:$kind,
                       Snac_EncodingAttr:$encoding);
  let assemblyFormat = [{
    $sym_name custom<Keyword>($kind) `encoding` custom<Keyword>($encoding)
    attr-dict
  }];
}

def Snac_RoleOp : Snac_Op<"role", [
    Symbol, HasParent<"ScheduleOp">, SingleBlock, NoTerminator,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "A CTA role group and what it does on every rank";
  let description = [{
    The body runs on each participating rank (`all`, or the `root` only),
    with the block arguments (rank, world size, root rank). `ctas` is the
    group's share of the CTA budget; `part` the transform it serves.

    ```mlir
    snac.role @stage all ctas 4 part 0 {
    ^bb0(%rank: index, %n: index, %root: index):
      ...
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       Snac_ParticipantsAttr:$participants,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$ctas,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$part);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name custom<Keyword>($participants) `ctas` $ctas `part` $part
    attr-dict-with-keyword $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Value getRank() { return getBody().getArgument(0); }
    ::mlir::Value getWorldSize() { return getBody().getArgument(1); }
    ::mlir::Value getRootRank() { return getBody().getArgument(2); }
  }];
}

//===----------------------------------------------------------------------===//
// Run-time geometry
//===----------------------------------------------------------------------===//

def Snac_NumChunksOp : Snac_Op<"num_chunks", [Pure]> {
  let summary = "Number of chunks of a buffer partition at a rank";
  let description = [{
    `ceil(size / chunk)` of partition `part` of `buffer` at rank `owner`,
    from the run-time counts (V sizes included; zero for an empty partition).

    ```mlir
    %nc = snac.num_chunks @input[%rank, %k]
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$buffer, Index:$owner, Index:$part);
  let results = (outs Index:$result);
  let assemblyFormat = "$buffer `[` $owner `,` $part `]` attr-dict";
  let hasVerifier = 1;
}

def Snac_MaxChunksOp : Snac_Op<"max_chunks", [Pure]> {
  let summary = "Largest chunk count over the partitions of a buffer at a rank";
  let description = [{
    `max_j ceil(size_j / chunk)` over the partitions `j` of `buffer` at rank
    `owner` (one for a packed layout, the world size otherwise), from the
    run-time counts. It bounds a chunk-major walk of partitions whose sizes
    differ (V layouts): chunk `c` of every partition before chunk `c + 1` of
    any.

    ```mlir
    %mc = snac.max_chunks @input[%rank]
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$buffer, Index:$owner);
  let results = (outs Index:$result);
  let assemblyFormat = "$buffer `[` $owner `]` attr-dict";
  let hasVerifier = 1;
}

def Snac_SlotOp : Snac_Op<"slot", [Pure]> {
  let summary = "The slot a chunk of a buffer occupies";
  let description = [{
    `chunk mod staging_slots` for a peer-accessible buffer (staging or
    intermediate) with rotating slots, the chunk itself otherwise. Keys of `free` events are slots: a slot's reuse is
    what must wait for its release.

    ```mlir
    %s = snac.slot @stage[%c]
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$buffer, Index:$chunk);
  let results = (outs Index:$result);
  let assemblyFormat = "$buffer `[` $chunk `]` attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Consume: the Atom's copy and reduce on chunk regions
//===----------------------------------------------------------------------===//

def Snac_CopyOp : Snac_Op<"copy"> {
  let summary = "Copy one chunk region into another (Atom::copy)";
  let description = [{
    Copies chunk `src_chunk` of partition `src_part` of `src` at rank
    `src_owner` into the matching region of `dst`. A read of another rank's
    buffer is a pull over NVLink and needs a peer-accessible buffer.

    ```mlir
    snac.copy @stage[%p, %q, %c] -> @output[%rank, %p, %c]
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$src, Index:$src_owner,
                       Index:$src_part, Index:$src_chunk,
                       FlatSymbolRefAttr:$dst, Index:$dst_owner,
                       Index:$dst_part, Index:$dst_chunk);
  let assemblyFormat = [{
    $src `[` $src_owner `,` $src_part `,` $src_chunk `]` `->`
    $dst `[` $dst_owner `,` $dst_part `,` $dst_chunk `]` attr-dict
  }];
  let hasVerifier = 1;
}

def Snac_ReduceOp : Snac_Op<"reduce"> {
  let summary = "Reduce a chunk region across every rank (Atom::reduce)";
  let description = [{
    Combines chunk `src_chunk` of partition `src_part` of `src` from every
    rank, in ascending rank order with FP32 accumulation (deterministic), into
    a region of `dst`.

    ```mlir
    snac.reduce sum @stage[*, %rank, %c] -> @inter[%rank, %z, %c]
    ```
  }];
  let arguments = (ins Snac_ReductionAttr:$op, FlatSymbolRefAttr:$src,
                       Index:$src_part, Index:$src_chunk,
                       FlatSymbolRefAttr:$dst, Index:$dst_owner,
                       Index:$dst_part, Index:$dst_chunk);
  let assemblyFormat = [{
    custom<Keyword>($op) $src `[` `*` `,` $src_part `,` $src_chunk `]` `->`
    $dst `[` $dst_owner `,` $dst_part `,` $dst_chunk `]` attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Notify and await
//===----------------------------------------------------------------------===//

def Snac_NotifyOp : Snac_Op<"notify", [AttrSizedOperandSegments]> {
  let summary = "Publish an event to a rank, or to every rank (release)";
  let description = [{
    Publishes `event` under `key` to rank `target`, or to every rank when no
    target is given, after all of this role's earlier writes (release order).

    ```mlir
    snac.notify @staged[%k, %c] to %k
    snac.notify @stage_free[%rank, %s] to all
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$event, Variadic<Index>:$key,
                       Optional<Index>:$target);
  let assemblyFormat = [{
    $event `[` $key `]` `to` custom<Peer>($target) attr-dict
  }];
  let hasVerifier = 1;
}

def Snac_AwaitOp : Snac_Op<"await", [AttrSizedOperandSegments]> {
  let summary = "Acquire an event (bounded wait)";
  let description = [{
    For a `ready` event: waits (acquire order) until `event` under `key` has
    been published by rank `source`, or by every rank when no source is
    given; the u-th await of a key from a rank matches that rank's u-th
    notify.

    For a `free` event: the releases of a region are counted together,
    whichever rank sends them (one counter per key, as on the GPU), and the
    u-th await of a key waits until `(u - 1) * quota` releases arrived, i.e.
    until each of the `quota` consumers of every earlier use released it.
    Counting, rather than naming the releasing ranks, keeps reuse safe when
    the consumer changes from call to call (a rooted collective's root).

    ```mlir
    snac.await @staged[%rank, %c] from all
    snac.await @stage_free[%k, %s] from all quota %n
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$event, Variadic<Index>:$key,
                       Optional<Index>:$source, Optional<Index>:$quota);
  let assemblyFormat = [{
    $event `[` $key `]` `from` custom<Peer>($source) (`quota` $quota^)?
    attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Programs (SNAC v2): one kernel, push into receive buffers, readiness that
// travels with the data, slots rotated by a device-side call counter
//===----------------------------------------------------------------------===//

// Not a symbol, like snac.schedule: found through the collective (and its
// variant and encoding), several programs per collective.
def Snac_ProgramOp : Snac_Op<"program", [
    SymbolTable, IsolatedFromAbove, SingleBlock, NoTerminator,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "One kernel that runs a collective for the calls of a size band";
  let description = [{
    A program is the whole orchestration of the collective named by `for`
    in one kernel, for the calls whose input bytes fall in the policy's band
    (`#snac.policy`, typed). Its body runs on every rank (block arguments:
    the rank and the world size) and holds

    - `snac.program_buffer`s: the user's input and output, and the receive
      buffers, each with its own geometry (layout, size side);
    - `%e = snac.epoch`: this call's number on this rank (1, 2, ...);
    - `snac.put`: push a partition of the input into consumers' receive
      buffers, region (slot(e), this rank); `snac.put_each`: partition k to
      rank k, every k;
    - `snac.take` / `snac.reduce_take`: wait for the regions of this call
      and copy, or reduce in rank order, into the output; `snac.take_each`:
      source p's region into partition p, every p;
    - `snac.launch_dependents`, placed by `snac-place-dependent-launch`;
    - `scf.for` and `arith` on indices (one put per partition, ...).

    Readiness is the policy's encoding, fused into put and take. Every
    (source, consumer) pair exchanges one region every call, even an empty
    one (a padding unit), which is what makes reusing a slot two calls later
    safe without any release event (docs/snac.md).

    A `multimem` program (sm_90 and newer, never run on this project's
    machines) has no receive buffers: its input and output are `multicast`
    and its body is `snac.mc_barrier`, one in-switch data op
    (`snac.mc_reduce`, `snac.mc_reduce_local`, `snac.mc_put`), and
    `snac.mc_barrier` again (docs/snac.md, "In-switch programs").

    `root producer` or `root consumer` marks the program of a rooted
    collective: its body is an unrooted `_v` exchange whose size matrix the
    runtime shapes from the call's sizes and root (collc::vocab::programSize:
    only the root's row, or every row into partition `root`), so every pair
    still trades one region per call and the slot reuse argument holds for
    any sequence of roots.

    ```mlir
    snac.program for @all_reduce variant one_shot policy
        #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 0,
                     threads = 0, grain = 0, pdl = true> {
    ^bb0(%rank: index, %n: index):
      snac.program_buffer @input input packed sizes row
      snac.program_buffer @output output packed sizes row
      snac.program_buffer @rx receive scattered sizes column
      %c0 = arith.constant 0 : index
      %e = snac.epoch
      snac.put @input[%c0] -> @rx[%e] to all
      snac.reduce_take sum @rx[%e, *] -> @output[%c0]
    }
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$collective,
                       Snac_VariantAttr:$variant,
                       OptionalAttr<Snac_RootAttr>:$root,
                       Snac_PolicyAttr:$policy);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `for` $collective `variant` custom<Keyword>($variant)
    (`root` custom<Keyword>($root)^)?
    `policy` qualified($policy) attr-dict-with-keyword $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Value getRank() { return getBody().getArgument(0); }
    ::mlir::Value getWorldSize() { return getBody().getArgument(1); }
    Encoding getEncoding() { return getPolicy().getEncoding(); }
    /// How the runtime shapes the size matrix from a rooted call's (`none`
    /// when the attribute is absent).
    Root getRootShape() { return getRoot().value_or(Root::none); }
    /// True when the input has one partition: the size matrix then has one
    /// column (the size vector is read as collcSizeAt's `packed`).
    bool isInputPacked();
    /// True when a buffer has a `_v` layout: partitions of different sizes,
    /// so a chunked CTA's parts are sized per partition (docs/snac.md,
    /// "Balanced parts").
    bool hasVariablePartitions();
    /// The buffer of this program named `name`, or null.
    ProgramBufferOp lookupBuffer(::mlir::FlatSymbolRefAttr name);
    /// The program's first buffer of kind `kind`, or null.
    ProgramBufferOp getBufferOfKind(BufferKind kind);
    /// Position of receive buffer `buffer` among the program's receive
    /// buffers (their order in the body): its regions follow those of the
    /// buffers before it in the program's receive allocation.
    int getReceiveIndex(ProgramBufferOp buffer);
    /// The variant's rules: which receive buffers the puts fill, forwards.
    ::mlir::LogicalResult verifyPhases();
    /// Zero-copy: the receive buffers are `in_place` (consumers read the
    /// producers' registered buffers) and the body ends with snac.retire.
    bool isZeroCopy();
    /// Zero-copy rules: every receive buffer in place, flag readiness,
    /// chunked, not speculative, one snac.retire as the body's last op.
    ::mlir::LogicalResult verifyZeroCopy();
    /// In-switch (variant multimem): the buffers bound to multicast objects.
    bool isMultimem() {
      return getVariant() == Variant::multimem ||
             getVariant() == Variant::multimem_pull;
    }
    /// In-switch rules: no receive buffers, only snac.mc_* data ops, each
    /// between two snac.mc_barriers, flag policy, unchunked; and no mc op
    /// or multicast buffer in another variant.
    ::mlir::LogicalResult verifyMultimem();
  }];
}

def Snac_ProgramBufferOp : Snac_Op<"program_buffer", [
    Symbol, HasParent<"ProgramOp">]> {
  let summary = "A buffer of a program, with its own geometry";
  let description = [{
    `kind` is `input` or `output` (the user's buffers) or `receive` (a
    consumer-owned buffer that every producer writes: one region per slot
    and source, slot = epoch mod slots, slots outermost, the layout of
    collcRxOffset in collc/device/snac/abi.h). The geometry needs nothing
    outside the program: the layout, and which side of the size matrix m
    (the program input's, [rank][partition]) gives partition j's size at rank
    r: `row`, m[r][j]; `column`, m[j][r] (index 0 in place of the partition
    when the input is packed). The input's sizes are its row; a receive
    buffer is scattered by source and sized by the column.

    `in_place` (receive buffers of a zero-copy program only) says that the
    regions are not staged: region (slot, p) is the partition that p's put
    names, read in place from p's registered buffer; only the readiness (one
    word per CTA, and where the partition is) lives in this rank's memory.

    `multicast` (the input or output of a `multimem` program only) says
    that the user's buffer is registered and bound to a multicast object
    on every rank, so that one access through it reaches the same offset
    of every rank's buffer (the `snac.mc_*` ops); the runtime selects such
    a program only for a communicator whose ranks opted in and whose
    devices all support multicast.

    ```mlir
    snac.program_buffer @rx receive scattered sizes column
    snac.program_buffer @rx receive scattered sizes column in_place
    snac.program_buffer @input input packed sizes row multicast
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       Snac_BufferKindAttr:$kind,
                       Snac_LayoutAttr:$layout,
                       Snac_SizeSideAttr:$sizes,
                       UnitAttr:$in_place,
                       UnitAttr:$multicast);
  let assemblyFormat = [{
    $sym_name custom<Keyword>($kind) custom<Keyword>($layout)
    `sizes` custom<Keyword>($sizes) (`in_place` $in_place^)?
    (`multicast` $multicast^)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// One partition (packed, packed_v) or one per rank.
    bool isPacked() {
      return getLayout() == Layout::packed || getLayout() == Layout::packed_v;
    }
    /// The entry (p, k) of the size matrix that sizes partition `part` of
    /// this buffer at rank `rank` (collcSizeAt(v, n, packed, rank, p, k)):
    /// (rank, part) for `row`, (part, rank) for `column`, with `zero` in
    /// place of the partition index when the program's input is packed.
    /// `T` is a number (the interpreter) or an expression (the emitter).
    template <typename T>
    std::pair<T, T> getSizeEntry(T rank, T part, T zero) {
      bool packedInput = getParentOp().isInputPacked();
      if (getSizes() == SizeSide::row)
        return {rank, packedInput ? zero : part};
      return {part, packedInput ? zero : rank};
    }
  }];
}

def Snac_EpochOp : Snac_Op<"epoch", [
    HasParent<"ProgramOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "This call's number: the device-side call counter plus one";
  let description = [{
    The number of the call this kernel runs, on this rank: the CTA's call
    counter (private, one word per CTA) plus one, so the first call is 1
    and the counter is stored back at the end of the call. It selects the
    receive slot (epoch mod slots) and is the sequence LL16 packets and
    flag words carry, so a peer running another call is detected. The only
    load a program makes before its first useful instruction.

    ```mlir
    %e = snac.epoch
    ```
  }];
  let results = (outs I64:$epoch);
  let assemblyFormat = "attr-dict";
}

def Snac_PutOp : Snac_Op<"put"> {
  let summary = "Push a partition of the input into receive buffers";
  let description = [{
    Writes partition `part` of the local `src` (its size from `src`'s
    geometry) into the region (slot(epoch), this rank) of the receive
    buffer `dst` of rank `target`, or of every rank (this one included)
    when the target is `all`, readiness included (the program's encoding).
    An empty partition still publishes one padding unit, so that the
    consumer's take of this call completes.

    ```mlir
    snac.put @input[%k] -> @rx[%e] to %k
    snac.put @input[%c0] -> @rx[%e] to all
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$src, Index:$part,
                       FlatSymbolRefAttr:$dst, I64:$epoch,
                       Optional<Index>:$target);
  let assemblyFormat = [{
    $src `[` $part `]` `->` $dst `[` $epoch `]` `to` custom<Peer>($target)
    attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::LogicalResult verifyForward();
  }];
}

def Snac_PutEachOp : Snac_Op<"put_each"> {
  let summary = "Push partition k of the input to rank k, every k at once";
  let description = [{
    For every rank k (this one included), writes partition k of the local
    `src` into the region (slot(epoch), this rank) of rank k's receive
    buffer `dst`, readiness included; an empty partition still publishes its
    padding unit. Exactly the loop

    ```mlir
    scf.for %k = %c0 to %n step %c1 { snac.put @input[%k] -> @rx[%e] to %k }
    ```

    in one op, so that the device issues the loads of every partition of a
    thread-step before its stores (one memory latency per step instead of
    one per peer); the regions written are distinct and nobody reads them
    before their readiness, so that order refines the loop's (docs/snac.md).
    `src` has one partition per rank (scattered, scattered_v).

    ```mlir
    snac.put_each @input -> @rx[%e]
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$src, FlatSymbolRefAttr:$dst,
                       I64:$epoch);
  let assemblyFormat = "$src `->` $dst `[` $epoch `]` attr-dict";
  let hasVerifier = 1;
}

def Snac_TakeOp : Snac_Op<"take"> {
  let summary = "Wait for one source's region and copy it into the output";
  let description = [{
    Waits (bounded) until the region (slot(epoch), `source`) of the local
    receive buffer `src` holds call `epoch`'s data, and copies it into
    partition `part` of `dst`; re-arms the region where the encoding needs
    it (sentinel).

    ```mlir
    snac.take @rx[%e, %p] -> @output[%p]
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$src, I64:$epoch, Index:$source,
                       FlatSymbolRefAttr:$dst, Index:$part);
  let assemblyFormat = [{
    $src `[` $epoch `,` $source `]` `->` $dst `[` $part `]` attr-dict
  }];
  let hasVerifier = 1;
}

def Snac_TakeEachOp : Snac_Op<"take_each"> {
  let summary = "Wait for every source's region, each into its own partition";
  let description = [{
    For every source p (this rank included), waits (bounded) until the
    region (slot(epoch), p) of the local receive buffer `src` holds call
    `epoch`'s data and copies it into partition p of `dst`, re-arming the
    region where the encoding needs it (sentinel). Exactly the loop

    ```mlir
    scf.for %p = %c0 to %n step %c1 { snac.take @rx[%e, %p] -> @output[%p] }
    ```

    in one op: the device loads every source's units of a thread-step before
    it stores any into the output, which no other rank reads during the
    call, so that order refines the loop's (docs/snac.md). `dst` has one
    partition per rank (scattered, transposed, their `_v` forms).

    ```mlir
    snac.take_each @rx[%e] -> @output
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$src, I64:$epoch,
                       FlatSymbolRefAttr:$dst);
  let assemblyFormat = "$src `[` $epoch `]` `->` $dst attr-dict";
  let hasVerifier = 1;
}

def Snac_ReduceTakeOp : Snac_Op<"reduce_take"> {
  let summary = "Wait for every source's region and reduce them in rank order";
  let description = [{
    Waits for the regions (slot(epoch), p) of the local receive buffer `src`
    of every source p, and combines them elementwise in ascending rank order
    with FP32 accumulation, rounded once (the bits of `snac.reduce`), into
    partition `part` of `dst`.

    ```mlir
    snac.reduce_take sum @rx[%e, *] -> @output[%c0]
    ```
  }];
  let arguments = (ins Snac_ReductionAttr:$op, FlatSymbolRefAttr:$src,
                       I64:$epoch, FlatSymbolRefAttr:$dst, Index:$part);
  let assemblyFormat = [{
    custom<Keyword>($op) $src `[` $epoch `,` `*` `]` `->` $dst `[` $part `]`
    attr-dict
  }];
  let hasVerifier = 1;
}

def Snac_ReduceSpreadOp : Snac_Op<"reduce_spread", [HasParent<"ProgramOp">]> {
  let summary = "Reduce an equal share of every rank's partition, in place";
  let description = [{
    Zero-copy only (`src` in_place): the call's partitions, every rank's
    output partition in rank order, are one sequence of T elements, and
    each rank reduces T / n of them whatever the partitions' sizes: for each
    element of its share, every source's input element of that partition
    (read where the source's snac.put_each said its partition is, as
    snac.reduce_take reads it), combined in ascending rank order with FP32
    accumulation, rounded once (the bits of `snac.reduce_take`), stored to
    the owner's `dst` (a peer's through its registered window, published
    with the put_each's ready word). A skewed `_v` reduction is then set by
    T / n, not by its largest partition (snac.reduce_take's owner reduces
    its whole partition). The program's snac.retire orders every write
    before the owner's call ends.

    ```mlir
    snac.reduce_spread sum @rx[%e, *] -> @output
    ```
  }];
  let arguments = (ins Snac_ReductionAttr:$op, FlatSymbolRefAttr:$src,
                       I64:$epoch, FlatSymbolRefAttr:$dst);
  let assemblyFormat = [{
    custom<Keyword>($op) $src `[` $epoch `,` `*` `]` `->` $dst attr-dict
  }];
  let hasVerifier = 1;
}

def Snac_RetireOp : Snac_Op<"retire", [HasParent<"ProgramOp">]> {
  let summary = "End a zero-copy step: every reader is done with this rank";
  let description = [{
    In a zero-copy program (receive buffers `in_place`) consumers read the
    producers' own input and output. A producer's call may end (and the
    host overwrite those buffers, stream order) only after every consumer
    has finished reading them: each CTA tells every rank (self included)
    that it has finished this step's reads, then waits (bounded) until every
    rank's same CTA has told it the same. The body's last op.

    ```mlir
    snac.retire %e
    ```
  }];
  let arguments = (ins I64:$epoch);
  let assemblyFormat = "$epoch attr-dict";
  let hasVerifier = 1;
}

def Snac_LaunchDependentsOp : Snac_Op<"launch_dependents", [
    HasParent<"ProgramOp">]> {
  let summary = "Let the next kernel on the stream start (PDL)";
  let description = [{
    `griddepcontrol.launch_dependents` on sm_90 and later (nothing where
    PDL is off): the next kernel may begin its prologue, up to its own
    `griddepcontrol.wait`, which still waits for this whole grid. Placed by
    `snac-place-dependent-launch` right after the last remote write.

    ```mlir
    snac.launch_dependents
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// In-switch programs (variant multimem: NVLink SHARP, sm_90 and newer)
//===----------------------------------------------------------------------===//

def Snac_McBarrierOp : Snac_Op<"mc_barrier", [HasParent<"ProgramOp">]> {
  let summary = "Every rank's same CTA arrives; wait for all of them";
  let description = [{
    Each CTA adds one, with release order, to its own arrival counter on
    every rank at once (`multimem.red` on the counter's multicast address),
    then waits (bounded, acquire) until its rank's copy counts every rank's
    arrival at this barrier of this call (counted over calls, so nothing is
    reset). What a rank wrote before its arrival is visible to every rank
    after the barrier, and no rank passes it before every rank reached it:
    the first barrier of a multimem program says every rank's buffers are
    this call's, the last that nobody still reads or writes them.

    ```mlir
    snac.mc_barrier %e
    ```
  }];
  let arguments = (ins I64:$epoch);
  let assemblyFormat = "$epoch attr-dict";
  let hasVerifier = 1;
}

def Snac_McReduceOp : Snac_Op<"mc_reduce"> {
  let summary = "AllReduce in the switch: this rank's shard, to every rank";
  let description = [{
    Rank r's shard of the packed multicast input (16-byte vectors [V r / n,
    V (r + 1) / n) of the V the call's bytes hold) is reduced over every
    rank in the switch (`multimem.ld_reduce`) and stored to the same shard
    of every rank's multicast output (`multimem.st`). The switch's order of
    accumulation is its own: the same bits on every rank of a call, not
    necessarily those of the rank-order programs.

    ```mlir
    snac.mc_reduce sum @input -> @output
    ```
  }];
  let arguments = (ins Snac_ReductionAttr:$op, FlatSymbolRefAttr:$src,
                       FlatSymbolRefAttr:$dst);
  let assemblyFormat = "custom<Keyword>($op) $src `->` $dst attr-dict";
  let hasVerifier = 1;
}

def Snac_McReduceLocalOp : Snac_Op<"mc_reduce_local"> {
  let summary = "Reduce in the switch into this rank's output only";
  let description = [{
    What this rank's packed output holds of every rank's multicast input,
    reduced in the switch (`multimem.ld_reduce`), into that output
    (ordinary stores): partition r (this rank's) of a scattered input
    (ReduceScatter), or the whole of a packed one (AllReduce: every rank
    reduces every element for itself, SiFAR's redundant pull: K bytes
    received a rank, no multicast store).

    ```mlir
    snac.mc_reduce_local sum @input -> @output
    ```
  }];
  let arguments = (ins Snac_ReductionAttr:$op, FlatSymbolRefAttr:$src,
                       FlatSymbolRefAttr:$dst);
  let assemblyFormat = "custom<Keyword>($op) $src `->` $dst attr-dict";
  let hasVerifier = 1;
}

def Snac_McPutOp : Snac_Op<"mc_put"> {
  let summary = "AllGather through the switch: this rank's input to all";
  let description = [{
    This rank's packed input stored into partition r (this rank's) of every
    rank's scattered multicast output at once (`multimem.st`).

    ```mlir
    snac.mc_put @input -> @output
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$src, FlatSymbolRefAttr:$dst);
  let assemblyFormat = "$src `->` $dst attr-dict";
  let hasVerifier = 1;
}

#endif // COLLC_DIALECT_SNAC_IR_SNACOPS_TD
