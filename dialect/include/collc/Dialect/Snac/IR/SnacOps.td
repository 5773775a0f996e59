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

#endif // COLLC_DIALECT_SNAC_IR_SNACOPS_TD
