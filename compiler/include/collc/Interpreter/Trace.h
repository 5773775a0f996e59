//===- Trace.h - the interpreter's runs as Chrome trace events --*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// A simulated run as a trace in the Chrome trace event format (JSON, opened
// by Perfetto or chrome://tracing): a process per (run, rank), a track
// (thread) per agent (a role group of a schedule, a CTA of a program) and
// one for the rank's host, a complete event ("X") per step the agent took,
// with the step's op, call, peer, partition, chunk, slot, event or encoding
// as arguments, and flow events from each notify or write to the await or
// read that accepted it. Time is the interpreter's: one step of the
// interleaving is one microsecond, so the order on screen is the order the
// run took, not a duration on a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_INTERPRETER_TRACE_H
#define COLLC_INTERPRETER_TRACE_H

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace collc::interp {

class Trace {
public:
  using Args = std::vector<std::pair<std::string, std::string>>;

  /// Starts a run (a process per rank: "<subject>, rank R"); its events
  /// follow until the next beginRun.
  void beginRun(std::string subject);
  /// Names track `track` of `rank` in the current run (once).
  void nameTrack(int rank, int track, const std::string &name);
  /// A step: a complete event of one time unit at `ts` on (rank, track);
  /// later flow calls attach to it.
  void step(int rank, int track, int64_t ts, std::string name, Args args);
  /// A flow leaving the current step (a notify, a write); its id, for
  /// flowEnd.
  int64_t flowStart(const char *name);
  /// The flow `id` arriving at the current step (the await or read that
  /// accepted it); ignored for a negative id.
  void flowEnd(int64_t id);
  /// An instant event on every rank's host track of the current run (e.g.
  /// "deadlock: no agent can move").
  void mark(int64_t ts, const std::string &name, const std::string &detail);

  size_t runs() const { return runNames.size(); }
  /// Events recorded (steps, flows, marks; not the names).
  size_t events() const { return evs.size(); }
  /// Moves `other`'s runs after this one's.
  void append(Trace &&other);
  /// {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}.
  void write(llvm::raw_ostream &os) const;

private:
  struct Event {
    char ph; // 'X', 's', 'f', 'i'
    int run, rank, track;
    int64_t ts;
    std::string name;
    Args args;
    int64_t id = -1;
  };
  std::vector<std::string> runNames;
  std::map<std::pair<int, std::pair<int, int>>, std::string> tracks;
  std::vector<Event> evs;
  int64_t nextId = 1;
  int lastStep = -1; // index in evs of the current step
  int maxRank = 0;
};

} // namespace collc::interp

#endif // COLLC_INTERPRETER_TRACE_H
