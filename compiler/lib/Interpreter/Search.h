//===- Search.h - exhaustive interleavings by partial-order reduction -----===//
//
// The exhaustive mode of the interpreter, shared by the schedule (v1) and the
// program (v2) simulators: dynamic partial-order reduction (Flanagan and
// Godefroid, POPL 2005, the vector-clock algorithm of their figure 4). A
// model is a set of sequential processes whose next step is known in every
// state, each step declaring its footprint (Touch: a shared object and an
// access mode); the search takes one step per state and backtracks only
// where the trace so far shows a race: two dependent steps of different
// processes that could have run in the other order (coEnabled) and that no
// chain of dependencies orders. Why this is sound for the interpreter's
// checks is written out in Interpreter.cpp ("Exhaustive search").
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_LIB_INTERPRETER_SEARCH_H
#define COLLC_LIB_INTERPRETER_SEARCH_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace collc::interp {

/// Access modes; two accesses of one object conflict when conflictsWith says
/// so (reads commute with reads, releases with releases, ...).
enum : uint8_t {
  kRead = 1,
  kWrite = 2,
  kNotify = 4, // writes a message
  kAwait = 8,  // reads a message
  kRelease = 16,
  kAcquire = 32,
  kUser = 64,
  kHost = 128,
};

/// The modes each mode conflicts with.
uint8_t conflictsWith(uint8_t mode);

class PorSearch {
public:
  /// One shared object a step accesses, how, and a model-defined number that
  /// decides whether it could have run earlier (coEnabled).
  struct Touch {
    int object;
    uint8_t mode;
    int64_t info;
  };
  /// One access in the trace: the step's index, its process, mode and info.
  struct Access {
    int index, proc;
    uint8_t mode;
    int64_t info;
  };

  virtual ~PorSearch() = default;

protected:
  // The model.
  virtual int numProcesses() const = 0;
  /// Whether process `p` has a step left (this call or a later one).
  virtual bool hasNext(int p) const = 0;
  virtual bool canStep(int p) = 0;
  virtual std::vector<Touch> nextTouches(int p) = 0;
  /// Whether the earlier access `before` and process `proc`'s pending
  /// access `now` (conflicting, same object) could have run in either order.
  virtual bool coEnabled(const Access &before, int proc,
                         const Touch &now) const = 0;
  /// Runs `p`'s next step; false on a failure (recorded by the model).
  virtual bool stepProcess(int p) = 0;
  virtual bool allFinished() const = 0;
  /// Called in a final state; false on a failure.
  virtual bool checkFinal() = 0;
  /// Called when nothing can move; records the deadlock, returns false.
  virtual bool deadlock() = 0;
  /// Called when the budget is spent; records it, returns false.
  virtual bool budgetSpent(uint64_t budget, uint64_t traces) = 0;
  /// Copies the model's mutable state into slot `depth` / back from it.
  virtual void saveState(size_t depth) = 0;
  virtual void restoreState(size_t depth) = 0;

  /// Explores every interleaving up to the reduction; false on the first
  /// failure (or the budget).
  bool searchAll(uint64_t budget);
  int objectId(std::array<int64_t, 7> key);
  int objectKind(int object) const { return objectKinds[object]; }

  uint64_t states = 0, traces = 0;

private:
  struct TraceStep {
    int proc;
    std::vector<Touch> touches;
  };
  struct Level {
    std::vector<char> enabled, backtrack;
  };
  /// Per process, the index of its latest trace step ordered before (-1:
  /// none): happens-before over dependence, not the model's own events.
  using Order = std::vector<int>;

  bool explore();
  void record(int proc, const std::vector<Touch> &touches);
  void unrecord(size_t length);
  void addBacktrackPoints();

  uint64_t budget = 0;
  std::map<std::array<int64_t, 7>, int> objectIds;
  std::vector<int> objectKinds;
  std::vector<std::vector<Access>> accesses; // [object], in trace order
  std::vector<TraceStep> trace;
  std::vector<Order> traceClock; // [step]
  std::vector<Order> procClock;  // [process]: as of its latest step
  std::vector<std::vector<Order>> savedProcClock; // [depth]
  std::vector<Level> levels;
};

} // namespace collc::interp

#endif // COLLC_LIB_INTERPRETER_SEARCH_H
