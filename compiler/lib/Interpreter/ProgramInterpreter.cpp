//===- ProgramInterpreter.cpp - reference interpreter for programs -------===//
//
// Executes a snac.program (SNAC v2) for N simulated ranks. Each rank runs
// `workers` CTAs, each an agent; the work of every op is split over them the
// way the device splits it over its grid (unit u, or flag segment s, to CTA
// u mod W), so one CTA of a rank may run ahead of another. A rank's host
// writes fresh inputs before each call, launches the next call only when
// every CTA finished the previous one (stream order), and checks the output
// after it.
//
// Receive buffers are modelled unit by unit, as the device sees them plus
// what only the interpreter knows (who wrote a unit, in which call, and
// whether its consumer accepted it):
//   - ll16: 16-byte packets, 8 bytes of payload and the sequence (the
//     epoch), written atomically; a packet is ready for call e when its
//     sequence is e, and a later one is a sequence error;
//   - sentinel: 16-byte units pre-filled with all ones; ready when none of
//     the expected elements has the all-ones bits; the producer publishes a
//     value with those bits as the type's positive quiet NaN, the consumer
//     re-arms (writes all ones back) after reading;
//   - flag: 16-byte data units and, per warp segment (kSegmentUnits units),
//     a ready word the producer stores after the segment's data (release);
//     the consumer awaits the word (acquire, vector clocks) and only then
//     may read the data: a read the word does not order is a violation.
// An empty put still publishes one padding unit (a packet, a non-sentinel
// word, or the ready word), and the consumer waits for it. epoch = call
// number (the CTA's counter + 1), slot = epoch mod slots; a program's
// second receive buffer (two-shot) has the slots after the first's, as on
// the device (abi.h, collcRxBuffers).
//
// A chunked program (policy chunk > 0) runs its body once per step: a call
// takes max(1, ceil(M / (W * ce))) steps at a rank, M the largest size in
// the rank's own view of the size matrix (its row and column; a packed
// input: every rank's size), ce = SimOptions::chunkUnits units; step s has
// epoch base + s + 1 (base: the rank's steps in its earlier calls), so the
// slot rotates every step. CTA h's part of an op in step s is elements
// [(s * W + h) * c, + c) of the partition, c = min(ce, ceil(count /
// (steps * W)) rounded up to a unit), count the partition's in a program
// with a `_v` buffer, else M (balanced parts, as the device's: a call
// below a step spreads over every CTA, skewed `_v` partitions too), in
// units h * U + u of the
// region (U = chunk units; flag: one segment, ready word h), an empty part
// one padding unit. Units record their writer's call and step, so ranks
// that count different steps are caught even where epochs coincide.
//
// A forward (a put from the output, two-shot) reads back output elements
// with no wait: each must have been written in this call by the same CTA,
// which is the unit-to-thread argument of snac.put's verifier, checked.
//
// Speculation (ll16, sentinel): a take loads every source's unit of a step
// without waiting (SpecRead: a snapshot of the unit as it is at that
// moment, which may be stale: another call's packet, the fill, a re-armed
// sentinel), then validates all of them in one check (Validate: the
// encoding's test on the snapshot, never on the live unit), waits only for
// the units that failed and reloads them (Settle), and only then uses
// them (Use). The rule is "every accepted read is validated": a snapshot
// accepted by Validate or Settle must hold this call's data from its
// source, checked on what was loaded, whatever the output comes to.
//
//===----------------------------------------------------------------------===//

#include "collc/Interpreter/Interpreter.h"

#include "Common.h"
#include "collc/device/snac/abi.h"
#include "collc/vocab.h"
#include "Search.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <climits>
#include <map>
#include <memory>
#include <random>
#include <tuple>
#include <unordered_map>

using namespace mlir;
using namespace collc;
using namespace collc::interp;
using llvm::formatv;

namespace {

enum Encoding { kFlag = 0, kLL16 = 1, kSentinel = 2 };
const char *encodingName(int e) {
  return e == kFlag ? "flag" : e == kLL16 ? "ll16" : "sentinel";
}

/// Data units per flag warp segment in the model (a warp moves 32 x 16
/// bytes; two units keep simulations small and still split segments).
constexpr int64_t kSegmentUnits = 2;


struct UnitKey {
  int owner, slot, source;
  int64_t unit;
  bool operator==(const UnitKey &o) const {
    return owner == o.owner && slot == o.slot && source == o.source &&
           unit == o.unit;
  }
};
struct UnitKeyHash {
  size_t operator()(const UnitKey &k) const {
    return llvm::hash_combine(k.owner, k.slot, k.source, k.unit);
  }
};
using UnitMap = std::unordered_map<UnitKey, struct Unit, UnitKeyHash>;

/// A receive-buffer unit (or, with `isWord`, a flag ready word).
struct Unit {
  std::vector<uint32_t> elems; // sentinel: all ones while armed
  int64_t seq = 0;             // ll16 sequence; flag word value
  int writer = -1;             // rank; -1: never written
  int64_t writerEpoch = 0;
  /// The writer's call and step (chunked programs: the epoch alone does not
  /// say which call wrote it when ranks count different steps).
  int writerCall = -1;
  int64_t writerStep = 0;
  int writerAgent = -1;
  uint32_t writeTime = 0;
  std::shared_ptr<const Clock> clock; // flag word: the release
  bool accepted = true; // the consumer took the last write
  bool armed = true;    // sentinel
  Operation *writeOp = nullptr;
  /// What the unit held before this write (without its own `prev`): what a
  /// load not ordered after the write may still return.
  std::shared_ptr<const Unit> prev;
  /// Zero-copy: the ready word also says where the partition is in its
  /// writer's own buffer (the input, or the output for a forward).
  int64_t where = -1;
  bool whereOutput = false;
  /// With a trace: the flow of this write (Trace::flowStart), -1 without.
  int64_t flow = -1;
};

struct PStep {
  enum Kind {
    Put,
    Word,
    Take,
    AwaitWord,
    Read,
    Rearm,
    SpecRead,
    Validate,
    Settle,
    Use,
    /// Zero-copy: read a unit of the source's own buffer, where the ready
    /// word `word` (slot `slot`) says its partition is.
    PeerRead,
    /// Staged chunked flag: a take from this rank itself reads the part it
    /// put to itself where it lies (its input, or output when `forward`),
    /// at `from`: no region, no ready word.
    SelfRead,
    /// In-switch (multimem): elements [from, from + count) of this rank's
    /// shard of every rank's input, reduced, stored to every rank's output
    /// (McReduceAll); of partition `rank` of every rank's input into this
    /// rank's output (McReduceLocal); of this rank's input into partition
    /// `rank` of every rank's output (McPutAll).
    McReduceAll,
    McReduceLocal,
    McPutAll
  } kind;
  Operation *op;
  int peer = -1;     // Put, Word: target rank; others: source rank
  int64_t unit = 0;  // unit (Word, AwaitWord: segment)
  int64_t count = 0; // elements in this unit (0: padding)
  int64_t from = 0;  // Put: input offset; PeerRead: offset in the partition
  int64_t word = 0;  // PeerRead: the ready word that published the partition
  int64_t to = -1;   // Take, Read: output offset (-1: reduce accumulator)
  int slot = 0;
  /// The epoch of the step (call + 1 unchunked) and the step within the
  /// call (0 unchunked); tag: what a put publishes (the epoch but for the
  /// sequence faults).
  int64_t epoch = 0, tag = 0, step = 0;
  bool canonicalize = true;
  bool forward = false; // Put: from the output (two-shot)
  /// Word, AwaitWord: an arrival counter (snac.mc_barrier), which only
  /// grows: a later arrival may overwrite one not yet awaited, and an await
  /// is satisfied by any count at least its own.
  bool counter = false;
  /// Validate: false under the fault validation-skipped (every snapshot is
  /// accepted as loaded).
  bool validate = true;
  /// Reduce: the index of this unit in the agent's accumulator, and whether
  /// this source is the last (then the output is written).
  int64_t accIndex = -1;
  bool last = false;
  sim::RedOp red = sim::RedOp::Sum;
  /// Reduce (a spread's): the rank whose output `to` indexes (-1: this
  /// one's).
  int owner = -1;
};

/// A speculative load: what the unit held when it was read.
struct Snapshot {
  Unit content;
  /// Exhaustive mode: the older content the same load could have returned
  /// (the unit before this call's write), checked too.
  std::shared_ptr<const Unit> stale;
  int64_t count = 0;
  bool validated = false; // accepted by Validate or Settle
  bool failed = false;    // Validate found it not ready: Settle waits
};

struct Agent {
  int rank, worker;
  std::shared_ptr<const std::vector<PStep>> steps;
  size_t pc = 0;
  /// Reduce accumulators: contributions in rank order, per element.
  std::map<int64_t, std::vector<std::vector<uint32_t>>> acc;
  /// Speculation: the loads of the current step, by (source, unit).
  std::map<std::pair<int, int64_t>, Snapshot> snaps;
  bool done() const { return !steps || pc >= steps->size(); }
  const PStep &next() const { return (*steps)[pc]; }
};

struct BufferInfo {
  snac::BufferKind kind;
  bool packed;
  /// Receive buffers: the first slot of this buffer's regions, and how many
  /// it rotates through (1 with the early-reuse fault on this buffer).
  int firstSlot = 0, slots = 0;
  /// Zero-copy: the regions are the producers' own buffers.
  bool inPlace = false;
  /// Staged chunked flag: a rank's part for itself may skip this buffer
  /// (receive buffer 0, as the device's kSelfDirect).
  bool selfDirect = false;
  /// For its geometry (getSizeEntry: the one home of that rule).
  mutable snac::ProgramBufferOp op;
};

enum ObjectKind { UnitObj = FirstModelObj, WordObj };

/// Where one CTA's steps of one op are unrolled: the call, the step of a
/// chunked program (0 otherwise) and its epoch; with pair steps (policy
/// pairs) the epoch and the steps of the one pair an op's peer makes with
/// this rank (`steps` -1: the call's, stepsOf).
struct StepCtx {
  int rank, worker, call;
  int64_t step, epoch;
  int64_t steps = -1;
  /// Pair steps with pair_ll16: this pair (direction) exchanges by LL16
  /// packets in the LL16 area (its own slots), no ready word.
  bool small = false;
};

/// A unit of one CTA's share of an op: its index in the receive region,
/// its elements (0: the padding unit) and their offset in the partition.
struct Slice {
  int64_t unit, count, offset;
};
/// One CTA's share of an op, in the order it moves it: flag segments (each
/// published by its ready word `word`); for ll16 and sentinel one unit each
/// (`word` unused).
struct Share {
  struct Segment {
    int64_t word;
    std::vector<Slice> units;
  };
  std::vector<Segment> segments;
  /// Only the padding unit: the partition (or, chunked, the CTA's part of
  /// it in this step) is empty.
  bool padding = false;
};

/// The model's mutable state besides the agents, clocks and calls.
struct ProgramState {
  UnitMap units, words;
  std::vector<std::vector<uint32_t>> outputs;
  std::vector<std::vector<int>> written, writtenBy;
  std::vector<uint32_t> hostTick;
};

class ProgramSimulator : public SimulatorBase<Agent, PStep, ProgramState> {
public:
  ProgramSimulator(snac::ProgramOp program, coll::CollectiveOp collective,
                   const SimOptions &options)
      : SimulatorBase(program, collective, options), program(program),
        W(std::max(1, options.workers)) {}

private:
  bool prepare() override;
  /// Partition j's element count of buffer `b` at rank r in `call`.
  int64_t sizeOf(const BufferInfo &b, int call, int r, int64_t j) const {
    auto [p, k] = b.op.getSizeEntry<int64_t>(r, j, 0);
    return sizes[call][p][k];
  }
  int64_t partsOf(const BufferInfo &b) const { return b.packed ? 1 : n; }
  /// The slot of receive buffer `rx` that epoch `epoch` uses (unchunked:
  /// epoch = call + 1; chunked: one epoch per step).
  static int slotOf(const BufferInfo &rx, int64_t epoch) {
    return rx.firstSlot + static_cast<int>(epoch % rx.slots);
  }
  int64_t offsetOf(const BufferInfo &b, int call, int r, int64_t j) const {
    int64_t off = 0;
    for (int64_t i = 0; i < j; ++i)
      off += sizeOf(b, call, r, i);
    return off;
  }
  int64_t totalOf(const BufferInfo &b, int call, int r) const {
    return offsetOf(b, call, r, partsOf(b));
  }
  bool unroll(int id, int call, std::vector<PStep> &steps) override;
  bool evalBlock(Block &block, llvm::DenseMap<Value, int64_t> &env,
                 std::vector<PStep> &steps, const StepCtx &c);
  /// One CTA's steps of a put of partition `part` of `srcRef` to `targets`
  /// (snac.put, and each k of snac.put_each).
  bool putSteps(Operation *op, FlatSymbolRefAttr srcRef,
                FlatSymbolRefAttr dstRef, int64_t part, ArrayRef<int> targets,
                std::vector<PStep> &steps, const StepCtx &c);
  /// One CTA's steps of a take of `sources` into partition `part` of
  /// `dstRef`, reduced with `red` when set (snac.take, snac.reduce_take,
  /// and each p of snac.take_each).
  bool takeSteps(Operation *op, FlatSymbolRefAttr srcRef,
                 FlatSymbolRefAttr dstRef, int64_t part, ArrayRef<int> sources,
                 std::optional<sim::RedOp> red, std::vector<PStep> &steps,
                 const StepCtx &c);
  /// CTA `c.worker`'s share of an op on a partition of `count` elements in
  /// step `c.step`; fails (at `op`) when a chunked partition does not fit
  /// the call's steps.
  bool shareOf(Operation *op, int64_t count, const StepCtx &c, Share &share);
  /// The steps a chunked program's call takes at `rank`, from the rank's
  /// own view of the size matrix (docs/snac.md, "Chunked programs"); 1
  /// unchunked.
  int64_t largestAt(const std::vector<std::vector<int64_t>> &m,
                    int rank) const;
  int64_t stepsAt(const std::vector<std::vector<int64_t>> &m, int rank) const;
  /// The elements of a CTA's part of a partition of `count` elements in a
  /// chunked call of `steps` steps: min(ce, ceil(count / (steps * W))
  /// rounded up to a unit), as the device's.
  int64_t partFor(int64_t count, int64_t steps) const;
  /// Pair steps: the context of peer `peer`'s pair at step c.step, its
  /// epoch and steps by direction (`put`: this rank to the peer, else the
  /// peer to this rank, which differ only under pair-steps-one-sided);
  /// nullopt when that pair has no such step.
  std::optional<StepCtx> pairCtx(const StepCtx &c, int peer, bool put) const;
  /// "call 2", or "call 2 step 1" in a chunked program: for messages.
  std::string when(int call, int64_t step) const {
    return chunked ? formatv("call {0} step {1}", call, step).str()
                   : formatv("call {0}", call).str();
  }
  bool bufferOf(Operation *op, FlatSymbolRefAttr ref, snac::BufferKind kind,
                const BufferInfo *&info);
  bool ranksOf(Operation *op, Value v, const char *verb, int call, int rank,
               const llvm::DenseMap<Value, int64_t> &env,
               SmallVector<int> &out);
  /// Flag warp segments of `dataUnits` units (one, the ready word alone,
  /// for padding).
  static int64_t segmentsOf(int64_t dataUnits) {
    return std::max<int64_t>(1, (dataUnits + kSegmentUnits - 1) /
                                    kSegmentUnits);
  }
  int64_t unitsFor(int64_t count) const {
    return count == 0 ? 1 : (count + unitElems - 1) / unitElems;
  }

  // Execution.
  bool agentCanStep(Agent &a) override;
  bool stepAgent(Agent &agent) override;
  bool peerRead(Agent &agent, const PStep &s);
  bool selfRead(Agent &agent, const PStep &s);
  /// Whether rank `rank`'s call `call` reads its own parts where they lie
  /// (receive buffers with selfDirect). The device decides by alignment
  /// (program.cuh recordSelf: 16-byte aligned, whole vectors), which the
  /// model has no addresses for: it takes both paths, by the parity of
  /// call + rank, so every run has ranks of each kind.
  static bool selfDirectCall(int call, int rank) {
    return (call + rank) % 2 == 0;
  }
  /// Unrolling one step of one CTA: per receive buffer, where the part the
  /// CTA put to itself lies (forwarded: in the output), for its takes.
  struct SelfSource {
    bool forward = false;
    int64_t from = 0;
  };
  std::map<const BufferInfo *, SelfSource> selfSources;
  /// One CTA's steps of a snac.reduce_spread: its piece of the call's
  /// partitions in rank order (as the device cuts it), every source awaited,
  /// then each element read from every source's input in place, reduced,
  /// and stored at its owner's output.
  bool spreadSteps(snac::ReduceSpreadOp op, std::vector<PStep> &steps,
                   const StepCtx &c);
  /// snac.retire: this CTA's word to every rank, then every rank's awaited.
  void retireSteps(Operation *op, std::vector<PStep> &steps, const StepCtx &c);
  /// `base` as a word to every rank (this one included), then every rank's
  /// awaited: the all-to-all of retire and of a barrier.
  void exchangeWords(const PStep &base, std::vector<PStep> &steps) const;
  /// snac.mc_barrier: this CTA's arrival at every rank's counter, then
  /// every rank's arrival awaited.
  void mcBarrierSteps(Operation *op, std::vector<PStep> &steps,
                      const StepCtx &c);
  /// The in-switch data ops: this CTA's units of its rank's share.
  bool mcSteps(Operation *op, PStep::Kind kind, std::vector<PStep> &steps,
               const StepCtx &c);
  bool mcStep(Agent &agent, const PStep &s);
  /// Whether rank `peer`'s buffers may be touched by `me` now: `peer` runs
  /// this call and its host's start of it happens before (a barrier).
  bool mcLive(Agent &agent, const PStep &s, int peer, const char *what);
  bool stepHost(int rank) override;
  bool ready(const Unit &u, const PStep &s) const;
  bool accept(Agent &agent, const PStep &s, Unit &u, const char *what,
              StringRef speculative = {});
  bool passes(const Snapshot &snap, const PStep &validate,
              const PStep &view) const {
    return !validate.validate || ready(snap.content, view);
  }
  bool consume(Agent &agent, const PStep &s, const Unit &u);
  bool validate(Agent &agent, const PStep &s);
  std::string who(int agent) const;
  std::string where(int owner, int slot, int source, int64_t unit,
                    bool word = false) const;
  std::string blockedOn(const Agent &agent);
  bool reportDeadlock() override;
  bool checkEnd() override;
  std::string subject() override;
  int trackOf(const Agent &agent, std::string &name) const override {
    name = "CTA " + std::to_string(agent.worker);
    return agent.worker + 1;
  }
  void describeStep(const Agent &agent, std::string &name,
                    Trace::Args &args) override;
  int64_t tagOf(const Unit &u) const {
    return encoding == kSentinel ? (u.armed ? 0 : std::max<int64_t>(1, u.writerEpoch))
                                 : u.seq;
  }
  bool readyFor(int64_t tag, int64_t epoch) const {
    return encoding == kSentinel ? tag != 0 : tag >= epoch;
  }

  // The search and the seeded walk.
  int preferred() override;
  void agentTouches(const Agent &a, std::vector<Touch> &t) override;
  bool objectCoEnabled(const Access &before,
                       const Touch &now) const override;
  ProgramState save() const override {
    return {units, words, outputs, written, writtenBy, hostTick};
  }
  void restore(const ProgramState &s) override {
    units = s.units;
    words = s.words;
    outputs = s.outputs;
    written = s.written;
    writtenBy = s.writtenBy;
    hostTick = s.hostTick;
  }

  snac::ProgramOp program;
  int W;
  int encoding = kLL16, slots = 2;
  bool speculate = false;
  int64_t elemBytes = 4, unitElems = 1, bandLo = 0, bandHi = 0;
  /// Payload bytes of a receive region (abi.h: the band's hi, or one
  /// partition of it for two-shot); unchunked programs only.
  int64_t regionPayload = 0;
  /// Chunked programs (policy chunk > 0): the model's chunk, in units
  /// (SimOptions::chunkUnits) and in elements (ce = units * unitElems),
  /// what one CTA moves of a partition per step.
  bool chunked = false;
  int64_t chunkUnits = 0, ce = 0;
  /// Zero-copy (in_place receive buffers): takes read the producers' own
  /// buffers; retire words live in a slot of their own.
  bool zeroCopy = false;
  /// Parts sized per partition (ProgramOp::hasVariablePartitions).
  bool perPartParts = false;
  /// Agreed steps (policy agree, not under the fault agree-skipped): every
  /// CTA publishes the steps its rank counts to every peer (a Word, unit
  /// W + worker of region (slot of the first step, rank), as the device's
  /// agreement word) and awaits theirs before its first step; the steps
  /// are counted from the largest size of the whole matrix.
  bool agree = false;
  /// Pair steps (policy pairs): each pair {p, q} runs the steps of the
  /// larger of its two counts (m[p][q], m[q][p]: p's row, q's column) with
  /// its own epochs, the sum of its steps in the calls before (the device's
  /// per-peer counters); under the fault pair-steps-one-sided each
  /// direction counts its own count's steps.
  bool pairs = false, oneSided = false;
  /// Small pairs by LL16 (policy pair_ll16): a pair whose larger count is
  /// at most `smallMax` elements (pair_ll16 scaled from the policy's chunk
  /// to the model's: pair_ll16 / chunk of a step of W model chunks) puts
  /// its one step's parts as self-validating units into the LL16 area,
  /// slots from kLLSlot; under the fault pair-ll16-one-sided each rank
  /// judges a pair by its own count only (what it sends the peer).
  int64_t pairLL16 = 0, smallMax = -1;
  bool llOneSided = false;
  static constexpr int kLLSlot = (1 << 20) + 2;
  snac::EpochOp epochOp;
  static constexpr int kRetireSlot = 1 << 20;
  /// In-switch (variant multimem): the barriers' arrival counters live in
  /// a slot of their own, one per CTA; a call passes `mcBarriers` of them.
  static constexpr int kMcSlot = (1 << 20) + 1;
  bool multimem = false;
  int64_t mcBarriers = 0;
  llvm::DenseMap<Operation *, int64_t> mcBarrierIndex;
  bool reduces = false;
  llvm::StringMap<BufferInfo> buffers;
  const BufferInfo *input = nullptr, *output = nullptr;

  std::vector<sim::CallArgs> callArgs;
  std::vector<std::vector<std::vector<int64_t>>> sizes; // [call][rank][col]
  /// [call][rank]: the steps of the call (1 unchunked) and the CTA counter
  /// before it (the steps of the earlier calls): epoch of step s = base +
  /// s + 1.
  std::vector<std::vector<int64_t>> stepsOf, baseOf;
  /// Pair steps: [call][rank][peer], the steps and the epoch base of the
  /// direction rank -> peer (put) and peer -> rank (take).
  using PairTable = std::vector<std::vector<std::vector<int64_t>>>;
  PairTable pairPutSteps, pairPutBase, pairTakeSteps, pairTakeBase;
  /// pair_ll16: [call][rank][peer], 1 where that direction is small.
  PairTable pairPutSmall, pairTakeSmall;
  /// [call][rank]: the largest size the rank sees (what a fixed program's
  /// parts are cut by).
  std::vector<std::vector<int64_t>> largestOf;
  std::vector<std::vector<std::vector<uint32_t>>> inputs;
  std::vector<std::vector<std::optional<std::vector<uint32_t>>>> expected;

  // agents: [rank * W + worker]; clocks: [agent], then one per host.
  UnitMap units, words;
  std::vector<std::vector<uint32_t>> outputs;
  std::vector<std::vector<int>> written; // [rank][element]: call, -1
  std::vector<std::vector<int>> writtenBy; // [rank][element]: agent
  /// [rank]: the host's clock entry when it started the rank's current
  /// call (wrote the inputs, poisoned the output).
  std::vector<uint32_t> hostTick;
};

} // namespace

namespace {
/// The fault snac-test-inject-fault marked `op` with, or "".
StringRef faultOf(Operation *op) {
  auto a = op->getAttrOfType<StringAttr>("snac.test_fault");
  return a ? a.getValue() : StringRef();
}
} // namespace

//===----------------------------------------------------------------------===//
// Setup
//===----------------------------------------------------------------------===//

bool ProgramSimulator::prepare() {
  snac::PolicyAttr policy = program.getPolicy();
  encoding = o.encoding >= 0 ? o.encoding
                             : static_cast<int>(policy.getEncoding());
  slots = o.stagingSlots >= 1 ? o.stagingSlots : policy.getSlots();
  speculate = encoding != kFlag &&
              (o.speculate >= 0 ? o.speculate != 0 : policy.getSpeculate());
  // Test only (snac-test-inject-fault): the slot of the previous call.
  if (program->hasAttr("snac.test_fault"))
    slots = 1;
  bandLo = policy.getBandLo();
  bandHi = policy.getBandHi();
  elemBytes = std::max(1u, sim::elemBits(o.type) / 8);
  unitElems = std::max<int64_t>(1, (encoding == kLL16 ? 8 : 16) / elemBytes);
  // The model's chunk: a few units, so that small calls take several steps.
  chunked = policy.isChunked();
  zeroCopy = program.isZeroCopy();
  multimem = program.isMultimem();
  perPartParts = program.hasVariablePartitions();
  for (auto b : program.getBody().front().getOps<snac::McBarrierOp>())
    mcBarrierIndex[b] = mcBarriers++;
  for (auto e : program.getBody().front().getOps<snac::EpochOp>())
    epochOp = e;
  // Test only (agree-skipped): each rank counts from its own view.
  agree = policy.getAgree() &&
          !(epochOp && faultOf(epochOp) == "agree-skipped");
  pairs = policy.getPairs();
  oneSided = pairs && epochOp && faultOf(epochOp) == "pair-steps-one-sided";
  pairLL16 = pairs ? policy.getPairLl16() : 0;
  llOneSided = pairLL16 && epochOp && faultOf(epochOp) == "pair-ll16-one-sided";
  chunkUnits = std::max<int64_t>(1, o.chunkUnits);
  ce = chunkUnits * unitElems;
  // An output any part reduced (AllReduce's copy carries reduced values).
  reduces = llvm::any_of(model.parts, [](const sim::Transform &t) {
    return t.consume == sim::Consume::Reduce;
  });
  for (auto b : program.getBody().front().getOps<snac::ProgramBufferOp>()) {
    BufferInfo info{b.getKind(), b.isPacked()};
    info.op = b;
    info.inPlace = b.getInPlace();
    if (b.getKind() == snac::BufferKind::receive) {
      info.firstSlot = program.getReceiveIndex(b) * slots;
      info.selfDirect = chunked && encoding == kFlag && !b.getInPlace() &&
                        program.getReceiveIndex(b) == 0;
      // Test only: this buffer alone reuses its slot one call early.
      auto fault = b->getAttrOfType<StringAttr>("snac.test_fault");
      info.slots = fault && fault.getValue() == "program-early-slot-reuse"
                       ? 1
                       : slots;
    }
    buffers[b.getSymName()] = info;
  }
  int variant = program.getVariant() == snac::Variant::two_shot
                    ? COLLC_VARIANT_TWO_SHOT
                    : COLLC_VARIANT_ONE_SHOT;
  // A chunked region holds one step (a chunk per CTA) whatever the band;
  // an in-switch program has no region.
  if (!chunked && !multimem)
    regionPayload = static_cast<int64_t>(collcRxPayloadBytes(
        variant, static_cast<unsigned long long>(bandHi), n));
  for (auto &[name, b] : buffers) {
    if (b.kind == snac::BufferKind::input)
      input = &b;
    if (b.kind == snac::BufferKind::output)
      output = &b;
  }
  if (!input || !output)
    return fail(nullptr, "the program has no input or output buffer");
  bool rooted = llvm::any_of(model.parts, [](const sim::Transform &t) {
    return t.root != sim::Root::None;
  });
  auto shape = static_cast<vocab::Root>(program.getRootShape());
  if (rooted != (shape != vocab::Root::None))
    return fail(nullptr, rooted ? "the collective is rooted but the program "
                                  "has no `root` sizing rule"
                                : "the program has a `root` sizing rule but "
                                  "the collective is not rooted");

  // Calls: sizes within the band (and small), inputs and expected outputs.
  for (int call = 0; call < o.calls; ++call) {
    uint64_t callSeed = o.seed * 1000003u + call * 7919u + 17;
    int64_t perRank = model.parts[0].in == sim::Layout::Packed ? 1 : n;
    int64_t most = std::max<int64_t>(0, bandHi / (elemBytes * perRank));
    int64_t count;
    bool drawn = false;
    if (!o.counts.empty())
      count = o.counts[call % o.counts.size()];
    else if (o.count >= 0)
      count = o.count;
    else {
      // A few units per CTA and rank's input: enough to split the work,
      // small enough for 72 ranks. Chunked: up to three steps of every CTA
      // (fewer from 16 ranks on, a one-shot program moving n^2 regions a
      // step), so that calls take one, two and several steps.
      int64_t perStep = W * ce;
      int64_t cap = !chunked ? std::max<int64_t>(1, 3 * W * unitElems / perRank)
                    : perRank <= 8 ? 3 * perStep
                                   : std::max<int64_t>(perStep + 1,
                                                       24 * perStep / perRank);
      count = static_cast<int64_t>(rng() % (std::min(cap, most) + 1));
      if (rng() % 8 == 0u)
        count = 0;
      drawn = true;
    }
    // Sizes below the band's lo are run too: nothing in a program depends
    // on lo (the runtime sends such calls to another kernel), and small
    // calls keep the search tractable for a band that starts high
    // (two-shot's).
    // The root moves every call: consecutive calls have different roots,
    // so a slot reused across them is written by a new producer.
    int root = rooted ? static_cast<int>((o.seed + call) % n) : 0;
    sim::CallArgs args;
    std::vector<std::vector<int64_t>> m;
    for (;;) {
      args = sim::makeCallArgs(model, n, root, o.shape, count, callSeed);
      // The program's size matrix from the call's, as the runtime forms it
      // (vocab::programSize); the reference below is the collective's own.
      const int sParts = static_cast<int>(args.sizes[0].size());
      std::vector<long long> flat;
      for (const std::vector<int64_t> &row : args.sizes)
        flat.insert(flat.end(), row.begin(), row.end());
      m.assign(n, {});
      for (int r = 0; r < n; ++r) {
        sim::BufferGeometry g = sim::inputGeometry(model, args, 0, r);
        if (program.getVariant() == snac::Variant::two_shot)
          // The runtime's split of a typed AllReduce's count: uneven, and
          // empty partitions for small counts (padding units).
          for (int k = 0; k < n; ++k)
            m[r].push_back(collcEvenSplitAt(g.total, n, elemBytes, k));
        else if (!input->packed && sParts != n &&
                 shape != vocab::Root::Consumer)
          return fail(nullptr, "the program's input is scattered but the "
                               "collective's is packed");
        else
          for (int k = 0; k < (input->packed ? 1 : n); ++k)
            m[r].push_back(vocab::programSize(shape, root, flat.data(), sParts,
                                              input->packed ? 1 : n, r, k));
      }
      // A drawn size whose skew puts one huge partition in a chunked call
      // is halved until the call takes a few steps (cost: n^2 regions a
      // step).
      if (!drawn || !chunked || count == 0)
        break;
      int64_t longest = 0;
      for (int r = 0; r < n; ++r)
        longest = std::max(longest, stepsAt(m, r));
      if (longest <= (n <= 8 ? 4 : 2))
        break;
      count /= 2;
    }
    std::vector<std::vector<uint32_t>> in;
    for (int r = 0; r < n; ++r) {
      sim::BufferGeometry g = sim::inputGeometry(model, args, 0, r);
      int64_t bytes = g.total * elemBytes;
      if (bytes > bandHi)
        return fail(nullptr,
                    formatv("call {0}: rank {1}'s input of {2} bytes is "
                            "outside the program's band [{3}, {4}]: choose "
                            "counts within it",
                            call, r, bytes, bandLo, bandHi));
      in.push_back(o.specialInputs
                       ? sim::specialInput(model, o.type, g.total, callSeed, r)
                       : sim::randomInput(model, o.type, g.total, callSeed, r));
    }
    // The steps of the call at each rank, and the CTA counter before it.
    std::vector<int64_t> stepCounts(n), bases(n, 0), largest(n);
    for (int r = 0; r < n; ++r) {
      stepCounts[r] = stepsAt(m, r);
      largest[r] = largestAt(m, r);
      if (call > 0)
        bases[r] = baseOf.back()[r] + stepsOf.back()[r];
    }
    if (pairs) {
      // Each direction's steps and the epochs before them; a rank loops
      // over the most steps any of its pairs runs.
      auto stepsFor = [&](int64_t count) {
        return std::max<int64_t>(1, (count + W * ce - 1) / (W * ce));
      };
      std::vector<std::vector<int64_t>> ps(n, std::vector<int64_t>(n)),
          ts = ps, pb = ps, tb = ps, psm = ps, tsm = ps;
      if (pairLL16 && smallMax < 0)
        smallMax = std::max<int64_t>(
            1, pairLL16 * W * ce / program.getPolicy().getChunk());
      for (int r = 0; r < n; ++r) {
        stepCounts[r] = 0;
        for (int k = 0; k < n; ++k) {
          int64_t pair = stepsFor(std::max(m[r][k], m[k][r]));
          ps[r][k] = oneSided ? stepsFor(m[r][k]) : pair;
          ts[r][k] = oneSided ? stepsFor(m[k][r]) : pair;
          if (pairLL16) {
            const int64_t most = std::max(m[r][k], m[k][r]);
            // Under the fault a rank judges both directions of a pair by
            // what it sends: its peer, by what that one sends.
            psm[r][k] = tsm[r][k] = (llOneSided ? m[r][k] : most) <= smallMax;
          }
          if (call > 0) {
            pb[r][k] = pairPutBase.back()[r][k] + pairPutSteps.back()[r][k];
            tb[r][k] = pairTakeBase.back()[r][k] + pairTakeSteps.back()[r][k];
          }
          stepCounts[r] = std::max({stepCounts[r], ps[r][k], ts[r][k]});
        }
      }
      pairPutSteps.push_back(std::move(ps));
      pairTakeSteps.push_back(std::move(ts));
      pairPutBase.push_back(std::move(pb));
      pairTakeBase.push_back(std::move(tb));
      pairPutSmall.push_back(std::move(psm));
      pairTakeSmall.push_back(std::move(tsm));
    }
    stepsOf.push_back(std::move(stepCounts));
    largestOf.push_back(std::move(largest));
    baseOf.push_back(std::move(bases));
    callArgs.push_back(args);
    sizes.push_back(std::move(m));
    expected.push_back(sim::reference(model, args, o.type, in));
    inputs.push_back(std::move(in));
    for (int r = 0; r < n; ++r) {
      const auto &want = expected.back()[r];
      int64_t total = totalOf(*output, call, r);
      if (want && static_cast<int64_t>(want->size()) != total)
        return fail(nullptr,
                    formatv("call {0}: rank {1}'s output holds {2} elements "
                            "by the program's geometry, {3} by the "
                            "collective's definition",
                            call, r, total, want->size()));
    }
  }

  agents.clear();
  for (int r = 0; r < n; ++r)
    for (int w = 0; w < W; ++w)
      agents.push_back(Agent{r, w, nullptr, 0, {}});
  clocks.assign(n * W + n, Clock(n * W + n, 0));
  rankCall.assign(n, -1);
  rankFinished.assign(n, false);
  outputs.assign(n, {});
  written.assign(n, {});
  writtenBy.assign(n, {});
  hostTick.assign(n, 0);
  return true;
}

bool ProgramSimulator::bufferOf(Operation *op, FlatSymbolRefAttr ref,
                                snac::BufferKind kind,
                                const BufferInfo *&info) {
  auto it = buffers.find(ref.getValue());
  if (it == buffers.end() || it->second.kind != kind)
    return fail(op, formatv("'{0}' is not a buffer of the expected kind",
                            ref.getValue()));
  info = &it->second;
  return true;
}

//===----------------------------------------------------------------------===//
// Unrolling: one CTA's steps for one call
//===----------------------------------------------------------------------===//

bool ProgramSimulator::evalBlock(Block &block,
                                 llvm::DenseMap<Value, int64_t> &env,
                                 std::vector<PStep> &steps, const StepCtx &c) {
  auto get = [&](Value v) { return env.lookup(v); };
  int rank = c.rank, call = c.call;
  for (Operation &op : block) {
    std::string error;
    if (std::optional<bool> done =
            evalStructured(op, env, error, [&](Block &body) {
              return evalBlock(body, env, steps, c);
            })) {
      if (!*done)
        return error.empty() ? false : fail(&op, error);
    } else if (isa<snac::ProgramBufferOp, snac::LaunchDependentsOp>(op)) {
      // The dependent launch lets the next kernel's prologue start; its
      // griddepcontrol.wait still waits for this grid, which is the stream
      // order the hosts model.
      continue;
    } else if (auto e = dyn_cast<snac::EpochOp>(op)) {
      env[e.getEpoch()] = c.epoch;
    } else if (auto put = dyn_cast<snac::PutOp>(op)) {
      SmallVector<int> targets;
      if (!ranksOf(&op, put.getTarget(), "puts to", call, rank, env, targets))
        return false;
      if (!putSteps(&op, put.getSrcAttr(), put.getDstAttr(), get(put.getPart()),
                    targets, steps, c))
        return false;
    } else if (auto each = dyn_cast<snac::PutEachOp>(op)) {
      // Exactly the loop over k of `put partition k to rank k`: the
      // device's order (every load of a thread-step first) only reorders
      // stores to distinct regions (docs/snac.md).
      for (int k = 0; k < n; ++k) {
        // Pair steps: peer k's pair at its own epoch, if it has this step.
        std::optional<StepCtx> pc = pairs ? pairCtx(c, k, /*put=*/true) : c;
        if (pc && !putSteps(&op, each.getSrcAttr(), each.getDstAttr(), k, {k},
                            steps, *pc))
          return false;
      }
    } else if (auto take = dyn_cast<snac::TakeOp>(op)) {
      SmallVector<int> sources;
      if (!ranksOf(&op, take.getSource(), "takes from", call, rank, env,
                   sources))
        return false;
      if (!takeSteps(&op, take.getSrcAttr(), take.getDstAttr(),
                     get(take.getPart()), sources, std::nullopt, steps, c))
        return false;
    } else if (auto reduce = dyn_cast<snac::ReduceTakeOp>(op)) {
      SmallVector<int> sources;
      if (!ranksOf(&op, Value(), "takes from", call, rank, env, sources))
        return false;
      if (!takeSteps(&op, reduce.getSrcAttr(), reduce.getDstAttr(),
                     get(reduce.getPart()), sources, redOpOf(reduce.getOp()),
                     steps, c))
        return false;
    } else if (auto spread = dyn_cast<snac::ReduceSpreadOp>(op)) {
      if (!spreadSteps(spread, steps, c))
        return false;
    } else if (auto each = dyn_cast<snac::TakeEachOp>(op)) {
      // Exactly the loop over p of `take source p into partition p`.
      for (int p = 0; p < n; ++p) {
        std::optional<StepCtx> pc = pairs ? pairCtx(c, p, /*put=*/false) : c;
        if (pc && !takeSteps(&op, each.getSrcAttr(), each.getDstAttr(), p,
                             {p}, std::nullopt, steps, *pc))
          return false;
      }
    } else if (isa<snac::RetireOp>(op)) {
      retireSteps(&op, steps, c);
    } else if (isa<snac::McBarrierOp>(op)) {
      mcBarrierSteps(&op, steps, c);
    } else if (isa<snac::McReduceOp>(op)) {
      if (!mcSteps(&op, PStep::McReduceAll, steps, c))
        return false;
    } else if (isa<snac::McReduceLocalOp>(op)) {
      if (!mcSteps(&op, PStep::McReduceLocal, steps, c))
        return false;
    } else if (isa<snac::McPutOp>(op)) {
      if (!mcSteps(&op, PStep::McPutAll, steps, c))
        return false;
    } else {
      return fail(&op, formatv("the interpreter cannot execute '{0}' in a "
                               "program",
                               op.getName().getStringRef()));
    }
  }
  return true;
}

int64_t
ProgramSimulator::largestAt(const std::vector<std::vector<int64_t>> &m,
                            int rank) const {
  // The largest entry this rank sees: every rank's size for a packed
  // program input (one column), else its row and its column; agreed: the
  // whole matrix's.
  int64_t most = 0;
  if (agree) {
    for (const std::vector<int64_t> &row : m)
      for (int64_t v : row)
        most = std::max(most, v);
    return most;
  }
  for (int p = 0; p < n; ++p) {
    if (input->packed) {
      most = std::max(most, m[p][0]);
      continue;
    }
    most = std::max(most, m[rank][p]);
    most = std::max(most, m[p][rank]);
  }
  return most;
}

int64_t ProgramSimulator::stepsAt(const std::vector<std::vector<int64_t>> &m,
                                  int rank) const {
  if (!chunked)
    return 1;
  if (pairs) {
    // The most steps of this rank's pairs: its largest row or column entry.
    int64_t most = 0;
    for (int p = 0; p < n; ++p)
      most = std::max({most, m[rank][p], m[p][rank]});
    return std::max<int64_t>(1, (most + W * ce - 1) / (W * ce));
  }
  return std::max<int64_t>(1, (largestAt(m, rank) + W * ce - 1) / (W * ce));
}

std::optional<StepCtx> ProgramSimulator::pairCtx(const StepCtx &c, int peer,
                                                 bool put) const {
  const PairTable &steps = put ? pairPutSteps : pairTakeSteps;
  const PairTable &base = put ? pairPutBase : pairTakeBase;
  const int64_t pairSteps = steps[c.call][c.rank][peer];
  if (c.step >= pairSteps)
    return std::nullopt;
  StepCtx pc = c;
  pc.epoch = base[c.call][c.rank][peer] + c.step + 1;
  pc.steps = pairSteps;
  pc.small = pairLL16 &&
             (put ? pairPutSmall : pairTakeSmall)[c.call][c.rank][peer] != 0;
  return pc;
}

int64_t ProgramSimulator::partFor(int64_t count, int64_t steps) const {
  const int64_t per = steps * W;
  int64_t c = (count + per - 1) / per;
  c = (c + unitElems - 1) / unitElems * unitElems;
  return std::clamp<int64_t>(c, unitElems, ce);
}

bool ProgramSimulator::shareOf(Operation *op, int64_t count, const StepCtx &c,
                               Share &share) {
  share = Share{};
  if (!chunked) {
    // Unit u (flag: warp segment u) to CTA u mod W, over the grid.
    int64_t total = unitsFor(count);
    auto slice = [&](int64_t u) {
      return Slice{u,
                   count == 0 ? 0 : std::min(unitElems, count - u * unitElems),
                   u * unitElems};
    };
    share.padding = count == 0;
    if (encoding == kFlag) {
      int64_t dataUnits = count == 0 ? 0 : total;
      for (int64_t sg = c.worker; sg < segmentsOf(dataUnits); sg += W) {
        Share::Segment seg{sg, {}};
        for (int64_t u = sg * kSegmentUnits;
             u < std::min(dataUnits, (sg + 1) * kSegmentUnits); ++u)
          seg.units.push_back(slice(u));
        share.segments.push_back(std::move(seg));
      }
    } else {
      for (int64_t u = c.worker; u < total; u += W)
        share.segments.push_back({-1, {slice(u)}});
    }
    return true;
  }
  // Chunked: CTA h's part of step s is [lo, hi), lo = (s * W + h) * pe,
  // pe the partition's balanced part, in its own sub-region (units h * U
  // ...); an empty part is one padding unit (flag: the ready word alone),
  // word index h.
  int call = c.call;
  int64_t steps = c.steps >= 0 ? c.steps : stepsOf[call][c.rank];
  // `_v` programs cut each partition by its own count, fixed ones every
  // partition by the largest the rank sees (as the device's PerPartParts).
  int64_t pe =
      partFor(perPartParts ? count : largestOf[call][c.rank], steps);
  if (count > steps * W * pe)
    return fail(op, formatv("{0}: rank {1} moves a partition of {2} elements "
                            "in {3} steps of {4} CTAs x {5} elements: the "
                            "steps do not cover it",
                            when(call, c.step), c.rank, count, steps, W, pe));
  int64_t lo = (c.step * W + c.worker) * pe;
  int64_t part = std::max<int64_t>(0, std::min(pe, count - lo));
  int64_t first = c.worker * chunkUnits;
  share.padding = part == 0;
  std::vector<Slice> units;
  if (part == 0)
    units.push_back({first, 0, 0});
  for (int64_t u = 0; u * unitElems < part; ++u)
    units.push_back({first + u, std::min(unitElems, part - u * unitElems),
                     lo + u * unitElems});
  // A part never exceeds the chunk: it stays in the CTA's sub-region.
  if (static_cast<int64_t>(units.size()) > chunkUnits)
    return fail(op, formatv("{0}: rank {1} CTA {2}'s part of {3} elements "
                            "exceeds its chunk of {4} units",
                            when(call, c.step), c.rank, c.worker, part,
                            chunkUnits));
  if (encoding == kFlag && !c.small) {
    if (part == 0)
      units.clear(); // the ready word alone
    share.segments.push_back({c.worker, std::move(units)});
  } else {
    for (const Slice &u : units)
      share.segments.push_back({-1, {u}});
  }
  return true;
}

bool ProgramSimulator::putSteps(Operation *op, FlatSymbolRefAttr srcRef,
                                FlatSymbolRefAttr dstRef, int64_t part,
                                ArrayRef<int> targets,
                                std::vector<PStep> &steps, const StepCtx &c) {
  int rank = c.rank, call = c.call;
  const BufferInfo *src, *dst;
  auto srcIt = buffers.find(srcRef.getValue());
  bool forward =
      srcIt != buffers.end() && srcIt->second.kind == snac::BufferKind::output;
  if (!bufferOf(op, srcRef,
                forward ? snac::BufferKind::output : snac::BufferKind::input,
                src) ||
      !bufferOf(op, dstRef, snac::BufferKind::receive, dst))
    return false;
  if (part < 0 || part >= partsOf(*src))
    return fail(op, formatv("call {0}: rank {1} puts partition {2} of "
                            "the input, which has {3}",
                            call, rank, part, partsOf(*src)));
  int64_t count = sizeOf(*src, call, rank, part);
  int64_t from = offsetOf(*src, call, rank, part);
  // A chunked step moves at most a chunk per CTA (checked by shareOf).
  if (!chunked && count * elemBytes > regionPayload)
    return fail(op, formatv("call {0}: rank {1} puts {2} bytes into a "
                            "receive region of {3} bytes of payload "
                            "({4})",
                            call, rank, count * elemBytes, regionPayload,
                            regionPayload == bandHi
                                ? "the band's hi"
                                : "a partition of the band's hi"));
  Share share;
  if (!shareOf(op, count, c, share))
    return false;
  StringRef fault = faultOf(op);
  if (fault == "padding-dropped" && share.padding)
    return true;
  PStep base{PStep::Put, op};
  base.slot = c.small ? kLLSlot + slotOf(*dst, c.epoch) : slotOf(*dst, c.epoch);
  base.forward = forward;
  base.epoch = c.epoch;
  base.step = c.step;
  base.tag = c.epoch + (fault == "wrong-sequence-next"       ? 1
                        : fault == "wrong-sequence-previous" ? -1
                                                             : 0);
  base.canonicalize = fault != "sentinel-not-canonicalized";
  if (dst->inPlace) {
    // Nothing is copied: the ready word says where the partition is.
    for (const Share::Segment &seg : share.segments)
      for (int t : targets) {
        PStep w = base;
        w.kind = PStep::Word;
        w.peer = t;
        w.unit = seg.word;
        w.from = from;
        steps.push_back(w);
      }
    return true;
  }
  const bool self = dst->selfDirect && selfDirectCall(call, rank) &&
                    llvm::is_contained(targets, rank);
  if (self)
    selfSources[dst] = SelfSource{forward, from};
  for (const Share::Segment &seg : share.segments)
    for (int t : targets) {
      if (self && t == rank)
        continue;
      for (const Slice &u : seg.units) {
        PStep s = base;
        s.peer = t;
        s.unit = u.unit;
        s.count = u.count;
        s.from = from + u.offset;
        steps.push_back(s);
      }
      if (encoding == kFlag && !c.small) {
        PStep w = base;
        w.kind = PStep::Word;
        w.peer = t;
        w.unit = seg.word;
        steps.push_back(w);
      }
    }
  return true;
}

bool ProgramSimulator::takeSteps(Operation *op, FlatSymbolRefAttr srcRef,
                                 FlatSymbolRefAttr dstRef, int64_t part,
                                 ArrayRef<int> sources,
                                 std::optional<sim::RedOp> red,
                                 std::vector<PStep> &steps, const StepCtx &c) {
  int rank = c.rank, call = c.call;
  const BufferInfo *rx, *dst;
  if (!bufferOf(op, srcRef, snac::BufferKind::receive, rx) ||
      !bufferOf(op, dstRef, snac::BufferKind::output, dst))
    return false;
  if (part < 0 || part >= partsOf(*dst))
    return fail(op, formatv("call {0}: rank {1} takes into partition "
                            "{2} of the output, which has {3}",
                            call, rank, part, partsOf(*dst)));
  // Every source's region holds what the output partition expects.
  int64_t want = sizeOf(*dst, call, rank, part);
  int64_t at = offsetOf(*dst, call, rank, part);
  for (int p : sources) {
    int64_t has = sizeOf(*rx, call, rank, p);
    if (has != want)
      return fail(op, formatv("call {0}: rank {1} takes {2} elements "
                              "from source {3}'s region into output "
                              "partition {4} of {5} elements",
                              call, rank, has, p, part, want));
  }
  Share share;
  if (!shareOf(op, want, c, share))
    return false;
  if (faultOf(op) == "padding-dropped" && share.padding)
    return true;
  PStep base{PStep::Take, op};
  base.slot = c.small ? kLLSlot + slotOf(*rx, c.epoch) : slotOf(*rx, c.epoch);
  base.epoch = c.epoch;
  base.step = c.step;
  if (red)
    base.red = *red;
  auto read = [&](PStep::Kind kind, int p, const Slice &u) {
    PStep s = base;
    s.kind = kind;
    s.peer = p;
    s.unit = u.unit;
    s.count = u.count;
    s.to = at + u.offset;
    if (red) {
      s.accIndex = at + u.offset;
      s.last = p == sources.back();
    }
    steps.push_back(s);
    if (encoding == kSentinel) {
      PStep r = s;
      r.kind = PStep::Rearm;
      steps.push_back(r);
    }
  };
  for (const Share::Segment &seg : share.segments) {
    if (encoding == kFlag) {
      for (int p : sources) {
        if (p == rank && rx->selfDirect && selfDirectCall(call, rank)) {
          auto self = selfSources.find(rx);
          if (self == selfSources.end())
            return fail(op, formatv("{0}: rank {1} takes its own part of "
                                    "'{2}' before it put one this step",
                                    when(call, c.step), rank,
                                    srcRef.getValue()));
          for (const Slice &u : seg.units) {
            if (u.count == 0) // pair_ll16: a small pair's padding unit
              continue;
            read(PStep::SelfRead, p, u);
            steps.back().from = self->second.from + u.offset;
            steps.back().forward = self->second.forward;
          }
          continue;
        }
        if (c.small) { // pair_ll16: each unit validated by its own sequence
          for (const Slice &u : seg.units)
            read(PStep::Take, p, u);
          continue;
        }
        PStep w = base;
        w.kind = PStep::AwaitWord;
        w.peer = p;
        w.unit = seg.word;
        steps.push_back(w);
        for (const Slice &u : seg.units) {
          if (!rx->inPlace) {
            read(PStep::Read, p, u);
            continue;
          }
          read(PStep::PeerRead, p, u);
          steps.back().from = u.offset;
          steps.back().word = seg.word;
        }
      }
      continue;
    }
    for (const Slice &u : seg.units) {
      if (!speculate) {
        for (int p : sources)
          read(PStep::Take, p, u);
        continue;
      }
      // One step: every source's load, one check, the waits for what
      // failed, then the compute (and the sentinel re-arms).
      size_t first = steps.size();
      for (int p : sources) {
        PStep s = base;
        s.kind = PStep::SpecRead;
        s.peer = p;
        s.unit = u.unit;
        s.count = u.count;
        steps.push_back(s);
      }
      PStep v = base;
      v.kind = PStep::Validate;
      v.unit = u.unit;
      v.validate = faultOf(op) != "validation-skipped";
      steps.push_back(v);
      for (size_t i = first; i < first + sources.size(); ++i) {
        PStep s = steps[i];
        s.kind = PStep::Settle;
        steps.push_back(s);
      }
      for (int p : sources)
        read(PStep::Use, p, u);
    }
  }
  return true;
}

bool ProgramSimulator::spreadSteps(snac::ReduceSpreadOp op,
                                   std::vector<PStep> &steps,
                                   const StepCtx &c) {
  int rank = c.rank, call = c.call;
  const BufferInfo *rx, *dst;
  if (!bufferOf(op, op.getSrcAttr(), snac::BufferKind::receive, rx) ||
      !bufferOf(op, op.getDstAttr(), snac::BufferKind::output, dst))
    return false;
  if (!rx->inPlace || !chunked || input->packed)
    return fail(op, "a spread needs a zero-copy program (in_place receive "
                    "buffers, a chunk) of a scattered input");
  // The pieces: steps x n x W of the call's T elements, whole units.
  const int64_t total = totalOf(*input, call, rank);
  const int64_t pieces = stepsOf[call][rank] * n * W;
  int64_t piece = (total + pieces - 1) / pieces;
  piece = (piece + unitElems - 1) / unitElems * unitElems;
  const int64_t lo = ((c.step * n + rank) * W + c.worker) * piece;
  const int64_t hi = std::min(lo + piece, total);
  PStep base{PStep::AwaitWord, op};
  base.slot = slotOf(*rx, c.epoch);
  base.epoch = c.epoch;
  base.step = c.step;
  base.unit = base.word = c.worker;
  base.red = redOpOf(op.getOp());
  // Every source's word, an empty piece's too (the device's chunkAcquire).
  for (int p = 0; p < n; ++p) {
    PStep w = base;
    w.peer = p;
    steps.push_back(w);
  }
  // The word of source p says where its partition `rank` is: partition o's
  // element j is `offsetOf(o) + j - offsetOf(rank)` from there.
  const int64_t mine = offsetOf(*input, call, rank, rank);
  for (int o = 0; o < n; ++o) {
    const int64_t at = offsetOf(*input, call, rank, o);
    const int64_t count = sizeOf(*input, call, rank, o);
    const int64_t a = std::max(lo, at), b = std::min(hi, at + count);
    if (a >= b)
      continue;
    const int64_t owns = sizeOf(*dst, call, o, 0);
    if (owns != count)
      return fail(op, formatv("call {0}: rank {1} spreads partition {2} of "
                              "{3} elements into rank {2}'s output of {4}",
                              call, rank, o, count, owns));
    for (int64_t u = a; u < b; u += unitElems)
      for (int p = 0; p < n; ++p) {
        PStep s = base;
        s.kind = PStep::PeerRead;
        s.peer = p;
        s.count = std::min(unitElems, b - u);
        s.from = u - mine;
        s.to = u - at;
        s.accIndex = u;
        s.last = p == n - 1;
        s.owner = o;
        steps.push_back(s);
      }
  }
  return true;
}

void ProgramSimulator::retireSteps(Operation *op, std::vector<PStep> &steps,
                                   const StepCtx &c) {
  // Test only: the producer does not wait for its readers.
  if (faultOf(op) == "retire-skipped")
    return;
  PStep base{PStep::Word, op};
  base.slot = kRetireSlot;
  base.unit = c.worker;
  base.epoch = base.tag = c.epoch;
  base.step = c.step;
  if (!pairs)
    return exchangeWords(base, steps);
  // Pair steps: with every peer whose pair has this step, at its epoch.
  for (int t = 0; t < n; ++t)
    if (std::optional<StepCtx> pc = pairCtx(c, t, /*put=*/true)) {
      PStep w = base;
      w.peer = t;
      w.epoch = w.tag = pc->epoch;
      steps.push_back(w);
    }
  for (int p = 0; p < n; ++p)
    if (std::optional<StepCtx> pc = pairCtx(c, p, /*put=*/false)) {
      PStep w = base;
      w.kind = PStep::AwaitWord;
      w.peer = p;
      w.epoch = w.tag = pc->epoch;
      steps.push_back(w);
    }
}

void ProgramSimulator::exchangeWords(const PStep &base,
                                     std::vector<PStep> &steps) const {
  for (int t = 0; t < n; ++t) {
    PStep w = base;
    w.peer = t;
    steps.push_back(w);
  }
  for (int p = 0; p < n; ++p) {
    PStep w = base;
    w.kind = PStep::AwaitWord;
    w.peer = p;
    steps.push_back(w);
  }
}

void ProgramSimulator::mcBarrierSteps(Operation *op, std::vector<PStep> &steps,
                                      const StepCtx &c) {
  // Test only: the barrier is not there.
  if (faultOf(op) == "mc-first-barrier-skipped" ||
      faultOf(op) == "mc-last-barrier-skipped")
    return;
  // The count every rank's arrival at this barrier of this call makes:
  // calls before it pass mcBarriers each (counted, never reset).
  PStep base{PStep::Word, op};
  base.slot = kMcSlot;
  base.unit = c.worker;
  base.epoch = base.tag = (c.epoch - 1) * mcBarriers + mcBarrierIndex[op] + 1;
  base.counter = true;
  exchangeWords(base, steps);
}

/// This CTA's units of an in-switch op, as the device splits it: vectors of
/// 16 bytes (a unit), unit u to CTA u mod W, of this rank's shard (AllReduce:
/// the units [V r / n, V (r + 1) / n) of the V of the buffer) or of the
/// whole of what the rank moves (its partition, its input, the whole
/// buffer of a redundant pull).
bool ProgramSimulator::mcSteps(Operation *op, PStep::Kind kind,
                               std::vector<PStep> &steps, const StepCtx &c) {
  // A reduce-to-local of a scattered input takes partition `rank`; of a
  // packed one (redundant pull) the whole.
  int64_t count = kind == PStep::McReduceLocal && !input->packed
                      ? sizeOf(*input, c.call, c.rank, c.rank)
                      : totalOf(*input, c.call, c.rank);
  int64_t units = (count + unitElems - 1) / unitElems;
  int64_t first = 0, last = units;
  if (kind == PStep::McReduceAll) {
    first = units * c.rank / n;
    last = units * (c.rank + 1) / n;
  }
  for (int64_t u = first; u < last; ++u) {
    if (u % W != c.worker)
      continue;
    PStep s{kind, op};
    s.from = u * unitElems;
    s.count = std::min(unitElems, count - s.from);
    s.epoch = s.tag = c.epoch;
    if (auto r = dyn_cast<snac::McReduceOp>(op))
      s.red = redOpOf(r.getOp());
    else if (auto r = dyn_cast<snac::McReduceLocalOp>(op))
      s.red = redOpOf(r.getOp());
    steps.push_back(s);
  }
  return true;
}

/// The rank `v` names (checked against the world size), or every rank when
/// `v` is null (a put to all, a reduce_take of every source).
bool ProgramSimulator::ranksOf(Operation *op, Value v, const char *verb,
                               int call, int rank,
                               const llvm::DenseMap<Value, int64_t> &env,
                               SmallVector<int> &out) {
  if (!v) {
    for (int r = 0; r < n; ++r)
      out.push_back(r);
    return true;
  }
  int64_t r = env.lookup(v);
  if (r < 0 || r >= n)
    return fail(op, formatv("call {0}: rank {1} {2} rank {3}, out of range "
                            "(world size {4})",
                            call, rank, verb, r, n));
  out.push_back(r);
  return true;
}

/// One CTA's steps of one call: the body once (chunked: once per step,
/// each with its own epoch, the CTA's counter + step + 1).
bool ProgramSimulator::unroll(int id, int call, std::vector<PStep> &steps) {
  int rank = agents[id].rank;
  if (agree) {
    // The agreement (program.cuh, agree): this CTA's words to every peer,
    // then every peer's awaited, in region (slot of the first step,
    // source) of receive buffer 0.
    PStep base{PStep::Word, epochOp};
    base.epoch = base.tag = baseOf[call][rank] + 1;
    base.slot = static_cast<int>(base.epoch % slots);
    base.unit = W + agents[id].worker;
    for (int t = 0; t < n; ++t)
      if (t != rank) {
        PStep w = base;
        w.peer = t;
        steps.push_back(w);
      }
    for (int p = 0; p < n; ++p)
      if (p != rank) {
        PStep w = base;
        w.kind = PStep::AwaitWord;
        w.peer = p;
        steps.push_back(w);
      }
  }
  for (int64_t s = 0; s < stepsOf[call][rank]; ++s) {
    llvm::DenseMap<Value, int64_t> env;
    env[program.getRank()] = rank;
    env[program.getWorldSize()] = n;
    StepCtx c{rank, agents[id].worker, call, s, baseOf[call][rank] + s + 1};
    selfSources.clear();
    if (!evalBlock(program.getBody().front(), env, steps, c))
      return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Messages
//===----------------------------------------------------------------------===//

std::string ProgramSimulator::who(int id) const {
  if (id >= static_cast<int>(agents.size()))
    return formatv("the host of rank {0}", id - agents.size()).str();
  return formatv("rank {0} CTA {1}", agents[id].rank, agents[id].worker).str();
}

std::string ProgramSimulator::where(int owner, int slot, int source,
                                    int64_t unit, bool word) const {
  if (slot == kRetireSlot)
    return formatv("rank {0}'s retire word of CTA {1} from rank {2}", owner,
                   unit, source)
        .str();
  if (slot == kMcSlot)
    return formatv("rank {0}'s barrier counter of CTA {1}, rank {2}'s "
                   "arrivals",
                   owner, unit, source)
        .str();
  if (slot >= kLLSlot)
    return formatv("unit {0} of rank {1}'s LL16 area (slot {2}, source {3})",
                   unit, owner, slot - kLLSlot, source)
        .str();
  if (word && agree && unit >= W)
    return formatv("rank {0}'s agreement word of CTA {1} (slot {2}, source "
                   "{3})",
                   owner, unit - W, slot, source)
        .str();
  return formatv("{0} {1} of rank {2}'s receive region (slot {3}, source {4})",
                 word ? "the ready word of segment" : "unit", unit, owner,
                 slot, source)
      .str();
}

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

bool ProgramSimulator::ready(const Unit &u, const PStep &s) const {
  if (encoding == kSentinel) {
    // Every element the consumer expects (one for padding) is not all ones.
    int64_t len = std::max<int64_t>(1, s.count);
    if (static_cast<int64_t>(u.elems.size()) < len)
      return false;
    uint32_t ones = sim::poisonBits(o.type);
    for (int64_t i = 0; i < len; ++i)
      if (u.elems[i] == ones)
        return false;
    return true;
  }
  // A packet or word of this call, or of a later one (a sequence error).
  return u.seq >= s.epoch;
}

bool ProgramSimulator::agentCanStep(Agent &a) {
  const PStep &s = a.next();
  switch (s.kind) {
  case PStep::Take: {
    auto it = units.find({a.rank, s.slot, s.peer, s.unit});
    return it != units.end() && ready(it->second, s);
  }
  case PStep::AwaitWord: {
    auto it = words.find({a.rank, s.slot, s.peer, s.unit});
    return it != words.end() && it->second.seq >= s.epoch;
  }
  case PStep::Settle: {
    // Only a unit that failed validation is waited for.
    auto snap = a.snaps.find({s.peer, s.unit});
    if (snap == a.snaps.end() || !snap->second.failed)
      return true;
    auto it = units.find({a.rank, s.slot, s.peer, s.unit});
    return it != units.end() && ready(it->second, s);
  }
  default:
    return true;
  }
}

/// Checks what the consumer accepts: a unit of its own call, written by the
/// source its region belongs to, carrying as many elements as it expects.
bool ProgramSimulator::accept(Agent &agent, const PStep &s, Unit &u,
                              const char *what, StringRef speculative) {
  int me = agent.rank * W + agent.worker;
  int call = rankCall[agent.rank];
  auto here = [&] { return where(agent.rank, s.slot, s.peer, s.unit); };
  if (encoding != kSentinel && u.seq > s.epoch) {
    if (chunked)
      return fail(s.op,
                  formatv("{0}: {1} {2} {3} and finds a packet of sequence "
                          "{4} while it runs epoch {5}: a later step than its "
                          "own, the ranks did not issue the same call "
                          "sequence or count the same steps (a sequence "
                          "error, COLLC_KERNEL_SEQUENCE)",
                          when(call, s.step), who(me), what, here(), u.seq,
                          s.epoch));
    return fail(s.op,
                formatv("call {0}: {1} {2} {3} and finds a packet of call "
                        "{4} (sequence {5}) while it runs call {0} (epoch "
                        "{6}): a later call than its own, the ranks did not "
                        "issue the same call sequence (a sequence error, "
                        "COLLC_KERNEL_SEQUENCE)",
                        call, who(me), what, here(), u.seq - 1, u.seq,
                        s.epoch));
  }
  if (u.writer != s.peer || u.writerEpoch != s.epoch || u.writerCall != call ||
      u.writerStep != s.step)
    return fail(
        s.op,
        formatv(
            "{0}: {1} accepts {2}{3}, which holds {4}, not "
            "{0}'s data from rank {5}{6}",
            when(call, s.step), who(me), here(),
            speculative.empty() ? "" : " as loaded speculatively",
            u.writer < 0 ? std::string("no write yet (the buffer's fill)")
                         : formatv("data of {0} written by rank {1}",
                                   when(u.writerCall, u.writerStep), u.writer)
                               .str(),
            s.peer,
            !speculative.empty()
                ? (": every accepted read must be validated, " + speculative)
                      .str()
            : u.writerEpoch == s.epoch && u.writer == s.peer
                ? formatv(": the same epoch ({0}), so the ranks "
                          "count different steps",
                          s.epoch)
                      .str()
            : encoding == kSentinel
                ? std::string(": a unit not re-armed is taken "
                              "for new data")
                : std::string()));
  if (static_cast<int64_t>(u.elems.size()) != std::max<int64_t>(1, s.count))
    return fail(s.op, formatv("{0}: {1} expects {2} elements in {3}, "
                              "which carries {4}",
                              when(call, s.step), who(me), s.count, here(),
                              u.elems.size()));
  u.accepted = true;
  return true;
}

void ProgramSimulator::describeStep(const Agent &agent, std::string &name,
                                    Trace::Args &args) {
  static const char *const kNames[] = {
      "put",    "word",     "take", "await word", "read",      "rearm",
      "speculative read", "validate", "settle", "use", "peer read",
      "self read", "in-switch reduce", "in-switch reduce to local",
      "in-switch put"};
  const PStep &s = agent.next();
  name = s.counter ? (s.kind == PStep::Word ? "barrier arrive" : "barrier wait")
                   : kNames[s.kind];
  const bool toPeer = s.kind == PStep::Put || s.kind == PStep::Word;
  args.push_back({toPeer ? "to" : "from", std::to_string(s.peer)});
  args.push_back({s.kind == PStep::Word || s.kind == PStep::AwaitWord
                      ? "segment"
                      : "unit",
                  std::to_string(s.unit)});
  args.push_back({"slot", std::to_string(s.slot)});
  args.push_back({"step", std::to_string(s.step)});
  args.push_back({"elements", std::to_string(s.count)});
  args.push_back({"encoding", encodingName(encoding)});
  if (s.op)
    args.push_back({"op", s.op->getName().getStringRef().str()});
}

bool ProgramSimulator::stepAgent(Agent &agent) {
  const PStep &s = (*agent.steps)[agent.pc++];
  int me = agent.rank * W + agent.worker;
  int call = rankCall[agent.rank];
  Clock &mine = clocks[me];
  ++mine[me];
  uint32_t ones = sim::poisonBits(o.type);
  switch (s.kind) {
  case PStep::Put: {
    Unit &u = units[{s.peer, s.slot, agent.rank, s.unit}];
    auto here = [&] { return where(s.peer, s.slot, agent.rank, s.unit); };
    if (u.writer >= 0 && !u.accepted)
      return fail(s.op, formatv("{0}: {1} overwrites {2} before rank {3} "
                                "accepted what it held ({4}'s): the slot is "
                                "reused while its consumer may still read it",
                                when(call, s.step), who(me), here(), s.peer,
                                when(u.writerCall, u.writerStep)));
    if (encoding == kSentinel && !u.armed)
      return fail(s.op, formatv("{0}: {1} writes {2} before rank {3} re-armed "
                                "it ({4}'s): the re-arm can erase this data",
                                when(call, s.step), who(me), here(), s.peer,
                                when(u.writerCall, u.writerStep)));
    const std::vector<uint32_t> &in =
        s.forward ? outputs[agent.rank] : inputs[call][agent.rank];
    // A forward reads back, without a wait, what this CTA reduced.
    for (int64_t i = 0; s.forward && i < s.count; ++i) {
      int64_t at = s.from + i;
      if (written[agent.rank][at] != call || writtenBy[agent.rank][at] != me)
        return fail(
            s.op,
            formatv("{0}: {1} forwards output element {2}, "
                    "which {3}: a forward must read what the same "
                    "CTA reduced (the same unit-to-thread mapping)",
                    when(call, s.step), who(me), at,
                    written[agent.rank][at] != call
                        ? std::string("is not written yet this call")
                        : "was written by " + who(writtenBy[agent.rank][at])));
    }
    if (speculate && o.exhaustive) {
      auto old = std::make_shared<Unit>(u);
      old->prev.reset();
      u.prev = std::move(old);
    }
    if (s.count == 0) {
      u.elems.assign(1, 0); // padding: a packet, a non-sentinel word
    } else {
      u.elems.assign(in.begin() + s.from, in.begin() + s.from + s.count);
      if (encoding == kSentinel && s.canonicalize)
        for (uint32_t &b : u.elems)
          if (b == ones)
            b = sim::canonicalNaN(o.type);
    }
    u.seq = s.tag;
    u.writer = agent.rank;
    u.writerEpoch = s.epoch;
    u.writerCall = call;
    u.writerStep = s.step;
    u.writerAgent = me;
    u.writeTime = mine[me];
    u.accepted = false;
    u.armed = false;
    u.writeOp = s.op;
    u.flow = o.trace ? o.trace->flowStart("packet") : -1;
    statistics.elements += s.count;
    return true;
  }
  case PStep::Word: {
    Unit &w = words[{s.peer, s.slot, agent.rank, s.unit}];
    if (w.writer >= 0 && !w.accepted && !s.counter)
      return fail(s.op, formatv("{0}: {1} overwrites {2} before rank {3} "
                                "awaited what it held ({4}'s)",
                                when(call, s.step), who(me),
                                where(s.peer, s.slot, agent.rank, s.unit, true),
                                s.peer, when(w.writerCall, w.writerStep)));
    w.seq = s.tag;
    w.writer = agent.rank;
    w.writerEpoch = s.epoch;
    w.writerCall = call;
    w.writerStep = s.step;
    w.clock = std::make_shared<const Clock>(mine);
    w.accepted = false;
    w.writeOp = s.op;
    w.writerAgent = me;
    w.where = s.from;
    w.whereOutput = s.forward;
    w.flow = o.trace ? o.trace->flowStart("ready word") : -1;
    return true;
  }
  case PStep::AwaitWord: {
    Unit &w = words[{agent.rank, s.slot, s.peer, s.unit}];
    auto here = [&] { return where(agent.rank, s.slot, s.peer, s.unit, true); };
    // The acquire: this agent now orders what the writer released.
    auto acquire = [&] {
      for (size_t i = 0; i < mine.size(); ++i)
        mine[i] = std::max(mine[i], (*w.clock)[i]);
      w.accepted = true;
      if (o.trace)
        o.trace->flowEnd(w.flow);
      return true;
    };
    // A counter: any count at least this barrier's (a later arrival of the
    // same rank was released after this one, so its clock orders more).
    if (s.counter)
      return acquire();
    if (w.seq > s.epoch && chunked)
      return fail(s.op,
                  formatv("{0}: {1} awaits {2} and finds value {3} while it "
                          "runs epoch {4}: a later step than its own, a "
                          "sequence error (COLLC_KERNEL_SEQUENCE)",
                          when(call, s.step), who(me), here(), w.seq, s.epoch));
    if (w.seq > s.epoch)
      return fail(s.op,
                  formatv("call {0}: {1} awaits {2} and finds call {3}'s "
                          "word (value {4}) while it runs call {0} (epoch "
                          "{5}): a later call than its own, a sequence error "
                          "(COLLC_KERNEL_SEQUENCE)",
                          call, who(me), here(), w.seq - 1, w.seq, s.epoch));
    if (w.writer != s.peer || w.writerEpoch != s.epoch ||
        w.writerCall != call || w.writerStep != s.step)
      return fail(s.op, formatv("{0}: {1} accepts {2}, written in {3} by rank "
                                "{4}{5}",
                                when(call, s.step), who(me), here(),
                                when(w.writerCall, w.writerStep), w.writer,
                                w.writerEpoch == s.epoch && w.writer == s.peer
                                    ? formatv(" (the same epoch, {0}: the "
                                              "ranks count different steps)",
                                              s.epoch)
                                          .str()
                                    : std::string()));
    return acquire();
  }
  case PStep::Take:
  case PStep::Read: {
    Unit &u = units[{agent.rank, s.slot, s.peer, s.unit}];
    if (s.kind == PStep::Read) {
      // Flag: only the ready word orders the data before this read.
      if (u.writer < 0 || mine[u.writerAgent] < u.writeTime)
        return fail(
            s.op,
            formatv("{0}: {1} reads {2} before the ready word "
                    "that publishes it: no awaited word orders the "
                    "write (by {3}) before this read",
                    when(call, s.step), who(me),
                    where(agent.rank, s.slot, s.peer, s.unit),
                    u.writer < 0 ? std::string("nobody") : who(u.writerAgent)));
    }
    if (!accept(agent, s, u, s.kind == PStep::Read ? "reads" : "takes"))
      return false;
    if (o.trace)
      o.trace->flowEnd(u.flow);
    return consume(agent, s, u);
  }
  case PStep::SpecRead: {
    // The load, as it finds the unit (never written: the fill).
    auto it = units.find({agent.rank, s.slot, s.peer, s.unit});
    Snapshot &snap = agent.snaps[{s.peer, s.unit}];
    snap = Snapshot{};
    if (it != units.end()) {
      snap.content = it->second;
      if (o.exhaustive && it->second.writerEpoch == s.epoch)
        snap.stale = it->second.prev ? it->second.prev
                                     : std::make_shared<const Unit>();
    }
    snap.count = s.count;
    return true;
  }
  case PStep::Validate:
    return validate(agent, s);
  case PStep::Settle: {
    Snapshot &snap = agent.snaps[{s.peer, s.unit}];
    if (!snap.failed)
      return true;
    // The bounded wait of the readiness-first path, then the reload.
    Unit &u = units[{agent.rank, s.slot, s.peer, s.unit}];
    if (!accept(agent, s, u, "takes"))
      return false;
    snap.content = u;
    snap.failed = false;
    snap.validated = true;
    return true;
  }
  case PStep::Use: {
    auto it = agent.snaps.find({s.peer, s.unit});
    if (it == agent.snaps.end() || !it->second.validated)
      return fail(s.op, formatv("{0}: {1} uses {2} without validating "
                                "it",
                                when(call, s.step), who(me),
                                where(agent.rank, s.slot, s.peer, s.unit)));
    Unit content = std::move(it->second.content);
    agent.snaps.erase(it);
    if (o.trace)
      o.trace->flowEnd(content.flow);
    return consume(agent, s, content);
  }
  case PStep::Rearm: {
    Unit &u = units[{agent.rank, s.slot, s.peer, s.unit}];
    u.elems.assign(unitElems, ones);
    u.armed = true;
    return true;
  }
  case PStep::PeerRead:
    return peerRead(agent, s);
  case PStep::SelfRead:
    return selfRead(agent, s);
  case PStep::McReduceAll:
  case PStep::McReduceLocal:
  case PStep::McPutAll:
    return mcStep(agent, s);
  }
  llvm_unreachable("unknown step");
}

/// Staged chunked flag: a unit of the part this rank put to itself, read
/// from its own input (or, forwarded, its output) with no wait. The input
/// is the call's (the host rewrites it only between calls); a forwarded
/// element must have been written this call by this CTA (the device orders
/// it by the CTA's barrier, not by a ready word).
bool ProgramSimulator::selfRead(Agent &agent, const PStep &s) {
  int me = agent.rank * W + agent.worker;
  int call = rankCall[agent.rank];
  const std::vector<uint32_t> &buf =
      s.forward ? outputs[agent.rank] : inputs[call][agent.rank];
  Unit u;
  u.elems.resize(std::max<int64_t>(1, s.count));
  for (int64_t i = 0; i < s.count; ++i) {
    int64_t at = s.from + i;
    if (at < 0 || at >= static_cast<int64_t>(buf.size()))
      return fail(s.op, formatv("{0}: {1} reads element {2} of its own {3}, "
                                "which has {4}",
                                when(call, s.step), who(me), at,
                                s.forward ? "output" : "input", buf.size()));
    if (s.forward && (written[agent.rank][at] != call ||
                      writtenBy[agent.rank][at] != me))
      return fail(s.op, formatv("{0}: {1} reads element {2} of its own "
                                "output, which {3}",
                                when(call, s.step), who(me), at,
                                written[agent.rank][at] != call
                                    ? std::string("is not written yet this "
                                                  "call")
                                    : "was written by " +
                                          who(writtenBy[agent.rank][at])));
    u.elems[i] = buf[at];
  }
  statistics.elements += s.count;
  return consume(agent, s, u);
}

/// Zero-copy: a unit of the source's own input (or, forwarded, output),
/// read where the awaited ready word says its partition is. The buffer is
/// the live one: the source must still run this call (its host rewrites
/// the input and poisons the output when the next call starts), and a
/// forwarded element must have been written this call by the CTA that
/// published it (program order puts that write before the word).
bool ProgramSimulator::peerRead(Agent &agent, const PStep &s) {
  int me = agent.rank * W + agent.worker;
  int call = rankCall[agent.rank];
  const Unit &w = words[{agent.rank, s.slot, s.peer, s.word}];
  if (w.writer != s.peer || w.writerCall != call || w.writerStep != s.step ||
      !w.accepted)
    return fail(s.op, formatv("{0}: {1} reads rank {2}'s buffer in place "
                              "without this step's awaited ready word",
                              when(call, s.step), who(me), s.peer));
  if (rankCall[s.peer] != call || rankFinished[s.peer])
    return fail(s.op,
                formatv("{0}: {1} reads rank {2}'s {3} in place while rank "
                        "{2} {4}: the producer's call ended before its "
                        "readers were done (snac.retire)",
                        when(call, s.step), who(me), s.peer,
                        w.whereOutput ? "output" : "input",
                        rankFinished[s.peer]
                            ? std::string("has finished its calls")
                            : formatv("runs call {0}", rankCall[s.peer]).str()));
  const std::vector<uint32_t> &buf =
      w.whereOutput ? outputs[s.peer] : inputs[call][s.peer];
  Unit u;
  u.elems.resize(std::max<int64_t>(1, s.count));
  for (int64_t i = 0; i < s.count; ++i) {
    int64_t at = w.where + s.from + i;
    if (at < 0 || at >= static_cast<int64_t>(buf.size()))
      return fail(s.op, formatv("{0}: {1} reads element {2} of rank {3}'s "
                                "{4}, which has {5}",
                                when(call, s.step), who(me), at, s.peer,
                                w.whereOutput ? "output" : "input",
                                buf.size()));
    if (w.whereOutput && (written[s.peer][at] != call ||
                          writtenBy[s.peer][at] != w.writerAgent))
      return fail(s.op,
                  formatv("{0}: {1} reads element {2} of rank {3}'s output, "
                          "which {4}, but {5} published it",
                          when(call, s.step), who(me), at, s.peer,
                          written[s.peer][at] != call
                              ? std::string("is not written yet this call")
                              : "was written by " +
                                    who(writtenBy[s.peer][at]),
                          who(w.writerAgent)));
    u.elems[i] = buf[at];
  }
  statistics.elements += s.count;
  return consume(agent, s, u);
}

bool ProgramSimulator::mcLive(Agent &agent, const PStep &s, int peer,
                              const char *what) {
  int me = agent.rank * W + agent.worker;
  int call = rankCall[agent.rank];
  if (rankCall[peer] < call)
    return fail(s.op, formatv("call {0}: {1} {2} rank {3}'s buffers through "
                              "the switch while rank {3} {4}: no "
                              "snac.mc_barrier before this op waits for "
                              "rank {3} to start the call",
                              call, who(me), what, peer,
                              rankCall[peer] < 0
                                  ? std::string("has not started its first "
                                                "call")
                                  : formatv("still runs call {0}",
                                            rankCall[peer])
                                        .str()));
  if (rankCall[peer] != call || rankFinished[peer])
    return fail(s.op,
                formatv("call {0}: {1} {2} rank {3}'s buffers through the "
                        "switch while rank {3} {4}: no snac.mc_barrier after "
                        "this op keeps a rank's call from ending while peers "
                        "still reach its buffers",
                        call, who(me), what, peer,
                        rankFinished[peer]
                            ? std::string("has finished its calls")
                            : formatv("runs call {0}", rankCall[peer]).str()));
  // The peer's host wrote its input and poisoned its output when it started
  // the call: only a barrier orders that before this access.
  if (clocks[me][agents.size() + peer] < hostTick[peer])
    return fail(s.op, formatv("call {0}: {1} {2} rank {3}'s buffers through "
                              "the switch before any snac.mc_barrier orders "
                              "rank {3}'s start of the call before it",
                              call, who(me), what, peer));
  return true;
}

/// One in-switch step: every rank's buffers at once (the switch's reduce is
/// modelled in rank order: exact on the integer inputs of the runs; on the
/// device the bits of a floating-point sum may differ from the rank-order
/// programs', the same on every rank).
bool ProgramSimulator::mcStep(Agent &agent, const PStep &s) {
  int me = agent.rank * W + agent.worker;
  int call = rankCall[agent.rank];
  int r = agent.rank;
  for (int p = 0; p < n; ++p)
    if (!mcLive(agent, s, p,
                s.kind == PStep::McPutAll ? "writes" : "reads or writes"))
      return false;
  auto write = [&](int t, int64_t at, uint32_t v) {
    if (written[t][at] == call)
      return fail(s.op, formatv("call {0}: {1} writes rank {2}'s output "
                                "element {3} a second time",
                                call, who(me), t, at));
    outputs[t][at] = v;
    written[t][at] = call;
    writtenBy[t][at] = me;
    return true;
  };
  for (int64_t i = 0; i < s.count; ++i) {
    int64_t at = s.from + i;
    if (s.kind == PStep::McPutAll) {
      uint32_t v = inputs[call][r][at];
      for (int t = 0; t < n; ++t)
        if (!write(t, offsetOf(*output, call, t, r) + at, v))
          return false;
      continue;
    }
    std::vector<uint32_t> acc;
    for (int p = 0; p < n; ++p)
      acc.push_back(s.kind == PStep::McReduceLocal && !input->packed
                        ? inputs[call][p][offsetOf(*input, call, p, r) + at]
                        : inputs[call][p][at]);
    uint32_t v = sim::atomReduce(o.type, s.red, acc);
    if (s.kind == PStep::McReduceLocal) {
      if (!write(r, at, v))
        return false;
      continue;
    }
    for (int t = 0; t < n; ++t)
      if (!write(t, at, v))
        return false;
  }
  statistics.elements += s.count;
  return true;
}

/// One check over every load of the step, on what each load found. A
/// snapshot that passes is accepted (and must then hold this call's data
/// from its source); one that fails is left to Settle.
bool ProgramSimulator::validate(Agent &agent, const PStep &s) {
  for (auto &[key, snap] : agent.snaps) {
    if (snap.validated || snap.failed)
      continue;
    PStep view = s;
    view.peer = key.first;
    view.unit = key.second;
    view.count = snap.count;
    StringRef why = s.validate ? "and the encoding's check passed this one"
                               : "and this one was not (validation skipped)";
    // Exhaustive mode: the search does not reverse a load with the write it
    // races with, so the older content that load could have returned is
    // checked here (its other outcome, this call's write, is the one the
    // wait of Settle returns).
    if (snap.stale) {
      Snapshot old = snap;
      old.content = *snap.stale;
      if (passes(old, s, view) &&
          !accept(agent, view, old.content, "takes", why))
        return false;
    }
    if (!passes(snap, s, view)) {
      snap.failed = true;
      continue;
    }
    if (!accept(agent, view, snap.content, "takes", why))
      return false;
    snap.validated = true;
    // The live unit holds the same write (its producer writes it once a
    // call, and not again before it is accepted): the slot may be reused.
    Unit &live = units[{agent.rank, s.slot, key.first, key.second}];
    if (live.writer == snap.content.writer &&
        live.writerEpoch == snap.content.writerEpoch &&
        live.writerCall == snap.content.writerCall &&
        live.writerStep == snap.content.writerStep)
      live.accepted = true;
  }
  return true;
}

/// Writes what an accepted unit carries into the output (copy) or the
/// accumulator (reduce, combined in rank order at the last source).
bool ProgramSimulator::consume(Agent &agent, const PStep &s, const Unit &u) {
  int me = agent.rank * W + agent.worker;
  int call = rankCall[agent.rank];
  if (s.count == 0)
    return true;
  // A spread stores at a peer's output: the owner must run this call, and
  // its host's start of it (the poisoned output) be ordered before (the
  // owner's ready word, awaited: its put_each said where its output is).
  const int owner = s.owner >= 0 ? s.owner : agent.rank;
  if (owner != agent.rank && s.last) {
    if (rankCall[owner] != call || rankFinished[owner])
      return fail(s.op,
                  formatv("{0}: {1} stores to rank {2}'s output while rank "
                          "{2} {3}: the owner's call ended before the peers "
                          "storing to it were done (snac.retire)",
                          when(call, s.step), who(me), owner,
                          rankFinished[owner]
                              ? std::string("has finished its calls")
                              : formatv("runs call {0}", rankCall[owner])
                                    .str()));
    if (clocks[me][agents.size() + owner] < hostTick[owner])
      return fail(s.op, formatv("{0}: {1} stores to rank {2}'s output "
                                "before rank {2}'s start of the call is "
                                "ordered before it",
                                when(call, s.step), who(me), owner));
  }
  std::vector<uint32_t> &out = outputs[owner];
  std::vector<int> &mark = written[owner];
  if (s.accIndex < 0) {
    for (int64_t i = 0; i < s.count; ++i) {
      if (mark[s.to + i] == call)
        return fail(s.op, formatv("{0}: {1} writes output element "
                                  "{2} a second time",
                                  when(call, s.step), who(me), s.to + i));
      out[s.to + i] = u.elems[i];
      mark[s.to + i] = call;
      writtenBy[owner][s.to + i] = me;
    }
    return true;
  }
  // Reduce: contributions in rank order, combined at the last source.
  auto &acc = agent.acc[s.accIndex];
  acc.resize(s.count);
  for (int64_t i = 0; i < s.count; ++i)
    acc[i].push_back(u.elems[i]);
  if (!s.last)
    return true;
  for (int64_t i = 0; i < s.count; ++i) {
    if (static_cast<int>(acc[i].size()) != n)
      return fail(s.op, formatv("{0}: {1} reduces {2} contributions "
                                "for output element {3}, expected {4}",
                                when(call, s.step), who(me), acc[i].size(),
                                s.to + i, n));
    if (mark[s.to + i] == call)
      return fail(s.op, formatv("{0}: {1} writes output element {2} "
                                "a second time",
                                when(call, s.step), who(me), s.to + i));
    out[s.to + i] = sim::atomReduce(o.type, s.red, acc[i]);
    mark[s.to + i] = call;
    writtenBy[owner][s.to + i] = me;
  }
  agent.acc.erase(s.accIndex);
  return true;
}

bool ProgramSimulator::stepHost(int rank) {
  int host = agents.size() + rank;
  Clock &hc = clocks[host];
  for (int w = 0; w < W; ++w) {
    const Clock &c = clocks[rank * W + w];
    for (size_t i = 0; i < hc.size(); ++i)
      hc[i] = std::max(hc[i], c[i]);
  }
  ++hc[host];
  int call = rankCall[rank];
  if (call >= 0) {
    // The output against the collective's definition: bitwise, except that
    // a reduced NaN is compared as a NaN (FP32 arithmetic does not keep
    // payloads) and that the sentinel encoding publishes the all-ones
    // pattern as the type's positive quiet NaN.
    const auto &want = expected[call][rank];
    const std::vector<uint32_t> &got = outputs[rank];
    uint32_t ones = sim::poisonBits(o.type);
    for (size_t i = 0; i < got.size(); ++i) {
      bool wrote = written[rank][i] == call;
      if (!want) {
        if (wrote)
          return fail(nullptr, formatv("call {0}: rank {1} consumes nothing "
                                       "but its output element {2} was "
                                       "written",
                                       call, rank, i));
        continue;
      }
      uint32_t expect = (*want)[i];
      if (!wrote)
        return fail(nullptr, formatv("call {0}: rank {1} output element {2} "
                                     "was never written (expected 0x{3})",
                                     call, rank, i, llvm::utohexstr(expect)));
      if (got[i] == expect)
        continue;
      if (reduces && sim::isNaN(o.type, expect) && sim::isNaN(o.type, got[i]))
        continue;
      if (!reduces && encoding == kSentinel && expect == ones &&
          got[i] == sim::canonicalNaN(o.type))
        continue;
      return fail(nullptr, formatv("call {0}: rank {1} output element {2} is "
                                   "0x{3}, expected 0x{4}",
                                   call, rank, i, llvm::utohexstr(got[i]),
                                   llvm::utohexstr(expect)));
    }
  }
  call = nextCall(rank);
  if (rankFinished[rank])
    return true;
  hostTick[rank] = hc[host];
  int64_t total = totalOf(*output, call, rank);
  outputs[rank].assign(total, sim::poisonBits(o.type));
  written[rank].assign(total, -1);
  writtenBy[rank].assign(total, -1);
  for (int w = 0; w < W; ++w) {
    int id = rank * W + w;
    Clock &c = clocks[id];
    for (size_t i = 0; i < c.size(); ++i)
      c[i] = std::max(c[i], hc[i]);
    agents[id].pc = 0;
    agents[id].acc.clear();
    agents[id].steps = unrolled(id, call);
    if (!agents[id].steps)
      return false;
  }
  return true;
}

std::string ProgramSimulator::blockedOn(const Agent &agent) {
  const PStep &s = agent.next();
  int me = agent.rank * W + agent.worker;
  std::string line = formatv("{0} ({1}, epoch {2}) waits for ", who(me),
                             when(rankCall[agent.rank], s.step), s.epoch)
                         .str();
  bool word = s.kind == PStep::AwaitWord;
  line += where(agent.rank, s.slot, s.peer, s.unit, word);
  const auto &map = word ? words : units;
  auto it = map.find({agent.rank, s.slot, s.peer, s.unit});
  if (it == map.end() || it->second.writer < 0)
    return line + ": never written";
  const Unit &u = it->second;
  if (encoding == kSentinel) {
    if (u.armed)
      return line + formatv(": armed (last written in {0})",
                            when(u.writerCall, u.writerStep))
                        .str();
    if (u.writerEpoch == s.epoch)
      return line + formatv(": written this {0} with the all-ones bits, which "
                            "a consumer cannot tell from an armed unit (the "
                            "value was not canonicalized)",
                            chunked ? "step" : "call")
                        .str();
    return line;
  }
  return line + formatv(": it holds {0} {1}, written by rank {2} in {3} "
                        "(epoch {4})",
                        word ? "value" : "sequence", u.seq, u.writer,
                        when(u.writerCall, u.writerStep), u.writerEpoch)
                    .str();
}

bool ProgramSimulator::reportDeadlock() {
  failure = deadlockOf(
      agents,
      [&](Agent &agent) {
        return !agent.done() && !canStep(agent.rank * W + agent.worker);
      },
      [&](Agent &agent) { return blockedOn(agent); }, program.getOperation());
  return false;
}

bool ProgramSimulator::checkEnd() {
  for (auto *map : {&units, &words})
    for (auto &[key, u] : *map)
      if (u.writer >= 0 && !u.accepted)
        return fail(u.writeOp,
                    formatv("rank {0} published {1} in {2}, and rank {3} "
                            "never took it",
                            u.writer,
                            where(key.owner, key.slot, key.source, key.unit,
                                  map == &words),
                            when(u.writerCall, u.writerStep), key.owner));
  return true;
}

//===----------------------------------------------------------------------===//
// Exhaustive search (see Interpreter.cpp for the argument)
//===----------------------------------------------------------------------===//
//
// Objects: each receive unit and ready word, each rank's user buffers and
// launch. A write's info is -(the tag it overwrote) - 1, a wait's the epoch
// it waits for: a wait could not have run before a write that made its unit
// ready (co-enabled only if the unit was ready already).

void ProgramSimulator::agentTouches(const Agent &a, std::vector<Touch> &t) {
  const PStep &s = a.next();
  t.push_back({objectId({UserObj, a.rank, 0, 0, 0, 0, 0}), kUser, 0});
  auto unitTouch = [&](bool word, int owner, int source, int64_t info) {
    t.push_back({objectId({word ? WordObj : UnitObj, owner, s.slot, source,
                           s.unit, 0, 0}),
                 kWrite, info});
  };
  auto writeInfo = [&](bool word, int owner, int source) {
    const auto &map = word ? words : units;
    auto it = map.find({owner, s.slot, source, s.unit});
    int64_t tag = it == map.end() ? 0 : word ? it->second.seq : tagOf(it->second);
    return -tag - 1;
  };
  switch (s.kind) {
  case PStep::Put:
    unitTouch(false, s.peer, a.rank, writeInfo(false, s.peer, a.rank));
    break;
  case PStep::Word:
    unitTouch(true, s.peer, a.rank, writeInfo(true, s.peer, a.rank));
    break;
  case PStep::Take:
    unitTouch(false, a.rank, s.peer, s.epoch);
    break;
  case PStep::AwaitWord:
    unitTouch(true, a.rank, s.peer, s.epoch);
    break;
  case PStep::Read:
  case PStep::Rearm:
    unitTouch(false, a.rank, s.peer, writeInfo(false, a.rank, s.peer));
    break;
  case PStep::SpecRead:
    // Not a race the search reverses: Validate checks both contents the
    // load could return (snapshot `stale`), and either outcome ends in
    // this call's write, accepted at a step ordered after it (below).
    break;
  case PStep::Validate:
    // Accepting a unit is a wait that found it ready.
    for (const auto &[key, snap] : a.snaps) {
      PStep view = s;
      view.peer = key.first;
      view.unit = key.second;
      view.count = snap.count;
      if (!snap.validated && !snap.failed && passes(snap, s, view))
        t.push_back({objectId({UnitObj, a.rank, s.slot, key.first,
                               key.second, 0, 0}),
                     kWrite, s.epoch});
    }
    break;
  case PStep::Settle: {
    auto snap = a.snaps.find({s.peer, s.unit});
    if (snap != a.snaps.end() && snap->second.failed)
      unitTouch(false, a.rank, s.peer, s.epoch);
    break;
  }
  case PStep::Use:
    // The agent's own snapshot and outputs only.
    break;
  case PStep::SelfRead:
    // The rank's own input (fixed for the call) or output written by this
    // CTA (checked by selfRead): nothing another agent writes.
    break;
  case PStep::McReduceAll:
  case PStep::McReduceLocal:
  case PStep::McPutAll:
    // As PeerRead (below): the barriers order these accesses with every
    // host's; mcLive() checks that order in every trace instead.
    break;
  case PStep::PeerRead:
    // Not a race the search reverses (nor a spread's store to a peer's
    // output, checked in consume() as the read is here: declared, it made
    // the exhaustive search of a right 2-rank spread pass 2 million states
    // for 3 calls, against 1080 without): the source's host rewrites its
    // buffers only after its CTAs end, which snac.retire orders after this
    // read; declaring the pair would make every pending host step race with
    // every in-place read (the host is not enabled there, so each would
    // backtrack into every process). peerRead() checks instead, in every
    // trace, that the source still runs this call; the fault retire-skipped
    // is caught that way (test/Interpreter/program-zero-copy.test).
    break;
  }
}

bool ProgramSimulator::objectCoEnabled(const Access &before,
                                       const Touch &now) const {
  int kind = objectKind(now.object);
  if ((kind == UnitObj || kind == WordObj) && now.info > 0 && before.info < 0) {
    int64_t tagBefore = -before.info - 1;
    return kind == WordObj ? tagBefore >= now.info
                           : readyFor(tagBefore, now.info);
  }
  return kind != LaunchObj;
}

std::string ProgramSimulator::subject() {
  return formatv("the {0}{1}{2} program of @{3} ({4} slots={5}{6})",
                 speculate ? "speculative " : "",
                 zeroCopy ? "zero-copy " : chunked ? "chunked " : "",
                 encodingName(encoding), collective.getSymName(), describe(o),
                 slots,
                 chunked ? formatv(" chunk-units={0}", chunkUnits).str()
                         : std::string())
      .str();
}

// Consumers first: the highest rank that can move, its CTAs then host.
int ProgramSimulator::preferred() {
  int total = agents.size() + n;
  for (int r = n - 1; r >= 0; --r)
    for (int id = 0; id < total; ++id)
      if (rankOf(id) == r && canStep(id))
        return id;
  return -1;
}

LogicalResult interp::simulateProgram(snac::ProgramOp program,
                                      const SimOptions &options,
                                      SimStats *stats) {
  return simulateOp<ProgramSimulator>(
      program, "program (the oracle's definition)", options, stats);
}
