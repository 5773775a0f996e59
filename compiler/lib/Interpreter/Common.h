//===- Common.h - what the schedule and program simulators share -*- C++ -*-===//

#ifndef COLLC_LIB_INTERPRETER_COMMON_H
#define COLLC_LIB_INTERPRETER_COMMON_H

#include "collc/Dialect/Coll/IR/CollOps.h"
#include "collc/Dialect/Snac/IR/SnacOps.h"
#include "collc/Interpreter/Interpreter.h"
#include "collc/Interpreter/Verify.h"
#include "collc/Sim/Model.h"

#include "mlir/IR/Diagnostics.h"

#include <chrono>
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
