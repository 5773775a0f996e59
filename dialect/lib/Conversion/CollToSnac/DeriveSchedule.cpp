//===- DeriveSchedule.cpp - coll -> snac: derive SNAC -----------*- C++ -*-===//
//
// Derives the orchestration of each collective from its layouts, consume op
// and root role (Purlin 3.2, listing 2, algorithm 1). Every decision below is
// keyed on those attributes; nothing looks at a collective's name.
//
// Shape of a derived schedule (one transform, or F then G):
//
//   @stage    producers of F: input -> staging, chunk by chunk; publish
//             `staged` to the partition's consumers; before reusing a
//             staging slot, await `stage_free` from those consumers.
//   @<F op>   consumers of F: await `staged`, copy/reduce from the peers'
//             staging into the output (or, composed, into the intermediate),
//             release the staging slot with `stage_free`.
//   @<G op>   consumers of G (composition only): await `produced` on F's
//             result, consume it in place from the peers' intermediate,
//             release it with `inter_free`.
//
// Every role walks its work chunk-major: chunk c of every partition (or
// producer) before chunk c + 1 of any. Chunks keep their index from buffer to
// buffer, so each wait is on an earlier item of one order (call, chunk,
// role): readiness of the same chunk from an earlier role, the release of a
// slot by chunk c - slots or an earlier call. Roles that follow one order
// cannot wait on each other in a cycle, whatever the slot count; walking
// partition after partition deadlocked 9 of the 20 compositions once slots
// were reused (docs/snac.md, "order").
//
//===----------------------------------------------------------------------===//

#include "collc/Conversion/CollToSnac/Passes.h"
#include "collc/Dialect/Coll/IR/CollOps.h"
#include "collc/Dialect/Snac/IR/SnacOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace collc {
#define GEN_PASS_DEF_COLLDERIVESCHEDULE
#include "collc/Conversion/CollToSnac/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;
using namespace collc::coll;

namespace {

/// Policy defaults; a spec overrides them per file or per collective.
constexpr int64_t kDefaultChunkBytes = 64 * 1024;
/// Chunk slots per partition of the peer-accessible buffers: bounded, so a
/// message of any size cycles through a fixed workspace.
constexpr int64_t kDefaultStagingSlots = 4;
constexpr int64_t kDefaultCtas = 16;

static int64_t policyInt(CollectiveOp op, StringRef key, int64_t fallback) {
  auto v = dyn_cast_or_null<IntegerAttr>(op.lookupPolicy(key));
  return v ? v.getInt() : fallback;
}

/// Builds the schedule of one collective.
class ScheduleBuilder {
public:
  ScheduleBuilder(CollectiveOp collective, OpBuilder &builder)
      : collective(collective), transforms(collective.getTransforms()),
        b(builder), ctx(builder.getContext()) {}

  void build();

private:
  // Role-body context: the block arguments of the role being built.
  struct RoleArgs {
    Value rank, n, root, zero, one;
  };

  /// The ranks a set of peers is given by in notify/await: one rank, or all
  /// (a null value).
  Value producersOf(TransformOp t, const RoleArgs &a) {
    return t.getRootRole() == Root::producer ? a.root : Value();
  }
  Value consumersOf(TransformOp t, const RoleArgs &a) {
    return t.getRootRole() == Root::consumer ? a.root : Value();
  }
  /// Who consumes partition `part` of a buffer laid out as the input of
  /// `t`: every consumer for a packed input, rank `part` for a scattered one.
  Value consumersOfPartition(TransformOp t, Value part, const RoleArgs &a) {
    if (fixedLayout(t.getInput()) == Layout::packed)
      return consumersOf(t, a);
    return part;
  }
  /// How many ranks consume each use of that partition: the quota of the
  /// `free` event guarding its reuse.
  Value consumerCount(TransformOp t, const RoleArgs &a) {
    if (fixedLayout(t.getInput()) == Layout::packed &&
        t.getRootRole() != Root::consumer)
      return a.n;
    return a.one;
  }

  snac::RoleOp createRole(StringRef name, snac::Participants participants,
                          int64_t ctas, int64_t part, RoleArgs &args);
  /// Emits `for %i = 0 to %ub { body(%i) }`.
  void forRange(Location loc, Value ub, const RoleArgs &a,
                function_ref<void(Value)> body);
  /// Emits body(j, c) for every chunk c of partition j of `buffer` at this
  /// rank, chunk-major over j in [0, n), or over j = `single` alone.
  void forChunks(Location loc, StringRef buffer, Value single,
                 const RoleArgs &a, function_ref<void(Value, Value)> body);

  void buildStageRole();
  void buildConsumeRole(unsigned index, StringRef name, int64_t ctas);

  Location locOf(unsigned index) { return transforms[index].getLoc(); }
  FlatSymbolRefAttr sym(StringRef name) {
    return FlatSymbolRefAttr::get(ctx, name);
  }

  CollectiveOp collective;
  SmallVector<TransformOp, 2> transforms;
  OpBuilder &b;
  MLIRContext *ctx;
  int64_t stageCtas = 1;
};

} // namespace

snac::RoleOp ScheduleBuilder::createRole(StringRef name,
                                         snac::Participants participants,
                                         int64_t ctas, int64_t part,
                                         RoleArgs &args) {
  Location loc = locOf(part);
  auto role = snac::RoleOp::create(
      b, loc, b.getStringAttr(name),
      snac::ParticipantsAttr::get(ctx, participants), b.getI64IntegerAttr(ctas),
      b.getI64IntegerAttr(part));
  Block &body = role.getBody().emplaceBlock();
  Type index = b.getIndexType();
  args.rank = body.addArgument(index, loc);
  args.n = body.addArgument(index, loc);
  args.root = body.addArgument(index, loc);
  b.setInsertionPointToStart(&body);
  args.zero = arith::ConstantIndexOp::create(b, loc, 0);
  args.one = arith::ConstantIndexOp::create(b, loc, 1);
  return role;
}

void ScheduleBuilder::forRange(Location loc, Value ub, const RoleArgs &a,
                               function_ref<void(Value)> body) {
  auto loop = scf::ForOp::create(b, loc, a.zero, ub, a.one);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  body(loop.getInductionVar());
}

void ScheduleBuilder::forChunks(Location loc, StringRef buffer, Value single,
                                const RoleArgs &a,
                                function_ref<void(Value, Value)> body) {
  if (single) {
    Value chunks = snac::NumChunksOp::create(b, loc, b.getIndexType(),
                                             sym(buffer), a.rank, single);
    forRange(loc, chunks, a, [&](Value c) { body(single, c); });
    return;
  }
  // Chunk-major: every partition's chunk c before any partition's chunk
  // c + 1, so this role walks its work in the order every role does.
  Value most =
      snac::MaxChunksOp::create(b, loc, b.getIndexType(), sym(buffer), a.rank);
  forRange(loc, most, a, [&](Value c) {
    forRange(loc, a.n, a, [&](Value j) {
      Value chunks = snac::NumChunksOp::create(b, loc, b.getIndexType(),
                                               sym(buffer), a.rank, j);
      // Chunk c of partition j if it has one (V partitions differ in size):
      // one trip when c < chunks, as the step `most` passes any bound.
      auto loop = scf::ForOp::create(b, loc, c, chunks, most);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      body(j, loop.getInductionVar());
    });
  });
}

void ScheduleBuilder::buildStageRole() {
  TransformOp first = transforms.front();
  Location loc = locOf(0);
  bool rootOnly = first.getRootRole() == Root::producer;
  RoleArgs a;
  OpBuilder::InsertionGuard guard(b);
  createRole("stage",
             rootOnly ? snac::Participants::root : snac::Participants::all,
             stageCtas, 0, a);
  // One partition for a packed input; n, one per destination, for scattered.
  Value single =
      fixedLayout(first.getInput()) == Layout::packed ? a.zero : Value();
  forChunks(loc, "input", single, a, [&](Value k, Value c) {
    Value slot =
        snac::SlotOp::create(b, loc, b.getIndexType(), sym("staging"), c);
    snac::AwaitOp::create(b, loc, sym("stage_free"), ValueRange{k, slot},
                          Value(), consumerCount(first, a));
    snac::CopyOp::create(b, loc, sym("input"), a.rank, k, c, sym("staging"),
                         a.rank, k, c);
    snac::NotifyOp::create(b, loc, sym("staged"), ValueRange{k, c},
                           consumersOfPartition(first, k, a));
  });
}

void ScheduleBuilder::buildConsumeRole(unsigned index, StringRef name,
                                       int64_t ctas) {
  TransformOp t = transforms[index];
  Location loc = locOf(index);
  bool last = index + 1 == transforms.size();
  // What this role reads, and the events that guard it.
  StringRef src = index == 0 ? "staging" : "inter";
  StringRef srcReady = index == 0 ? "staged" : "produced";
  StringRef srcFree = index == 0 ? "stage_free" : "inter_free";
  StringRef dst = last ? "output" : "inter";

  RoleArgs a;
  OpBuilder::InsertionGuard guard(b);
  createRole(name,
             t.getRootRole() == Root::consumer ? snac::Participants::root
                                               : snac::Participants::all,
             ctas, index, a);

  // The partition of each producer's buffer meant for this rank.
  Value q = fixedLayout(t.getInput()) == Layout::packed ? a.zero : a.rank;

  // Writes chunk `c` of partition `j` of the destination: in a composition
  // the destination is the next transform's input, reused across calls, so
  // wait until its consumers released it, and publish it to them after.
  TransformOp next = last ? TransformOp() : transforms[index + 1];
  auto guardedWrite = [&](Value j, Value c, function_ref<void()> write) {
    Value nextConsumers = last ? Value() : consumersOfPartition(next, j, a);
    if (!last) {
      Value slot = snac::SlotOp::create(b, loc, b.getIndexType(),
                                        sym("inter"), c);
      snac::AwaitOp::create(b, loc, sym("inter_free"), ValueRange{j, slot},
                            Value(), consumerCount(next, a));
    }
    write();
    if (!last)
      snac::NotifyOp::create(b, loc, sym("produced"), ValueRange{j, c},
                             nextConsumers);
  };

  if (fixedLayout(t.getOutput()) == Layout::packed) {
    // Packed output: one destination partition, fed by the partition q of
    // every producer (reduce) or of the root producer (copy).
    forChunks(loc, dst, a.zero, a, [&](Value, Value c) {
      Value slot = snac::SlotOp::create(b, loc, b.getIndexType(), sym(src), c);
      if (t.getConsume() == ConsumeOp::reduce) {
        snac::AwaitOp::create(b, loc, sym(srcReady), ValueRange{q, c},
                              Value(), Value());
        guardedWrite(a.zero, c, [&] {
          snac::ReduceOp::create(
              b, loc, snac::ReductionAttr::get(ctx, *t.getReduction()),
              sym(src), q, c, sym(dst), a.rank, a.zero, c);
        });
        snac::NotifyOp::create(b, loc, sym(srcFree), ValueRange{q, slot},
                               Value());
      } else {
        Value producer = producersOf(t, a);
        snac::AwaitOp::create(b, loc, sym(srcReady), ValueRange{q, c},
                              producer, Value());
        guardedWrite(a.zero, c, [&] {
          snac::CopyOp::create(b, loc, sym(src), producer, q, c, sym(dst),
                               a.rank, a.zero, c);
        });
        snac::NotifyOp::create(b, loc, sym(srcFree), ValueRange{q, slot},
                               producer);
      }
    });
    return;
  }

  // Scattered or transposed output: producer p's partition q lands in
  // partition p, in rank order.
  assert(t.getConsume() == ConsumeOp::copy && "verifier admits only copy");
  forChunks(loc, dst, producersOf(t, a), a, [&](Value p, Value c) {
    Value slot = snac::SlotOp::create(b, loc, b.getIndexType(), sym(src), c);
    snac::AwaitOp::create(b, loc, sym(srcReady), ValueRange{q, c}, p,
                          Value());
    guardedWrite(p, c, [&] {
      snac::CopyOp::create(b, loc, sym(src), p, q, c, sym(dst), a.rank, p, c);
    });
    snac::NotifyOp::create(b, loc, sym(srcFree), ValueRange{q, slot}, p);
  });
}

void ScheduleBuilder::build() {
  Location loc = collective.getLoc();
  int64_t chunkBytes = policyInt(collective, "chunk_bytes", kDefaultChunkBytes);
  int64_t slots = policyInt(collective, "staging_slots", kDefaultStagingSlots);
  int64_t budget = policyInt(collective, "ctas", kDefaultCtas);
  // `protocol` is the encoding of the programs (coll-derive-programs);
  // schedules keep flag readiness, the one encoding their backend lowers.

  // The CTA budget, split evenly between the role groups (at least one each).
  int64_t roles = 1 + transforms.size();
  int64_t share = std::max<int64_t>(1, budget / roles);
  stageCtas = share;

  auto schedule = snac::ScheduleOp::create(
      b, loc, FlatSymbolRefAttr::get(collective.getSymNameAttr()),
      b.getI64IntegerAttr(chunkBytes), b.getI64IntegerAttr(slots));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&schedule.getBody().emplaceBlock());

  auto buffer = [&](StringRef name, snac::BufferKind kind,
                    snac::GeometrySide side, int64_t part) {
    snac::BufferOp::create(b, loc, b.getStringAttr(name),
                           snac::BufferKindAttr::get(ctx, kind),
                           snac::GeometrySideAttr::get(ctx, side),
                           b.getI64IntegerAttr(part));
  };
  auto event = [&](StringRef name, snac::EventKind kind) {
    snac::EventOp::create(b, loc, b.getStringAttr(name),
                          snac::EventKindAttr::get(ctx, kind),
                          snac::EncodingAttr::get(ctx, snac::Encoding::flag));
  };
  int64_t lastPart = transforms.size() - 1;
  buffer("input", snac::BufferKind::input, snac::GeometrySide::input_of, 0);
  buffer("staging", snac::BufferKind::staging, snac::GeometrySide::input_of, 0);
  if (transforms.size() == 2)
    buffer("inter", snac::BufferKind::intermediate,
           snac::GeometrySide::output_of, 0);
  buffer("output", snac::BufferKind::output, snac::GeometrySide::output_of,
         lastPart);
  event("staged", snac::EventKind::ready);
  event("stage_free", snac::EventKind::free);
  if (transforms.size() == 2) {
    event("produced", snac::EventKind::ready);
    event("inter_free", snac::EventKind::free);
  }

  buildStageRole();
  // Role names say what the group does; a second group of the same kind gets
  // its transform index.
  SmallVector<std::string, 2> names;
  for (TransformOp t : transforms)
    names.push_back(stringifyConsumeOp(t.getConsume()).str());
  if (names.size() == 2 && names[0] == names[1])
    names[0] += "0", names[1] += "1";
  for (unsigned i = 0; i < transforms.size(); ++i) {
    int64_t ctas = i + 1 == transforms.size()
                       ? std::max<int64_t>(1, budget - share * i - stageCtas)
                       : share;
    buildConsumeRole(i, names[i], ctas);
  }
}

namespace {
struct CollDeriveSchedulePass
    : public collc::impl::CollDeriveScheduleBase<CollDeriveSchedulePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Schedules already derived are left alone (the pass is idempotent).
    llvm::DenseSet<StringAttr> done;
    for (auto schedule : module.getOps<snac::ScheduleOp>())
      done.insert(schedule.getCollectiveAttr().getAttr());
    OpBuilder builder(module.getContext());
    for (auto collective :
         llvm::to_vector(module.getOps<CollectiveOp>())) {
      if (done.contains(collective.getSymNameAttr()))
        continue;
      builder.setInsertionPointAfter(collective);
      ScheduleBuilder(collective, builder).build();
    }
  }
};
} // namespace
