//===- Interpreter.h - reference interpreter for snac -----------*- C++ -*-===//
//
// Executes a derived snac schedule for N simulated ranks on the CPU and proves
// it right: every CTA role group of every rank is an agent, interleaved at
// random (seeded) or, in the exhaustive mode, in every order that can matter
// (partial-order reduction); data moves with real element types; several calls run back
// to back on the same buffers. It checks
//   - every output against the collective's definition (collc/Sim/Model.h),
//     bitwise, with poisoned outputs so an unwritten element fails;
//   - every read against its readiness event: the read must be ordered after
//     the write by a chain of notify -> await (vector clocks), and read data
//     of the current call;
//   - every write against earlier reads: a region is not rewritten before its
//     readers released it;
//   - progress: a state where no agent can move is a deadlock.
// Each problem is reported as an error at the schedule op that caused it,
// naming the rank, role, event and chunk.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_INTERPRETER_INTERPRETER_H
#define COLLC_INTERPRETER_INTERPRETER_H

#include "collc/Sim/Model.h"

#include "mlir/IR/Types.h"
#include "mlir/Support/LogicalResult.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collc::snac {
class ScheduleOp;
class ProgramOp;
} // namespace collc::snac

namespace collc::interp {

class Trace;

/// How agents are interleaved.
enum class Strategy {
  /// Any runnable agent, uniformly at random, one step at a time.
  Uniform,
  /// Run one agent until it blocks, then switch at random: producers race
  /// far ahead of consumers (exposes early reuse).
  RunToBlock,
  /// Prefer the last role groups (consumers) and high ranks.
  ConsumersFirst,
  /// Agents in a fixed cyclic order, one step each when runnable: the
  /// lock-step progress of evenly loaded GPUs.
  RoundRobin,
  /// One rank (seed mod world size) moves only when no other agent can: a
  /// rank that launches late or runs slow, as a busy GPU does.
  StarveRank,
};

/// Number of interleaving strategies, for rotating through them.
constexpr int kNumStrategies = 5;

struct SimOptions {
  int worldSize = 2;
  sim::Shape shape = sim::Shape::Uniform;
  sim::ElemType type = sim::ElemType::F32;
  uint64_t seed = 1;
  /// Back-to-back calls on the same buffers.
  int calls = 3;
  Strategy strategy = Strategy::Uniform;
  /// Elements per partition (fixed collectives) or mean partition size (V);
  /// negative: random per call, scaled to the world size.
  int64_t count = -1;
  /// Chunk size; 0 keeps the schedule's policy. Simulations use small chunks
  /// so small buffers still take many chunks.
  int64_t chunkBytes = 0;
  /// Staging slots per partition (programs: receive slots); negative keeps
  /// the schedule's (program's) policy.
  int64_t stagingSlots = -1;
  /// Programs: the readiness encoding simulated, a COLLC_ENCODING_* value
  /// (0 flag, 1 ll16, 2 sentinel); negative keeps the program's policy.
  int encoding = -1;
  /// Programs: 1 speculative takes (load every unit of a step, compute,
  /// then validate), 0 readiness first; negative keeps the policy's. The
  /// flag encoding never speculates (its flag validates no earlier load).
  int speculate = -1;
  /// Programs: CTAs per rank in the model. Each is an agent that takes
  /// every `workers`-th unit (flag: warp segment) of every op, so that one
  /// CTA of a rank can run ahead of another.
  int workers = 2;
  /// Chunked programs (policy chunk > 0): the model's chunk, in units of
  /// the encoding (16 bytes; ll16: 8 payload bytes), what one CTA moves of
  /// a partition per step. Small, so that small calls take several steps.
  int64_t chunkUnits = 2;
  /// Inputs made of special values (sim::specialInput) instead of random
  /// ones.
  bool specialInputs = false;
  /// Elements per partition of each call in turn (cycling), overriding
  /// `count`: "4,0,4" makes the middle call empty.
  std::vector<int64_t> counts;
  /// Explore every interleaving (up to partial-order reduction) instead of
  /// one seeded one; `strategy` is then unused. See runExhaustive in
  /// Interpreter.cpp for the reduction and why it is sound.
  bool exhaustive = false;
  /// Exhaustive mode: the most states visited before the run fails (it
  /// never stops early and passes).
  uint64_t stateBudget = 2000000;
  /// Seeded runs: records every step into it (collc/Interpreter/Trace.h;
  /// the caller began the run). Null: no trace, no cost.
  Trace *trace = nullptr;
};

struct SimStats {
  uint64_t steps = 0;
  uint64_t actions = 0;
  uint64_t elements = 0;
  /// Exhaustive mode: states visited and complete interleavings (one per
  /// Mazurkiewicz trace the reduction keeps) run to the end.
  uint64_t states = 0;
  uint64_t traces = 0;
};

/// The interpreter's element type for an MLIR element type of a collective,
/// or nullopt if it has none.
std::optional<sim::ElemType> elemTypeOf(mlir::Type type);

/// Short description of a run, for messages: "ranks=4 shape=zipf type=bf16
/// seed=2 strategy=run-to-block" ("... strategy=exhaustive calls=2 count=16"
/// for an exhaustive run).
std::string describe(const SimOptions &options);

/// Simulates `schedule` (whose collective must be a sibling coll.collective).
/// Emits an error at the offending op and fails on the first problem found.
mlir::LogicalResult simulate(snac::ScheduleOp schedule,
                             const SimOptions &options,
                             SimStats *stats = nullptr);

/// Simulates `program` (SNAC v2: push into receive buffers indexed by
/// (slot, source), readiness carried by the encoding, slots rotated by the
/// call counter) for N ranks, and checks outputs bitwise against the
/// collective's definition (its sibling coll.collective, through collc/Sim),
/// that every accepted unit is of the current call and from the right
/// source (with speculation: on the snapshot a read loaded, which may be
/// stale, so that every accepted read must have been validated), that no
/// unit is overwritten before its consumer accepted it (the reuse proof of
/// the slots), that a later call's packet is a sequence error, and
/// progress. A chunked program (policy chunk) runs its body once per step,
/// each CTA on its chunk of every partition (SimOptions::chunkUnits), with
/// the same checks per step. Emits an error at the offending op and fails
/// on the first problem found.
mlir::LogicalResult simulateProgram(snac::ProgramOp program,
                                    const SimOptions &options,
                                    SimStats *stats = nullptr);

} // namespace collc::interp

#endif // COLLC_INTERPRETER_INTERPRETER_H
