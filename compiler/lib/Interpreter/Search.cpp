//===- Search.cpp - exhaustive interleavings by partial-order reduction ---===//

#include "Search.h"

#include <algorithm>

using namespace collc::interp;

uint8_t collc::interp::conflictsWith(uint8_t mode) {
  switch (mode) {
  case kRead:
    return kWrite;
  case kWrite:
    return kRead | kWrite;
  case kNotify:
    return kAwait;
  case kAwait:
    return kNotify;
  case kRelease:
    return kAcquire;
  case kAcquire:
    return kRelease | kAcquire;
  case kUser:
    return kHost;
  default:
    return kUser | kHost;
  }
}

int PorSearch::objectId(std::array<int64_t, 7> key) {
  auto [it, added] = objectIds.try_emplace(key, objectIds.size());
  if (added) {
    accesses.emplace_back();
    objectKinds.push_back(static_cast<int>(key[0]));
  }
  return it->second;
}

void PorSearch::record(int proc, const std::vector<Touch> &touches) {
  int index = trace.size();
  Order c = procClock[proc];
  for (const Touch &t : touches) {
    uint8_t conflicts = conflictsWith(t.mode);
    const std::vector<Access> &list = accesses[t.object];
    for (auto it = list.rbegin(); it != list.rend(); ++it) {
      if (!(it->mode & conflicts))
        continue;
      const Order &theirs = traceClock[it->index];
      for (size_t q = 0; q < c.size(); ++q)
        c[q] = std::max(c[q], theirs[q]);
      // Whatever conflicts with us and came earlier is ordered before it.
      if ((conflictsWith(it->mode) & conflicts) == conflicts)
        break;
    }
  }
  c[proc] = index;
  for (const Touch &t : touches)
    accesses[t.object].push_back({index, proc, t.mode, t.info});
  trace.push_back({proc, touches});
  traceClock.push_back(c);
  procClock[proc] = std::move(c);
}

void PorSearch::unrecord(size_t length) {
  while (trace.size() > length) {
    for (const Touch &t : trace.back().touches)
      accesses[t.object].pop_back();
    trace.pop_back();
    traceClock.pop_back();
  }
}

/// For every process's pending step, the latest step of the trace it races
/// with: there, the search must also try the other order.
void PorSearch::addBacktrackPoints() {
  int total = numProcesses();
  for (int p = 0; p < total; ++p) {
    if (!hasNext(p))
      continue;
    // What the pending step must come after: p's own past, and every
    // conflicting access it could not have run before (the launch of its
    // call, the write that made its unit ready) with what preceded those.
    std::vector<Touch> pending = nextTouches(p);
    Order cp = procClock[p];
    for (const Touch &t : pending) {
      uint8_t conflicts = conflictsWith(t.mode);
      for (const Access &a : accesses[t.object])
        if (a.proc != p && (a.mode & conflicts) && !coEnabled(a, p, t)) {
          const Order &theirs = traceClock[a.index];
          for (size_t q = 0; q < cp.size(); ++q)
            cp[q] = std::max(cp[q], theirs[q]);
        }
    }
    int latest = -1;
    for (const Touch &t : pending) {
      uint8_t conflicts = conflictsWith(t.mode);
      const std::vector<Access> &list = accesses[t.object];
      for (auto it = list.rbegin(); it != list.rend(); ++it) {
        if (it->index <= latest)
          break;
        if (it->proc == p || !(it->mode & conflicts) ||
            it->index <= cp[it->proc] || !coEnabled(*it, p, t))
          continue;
        latest = it->index;
        break;
      }
    }
    if (latest < 0)
      continue;
    Level &level = levels[latest];
    if (level.enabled[p]) {
      level.backtrack[p] = 1;
      continue;
    }
    // A process that was enabled there and leads to p's step.
    int lead = -1;
    for (int q = 0; q < total && lead < 0; ++q)
      if (level.enabled[q] && cp[q] > latest)
        lead = q;
    if (lead >= 0)
      level.backtrack[lead] = 1;
    else
      for (int q = 0; q < total; ++q)
        if (level.enabled[q])
          level.backtrack[q] = 1;
  }
}

bool PorSearch::searchAll(uint64_t stateBudget) {
  budget = stateBudget;
  int total = numProcesses();
  procClock.assign(total, Order(total, -1));
  return explore();
}

bool PorSearch::explore() {
  int total = numProcesses();
  if (allFinished()) {
    ++traces;
    return checkFinal();
  }
  addBacktrackPoints();
  size_t depth = trace.size();
  levels.emplace_back();
  {
    Level &level = levels.back();
    level.enabled.assign(total, 0);
    level.backtrack.assign(total, 0);
    bool any = false;
    for (int q = 0; q < total; ++q)
      if (canStep(q)) {
        level.enabled[q] = 1;
        if (!any)
          level.backtrack[q] = 1;
        any = true;
      }
    if (!any)
      return deadlock();
  }
  std::vector<char> done(total, 0);
  bool first = true;
  while (true) {
    int p = -1;
    for (int q = 0; q < total && p < 0; ++q)
      if (levels[depth].backtrack[q] && !done[q])
        p = q;
    if (p < 0)
      break;
    done[p] = 1;
    if (first) {
      // Deeper states may add a branch here later: keep this state.
      saveState(depth);
      if (savedProcClock.size() <= depth)
        savedProcClock.resize(depth + 1);
      savedProcClock[depth] = procClock;
      first = false;
    } else {
      restoreState(depth);
      procClock = savedProcClock[depth];
      unrecord(depth);
    }
    if (++states > budget)
      return budgetSpent(budget, traces);
    record(p, nextTouches(p));
    if (!stepProcess(p) || !explore())
      return false;
  }
  levels.pop_back();
  return true;
}
