//===- Interpreter.cpp - reference interpreter for snac ---------*- C++ -*-===//
//
// Each (rank, role) is an agent whose role body is unrolled, for one call, into
// a list of steps (copy, reduce, notify, await). A seeded scheduler picks which
// runnable agent steps next. Happens-before is tracked with vector clocks: a
// notify carries the sender's clock, the matching await merges it. A region
// (buffer, owner rank, partition, chunk or slot) remembers its last write and
// the reads since; a read must be ordered after the write, a write after the
// reads (FastTrack-style). Each rank's host writes fresh inputs and poisons
// outputs before a call and checks the outputs after it, as a user's stream
// would, and a rank's next call starts only when its previous one finished.
//
//===----------------------------------------------------------------------===//

#include "collc/Interpreter/Interpreter.h"

#include "Common.h"
#include "Search.h"

#include "collc/Dialect/Coll/IR/CollOps.h"
#include "collc/Dialect/Snac/IR/SnacOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <array>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <tuple>

using namespace mlir;
using namespace collc;
using namespace collc::interp;
using llvm::formatv;

std::optional<sim::ElemType> interp::elemTypeOf(Type type) {
  std::string name = coll::elementTypeSpelling(type);
  return llvm::StringSwitch<std::optional<sim::ElemType>>(name)
      .Case("bf16", sim::ElemType::BF16)
      .Case("f16", sim::ElemType::F16)
      .Case("f32", sim::ElemType::F32)
      .Case("f8e4m3", sim::ElemType::F8E4M3)
      .Case("f8e5m2", sim::ElemType::F8E5M2)
      .Default(std::nullopt);
}

std::string interp::describe(const SimOptions &o) {
  static const char *shapes[] = {"uniform", "zipf", "skew"};
  static const char *strategies[] = {"uniform", "run-to-block",
                                     "consumers-first", "round-robin",
                                     "starve-rank"};
  static_assert(std::size(strategies) == kNumStrategies);
  std::string base =
      formatv("ranks={0} shape={1} type={2} seed={3} strategy={4}",
              o.worldSize, shapes[static_cast<int>(o.shape)],
              sim::elemName(o.type), o.seed,
              o.exhaustive ? "exhaustive"
                           : strategies[static_cast<int>(o.strategy)])
          .str();
  if (o.exhaustive)
    base += formatv(" calls={0} count={1}", o.calls, o.count).str();
  return base;
}

namespace {


/// A chunk-sized piece of a buffer at one rank: the unit of readiness.
struct RegionKey {
  int buffer, owner;
  int64_t part, slot;
  bool operator<(const RegionKey &o) const {
    return std::tie(buffer, owner, part, slot) <
           std::tie(o.buffer, o.owner, o.part, o.slot);
  }
};

/// Who accessed a region, when (the accessor's own clock entry), in which
/// call, and for which logical chunk.
struct Stamp {
  int agent = -1;
  uint32_t time = 0;
  int call = -1;
  Operation *op = nullptr;
  int64_t chunk = -1;
};

struct Region {
  std::vector<uint32_t> data;
  Stamp write;
  /// The event the writer published after this write, for messages.
  std::string publishedBy;
  std::vector<Stamp> reads;
};

struct Step {
  enum Kind { Copy, Reduce, Notify, Await } kind;
  Operation *op;
  int src = -1, srcOwner = -1; // srcOwner -1: every rank (reduce).
  int64_t srcPart = 0, srcChunk = 0;
  int dst = -1, dstOwner = -1;
  int64_t dstPart = 0, dstChunk = 0;
  sim::RedOp red = sim::RedOp::Sum;
  int event = -1;
  int64_t key[2] = {0, 0};
  int peer = -1; // -1: every rank.
  int64_t quota = 0; // Releases per earlier use, for a free event.
};

struct BufferInfo {
  std::string name;
  snac::BufferKind kind;
  snac::GeometrySide side;
  int part;
  bool peerAccessible;
  /// The ready event the schedule publishes a write of this buffer with,
  /// and the free event a read of it is released with (for messages).
  std::string publishEvent, releaseEvent;
};

struct EventInfo {
  std::string name;
  snac::EventKind kind;
};

struct RoleInfo {
  snac::RoleOp op;
  std::string name;
  bool rootOnly;
};

struct Agent {
  int rank, role;
  /// This call's steps, shared with the unrolling cache (and with the
  /// snapshots of the exhaustive search, which copy agents often).
  std::shared_ptr<const std::vector<Step>> steps;
  size_t pc = 0;
  std::vector<RegionKey> unpublished;
  bool done() const { return !steps || pc >= steps->size(); }
  const Step &next() const { return (*steps)[pc]; }
};

/// One notify/await channel: event, sender, receiver and key.
struct ChannelKey {
  int event, from, to;
  int64_t k0, k1;
  bool operator<(const ChannelKey &o) const {
    return std::tie(event, from, to, k0, k1) <
           std::tie(o.event, o.from, o.to, o.k0, o.k1);
  }
};

struct Channel {
  std::vector<std::shared_ptr<const Clock>> sent;
  size_t awaited = 0;
  /// With a trace: the flow of each notify in `sent` (-1 without).
  std::vector<int64_t> flows;
  Operation *lastNotify = nullptr;
  int lastSenderRole = -1;
};

/// The release counter of a `free` event key at one rank: every release from
/// any rank adds one, and an acquire of the counter sees them all.
struct ReleaseCounter {
  int64_t released = 0;
  int64_t uses = 0; // Awaits so far, i.e. uses of the region so far.
  Clock merged;
  /// With a trace: the flows of the releases no acquire has seen yet.
  std::vector<int64_t> flows;
};

struct CounterKey {
  int event, rank;
  int64_t k0, k1;
  bool operator<(const CounterKey &o) const {
    return std::tie(event, rank, k0, k1) < std::tie(o.event, o.rank, o.k0, o.k1);
  }
};

} // namespace

sim::RedOp interp::redOpOf(snac::Reduction r) {
  switch (r) {
  case snac::Reduction::sum:
    return sim::RedOp::Sum;
  case snac::Reduction::max:
    return sim::RedOp::Max;
  case snac::Reduction::min:
    return sim::RedOp::Min;
  case snac::Reduction::avg:
    return sim::RedOp::Avg;
  }
  llvm_unreachable("unknown reduction");
}

coll::CollectiveOp interp::collectiveNextTo(Operation *op, StringRef name) {
  auto module = op->getParentOfType<ModuleOp>();
  return module ? module.lookupSymbol<coll::CollectiveOp>(name)
                : coll::CollectiveOp();
}

std::vector<sim::ElemType> interp::elemTypesOf(coll::CollectiveOp collective) {
  std::vector<sim::ElemType> types;
  for (Attribute t : collective.getElementTypes())
    if (auto e = elemTypeOf(cast<TypeAttr>(t).getValue()))
      types.push_back(*e);
  if (types.empty())
    types.push_back(sim::ElemType::F32);
  return types;
}

std::optional<bool> interp::evalArith(Operation &op,
                                      llvm::DenseMap<Value, int64_t> &env,
                                      std::string &error) {
  auto get = [&](Value v) { return env.lookup(v); };
  auto divisor = [&](Value v) {
    if (get(v) == 0)
      error = "division by zero";
    return get(v);
  };
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    env[c.getResult()] = cast<IntegerAttr>(c.getValue()).getInt();
  } else if (auto add = dyn_cast<arith::AddIOp>(op)) {
    env[add.getResult()] = get(add.getLhs()) + get(add.getRhs());
  } else if (auto sub = dyn_cast<arith::SubIOp>(op)) {
    env[sub.getResult()] = get(sub.getLhs()) - get(sub.getRhs());
  } else if (auto mul = dyn_cast<arith::MulIOp>(op)) {
    env[mul.getResult()] = get(mul.getLhs()) * get(mul.getRhs());
  } else if (auto rem = dyn_cast<arith::RemUIOp>(op)) {
    if (int64_t d = divisor(rem.getRhs()))
      env[rem.getResult()] = get(rem.getLhs()) % d;
    else
      return false;
  } else if (auto div = dyn_cast<arith::DivUIOp>(op)) {
    if (int64_t d = divisor(div.getRhs()))
      env[div.getResult()] = get(div.getLhs()) / d;
    else
      return false;
  } else {
    return std::nullopt;
  }
  return true;
}

void interp::addStats(SimStats *to, const SimStats &from) {
  if (!to)
    return;
  to->steps += from.steps;
  to->actions += from.actions;
  to->elements += from.elements;
  to->states += from.states;
  to->traces += from.traces;
}

static sim::Layout toSim(coll::Layout l) {
  switch (coll::fixedLayout(l)) {
  case coll::Layout::packed:
    return sim::Layout::Packed;
  case coll::Layout::scattered:
    return sim::Layout::Scattered;
  default:
    return sim::Layout::Transposed;
  }
}

sim::Collective interp::modelOf(coll::CollectiveOp op) {
  sim::Collective c;
  for (coll::TransformOp t : op.getTransforms()) {
    sim::Transform s;
    s.consume = t.getConsume() == coll::ConsumeOp::copy ? sim::Consume::Copy
                                                         : sim::Consume::Reduce;
    if (auto r = t.getReduction())
      s.op = redOpOf(static_cast<snac::Reduction>(static_cast<int>(*r)));
    s.in = toSim(t.getInput());
    s.out = toSim(t.getOutput());
    s.variable = coll::isVariable(t.getInput());
    s.root = t.getRootRole() == coll::Root::producer   ? sim::Root::Producer
             : t.getRootRole() == coll::Root::consumer ? sim::Root::Consumer
                                                       : sim::Root::None;
    c.parts.push_back(s);
  }
  return c;
}

namespace {

/// A problem found by the simulation: where, and what.
/// The model's mutable state besides the agents, clocks and calls.
struct ScheduleState {
  std::map<RegionKey, Region> regions;
  std::map<ChannelKey, Channel> channels;
  std::map<CounterKey, ReleaseCounter> counters;
};

class Simulator : public SimulatorBase<Agent, Step, ScheduleState> {
public:
  Simulator(snac::ScheduleOp schedule, coll::CollectiveOp collective,
            const SimOptions &options)
      : SimulatorBase(schedule, collective, options), schedule(schedule) {}

private:
  // Setup.
  bool prepare() override;
  const sim::BufferGeometry &geometry(int buffer, int owner, int call);
  int64_t numChunks(const sim::Partition &p) const {
    return (p.size + ce - 1) / ce;
  }
  int64_t slotOf(int buffer, int64_t chunk) const {
    return buffers[buffer].peerAccessible && slots > 0 ? chunk % slots : chunk;
  }

  // Unrolling a role body into steps.
  /// Starts agent `id` on its steps in `call`.
  bool start(int id, int call);
  bool unroll(int id, int call, std::vector<Step> &steps) override;
  bool evalBlock(Block &block, llvm::DenseMap<Value, int64_t> &env,
                 std::vector<Step> &steps, int rank, int call);
  bool checkPartition(Operation *op, int buffer, int64_t owner, int64_t part,
                      int call);

  // Execution.
  bool stepAgent(Agent &agent) override;
  bool stepHost(int rank) override;
  bool readRegion(Agent &agent, const Step &s, int buffer, int owner,
                  int64_t part, int64_t chunk, Region *&region);
  bool writeRegion(Agent &agent, const Step &s, int buffer, int owner,
                   int64_t part, int64_t chunk, std::vector<uint32_t> data);
  bool awaitSatisfied(const Agent &agent, const Step &s, int source) const;
  int clockIndex(int rank, int role) const { return rank * (roles.size() + 1) + role; }
  int hostClock(int rank) const { return clockIndex(rank, roles.size()); }

  // Messages.
  std::string who(int clockIdx) const;
  std::string where(int buffer, int owner, int64_t part, int64_t chunk) const;
  std::string eventText(int event, const int64_t key[2]) const;
  bool checkEnd() override;
  std::string subject() override {
    return ("@" + collective.getSymName() + " (" + describe(o) + ")").str();
  }
  int trackOf(const Agent &agent, std::string &name) const override {
    name = "role " + roles[agent.role].name;
    return agent.role + 1;
  }
  void describeStep(const Agent &agent, std::string &name,
                    Trace::Args &args) override;

  // Exhaustive search (see "Exhaustive search" below).
  ScheduleState save() const override { return {regions, channels, counters}; }
  void restore(const ScheduleState &s) override {
    regions = s.regions;
    channels = s.channels;
    counters = s.counters;
  }
  int preferred() override;
  bool agentCanStep(Agent &agent) override;
  void agentTouches(const Agent &a, std::vector<Touch> &t) override;
  bool objectCoEnabled(const Access &before,
                       const Touch &now) const override;
  std::string blockedOn(const Agent &agent) const;
  bool reportDeadlock() override;

  snac::ScheduleOp schedule;
  int64_t ce = 1, slots = 0;

  std::vector<BufferInfo> buffers;
  std::vector<EventInfo> events;
  std::vector<RoleInfo> roles;
  llvm::StringMap<int> bufferIndex, eventIndex;

  std::vector<sim::CallArgs> callArgs;
  std::vector<std::vector<std::vector<uint32_t>>> inputs; // [call][rank]
  std::vector<std::vector<std::optional<std::vector<uint32_t>>>> expected;
  std::map<std::tuple<int, int, int>, sim::BufferGeometry> geometryCache;

  // agents: [rank * roles + role]; clocks: [clockIndex].
  std::map<RegionKey, Region> regions;
  std::map<ChannelKey, Channel> channels;
  std::map<CounterKey, ReleaseCounter> counters;
};

} // namespace

//===----------------------------------------------------------------------===//
// Setup
//===----------------------------------------------------------------------===//

bool Simulator::prepare() {
  for (Operation &op : schedule.getBody().front()) {
    if (auto b = dyn_cast<snac::BufferOp>(op)) {
      bufferIndex[b.getSymName()] = buffers.size();
      buffers.push_back({b.getSymName().str(), b.getKind(), b.getSide(),
                         static_cast<int>(b.getPart()), b.isPeerAccessible()});
      if (static_cast<size_t>(b.getPart()) >= model.parts.size())
        return fail(b, formatv("buffer '{0}' names transform {1}, but the "
                               "collective has {2}",
                               b.getSymName(), b.getPart(), model.parts.size()));
    } else if (auto e = dyn_cast<snac::EventOp>(op)) {
      eventIndex[e.getSymName()] = events.size();
      events.push_back({e.getSymName().str(), e.getKind()});
    } else if (auto r = dyn_cast<snac::RoleOp>(op)) {
      roles.push_back({r, r.getSymName().str(),
                       r.getParticipants() == snac::Participants::root});
    }
  }
  // Which events publish and release each buffer, in program order: a ready
  // notify after a write publishes it, a free notify after a read releases it.
  for (RoleInfo &role : roles) {
    SmallVector<int> written, read;
    role.op.walk([&](Operation *op) {
      auto note = [&](FlatSymbolRefAttr ref, SmallVector<int> &list) {
        list.push_back(bufferIndex.lookup(ref.getValue()));
      };
      if (auto copy = dyn_cast<snac::CopyOp>(op)) {
        note(copy.getSrcAttr(), read);
        note(copy.getDstAttr(), written);
      } else if (auto reduce = dyn_cast<snac::ReduceOp>(op)) {
        note(reduce.getSrcAttr(), read);
        note(reduce.getDstAttr(), written);
      } else if (auto notify = dyn_cast<snac::NotifyOp>(op)) {
        const EventInfo &e = events[eventIndex.lookup(notify.getEvent())];
        bool ready = e.kind == snac::EventKind::ready;
        for (int b : ready ? written : read) {
          std::string &slot =
              ready ? buffers[b].publishEvent : buffers[b].releaseEvent;
          if (slot.empty())
            slot = e.name;
        }
        (ready ? written : read).clear();
      }
    });
  }

  unsigned bits = sim::elemBits(o.type);
  int64_t chunkBytes = o.chunkBytes > 0 ? o.chunkBytes : schedule.getChunkBytes();
  ce = std::max<int64_t>(1, chunkBytes * 8 / bits);
  slots = o.stagingSlots >= 0 ? o.stagingSlots : schedule.getStagingSlots();

  // Every call's sizes, root, inputs and expected outputs, up front.
  for (int call = 0; call < o.calls; ++call) {
    uint64_t callSeed = o.seed * 1000003u + call * 7919u + 17;
    int64_t count = o.count;
    if (count < 0) {
      // Small worlds get many chunks per partition; large ones about one, so
      // a 72-rank run stays fast. Some calls are empty.
      int64_t maxChunks = std::max<int64_t>(1, 24 / n);
      // Plain modulo, not a std distribution: the same on every library.
      count = static_cast<int64_t>(rng() % (maxChunks * ce + 1));
      if (rng() % 8 == 0u)
        count = 0;
    }
    int root = static_cast<int>((o.seed + call) % n);
    callArgs.push_back(
        sim::makeCallArgs(model, n, root, o.shape, count, callSeed));
    std::vector<std::vector<uint32_t>> in;
    for (int r = 0; r < n; ++r)
      in.push_back(sim::randomInput(
          model, o.type, sim::inputGeometry(model, callArgs.back(), 0, r).total,
          callSeed, r));
    expected.push_back(sim::reference(model, callArgs.back(), o.type, in));
    inputs.push_back(std::move(in));
  }

  agents.resize(n * roles.size());
  for (int r = 0; r < n; ++r)
    for (unsigned role = 0; role < roles.size(); ++role)
      agents[r * roles.size() + role] = Agent{r, static_cast<int>(role), nullptr, 0, {}};
  clocks.assign(n * (roles.size() + 1), Clock(n * (roles.size() + 1), 0));
  rankCall.assign(n, -1);
  rankFinished.assign(n, false);
  return true;
}

const sim::BufferGeometry &Simulator::geometry(int buffer, int owner,
                                               int call) {
  auto key = std::make_tuple(buffer, owner, call);
  auto it = geometryCache.find(key);
  if (it != geometryCache.end())
    return it->second;
  const BufferInfo &b = buffers[buffer];
  sim::BufferGeometry g =
      b.side == snac::GeometrySide::input_of
          ? sim::inputGeometry(model, callArgs[call], b.part, owner)
          : sim::outputGeometry(model, callArgs[call], b.part, owner);
  return geometryCache.emplace(key, std::move(g)).first->second;
}

//===----------------------------------------------------------------------===//
// Unrolling
//===----------------------------------------------------------------------===//

bool Simulator::checkPartition(Operation *op, int buffer, int64_t owner,
                               int64_t part, int call) {
  if (owner < 0 || owner >= n)
    return fail(op, formatv("call {0}: rank {1} is out of range for '{2}' "
                            "(world size {3})",
                            call, owner, buffers[buffer].name, n));
  const sim::BufferGeometry &g = geometry(buffer, owner, call);
  if (part < 0 || part >= static_cast<int64_t>(g.parts.size()))
    return fail(op, formatv("call {0}: partition {1} of '{2}' at rank {3} is "
                            "out of range ({4} partitions)",
                            call, part, buffers[buffer].name, owner,
                            g.parts.size()));
  return true;
}

bool Simulator::evalBlock(Block &block, llvm::DenseMap<Value, int64_t> &env,
                          std::vector<Step> &steps, int rank, int call) {
  auto get = [&](Value v) { return env.lookup(v); };
  auto bufferOf = [&](FlatSymbolRefAttr ref) {
    return bufferIndex.lookup(ref.getValue());
  };
  for (Operation &op : block) {
    std::string error;
    if (std::optional<bool> done =
            evalStructured(op, env, error, [&](Block &body) {
              return evalBlock(body, env, steps, rank, call);
            })) {
      if (!*done)
        return error.empty() ? false : fail(&op, error);
    } else if (auto nc = dyn_cast<snac::NumChunksOp>(op)) {
      int b = bufferOf(nc.getBufferAttr());
      int64_t owner = get(nc.getOwner()), part = get(nc.getPart());
      if (!checkPartition(&op, b, owner, part, call))
        return false;
      env[nc.getResult()] = numChunks(geometry(b, owner, call).parts[part]);
    } else if (auto mc = dyn_cast<snac::MaxChunksOp>(op)) {
      int b = bufferOf(mc.getBufferAttr());
      int64_t owner = get(mc.getOwner());
      if (owner < 0 || owner >= n)
        return fail(&op, formatv("call {0}: rank {1} is out of range for "
                                 "'{2}' (world size {3})",
                                 call, owner, buffers[b].name, n));
      int64_t most = 0;
      for (const sim::Partition &p : geometry(b, owner, call).parts)
        most = std::max(most, numChunks(p));
      env[mc.getResult()] = most;
    } else if (auto slot = dyn_cast<snac::SlotOp>(op)) {
      env[slot.getResult()] =
          slotOf(bufferOf(slot.getBufferAttr()), get(slot.getChunk()));
    } else if (isa<snac::CopyOp, snac::ReduceOp>(op)) {
      // Copy and reduce share their source chunk and destination region;
      // a reduce reads its source from every rank.
      auto regions = [&](auto consume, Step s) {
        s.src = bufferOf(consume.getSrcAttr());
        s.srcPart = get(consume.getSrcPart());
        s.srcChunk = get(consume.getSrcChunk());
        s.dst = bufferOf(consume.getDstAttr());
        s.dstOwner = get(consume.getDstOwner());
        s.dstPart = get(consume.getDstPart());
        s.dstChunk = get(consume.getDstChunk());
        return s;
      };
      if (auto copy = dyn_cast<snac::CopyOp>(op)) {
        Step s = regions(copy, Step{Step::Copy, &op});
        s.srcOwner = get(copy.getSrcOwner());
        steps.push_back(s);
      } else {
        auto reduce = cast<snac::ReduceOp>(op);
        Step s = regions(reduce, Step{Step::Reduce, &op});
        s.red = redOpOf(reduce.getOp());
        steps.push_back(s);
      }
    } else if (isa<snac::NotifyOp, snac::AwaitOp>(op)) {
      bool isNotify = isa<snac::NotifyOp>(op);
      auto event = isNotify ? cast<snac::NotifyOp>(op).getEventAttr()
                            : cast<snac::AwaitOp>(op).getEventAttr();
      ValueRange key = isNotify ? cast<snac::NotifyOp>(op).getKey()
                                : cast<snac::AwaitOp>(op).getKey();
      Value peer = isNotify ? cast<snac::NotifyOp>(op).getTarget()
                            : cast<snac::AwaitOp>(op).getSource();
      if (key.size() > 2)
        return fail(&op, "the interpreter supports keys of at most two values");
      Step s{isNotify ? Step::Notify : Step::Await, &op};
      s.event = eventIndex.lookup(event.getValue());
      if (!isNotify)
        if (Value quota = cast<snac::AwaitOp>(op).getQuota())
          s.quota = get(quota);
      for (unsigned i = 0; i < key.size(); ++i)
        s.key[i] = get(key[i]);
      if (peer) {
        s.peer = get(peer);
        if (s.peer < 0 || s.peer >= n)
          return fail(&op, formatv("call {0}: rank {1} {2} rank {3}, which is "
                                   "out of range (world size {4})",
                                   call, rank,
                                   isNotify ? "notifies" : "awaits", s.peer, n));
      }
      steps.push_back(s);
    } else {
      return fail(&op, formatv("the interpreter cannot execute '{0}'",
                               op.getName().getStringRef()));
    }
  }
  return true;
}

bool Simulator::start(int id, int call) {
  Agent &agent = agents[id];
  agent.pc = 0;
  agent.steps = unrolled(id, call);
  return agent.steps != nullptr;
}

bool Simulator::unroll(int id, int call, std::vector<Step> &steps) {
  int rank = id / roles.size();
  RoleInfo &role = roles[id % roles.size()];
  if (role.rootOnly && rank != callArgs[call].root)
    return true;
  llvm::DenseMap<Value, int64_t> env;
  env[role.op.getRank()] = rank;
  env[role.op.getWorldSize()] = n;
  env[role.op.getRootRank()] = callArgs[call].root;
  return evalBlock(role.op.getBody().front(), env, steps, rank, call);
}

//===----------------------------------------------------------------------===//
// Messages
//===----------------------------------------------------------------------===//

std::string Simulator::who(int clockIdx) const {
  int perRank = roles.size() + 1;
  int rank = clockIdx / perRank, role = clockIdx % perRank;
  if (role == static_cast<int>(roles.size()))
    return formatv("the host of rank {0}", rank).str();
  return formatv("rank {0} role '{1}'", rank, roles[role].name).str();
}

std::string Simulator::where(int buffer, int owner, int64_t part,
                             int64_t chunk) const {
  std::string s = formatv("'{0}' of rank {1} partition {2} chunk {3}",
                          buffers[buffer].name, owner, part, chunk)
                      .str();
  if (slotOf(buffer, chunk) != chunk)
    s += formatv(" (slot {0})", slotOf(buffer, chunk)).str();
  return s;
}

/// Keys of derived schedules are (partition, chunk) for ready events and
/// (partition, slot) for free events.
std::string Simulator::eventText(int event, const int64_t key[2]) const {
  bool ready = events[event].kind == snac::EventKind::ready;
  return formatv("'{0}'[{1}, {2}] (partition {1}, {3} {2})", events[event].name,
                 key[0], key[1], ready ? "chunk" : "slot")
      .str();
}

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

bool Simulator::awaitSatisfied(const Agent &agent, const Step &s,
                               int source) const {
  auto it = channels.find({s.event, source, agent.rank, s.key[0], s.key[1]});
  size_t sent = it == channels.end() ? 0 : it->second.sent.size();
  size_t awaited = it == channels.end() ? 0 : it->second.awaited;
  return sent > awaited;
}

bool Simulator::agentCanStep(Agent &agent) {
  const Step &s = agent.next();
  if (s.kind != Step::Await)
    return true;
  if (events[s.event].kind == snac::EventKind::free) {
    auto it = counters.find({s.event, agent.rank, s.key[0], s.key[1]});
    int64_t released = it == counters.end() ? 0 : it->second.released;
    int64_t uses = it == counters.end() ? 0 : it->second.uses;
    return released >= uses * s.quota;
  }
  if (s.peer >= 0)
    return awaitSatisfied(agent, s, s.peer);
  for (int p = 0; p < n; ++p)
    if (!awaitSatisfied(agent, s, p))
      return false;
  return true;
}

bool Simulator::readRegion(Agent &agent, const Step &s, int buffer, int owner,
                           int64_t part, int64_t chunk, Region *&region) {
  int me = clockIndex(agent.rank, agent.role);
  int call = rankCall[agent.rank];
  std::string whoMe = who(me);
  if (!buffers[buffer].peerAccessible && owner != agent.rank)
    return fail(s.op, formatv("call {0}: {1} reads {2}, which is not "
                              "peer-accessible",
                              call, whoMe, where(buffer, owner, part, chunk)));
  std::string event = buffers[buffer].publishEvent.empty()
                          ? std::string()
                          : " '" + buffers[buffer].publishEvent + "'";
  auto it = regions.find({buffer, owner, part, slotOf(buffer, chunk)});
  if (it == regions.end())
    return fail(s.op, formatv("call {0}: {1} reads {2} before its readiness "
                              "event{3}: nothing was written there yet",
                              call, whoMe, where(buffer, owner, part, chunk),
                              event));
  region = &it->second;
  const Stamp &w = region->write;
  const Clock &mine = clocks[me];
  if (mine[w.agent] < w.time) {
    std::string published =
        region->publishedBy.empty()
            ? std::string("which it had not published yet")
            : "published with " + region->publishedBy;
    std::string msg = formatv(
        "call {0}: {1} reads {2} before its readiness event{7}: the data was "
        "written by {3} (call {4}, chunk {5}), {6}, and no event {1} awaited "
        "orders that write before this read",
        call, whoMe, where(buffer, owner, part, chunk), who(w.agent), w.call,
        w.chunk, published, event);
    if (w.chunk != chunk)
      msg += formatv("; the slot was reused for chunk {0} before chunk {1} "
                     "was consumed",
                     w.chunk, chunk)
                 .str();
    return fail(s.op, msg);
  }
  if (w.call != call)
    return fail(s.op, formatv("call {0}: {1} reads {2}, which still holds "
                              "data of call {3} (written by {4})",
                              call, whoMe, where(buffer, owner, part, chunk),
                              w.call, who(w.agent)));
  if (w.chunk != chunk)
    return fail(s.op, formatv("call {0}: {1} reads {2}, but the slot holds "
                              "chunk {3} (written by {4})",
                              call, whoMe, where(buffer, owner, part, chunk),
                              w.chunk, who(w.agent)));
  region->reads.push_back(Stamp{me, clocks[me][me], call, s.op, chunk});
  return true;
}

bool Simulator::writeRegion(Agent &agent, const Step &s, int buffer, int owner,
                            int64_t part, int64_t chunk,
                            std::vector<uint32_t> data) {
  int me = clockIndex(agent.rank, agent.role);
  int call = rankCall[agent.rank];
  std::string whoMe = who(me);
  if (buffers[buffer].kind == snac::BufferKind::input)
    return fail(s.op, formatv("call {0}: {1} writes the input buffer '{2}'",
                              call, whoMe, buffers[buffer].name));
  if (!buffers[buffer].peerAccessible && owner != agent.rank)
    return fail(s.op, formatv("call {0}: {1} writes {2}, which is not "
                              "peer-accessible",
                              call, whoMe, where(buffer, owner, part, chunk)));
  if (!checkPartition(s.op, buffer, owner, part, call))
    return false;
  const sim::Partition &p = geometry(buffer, owner, call).parts[part];
  if (chunk < 0 || chunk >= numChunks(p))
    return fail(s.op, formatv("call {0}: {1} writes chunk {2} of partition "
                              "{3} of '{4}' at rank {5}, which has {6} chunks",
                              call, whoMe, chunk, part, buffers[buffer].name,
                              owner, numChunks(p)));
  int64_t length = std::min(ce, p.size - chunk * ce);
  if (static_cast<int64_t>(data.size()) != length)
    return fail(s.op, formatv("call {0}: {1} writes {2} elements into {3}, "
                              "which holds {4}",
                              call, whoMe, data.size(),
                              where(buffer, owner, part, chunk), length));
  Region &region = regions[{buffer, owner, part, slotOf(buffer, chunk)}];
  const Clock &mine = clocks[me];
  std::string release = buffers[buffer].releaseEvent.empty()
                            ? std::string("an event")
                            : "'" + buffers[buffer].releaseEvent + "'";
  for (const Stamp &r : region.reads)
    if (mine[r.agent] < r.time)
      return fail(s.op,
                  formatv("call {0}: {1} overwrites {2} before {3} consumed "
                          "it (read in call {4}, chunk {5}): no release with "
                          "{6} orders that read before this write",
                          call, whoMe, where(buffer, owner, part, chunk),
                          who(r.agent), r.call, r.chunk, release));
  if (region.write.agent >= 0 && mine[region.write.agent] < region.write.time)
    return fail(s.op, formatv("call {0}: {1} writes {2} while {3} may still "
                              "be writing it (call {4}, chunk {5})",
                              call, whoMe, where(buffer, owner, part, chunk),
                              who(region.write.agent), region.write.call,
                              region.write.chunk));
  region.data = std::move(data);
  region.write = Stamp{me, clocks[me][me], call, s.op, chunk};
  region.publishedBy.clear();
  region.reads.clear();
  agent.unpublished.push_back({buffer, owner, part, slotOf(buffer, chunk)});
  statistics.elements += region.data.size();
  return true;
}

void Simulator::describeStep(const Agent &agent, std::string &name,
                             Trace::Args &args) {
  const Step &s = agent.next();
  switch (s.kind) {
  case Step::Copy:
  case Step::Reduce:
    name = s.kind == Step::Copy ? "copy" : "reduce";
    args.push_back(
        {"from", s.srcOwner < 0
                     ? formatv("'{0}' of every rank partition {1} chunk {2}",
                               buffers[s.src].name, s.srcPart, s.srcChunk)
                           .str()
                     : where(s.src, s.srcOwner, s.srcPart, s.srcChunk)});
    args.push_back({"to", where(s.dst, s.dstOwner, s.dstPart, s.dstChunk)});
    break;
  case Step::Notify:
  case Step::Await:
    name = (s.kind == Step::Notify ? "notify " : "await ") +
           events[s.event].name;
    args.push_back({"event", eventText(s.event, s.key)});
    args.push_back({"peer", s.peer < 0 ? std::string("every rank")
                                       : std::to_string(s.peer)});
    break;
  }
}

bool Simulator::stepAgent(Agent &agent) {
  const Step &s = (*agent.steps)[agent.pc++];
  int me = clockIndex(agent.rank, agent.role);
  Clock &mine = clocks[me];
  ++mine[me];
  switch (s.kind) {
  case Step::Copy: {
    Region *src;
    if (!readRegion(agent, s, s.src, s.srcOwner, s.srcPart, s.srcChunk, src))
      return false;
    return writeRegion(agent, s, s.dst, s.dstOwner, s.dstPart, s.dstChunk,
                       src->data);
  }
  case Step::Reduce: {
    // Every rank's contribution, in ascending rank order (deterministic).
    std::vector<Region *> srcs(n);
    for (int p = 0; p < n; ++p)
      if (!readRegion(agent, s, s.src, p, s.srcPart, s.srcChunk, srcs[p]))
        return false;
    size_t length = srcs[0]->data.size();
    for (int p = 1; p < n; ++p)
      if (srcs[p]->data.size() != length)
        return fail(s.op, formatv("call {0}: {1} reduces chunks of different "
                                  "sizes: rank 0 has {2}, rank {3} has {4}",
                                  rankCall[agent.rank], who(me), length, p,
                                  srcs[p]->data.size()));
    std::vector<uint32_t> out(length), contributions(n);
    for (size_t i = 0; i < length; ++i) {
      for (int p = 0; p < n; ++p)
        contributions[p] = srcs[p]->data[i];
      out[i] = sim::atomReduce(o.type, s.red, contributions);
    }
    return writeRegion(agent, s, s.dst, s.dstOwner, s.dstPart, s.dstChunk,
                       std::move(out));
  }
  case Step::Notify: {
    auto snapshot = std::make_shared<const Clock>(mine);
    std::string text = eventText(s.event, s.key);
    for (const RegionKey &key : agent.unpublished) {
      auto it = regions.find(key);
      if (it != regions.end() && it->second.write.agent == me &&
          it->second.publishedBy.empty())
        it->second.publishedBy = text;
    }
    agent.unpublished.clear();
    for (int t = 0; t < n; ++t) {
      if (s.peer >= 0 && t != s.peer)
        continue;
      if (events[s.event].kind == snac::EventKind::free) {
        ReleaseCounter &rc = counters[{s.event, t, s.key[0], s.key[1]}];
        ++rc.released;
        rc.merged.resize(mine.size(), 0);
        for (size_t i = 0; i < mine.size(); ++i)
          rc.merged[i] = std::max(rc.merged[i], mine[i]);
        if (o.trace)
          rc.flows.push_back(o.trace->flowStart("release"));
        continue;
      }
      Channel &ch = channels[{s.event, agent.rank, t, s.key[0], s.key[1]}];
      ch.sent.push_back(snapshot);
      if (o.trace)
        ch.flows.push_back(o.trace->flowStart("ready"));
      ch.lastNotify = s.op;
      ch.lastSenderRole = agent.role;
    }
    return true;
  }
  case Step::Await: {
    if (events[s.event].kind == snac::EventKind::free) {
      ReleaseCounter &rc = counters[{s.event, agent.rank, s.key[0], s.key[1]}];
      ++rc.uses;
      rc.merged.resize(mine.size(), 0);
      for (size_t i = 0; i < mine.size(); ++i)
        mine[i] = std::max(mine[i], rc.merged[i]);
      if (o.trace) {
        for (int64_t id : rc.flows)
          o.trace->flowEnd(id);
        rc.flows.clear();
      }
      return true;
    }
    // A ready event: the u-th await from a rank matches its u-th notify.
    for (int p = 0; p < n; ++p) {
      if (s.peer >= 0 && p != s.peer)
        continue;
      Channel &ch = channels[{s.event, p, agent.rank, s.key[0], s.key[1]}];
      if (o.trace && ch.awaited < ch.flows.size())
        o.trace->flowEnd(ch.flows[ch.awaited]);
      const Clock &theirs = *ch.sent[ch.awaited++];
      for (size_t i = 0; i < mine.size(); ++i)
        mine[i] = std::max(mine[i], theirs[i]);
    }
    return true;
  }
  }
  llvm_unreachable("unknown step");
}

bool Simulator::stepHost(int rank) {
  int host = hostClock(rank);
  Clock &hc = clocks[host];
  // The kernel finished: the host sees all it did (stream order).
  for (unsigned role = 0; role < roles.size(); ++role) {
    const Clock &c = clocks[clockIndex(rank, role)];
    for (size_t i = 0; i < hc.size(); ++i)
      hc[i] = std::max(hc[i], c[i]);
  }
  ++hc[host];
  int out = bufferIndex.lookup("output"), in = bufferIndex.lookup("input");
  int call = rankCall[rank];
  if (call >= 0) {
    // Check the output against the collective's definition, bitwise.
    const sim::BufferGeometry &g = geometry(out, rank, call);
    const auto &want = expected[call][rank];
    uint32_t poison = sim::poisonBits(o.type);
    for (size_t part = 0; part < g.parts.size(); ++part) {
      const sim::Partition &p = g.parts[part];
      for (int64_t c = 0; c < numChunks(p); ++c) {
        auto it = regions.find({out, rank, static_cast<int64_t>(part), c});
        const Region *region = it == regions.end() ? nullptr : &it->second;
        int64_t length = std::min(ce, p.size - c * ce);
        for (int64_t i = 0; i < length; ++i) {
          int64_t at = p.offset + c * ce + i;
          uint32_t got = region && i < static_cast<int64_t>(region->data.size())
                             ? region->data[i]
                             : poison;
          uint32_t expect = want ? (*want)[at] : poison;
          if (got == expect)
            continue;
          bool written = region && region->write.agent != host;
          return fail(written ? region->write.op : schedule.getOperation(),
                      formatv("call {0}: rank {1} output partition {2} chunk "
                              "{3} element {4} (offset {5}) is 0x{6}, expected "
                              "0x{7}{8}{9}",
                              call, rank, part, c, i, at,
                              llvm::utohexstr(got), llvm::utohexstr(expect),
                              want ? "" : " (untouched: this rank consumes "
                                          "nothing)",
                              written ? " (written by " + who(region->write.agent) + ")"
                                      : std::string(" (never written)")));
        }
      }
    }
  }
  call = nextCall(rank);
  if (rankFinished[rank])
    return true;
  // Fresh inputs, poisoned outputs; drop this rank's user-buffer regions of
  // the previous call, whose geometry may differ.
  for (auto it = regions.begin(); it != regions.end();) {
    if (it->first.owner == rank &&
        (it->first.buffer == in || it->first.buffer == out))
      it = regions.erase(it);
    else
      ++it;
  }
  auto fill = [&](int buffer, const std::vector<uint32_t> *data) {
    const sim::BufferGeometry &g = geometry(buffer, rank, call);
    for (size_t part = 0; part < g.parts.size(); ++part) {
      const sim::Partition &p = g.parts[part];
      for (int64_t c = 0; c < numChunks(p); ++c) {
        int64_t length = std::min(ce, p.size - c * ce);
        Region &region = regions[{buffer, rank, static_cast<int64_t>(part), c}];
        region.data.assign(length, sim::poisonBits(o.type));
        if (data)
          for (int64_t i = 0; i < length; ++i)
            region.data[i] = (*data)[p.offset + c * ce + i];
        region.write = Stamp{host, hc[host], call, nullptr, c};
        region.publishedBy = "the kernel launch";
      }
    }
  };
  fill(in, &inputs[call][rank]);
  fill(out, nullptr);
  // Launch: the kernel's role groups start after the host's writes.
  for (unsigned role = 0; role < roles.size(); ++role) {
    int id = rank * roles.size() + role;
    Clock &c = clocks[clockIndex(rank, role)];
    for (size_t i = 0; i < c.size(); ++i)
      c[i] = std::max(c[i], hc[i]);
    if (!start(id, call))
      return false;
  }
  return true;
}

/// What a blocked agent waits for, in words.
std::string Simulator::blockedOn(const Agent &agent) const {
  const Step &s = agent.next();
  std::string line = formatv("{0} (call {1}) awaits {2}",
                             who(clockIndex(agent.rank, agent.role)),
                             rankCall[agent.rank], eventText(s.event, s.key));
  if (events[s.event].kind == snac::EventKind::free) {
    auto it = counters.find({s.event, agent.rank, s.key[0], s.key[1]});
    int64_t released = it == counters.end() ? 0 : it->second.released;
    int64_t uses = it == counters.end() ? 0 : it->second.uses;
    return line + formatv(": {0} of {1} releases arrived", released,
                          uses * s.quota)
                      .str();
  }
  std::string from;
  int missing = 0;
  for (int p = 0; p < n; ++p)
    if ((s.peer < 0 || p == s.peer) && !awaitSatisfied(agent, s, p))
      from += (missing++ ? ", " : "") + std::to_string(p);
  return line + formatv(" from rank{0} {1}", missing > 1 ? "s" : "", from).str();
}

bool Simulator::reportDeadlock() {
  failure = deadlockOf(
      agents, [&](Agent &agent) { return !agent.done(); },
      [&](Agent &agent) { return blockedOn(agent); }, schedule.getOperation());
  return false;
}

bool Simulator::checkEnd() {
  for (auto &[key, ch] : channels) {
    if (events[key.event].kind != snac::EventKind::ready ||
        ch.sent.size() <= ch.awaited)
      continue;
    int64_t k[2] = {key.k0, key.k1};
    return fail(ch.lastNotify,
                formatv("rank {0} role '{1}' published {2} to rank {3} {4} "
                        "time(s) more than rank {3} awaited it",
                        key.from, roles[ch.lastSenderRole].name,
                        eventText(key.event, k), key.to,
                        ch.sent.size() - ch.awaited));
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Exhaustive search
//===----------------------------------------------------------------------===//
//
// Every interleaving of the agents and hosts up to the order of independent
// steps, by dynamic partial-order reduction (Flanagan and Godefroid, POPL
// 2005, the vector-clock algorithm of their figure 4): a depth-first search
// that, besides the step it takes in a state, backtracks only where the run
// so far shows a race, i.e. two dependent steps of different processes that
// could have run in the other order and are not ordered by the dependencies
// in between. A schedule whose synchronization orders every conflicting
// access has one trace and is explored once, however many agents run; a
// missing or wrong synchronization shows up as a race, whose reversal is
// explored.
//
// Soundness. Agents and hosts are sequential processes; a role body unrolls
// from the call's arguments alone (never from data or timing), so each
// process's next step is known in every state. Each step accesses a
// footprint of shared objects, everything else it touches is its own
// agent's (its clock, its pc):
//   - a region (buffer, owner, partition, slot): copy and reduce read their
//     sources and write their destination; reads commute with reads;
//   - a ready channel: the u-th notify writes message u and the channel's
//     tail, the u-th await reads message u and writes the head, so notifies
//     of one channel (and awaits of one channel) are ordered, while a notify
//     and an await of different messages commute;
//   - a free counter: a release adds one and joins its clock (releases
//     commute), an acquire reads the count and the clock;
//   - a rank's user buffers: the host rewrites and checks them, agents
//     access regions of them (distinct regions are distinct objects); and a
//     rank's launch: the host writes it, its agents read it.
// Two steps are dependent when they access one object in conflicting modes.
// Independent steps commute, neither enables or disables the other, and
// every check a step makes (vector clocks, stamps, data, sizes) reads only
// its footprint and its own agent, so its verdict is the same in every
// interleaving of a Mazurkiewicz trace. (Region::publishedBy, the event named
// in a message, is the one exception: it changes words, never a verdict.)
// "Could have run in the other order" (co-enabled) is refined only where it
// is certain: an await cannot precede the notify of the message it takes, an
// acquire cannot precede a release it needed to reach its quota, and a host
// and its rank's agents never run at once. The state space is finite and
// acyclic (every step advances a pc or a call), so the search explores a
// persistent set in every state it visits (their theorem 1) and reaches
// every deadlock and every terminal state; a failing check is a step that
// would mark its agent failed and let the others run on, so every reachable
// failure is found. Every failure reported is a real interleaving.
//
// The budget bounds the states visited (steps executed); reaching it fails the run, since a
// truncated search proves nothing.

namespace {
enum ObjectKind { RegionObj = FirstModelObj, HeadObj, TailObj, MessageObj, CounterObj };
} // namespace

void Simulator::agentTouches(const Agent &a, std::vector<Touch> &t) {
  const Step &s = a.next();
  auto region = [&](int buffer, int owner, int64_t part, int64_t chunk,
                    uint8_t mode) {
    t.push_back({objectId({RegionObj, buffer, owner, part,
                           slotOf(buffer, chunk), 0, 0}),
                 mode, 0});
    snac::BufferKind kind = buffers[buffer].kind;
    if (kind == snac::BufferKind::input || kind == snac::BufferKind::output)
      t.push_back({objectId({UserObj, owner, 0, 0, 0, 0, 0}), kUser, 0});
  };
  switch (s.kind) {
  case Step::Copy:
    region(s.src, s.srcOwner, s.srcPart, s.srcChunk, kRead);
    region(s.dst, s.dstOwner, s.dstPart, s.dstChunk, kWrite);
    break;
  case Step::Reduce:
    for (int p = 0; p < n; ++p)
      region(s.src, p, s.srcPart, s.srcChunk, kRead);
    region(s.dst, s.dstOwner, s.dstPart, s.dstChunk, kWrite);
    break;
  case Step::Notify:
  case Step::Await: {
    bool notify = s.kind == Step::Notify;
    if (events[s.event].kind == snac::EventKind::free) {
      if (!notify) {
        auto it = counters.find({s.event, a.rank, s.key[0], s.key[1]});
        int64_t uses = it == counters.end() ? 0 : it->second.uses;
        t.push_back({objectId({CounterObj, s.event, a.rank, s.key[0],
                               s.key[1], 0, 0}),
                     kAcquire, uses * s.quota});
        break;
      }
      for (int p = 0; p < n; ++p) {
        if (s.peer >= 0 && p != s.peer)
          continue;
        auto it = counters.find({s.event, p, s.key[0], s.key[1]});
        int64_t released = it == counters.end() ? 0 : it->second.released;
        t.push_back({objectId({CounterObj, s.event, p, s.key[0], s.key[1],
                               0, 0}),
                     kRelease, released});
      }
      break;
    }
    for (int p = 0; p < n; ++p) {
      if (s.peer >= 0 && p != s.peer)
        continue;
      int from = notify ? a.rank : p, to = notify ? p : a.rank;
      auto it = channels.find({s.event, from, to, s.key[0], s.key[1]});
      int64_t index = it == channels.end()
                          ? 0
                          : notify ? it->second.sent.size()
                                   : it->second.awaited;
      t.push_back({objectId({notify ? TailObj : HeadObj, s.event, from, to,
                             s.key[0], s.key[1], 0}),
                   kWrite, 0});
      t.push_back({objectId({MessageObj, s.event, from, to, s.key[0],
                             s.key[1], index}),
                   notify ? kNotify : kAwait, 0});
    }
    break;
  }
  }
}

/// Whether the earlier access `before` and the pending `now` (of another
/// process, conflicting on the same object) could have run in either order.
bool Simulator::objectCoEnabled(const Access &before,
                                const Touch &now) const {
  switch (objectKind(now.object)) {
  case MessageObj: // An await takes the message its notify wrote.
    return false;
  case CounterObj:
    // An acquire reaching its quota only with this release needed it.
    if (now.mode == kAcquire && before.mode == kRelease)
      return before.info >= now.info;
    return true;
  default:
    return true;
  }
}

// Consumers first: the highest role index, then the highest rank's host.
int Simulator::preferred() {
  int na = agents.size();
  for (int i = na - 1; i >= 0; --i)
    if (canStep(i))
      return i;
  for (int r = n - 1; r >= 0; --r)
    if (canStep(na + r))
      return na + r;
  return -1;
}

LogicalResult interp::simulate(snac::ScheduleOp schedule,
                               const SimOptions &options, SimStats *stats) {
  return simulateOp<Simulator>(schedule, "schedule", options, stats);
}
