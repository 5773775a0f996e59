//===- Common.h - what the schedule and program simulators share -*- C++ -*-===//

#ifndef COLLC_LIB_INTERPRETER_COMMON_H
#define COLLC_LIB_INTERPRETER_COMMON_H

#include "collc/Dialect/Coll/IR/CollOps.h"
#include "collc/Dialect/Snac/IR/SnacOps.h"
#include "collc/Interpreter/Interpreter.h"
#include "collc/Interpreter/Trace.h"
#include "collc/Interpreter/Verify.h"
#include "collc/Sim/Model.h"

#include "Search.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace collc::interp {

/// The oracle's reduction operator for a snac one.
sim::RedOp redOpOf(snac::Reduction r);
/// The oracle's model of a collective: its transforms, from the coll
/// dialect, never from a schedule or program.
sim::Collective modelOf(coll::CollectiveOp op);

/// The coll.collective named `name` in the module around `op` (a schedule's
/// or program's definition, the oracle), or null.
coll::CollectiveOp collectiveNextTo(mlir::Operation *op, llvm::StringRef name);
/// The interpreter's element types of `collective`; F32 when none maps.
std::vector<sim::ElemType> elemTypesOf(coll::CollectiveOp collective);
/// Adds one run's counters into `*to` (nothing when null).
void addStats(SimStats *to, const SimStats &from);

/// A process's rank: the simulators number their agents (each with a
/// `rank`) first, then one host per rank.
template <typename Agents> int rankOfProcess(const Agents &agents, int id) {
  int na = agents.size();
  return id < na ? agents[id].rank : id - na;
}

/// Whether `a` and `b` are one rank's host and one of its agents, which never
/// run in either order: the host launches a call only when its agents are
/// done, and they start it only after the host.
template <typename Agents>
bool hostAndOwnAgent(const Agents &agents, int a, int b) {
  int na = agents.size();
  return (a >= na) != (b >= na) &&
         rankOfProcess(agents, a) == rankOfProcess(agents, b);
}

/// The next process of a seeded run, the same rule for schedules and
/// programs: `current` again under run-to-block while it can move, else the
/// strategy's pick (round-robin after `current`; three times in four
/// `preferred()`, the model's consumer-most process that can move; any
/// process but the starved rank's, seed mod n), else one of those that can
/// move uniformly at random; -1 when none can (a deadlock).
template <typename CanStep, typename RankOf, typename Preferred>
int pickNext(const SimOptions &o, std::mt19937_64 &rng, int current, int total,
             CanStep canStep, RankOf rankOf, Preferred preferred,
             std::vector<int> &candidates) {
  if (o.strategy == Strategy::RunToBlock && current >= 0 && canStep(current))
    return current;
  int chosen = -1;
  if (o.strategy == Strategy::RoundRobin) {
    for (int i = 1; i <= total && chosen < 0; ++i)
      if (canStep((current + i + total) % total))
        chosen = (current + i + total) % total;
  } else if (o.strategy == Strategy::ConsumersFirst && rng() % 4 != 0) {
    chosen = preferred();
  } else if (o.strategy == Strategy::StarveRank) {
    // The starved rank moves only when nobody else can (the random pick
    // below falls back to it).
    int victim = static_cast<int>(o.seed % o.worldSize);
    std::vector<int> others;
    for (int id = 0; id < total; ++id)
      if (rankOf(id) != victim && canStep(id))
        others.push_back(id);
    if (!others.empty())
      chosen = others[rng() % others.size()];
  }
  if (chosen >= 0)
    return chosen;
  candidates.resize(total);
  for (int i = 0; i < total; ++i)
    candidates[i] = i;
  while (!candidates.empty()) {
    size_t i = rng() % candidates.size();
    if (canStep(candidates[i]))
      return candidates[i];
    candidates[i] = candidates.back();
    candidates.pop_back();
  }
  return -1;
}

/// A problem a simulator found: reported as an error at `op` with `notes`.
struct Failure {
  mlir::Operation *op = nullptr;
  std::string message;
  std::vector<std::pair<mlir::Operation *, std::string>> notes;
};

/// The deadlock report of a state where nothing can move: the first blocked
/// agent's wait as the error, up to eight more as notes, at `fallback` when
/// no agent has a step left.
template <typename Agents, typename Blocked, typename Describe>
Failure deadlockOf(Agents &agents, Blocked blocked, Describe describe,
                   mlir::Operation *fallback) {
  Failure f;
  for (auto &agent : agents) {
    if (!blocked(agent))
      continue;
    mlir::Operation *op = agent.next().op;
    if (!f.op) {
      f.op = op;
      f.message = "deadlock: no rank can make progress; " + describe(agent);
    } else if (f.notes.size() < 8) {
      f.notes.push_back({op, describe(agent)});
    }
  }
  if (!f.op)
    f = Failure{fallback, "deadlock: no rank can make progress", {}};
  return f;
}

/// A vector clock: one counter per process.
using Clock = std::vector<uint32_t>;

/// Evaluates the integer arithmetic both simulators unroll bodies with
/// (arith.constant, addi, subi, muli, remui, divui) into `env`: std::nullopt
/// when `op` is none of these, else whether it succeeded (a division by zero
/// fails, with `error` set).
std::optional<bool> evalArith(mlir::Operation &op,
                              llvm::DenseMap<mlir::Value, int64_t> &env,
                              std::string &error);

/// Evaluates what both simulators' bodies hold besides their own ops:
/// integer arithmetic (evalArith), scf.yield, and scf.for, whose block
/// `body` evaluates once per iteration. std::nullopt when `op` is none of
/// these, else whether it succeeded; on a failure `error` is set, unless
/// `body` failed (it reported its own).
template <typename Body>
std::optional<bool> evalStructured(mlir::Operation &op,
                                   llvm::DenseMap<mlir::Value, int64_t> &env,
                                   std::string &error, Body body) {
  if (auto loop = llvm::dyn_cast<mlir::scf::ForOp>(op)) {
    int64_t lb = env.lookup(loop.getLowerBound()),
            ub = env.lookup(loop.getUpperBound()),
            st = env.lookup(loop.getStep());
    if (st <= 0) {
      error = "loop step must be positive";
      return false;
    }
    for (int64_t i = lb; i < ub; i += st) {
      env[loop.getInductionVar()] = i;
      if (!body(*loop.getBody()))
        return false;
    }
    return true;
  }
  if (llvm::isa<mlir::scf::YieldOp>(op))
    return true;
  return evalArith(op, env, error);
}

/// Kinds of the search's objects both models have: a rank's user buffers
/// (the host rewrites and checks them) and its launch (the host writes it,
/// its agents read it). A model's own kinds start at FirstModelObj.
enum SharedObjectKind { UserObj, LaunchObj, FirstModelObj };

/// What the schedule and program simulators share around their models: the
/// processes (the agents, rank-major, then one host per rank), the failure,
/// the unrolled steps, and a run: prepare(), then either the exhaustive
/// search over every call's unrolled steps or a seeded walk (pickNext) until
/// every rank has finished its calls, then checkEnd(); a failure is reported
/// at its op as "simulation of <subject()> failed: ...". `State` is the rest
/// of the model's mutable state, saved with the agents, clocks and calls for
/// the search.
template <typename AgentT, typename StepT, typename State>
class SimulatorBase : public PorSearch {
public:
  mlir::LogicalResult run(SimStats *stats);

protected:
  SimulatorBase(mlir::Operation *owner, coll::CollectiveOp collective,
                const SimOptions &options)
      : owner(owner), collective(collective), o(options),
        model(modelOf(collective)), n(options.worldSize), rng(options.seed) {}

  // The model.
  virtual bool prepare() = 0;
  /// Appends agent `id`'s steps in `call` to `steps`; false on a failure.
  virtual bool unroll(int id, int call, std::vector<StepT> &steps) = 0;
  /// Whether `agent`, which has a step left, can take it now.
  virtual bool agentCanStep(AgentT &agent) = 0;
  virtual bool stepAgent(AgentT &agent) = 0;
  virtual bool stepHost(int rank) = 0;
  virtual bool checkEnd() = 0;
  virtual bool reportDeadlock() = 0;
  /// The seeded walk's consumer-most process that can move (-1: none).
  virtual int preferred() = 0;
  /// Appends the footprint of `agent`'s next step to `t`, which holds its
  /// read of its rank's launch.
  virtual void agentTouches(const AgentT &agent, std::vector<Touch> &t) = 0;
  /// Whether the earlier access `before` and the pending `now` of another
  /// process (conflicting, same object) could have run in either order,
  /// when they are not a host and its own rank's agent (coEnabled).
  virtual bool objectCoEnabled(const Access &before, const Touch &now) const = 0;
  /// What failed, for the report: "@name (options)".
  virtual std::string subject() = 0;
  /// `agent`'s track within its rank in a trace (from 1; 0 is the
  /// host's), and the track's name.
  virtual int trackOf(const AgentT &agent, std::string &name) const = 0;
  /// The trace of `agent`'s next step: its name and arguments. Flows are
  /// the step's own (Trace::flowStart, flowEnd).
  virtual void describeStep(const AgentT &agent, std::string &name,
                            Trace::Args &args) = 0;
  virtual State save() const = 0;
  virtual void restore(const State &s) = 0;

  bool fail(mlir::Operation *op, std::string message) {
    failure = Failure{op ? op : owner, std::move(message), {}};
    return false;
  }
  int rankOf(int id) const { return rankOfProcess(agents, id); }

  /// The steps of agent `id` in `call` (cached: they depend on the call's
  /// arguments only), or null after a failure.
  std::shared_ptr<const std::vector<StepT>> unrolled(int id, int call) {
    auto &cached = unrollCache[{id, call}];
    if (!cached) {
      auto steps = std::make_shared<std::vector<StepT>>();
      if (!unroll(id, call, *steps))
        return nullptr;
      cached = steps;
    }
    return cached;
  }
  /// Whether the host of `rank` can move: its kernel's agents are all done
  /// and it has a call left to check.
  bool hostCanStep(int rank) const {
    if (rankFinished[rank])
      return false;
    size_t perRank = agents.size() / n;
    for (size_t i = rank * perRank; i < (rank + 1) * perRank; ++i)
      if (!agents[i].done())
        return false;
    return true;
  }
  /// Moves `rank` on to its next call once its host checked the current
  /// one; returns that call, and marks the rank finished after the last.
  int nextCall(int rank) {
    int call = ++rankCall[rank];
    if (call >= o.calls)
      rankFinished[rank] = true;
    return call;
  }

  mlir::Operation *owner; // the schedule or program
  coll::CollectiveOp collective;
  SimOptions o;
  sim::Collective model;
  int n;
  std::mt19937_64 rng;
  std::vector<AgentT> agents;
  std::vector<Clock> clocks;
  std::vector<int> rankCall; // the call each rank's kernel runs, -1 before
  std::vector<bool> rankFinished;
  std::optional<Failure> failure;
  SimStats statistics;
  std::map<std::pair<int, int>, std::shared_ptr<const std::vector<StepT>>>
      unrollCache;

  // PorSearch.
  int numProcesses() const override { return agents.size() + n; }
  bool hasNext(int p) const override {
    return p < static_cast<int>(agents.size())
               ? !agents[p].done()
               : !rankFinished[p - agents.size()];
  }
  bool canStep(int p) override {
    if (p >= static_cast<int>(agents.size()))
      return hostCanStep(p - agents.size());
    return !agents[p].done() && agentCanStep(agents[p]);
  }
  std::vector<Touch> nextTouches(int p) override {
    int na = agents.size();
    if (p >= na)
      return {{objectId({UserObj, p - na, 0, 0, 0, 0, 0}), kHost, 0},
              {objectId({LaunchObj, p - na, 0, 0, 0, 0, 0}), kWrite, 0}};
    std::vector<Touch> t{
        {objectId({LaunchObj, agents[p].rank, 0, 0, 0, 0, 0}), kRead, 0}};
    agentTouches(agents[p], t);
    return t;
  }
  bool coEnabled(const Access &before, int proc,
                 const Touch &now) const override {
    return !hostAndOwnAgent(agents, before.proc, proc) &&
           objectCoEnabled(before, now);
  }
  bool stepProcess(int p) override {
    ++statistics.steps;
    if (o.trace)
      traceStep(p);
    if (p >= static_cast<int>(agents.size()))
      return stepHost(p - agents.size());
    ++statistics.actions;
    return stepAgent(agents[p]);
  }
  /// Records process `p`'s next step (o.trace).
  void traceStep(int p) {
    const int na = agents.size();
    if (p >= na) {
      const int rank = p - na;
      const int call = rankCall[rank];
      o.trace->step(rank, 0, statistics.steps,
                    call < 0 ? "launch call 0"
                             : "check call " + std::to_string(call) +
                                   (call + 1 < o.calls
                                        ? ", launch call " +
                                              std::to_string(call + 1)
                                        : std::string()),
                    {});
      return;
    }
    std::string trackName, name;
    const int track = trackOf(agents[p], trackName);
    Trace::Args args;
    describeStep(agents[p], name, args);
    args.insert(args.begin(),
                {"call", std::to_string(rankCall[agents[p].rank])});
    o.trace->step(agents[p].rank, track, statistics.steps, std::move(name),
                  std::move(args));
  }
  bool allFinished() const override {
    return llvm::all_of(rankFinished, [](bool b) { return b; });
  }
  bool checkFinal() override { return checkEnd(); }
  bool deadlock() override { return reportDeadlock(); }
  bool budgetSpent(uint64_t budget, uint64_t traces) override {
    return fail(nullptr,
                llvm::formatv("the exhaustive search reached its budget of "
                              "{0} states after {1} complete interleavings; "
                              "nothing is proven (raise the budget or shrink "
                              "the run)",
                              budget, traces));
  }
  void saveState(size_t depth) override {
    if (snapshots.size() <= depth)
      snapshots.resize(depth + 1);
    snapshots[depth] = {agents, clocks, rankCall, rankFinished, save()};
  }
  void restoreState(size_t depth) override {
    const SavedState &s = snapshots[depth];
    agents = s.agents;
    clocks = s.clocks;
    rankCall = s.rankCall;
    rankFinished = s.rankFinished;
    restore(s.model);
  }

private:
  struct SavedState {
    std::vector<AgentT> agents;
    std::vector<Clock> clocks;
    std::vector<int> rankCall;
    std::vector<bool> rankFinished;
    State model;
  };
  std::vector<SavedState> snapshots;
};

template <typename AgentT, typename StepT, typename State>
mlir::LogicalResult
SimulatorBase<AgentT, StepT, State>::run(SimStats *stats) {
  auto report = [&]() {
    if (o.trace)
      o.trace->mark(statistics.steps + 1, "failed", failure->message);
    mlir::InFlightDiagnostic diag = failure->op->emitError()
                                    << "simulation of " << subject()
                                    << " failed: " << failure->message;
    for (auto &[op, text] : failure->notes)
      diag.attachNote(op->getLoc()) << text;
    return mlir::failure();
  };
  if (!prepare())
    return report();
  if (o.trace) {
    // Every track named up front: an agent that never moves (blocked from
    // its first step) still has its row.
    for (int r = 0; r < n; ++r)
      o.trace->nameTrack(r, 0, "host");
    for (const AgentT &a : agents) {
      std::string name;
      const int track = trackOf(a, name);
      o.trace->nameTrack(a.rank, track, name);
    }
  }
  int total = agents.size() + n;
  if (o.exhaustive) {
    // Every call's steps, up front: the search needs every process's next.
    for (int id = 0; id < static_cast<int>(agents.size()); ++id)
      for (int call = 0; call < o.calls; ++call)
        if (!unrolled(id, call))
          return report();
    bool ok = searchAll(o.stateBudget);
    statistics.states = states;
    statistics.traces = traces;
    if (!ok)
      return report();
  } else {
    int current = -1;
    std::vector<int> candidates;
    while (!allFinished()) {
      int chosen = pickNext(
          o, rng, current, total, [&](int id) { return canStep(id); },
          [&](int id) { return rankOf(id); }, [&]() { return preferred(); },
          candidates);
      if (chosen < 0)
        return reportDeadlock(), report();
      current = chosen;
      if (!stepProcess(chosen))
        return report();
    }
    if (!checkEnd())
      return report();
  }
  addStats(stats, statistics);
  return mlir::success();
}

/// The checks simulate() and simulateProgram() make before running `Sim` on
/// `op` (a schedule or program): its collective, the oracle, is next to it
/// (`what` names `op` in the error), and the run has a rank and a call.
template <typename Sim, typename OpT>
mlir::LogicalResult simulateOp(OpT op, llvm::StringRef what,
                               const SimOptions &options, SimStats *stats) {
  auto collective = collectiveNextTo(op, op.getCollective());
  if (!collective)
    return op.emitError() << "no coll.collective named @"
                          << op.getCollective() << " next to this " << what;
  if (options.worldSize < 1 || options.calls < 1)
    return op.emitError() << "simulation needs at least one rank and "
                             "one call";
  return Sim(op, collective, options).run(stats);
}

/// The first error a simulation reports, with its notes, kept instead of
/// printed so that the emission gate can re-issue it at the collective.
struct Finding {
  mlir::Location loc;
  std::string message;
  std::vector<std::pair<mlir::Location, std::string>> notes;
};

/// Runs `simulation`, keeping its first error (and notes) in `finding`
/// instead of printing it.
mlir::LogicalResult capture(mlir::MLIRContext *context,
                            std::optional<Finding> &finding,
                            llvm::function_ref<mlir::LogicalResult()> simulation);

/// Attaches the interpreter's finding to a refusal at the collective.
void refuse(mlir::InFlightDiagnostic &&error,
            const std::optional<Finding> &finding);

/// Counts one verified schedule or program of `runs` simulations begun at
/// `start` into `*stats` (when not null); returns the seconds it took.
double countVerified(VerifyStats *stats, size_t runs,
                     std::chrono::steady_clock::time_point start);

} // namespace collc::interp

#endif // COLLC_LIB_INTERPRETER_COMMON_H
