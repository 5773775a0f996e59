//===- DerivePrograms.cpp - coll -> snac: one- and two-shot programs -*- C++ -*-===//
//
// Derives the one-shot push program (SNAC v2, the latency regime) of every
// collective that is one transform, or that the layout algebra reduces to
// one (a rooted one's: the unrooted `_v` exchange carrying its data), and,
// for ReduceScatter then AllGather, the two-shot program that serves the
// band above it. Keyed on layouts, consume op and root; never on a name.
//
// Shape of a one-shot program (one kernel, every rank):
//
//   %e = snac.epoch                         this call's number
//   put       packed input: the whole of it to every rank;
//   put_each  scattered input: partition k to rank k, every k
//   take_each copy: source p's region into output partition p, every p
//   or reduce_take  reduce: every source's region, in rank order
//
// Every (source, consumer) pair exchanges one region per call, an empty
// partition included (the padding unit), which is why two receive slots
// suffice (docs/snac.md, "Programs").
//
//===----------------------------------------------------------------------===//

#include "collc/Conversion/CollToSnac/Passes.h"
#include "collc/Dialect/Coll/IR/CollOps.h"
#include "collc/Dialect/Snac/IR/SnacOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSwitch.h"

namespace collc {
#define GEN_PASS_DEF_COLLDERIVEPROGRAMS
#include "collc/Conversion/CollToSnac/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;
using namespace collc::coll;

namespace {

/// The single transform a program implements.
struct OneShot {
  ConsumeOp consume;
  std::optional<Reduction> reduction;
  Layout input, output;
  /// ReduceScatter then AllGather with fixed partition sizes: the two-shot
  /// program serves it too (above the one-shot band).
  bool twoShot = false;
  /// A rooted collective's: the runtime shapes the `_v` sizes from the
  /// call's and the root (snac.program's `root`).
  Root root = Root::none;
  /// A rooted collective of fixed sizes carried by a `_v` exchange: its one
  /// nonzero size (the count) is in every rank's row or column.
  bool carriesFixed = false;
};

} // namespace

/// The one transform `collective` is, by the layout algebra (a composition
/// folded into one), with its root role; none if the algebra has no rule.
static std::optional<OneShot> effectiveOf(CollectiveOp collective) {
  SmallVector<TransformOp, 2> ts = collective.getTransforms();
  if (ts.size() == 1)
    return OneShot{ts[0].getConsume(), ts[0].getReduction(), ts[0].getInput(),
                   ts[0].getOutput(), false, ts[0].getRootRole()};
  // Each rule below folds partition k of the first output, forwarded by
  // rank k into partition k of the second, into one transform over the
  // whole buffer: partitions are contiguous in rank order on both sides.
  TransformOp f = ts[0], g = ts[1];
  auto is = [](TransformOp t, ConsumeOp consume, Layout in, Layout out,
               Root root) {
    return t.getConsume() == consume && fixedLayout(t.getInput()) == in &&
           fixedLayout(t.getOutput()) == out && t.getRootRole() == root;
  };
  bool gathers = is(g, ConsumeOp::copy, Layout::packed, Layout::scattered,
                    Root::none);
  // ReduceScatter then AllGather: reduce(packed -> packed) over the whole
  // input (the `_v` form too: a reduction's partitions have one size on
  // every rank).
  if (is(f, ConsumeOp::reduce, Layout::scattered, Layout::packed,
         Root::none) &&
      gathers) {
    // Two-shot keeps the partitions: each rank reduces its own, then
    // forwards it. A `_v` partition can be the whole input, so its regions
    // would be as large as one-shot's with twice the hops: not derived.
    bool twoShot = !isVariable(f.getInput()) && !isVariable(g.getOutput());
    return OneShot{ConsumeOp::reduce, f.getReduction(), Layout::packed,
                   Layout::packed, twoShot};
  }
  // Scatter then AllGather (Broadcast): the root's whole buffer to every
  // rank.
  if (is(f, ConsumeOp::copy, Layout::scattered, Layout::packed,
         Root::producer) &&
      gathers)
    return OneShot{ConsumeOp::copy, std::nullopt, Layout::packed,
                   Layout::packed, false, Root::producer};
  // ReduceScatter then Gather (Reduce): every rank's whole buffer reduced
  // onto the root.
  if (is(f, ConsumeOp::reduce, Layout::scattered, Layout::packed,
         Root::none) &&
      is(g, ConsumeOp::copy, Layout::packed, Layout::scattered,
         Root::consumer))
    return OneShot{ConsumeOp::reduce, f.getReduction(), Layout::packed,
                   Layout::packed, false, Root::consumer};
  return std::nullopt;
}

/// The program shape of `collective`, or none. A rooted transform moves
/// data one way, so no exchange would prove slot reuse: its program is the
/// unrooted `_v` exchange that carries the same data (every other entry of
/// the size matrix empty, vocab::programSize), whose padding units do.
static std::optional<OneShot> oneShotOf(CollectiveOp collective) {
  std::optional<OneShot> shot = effectiveOf(collective);
  if (!shot || shot->root == Root::none)
    return shot;
  auto carrier = [&](Layout in, Layout out) {
    OneShot c = *shot;
    c.input = in;
    c.output = out;
    c.carriesFixed = !isVariable(shot->input) && !isVariable(shot->output);
    return c;
  };
  Layout in = fixedLayout(shot->input), out = fixedLayout(shot->output);
  if (shot->root == Root::producer && shot->consume == ConsumeOp::copy) {
    // Broadcast: AllGather_v with only the root's contribution.
    if (in == Layout::packed && out == Layout::packed)
      return carrier(Layout::packed_v, Layout::scattered_v);
    // Scatter: AllToAll_v with only the root's row.
    if (in == Layout::scattered && out == Layout::packed)
      return carrier(Layout::scattered_v, Layout::transposed_v);
  }
  if (shot->root == Root::consumer) {
    // Gather: AllToAll_v with every rank's input in partition `root`.
    if (shot->consume == ConsumeOp::copy && in == Layout::packed &&
        out == Layout::scattered)
      return carrier(Layout::scattered_v, Layout::transposed_v);
    // Reduce: ReduceScatter_v whose partition `root` is the whole input.
    if (shot->consume == ConsumeOp::reduce && in == Layout::packed &&
        out == Layout::packed)
      return carrier(Layout::scattered_v, Layout::packed_v);
  }
  return std::nullopt;
}

/// Whether the ranks of `shot` count a chunked call's steps alike from their
/// own size vectors: every rank must count the same steps, and a rank
/// counts them from its size vector (its row and column of the size
/// matrix), which holds the largest entry of the whole matrix when the input
/// is packed (every rank's size), the sizes are fixed, or the transform
/// reduces (its partitions have one size on every rank). A transposing `_v`
/// copy (AllToAll_v, and the Scatter and Gather it carries) is none of
/// these: two ranks could count different steps and wait for each other's
/// missing ones, so its chunked program agrees on them first (policy
/// `agree`). But a fixed-size Scatter or Gather it carries is: the root's
/// row (Scatter) or column (Gather) holds the count, and it is in every
/// rank's column or row.
static bool chunkable(const OneShot &shot) {
  return fixedLayout(shot.input) == Layout::packed ||
         shot.consume == ConsumeOp::reduce || shot.carriesFixed ||
         (!isVariable(shot.input) && !isVariable(shot.output));
}

/// The encoding a `protocol` value names; `auto` picks by the band's hi:
/// LL16 doubles the bytes on the wire and pays off only while latency
/// dominates.
static std::optional<snac::Encoding>
encodingOf(StringRef protocol, int64_t bandHi, int64_t ll16MaxBytes) {
  if (protocol == "auto")
    return bandHi <= ll16MaxBytes ? snac::Encoding::ll16
                                  : snac::Encoding::flag;
  return llvm::StringSwitch<std::optional<snac::Encoding>>(protocol)
      .Case("flag", snac::Encoding::flag)
      .Cases("ll16", "ll", snac::Encoding::ll16)
      .Case("sentinel", snac::Encoding::sentinel)
      .Default(std::nullopt);
}

namespace {
/// The in-switch op of a collective's multimem program.
/// PullAll: every rank reduces the whole packed input for itself (SiFAR's
/// redundant pull), an AllReduce's program for its small inputs.
enum class InSwitch { ReduceToAll, ReduceToLocal, CopyToAll, PullAll };
} // namespace

/// The in-switch op that runs `shot` whole, or none: an unrooted transform of
/// fixed sizes that the switch can do in one pass over every rank's buffer
/// (it reduces with add only).
static std::optional<InSwitch> inSwitchOf(const OneShot &shot) {
  if (shot.root != Root::none || isVariable(shot.input) ||
      isVariable(shot.output))
    return std::nullopt;
  if (shot.consume == ConsumeOp::reduce) {
    if (shot.reduction != Reduction::sum || shot.output != Layout::packed)
      return std::nullopt;
    if (shot.input == Layout::packed)
      return InSwitch::ReduceToAll;
    if (shot.input == Layout::scattered)
      return InSwitch::ReduceToLocal;
    return std::nullopt;
  }
  if (shot.input == Layout::packed && shot.output == Layout::scattered)
    return InSwitch::CopyToAll;
  return std::nullopt;
}

namespace {

struct CollDeriveProgramsPass
    : public collc::impl::CollDeriveProgramsBase<CollDeriveProgramsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (slots < 2) {
      module.emitError() << "coll-derive-programs: slots must be at least 2, "
                            "got "
                         << slots.getValue();
      return signalPassFailure();
    }
    if (!encodingOf(protocol, 0, 0)) {
      module.emitError() << "coll-derive-programs: unknown protocol '"
                         << protocol.getValue()
                         << "'; expected flag, ll16, sentinel or auto";
      return signalPassFailure();
    }
    if (pairLL16Bytes != 0 && !pairSteps) {
      module.emitError() << "coll-derive-programs: pair-ll16-bytes needs "
                            "pair-steps (a pair chooses its exchange by its "
                            "own counts)";
      return signalPassFailure();
    }
    if (pairLL16Bytes < 0 || pairLL16Bytes % 16 != 0) {
      module.emitError() << "coll-derive-programs: pair-ll16-bytes must be a "
                            "non-negative multiple of 16, got "
                         << pairLL16Bytes.getValue();
      return signalPassFailure();
    }
    // Programs already derived are left alone (the pass is idempotent).
    llvm::DenseSet<StringAttr> done;
    for (auto program : module.getOps<snac::ProgramOp>())
      done.insert(program.getCollectiveAttr().getAttr());
    for (auto collective : llvm::to_vector(module.getOps<CollectiveOp>()))
      if (!done.contains(collective.getSymNameAttr()))
        derive(collective);
  }

  void derive(CollectiveOp collective);
  snac::ProgramOp createProgram(OpBuilder &b, CollectiveOp collective,
                                snac::Variant variant,
                                snac::Encoding encoding, int64_t lo,
                                int64_t hi, int64_t ctas, int64_t chunk,
                                bool agree = false, bool pairs = false,
                                int64_t pairLL16 = 0);
  snac::ProgramOp deriveOneShot(CollectiveOp collective, const OneShot &shot,
                                Operation *after, snac::Encoding encoding,
                                int64_t lo, int64_t hi, int64_t ctas,
                                int64_t chunk, bool agree = false,
                                bool pairs = false, int64_t pairLL16 = 0);
  snac::ProgramOp deriveTwoShot(CollectiveOp collective, const OneShot &shot,
                                Operation *after, snac::Encoding encoding,
                                int64_t lo, int64_t hi, int64_t ctas,
                                int64_t chunk);
  void deriveZeroCopy(snac::ProgramOp chunked);
  snac::ProgramOp deriveMultimem(CollectiveOp collective, InSwitch op,
                                 Operation *after);
  /// The device's chunk template parameter is at most 2^30 bytes.
  LogicalResult checkZeroCopyChunk(CollectiveOp collective) {
    if (zeroCopyChunkBytes >= 0 && zeroCopyChunkBytes % 16 == 0 &&
        zeroCopyChunkBytes <= (int64_t(1) << 30))
      return success();
    return collective.emitError()
           << "zero-copy-chunk-bytes = "
           << static_cast<int64_t>(zeroCopyChunkBytes)
           << " is not a multiple of 16 in [0, 2^30]";
  }
};

} // namespace

void CollDeriveProgramsPass::derive(CollectiveOp collective) {
  std::optional<OneShot> shot = oneShotOf(collective);
  // After the collective's schedule when there is one: collective, schedule,
  // programs by band, in the order the passes run.
  Operation *after = collective;
  if (auto schedule =
          dyn_cast_or_null<snac::ScheduleOp>(collective->getNextNode());
      schedule && schedule.getCollective() == collective.getSymName())
    after = schedule;
  // The in-switch program first: the runtime takes it wherever it may.
  StringRef mm;
  if (auto v = dyn_cast_or_null<StringAttr>(collective.lookupPolicy("multimem")))
    mm = v.getValue();
  if (mm == "on" && !multimem) {
    collective.emitError()
        << "policy multimem = on needs the in-switch path compiled in "
           "(collc --enable-multimem); never run it where NVLink multicast "
           "is not allowed";
    return signalPassFailure();
  }
  if (multimem && mm != "off") {
    std::optional<InSwitch> op = shot ? inSwitchOf(*shot) : std::nullopt;
    // AllReduce: the redundant pull for the small inputs first.
    if (op == InSwitch::ReduceToAll && multimemPullMaxBytes > 0)
      after = deriveMultimem(collective, InSwitch::PullAll, after);
    if (op)
      after = deriveMultimem(collective, *op, after);
    else if (mm == "on") {
      collective.emitError()
          << "policy multimem = on, but the collective has no in-switch "
             "program: multimem serves an AllReduce, ReduceScatter or "
             "AllGather of fixed sizes, reducing with sum";
      return signalPassFailure();
    }
  }
  if (!shot)
    return;
  // The spec's policy (verified by the coll dialect), else the options.
  int64_t hi = oneHopMaxBytes;
  if (auto v = dyn_cast_or_null<IntegerAttr>(
          collective.lookupPolicy("one_hop_max_bytes")))
    hi = v.getInt();
  if (hi <= 0)
    return;
  StringRef proto = protocol;
  if (auto v = dyn_cast_or_null<StringAttr>(collective.lookupPolicy("protocol")))
    proto = v.getValue();
  // Left to snac-assign-work unless the spec sets the CTA budget.
  int64_t ctas = 0;
  if (auto v = dyn_cast_or_null<IntegerAttr>(collective.lookupPolicy("ctas")))
    ctas = v.getInt();
  // Two-shot serves the inputs above the one-shot band, up to its own top.
  int64_t twoHi = shot->twoShot ? int64_t(twoShotMaxBytes) : 0;
  if (auto v = dyn_cast_or_null<IntegerAttr>(
          collective.lookupPolicy("two_shot_max_bytes"));
      v && shot->twoShot) {
    twoHi = v.getInt();
    if (twoHi > 0 && twoHi <= hi) {
      collective.emitError()
          << "two_shot_max_bytes = " << twoHi
          << " does not exceed one_hop_max_bytes = " << hi
          << ": the two-shot band [one_hop_max_bytes + 1, "
             "two_shot_max_bytes] would be empty (0: no two-shot program)";
      return signalPassFailure();
    }
  }

  // Chunked programs serve every input above the bands before them
  // (spec `stream_chunk_bytes`, else the option; 0: none).
  int64_t chunk = streamChunkBytes;
  if (auto v = dyn_cast_or_null<IntegerAttr>(
          collective.lookupPolicy("stream_chunk_bytes")))
    chunk = v.getInt();
  if (chunk < 0 || chunk % 16 != 0) {
    collective.emitError()
        << "stream_chunk_bytes = " << chunk
        << " is not a multiple of 16: a chunk is whole 16-byte units of "
           "every encoding's payload (0: no chunked program)";
    return signalPassFailure();
  }

  if (!chunkable(*shot)) {
    // A transposing `_v` copy: its ranks can pick a program only by a
    // size they all know, and they know none (each its row and column),
    // so one program serves every size, the chunked one whose ranks agree
    // on its steps on the device (a one-shot band would be chosen by some
    // ranks and not others). It needs flag readiness; without a chunk or
    // with another protocol the v1 schedule serves the collective.
    snac::Encoding encoding =
        proto == "auto" ? snac::Encoding::flag
                        : *encodingOf(proto, hi + 1, ll16MaxBytes);
    if (chunk <= 0 || encoding != snac::Encoding::flag)
      return;
    if (failed(checkZeroCopyChunk(collective)))
      return signalPassFailure();
    // Option pair-steps: each pair of ranks runs its own steps instead.
    // A small pair's parts are one step's (pair_ll16 at most the chunk).
    if (pairSteps && pairLL16Bytes > chunk) {
      collective.emitError()
          << "coll-derive-programs: pair-ll16-bytes (" << pairLL16Bytes.getValue()
          << ") exceeds the chunk of '" << collective.getSymName() << "' ("
          << chunk << " bytes): a small pair's parts are one step's";
      return signalPassFailure();
    }
    snac::ProgramOp agreed = deriveOneShot(
        collective, *shot, after, encoding, /*lo=*/0,
        std::numeric_limits<int64_t>::max(), ctas, chunk,
        /*agree=*/!pairSteps, /*pairs=*/pairSteps,
        /*pairLL16=*/pairSteps ? int64_t(pairLL16Bytes) : 0);
    if (zeroCopyChunkBytes > 0)
      deriveZeroCopy(agreed);
    return;
  }
  after = deriveOneShot(collective, *shot, after,
                        *encodingOf(proto, hi, ll16MaxBytes), /*lo=*/0, hi,
                        ctas, /*chunk=*/0);
  int64_t top = hi;
  if (shot->twoShot && twoHi > hi) {
    // `auto` is LL16 for every two-shot band: its regions carry one
    // partition, and on one H200 with 2 and 8 ranks sharing it two-shot
    // LL16 took 3.4 and 40 us at 256 KiB against flag's 10.1 and 89
    // (bench/results/2026-12-01-nvidia-h200/two-shot-*.json).
    snac::Encoding encoding = proto == "auto"
                                  ? snac::Encoding::ll16
                                  : *encodingOf(proto, twoHi, ll16MaxBytes);
    after = deriveTwoShot(collective, *shot, after, encoding, hi + 1, twoHi,
                          ctas, /*chunk=*/0);
    top = twoHi;
  }
  if (chunk <= 0)
    return;
  if (failed(checkZeroCopyChunk(collective)))
    return signalPassFailure();
  // The bandwidth regime: a step moves a chunk per CTA, so regions hold one
  // step whatever the input; `auto` is flag there (LL16 halves the payload
  // of every byte on the wire).
  snac::Encoding encoding =
      proto == "auto" ? snac::Encoding::flag
                      : *encodingOf(proto, top + 1, ll16MaxBytes);
  const int64_t unbounded = std::numeric_limits<int64_t>::max();
  snac::ProgramOp chunked =
      shot->twoShot ? deriveTwoShot(collective, *shot, after, encoding,
                                    top + 1, unbounded, ctas, chunk)
                    : deriveOneShot(collective, *shot, after, encoding,
                                    top + 1, unbounded, ctas, chunk);
  // Not where an in-place call (NCCL's conventions) would let a rank's
  // output writes land on input its peers still read: a one-shot reduction
  // of packed inputs, whose every rank reads every rank's whole input (the
  // other shapes write only a partition no peer reads, or the same bytes;
  // docs/snac.md "Zero-copy programs").
  bool aliases = !shot->twoShot && shot->consume == ConsumeOp::reduce &&
                 fixedLayout(shot->input) == Layout::packed;
  if (zeroCopyChunkBytes > 0 && encoding == snac::Encoding::flag && !aliases)
    deriveZeroCopy(chunked);
}

/// The zero-copy twin of a chunked flag program, placed before it (the
/// runtime takes the first program whose band holds a call and whose
/// buffers it can use: this one when the user registered them). The same
/// body with the stage role dropped: every receive buffer `in_place`, so a
/// put publishes where its partition is and a take reads it from the
/// producer's registered buffer; then `snac.retire`, so that no producer's
/// call ends before its readers are done. Nothing is staged, so a step
/// moves a whole part of each partition (`zero-copy-chunk-bytes` per CTA).
/// A `_v` reduction's snac.reduce_take becomes a snac.reduce_spread.
void CollDeriveProgramsPass::deriveZeroCopy(snac::ProgramOp chunked) {
  MLIRContext *ctx = &getContext();
  OpBuilder b(chunked);
  auto program = cast<snac::ProgramOp>(b.clone(*chunked.getOperation()));
  snac::PolicyAttr p = chunked.getPolicy();
  program.setPolicyAttr(snac::PolicyAttr::get(
      ctx, p.getEncoding(), p.getSlots(), p.getBandLo(), p.getBandHi(),
      p.getCtas(), p.getThreads(), p.getGrain(), p.getPdl(),
      /*speculate=*/false, zeroCopyChunkBytes, p.getAgree(), p.getPairs(),
      /*pair_ll16=*/0));
  Block &body = program.getBody().front();
  for (auto buffer : body.getOps<snac::ProgramBufferOp>())
    if (buffer.getKind() == snac::BufferKind::receive)
      buffer.setInPlace(true);
  // A `_v` reduction spreads: its owners' partitions can be of any sizes
  // (one can hold the whole input: a Reduce), and each owner reducing its
  // own would leave the call to the largest one's CTAs and links; every
  // rank reduces T / n of them instead, storing each element at its owner
  // (whose output the put_each's ready word publishes too).
  for (auto buffer : body.getOps<snac::ProgramBufferOp>())
    if (buffer.getKind() == snac::BufferKind::input &&
        buffer.getLayout() == snac::Layout::scattered_v)
      for (auto reduce :
           llvm::make_early_inc_range(body.getOps<snac::ReduceTakeOp>())) {
        b.setInsertionPoint(reduce);
        snac::ReduceSpreadOp::create(
            b, reduce.getLoc(), reduce.getOpAttr(), reduce.getSrcAttr(),
            reduce.getEpoch(), reduce.getDstAttr());
        Value part = reduce.getPart();
        reduce.erase();
        if (part.use_empty() && part.getDefiningOp())
          part.getDefiningOp()->erase();
      }
  auto epoch = *body.getOps<snac::EpochOp>().begin();
  b.setInsertionPointToEnd(&body);
  snac::RetireOp::create(b, program.getLoc(), epoch.getEpoch());
}

/// The in-switch program of `collective` after `after`: the one hop through
/// the switch serving every size (flash-comm), or for PullAll the redundant
/// pull serving up to multimem-pull-max-bytes (SiFAR):
///
///   %e = snac.epoch
///   snac.mc_barrier %e     every rank's buffers hold this call's data
///   mc_reduce | mc_reduce_local | mc_put
///   snac.mc_barrier %e     nobody still reads or writes them
snac::ProgramOp CollDeriveProgramsPass::deriveMultimem(CollectiveOp collective,
                                                       InSwitch op,
                                                       Operation *after) {
  MLIRContext *ctx = &getContext();
  Location loc = collective.getLoc();
  OpBuilder b(ctx);
  b.setInsertionPointAfter(after);
  const bool pull = op == InSwitch::PullAll;
  auto program = createProgram(
      b, collective,
      pull ? snac::Variant::multimem_pull : snac::Variant::multimem,
      snac::Encoding::flag, /*lo=*/0,
      pull ? int64_t(multimemPullMaxBytes)
           : std::numeric_limits<int64_t>::max(),
      /*ctas=*/0, /*chunk=*/0);
  // The policy's speculation is the receive buffers' (none here).
  snac::PolicyAttr p = program.getPolicy();
  program.setPolicyAttr(snac::PolicyAttr::get(
      ctx, p.getEncoding(), p.getSlots(), p.getBandLo(), p.getBandHi(),
      p.getCtas(), p.getThreads(), p.getGrain(), p.getPdl(),
      /*speculate=*/false, /*chunk=*/0, /*agree=*/false, /*pairs=*/false,
      /*pair_ll16=*/0));
  Block &body = program.getBody().front();
  b.setInsertionPointToStart(&body);
  // The switch reaches a buffer through its multicast binding: the input
  // of a reduction, the output of a reduce-to-all or a copy.
  bool reduces = op != InSwitch::CopyToAll;
  auto buffer = [&](StringRef name, snac::BufferKind kind, snac::Layout layout,
                    snac::SizeSide sizes, bool multicast) {
    auto buf = snac::ProgramBufferOp::create(
        b, loc, b.getStringAttr(name), snac::BufferKindAttr::get(ctx, kind),
        snac::LayoutAttr::get(ctx, layout), snac::SizeSideAttr::get(ctx, sizes));
    buf.setMulticast(multicast);
  };
  buffer("input", snac::BufferKind::input,
         op == InSwitch::ReduceToLocal ? snac::Layout::scattered
                                       : snac::Layout::packed,
         snac::SizeSide::row, reduces);
  // The one-shot geometry: a reduction of packed inputs is as long as this
  // rank's own (row); else partition p holds p's contribution (column).
  // Only a copy or a reduce-to-all stores through the switch.
  const bool packedReduce = op == InSwitch::ReduceToAll || pull;
  buffer("output", snac::BufferKind::output,
         op == InSwitch::CopyToAll ? snac::Layout::scattered
                                   : snac::Layout::packed,
         packedReduce ? snac::SizeSide::row : snac::SizeSide::column,
         op == InSwitch::ReduceToAll || op == InSwitch::CopyToAll);
  auto input = FlatSymbolRefAttr::get(ctx, "input");
  auto output = FlatSymbolRefAttr::get(ctx, "output");
  auto sum = snac::ReductionAttr::get(ctx, Reduction::sum);
  Value epoch = snac::EpochOp::create(b, loc, b.getI64Type());
  snac::McBarrierOp::create(b, loc, epoch);
  switch (op) {
  case InSwitch::ReduceToAll:
    snac::McReduceOp::create(b, loc, sum, input, output);
    break;
  case InSwitch::ReduceToLocal:
  case InSwitch::PullAll:
    snac::McReduceLocalOp::create(b, loc, sum, input, output);
    break;
  case InSwitch::CopyToAll:
    snac::McPutOp::create(b, loc, input, output);
    break;
  }
  snac::McBarrierOp::create(b, loc, epoch);
  return program;
}

/// The one-shot program of `shot` after `after`, serving [lo, hi]:
///
///   %e = snac.epoch
///   put | put_each    the input to its consumers
///   reduce_take | take_each
snac::ProgramOp CollDeriveProgramsPass::deriveOneShot(
    CollectiveOp collective, const OneShot &shot, Operation *after,
    snac::Encoding encoding, int64_t lo, int64_t hi, int64_t ctas,
    int64_t chunk, bool agree, bool pairs, int64_t pairLL16) {
  MLIRContext *ctx = &getContext();
  Location loc = collective.getLoc();
  OpBuilder b(ctx);
  b.setInsertionPointAfter(after);
  auto program = createProgram(b, collective, snac::Variant::one_shot,
                               encoding, lo, hi, ctas, chunk, agree, pairs,
                               pairLL16);
  if (shot.root != Root::none)
    program.setRootAttr(snac::RootAttr::get(ctx, shot.root));
  Block &body = program.getBody().front();
  b.setInsertionPointToStart(&body);

  bool packedIn = fixedLayout(shot.input) == Layout::packed;
  bool packedOut = fixedLayout(shot.output) == Layout::packed;
  bool variable = isVariable(shot.input) || isVariable(shot.output);
  auto buffer = [&](StringRef name, snac::BufferKind kind, snac::Layout layout,
                    snac::SizeSide sizes) {
    snac::ProgramBufferOp::create(b, loc, b.getStringAttr(name),
                                  snac::BufferKindAttr::get(ctx, kind),
                                  snac::LayoutAttr::get(ctx, layout),
                                  snac::SizeSideAttr::get(ctx, sizes));
  };
  buffer("input", snac::BufferKind::input, shot.input,
         snac::SizeSide::row);
  // Output partition p holds what p contributes to this rank (column); a
  // reduction of packed inputs is as long as this rank's own (row).
  buffer("output", snac::BufferKind::output, shot.output,
         packedIn && packedOut ? snac::SizeSide::row : snac::SizeSide::column);
  buffer("rx", snac::BufferKind::receive,
         variable ? snac::Layout::scattered_v : snac::Layout::scattered,
         snac::SizeSide::column);
  auto rx = FlatSymbolRefAttr::get(ctx, "rx");
  auto input = FlatSymbolRefAttr::get(ctx, "input");
  auto output = FlatSymbolRefAttr::get(ctx, "output");

  Value zero;
  Value epoch = snac::EpochOp::create(b, loc, b.getI64Type());
  auto partZero = [&] {
    if (!zero) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(epoch.getDefiningOp());
      zero = arith::ConstantIndexOp::create(b, loc, 0);
    }
    return zero;
  };

  // Push: a packed input is every consumer's; partition k of a scattered
  // input is rank k's, every k in one op (the device then issues the loads
  // of every peer's partition before the stores, docs/snac.md).
  if (packedIn)
    snac::PutOp::create(b, loc, input, partZero(), rx, epoch, Value());
  else
    snac::PutEachOp::create(b, loc, input, rx, epoch);

  // Take: a reduction combines every source into its packed output; a copy
  // places source p's region in output partition p, every p in one op.
  if (shot.consume == ConsumeOp::reduce) {
    assert(packedOut && "a legal reduction has a packed output");
    snac::ReduceTakeOp::create(
        b, loc, snac::ReductionAttr::get(ctx, *shot.reduction), rx,
        epoch, output, partZero());
  } else {
    snac::TakeEachOp::create(b, loc, rx, epoch, output);
  }
  return program;
}


/// A program of `variant` for `collective` at the builder's point: its
/// policy (work assignment left to snac-assign-work) and an empty body with
/// the (rank, world size) arguments.
snac::ProgramOp CollDeriveProgramsPass::createProgram(
    OpBuilder &b, CollectiveOp collective, snac::Variant variant,
    snac::Encoding encoding, int64_t lo, int64_t hi, int64_t ctas,
    int64_t chunk, bool agree, bool pairs, int64_t pairLL16) {
  MLIRContext *ctx = &getContext();
  Location loc = collective.getLoc();
  // ll16 and sentinel units validate themselves, so loading before
  // validating is sound there; a flag would not validate such a load.
  bool spec = speculate && encoding != snac::Encoding::flag;
  // Capacity bands: the runtime chooses among overlapping programs by the
  // module's policy table.
  if (capacityBands)
    lo = 0;
  auto policy =
      snac::PolicyAttr::get(ctx, encoding, slots, lo, hi, ctas, /*threads=*/0,
                            /*grain=*/0, /*pdl=*/true, spec, chunk, agree,
                            pairs, pairLL16);
  auto program = snac::ProgramOp::create(
      b, loc, FlatSymbolRefAttr::get(collective.getSymNameAttr()),
      snac::VariantAttr::get(ctx, variant), /*root=*/snac::RootAttr(),
      policy);
  Block &body = program.getBody().emplaceBlock();
  body.addArgument(b.getIndexType(), loc);
  body.addArgument(b.getIndexType(), loc);
  return program;
}

/// The two-shot program of a ReduceScatter-then-AllGather collective:
///
///   %e = snac.epoch
///   put_each     input partition k to rank k (`rx`), every k
///   reduce_take  every source's partition of this rank, in rank order,
///                into output partition `rank` (the one-shot bits: FP32
///                accumulation, rounded once)
///   put          that output partition to every other rank (`fwd`): a
///                forward, legal right after the reduce_take of the same
///                partition (snac.put's verifier says why)
///   take         rank q's forwarded partition into output partition q
///
/// The forwards and the takes visit peers from rank + 1 on, so that no rank
/// is everyone's first target (the batched ops cannot say that: they stay
/// loops). Each phase has its own receive buffer; every (source, consumer)
/// pair exchanges one region of each every call (an empty partition still
/// publishes its padding unit), so two slots are enough for both.
snac::ProgramOp CollDeriveProgramsPass::deriveTwoShot(
    CollectiveOp collective, const OneShot &shot, Operation *after,
    snac::Encoding encoding, int64_t lo, int64_t hi, int64_t ctas,
    int64_t chunk) {
  MLIRContext *ctx = &getContext();
  Location loc = collective.getLoc();
  OpBuilder b(ctx);
  b.setInsertionPointAfter(after);
  auto program = createProgram(b, collective, snac::Variant::two_shot,
                               encoding, lo, hi, ctas, chunk);
  Block &body = program.getBody().front();
  Value rank = body.getArgument(0);
  Value n = body.getArgument(1);
  b.setInsertionPointToStart(&body);

  auto buffer = [&](StringRef name, snac::BufferKind kind,
                    snac::SizeSide sizes) {
    snac::ProgramBufferOp::create(b, loc, b.getStringAttr(name),
                                  snac::BufferKindAttr::get(ctx, kind),
                                  snac::LayoutAttr::get(ctx, snac::Layout::scattered),
                                  snac::SizeSideAttr::get(ctx, sizes));
  };
  // A reduction's partitions have one size on every rank, so output
  // partition q is sized by this rank's row like the input's; the region
  // from source p holds p's share of this rank's partition (column), the
  // forwarded one p's reduced partition (row).
  buffer("input", snac::BufferKind::input, snac::SizeSide::row);
  buffer("output", snac::BufferKind::output, snac::SizeSide::row);
  buffer("rx", snac::BufferKind::receive, snac::SizeSide::column);
  buffer("fwd", snac::BufferKind::receive, snac::SizeSide::row);
  auto input = FlatSymbolRefAttr::get(ctx, "input");
  auto output = FlatSymbolRefAttr::get(ctx, "output");
  auto rx = FlatSymbolRefAttr::get(ctx, "rx");
  auto fwd = FlatSymbolRefAttr::get(ctx, "fwd");

  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value epoch = snac::EpochOp::create(b, loc, b.getI64Type());
  // A loop over i in [1, n): the forwards and the takes.
  auto loop = [&](function_ref<void(Value)> bodyFn) {
    auto op = scf::ForOp::create(b, loc, one, n, one);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(op.getBody());
    bodyFn(op.getInductionVar());
  };
  // The i-th peer after this rank: (rank + i) mod n, i in [1, n).
  auto peer = [&](Value i) {
    Value sum = arith::AddIOp::create(b, loc, rank, i);
    return arith::RemUIOp::create(b, loc, sum, n).getResult();
  };

  // The reduce-scatter phase's exchange is one-shot ReduceScatter's: every
  // partition k to rank k in one op (the device issues every peer's loads of
  // a thread-step before its stores, docs/snac.md).
  snac::PutEachOp::create(b, loc, input, rx, epoch);
  snac::ReduceTakeOp::create(
      b, loc, snac::ReductionAttr::get(ctx, *shot.reduction), rx,
      epoch, output, rank);
  loop([&](Value i) {
    snac::PutOp::create(b, loc, output, rank, fwd, epoch, peer(i));
  });
  loop([&](Value i) {
    Value q = peer(i);
    snac::TakeOp::create(b, loc, fwd, epoch, q, output, q);
  });
  return program;
}
