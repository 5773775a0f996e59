//===- Trace.cpp - the interpreter's runs as Chrome trace events ----------===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//

#include "collc/Interpreter/Trace.h"

#include "llvm/Support/JSON.h"

using namespace collc::interp;

void Trace::beginRun(std::string subject) {
  runNames.push_back(std::move(subject));
  lastStep = -1;
}

void Trace::nameTrack(int rank, int track, const std::string &name) {
  tracks.emplace(std::make_pair((int)runNames.size() - 1,
                                std::make_pair(rank, track)),
                 name);
  maxRank = std::max(maxRank, rank);
}

void Trace::step(int rank, int track, int64_t ts, std::string name,
                 Args args) {
  evs.push_back(Event{'X', (int)runNames.size() - 1, rank, track, ts,
                      std::move(name), std::move(args)});
  lastStep = (int)evs.size() - 1;
}

int64_t Trace::flowStart(const char *name) {
  if (lastStep < 0)
    return -1;
  const Event &s = evs[lastStep];
  int64_t id = nextId++;
  evs.push_back(Event{'s', s.run, s.rank, s.track, s.ts, name, {}, id});
  return id;
}

void Trace::flowEnd(int64_t id) {
  if (id < 0 || lastStep < 0)
    return;
  const Event &s = evs[lastStep];
  evs.push_back(Event{'f', s.run, s.rank, s.track, s.ts, "ready", {}, id});
}

void Trace::mark(int64_t ts, const std::string &name,
                 const std::string &detail) {
  for (int r = 0; r <= maxRank; ++r)
    evs.push_back(Event{'i', (int)runNames.size() - 1, r, 0, ts, name,
                        {{"detail", detail}}});
}

void Trace::append(Trace &&other) {
  const int base = runNames.size();
  for (std::string &n : other.runNames)
    runNames.push_back(std::move(n));
  for (auto &[key, name] : other.tracks)
    tracks.emplace(std::make_pair(key.first + base, key.second), name);
  const int64_t idBase = nextId - 1;
  for (Event &e : other.evs) {
    e.run += base;
    if (e.id >= 0)
      e.id += idBase;
    evs.push_back(std::move(e));
  }
  nextId += other.nextId - 1;
  maxRank = std::max(maxRank, other.maxRank);
  lastStep = -1;
}

void Trace::write(llvm::raw_ostream &os) const {
  // A process per (run, rank): run-major ids, so runs group together.
  const int stride = maxRank + 1;
  auto pid = [&](int run, int rank) { return run * stride + rank + 1; };
  llvm::json::OStream j(os, 1);
  j.object([&] {
    j.attributeArray("traceEvents", [&] {
      for (size_t run = 0; run < runNames.size(); ++run)
        for (int r = 0; r < stride; ++r)
          j.object([&] {
            j.attribute("name", "process_name");
            j.attribute("ph", "M");
            j.attribute("pid", pid(run, r));
            j.attributeObject("args", [&] {
              j.attribute("name",
                          runNames[run] + ", rank " + std::to_string(r));
            });
          });
      for (const auto &[key, name] : tracks)
        j.object([&] {
          j.attribute("name", "thread_name");
          j.attribute("ph", "M");
          j.attribute("pid", pid(key.first, key.second.first));
          j.attribute("tid", key.second.second);
          j.attributeObject("args", [&] { j.attribute("name", name); });
        });
      for (const Event &e : evs)
        j.object([&] {
          j.attribute("name", e.name);
          j.attribute("cat", e.ph == 'X' ? "step" : e.ph == 'i' ? "run"
                                                                : "ready");
          j.attribute("ph", std::string(1, e.ph));
          j.attribute("ts", e.ts);
          j.attribute("pid", pid(e.run, e.rank));
          j.attribute("tid", e.track);
          if (e.ph == 'X')
            j.attribute("dur", 1);
          if (e.ph == 's' || e.ph == 'f')
            j.attribute("id", e.id);
          if (e.ph == 'f')
            j.attribute("bp", "e");
          if (e.ph == 'i')
            j.attribute("s", "p");
          if (!e.args.empty())
            j.attributeObject("args", [&] {
              for (const auto &[k, v] : e.args)
                j.attribute(k, v);
            });
        });
    });
    j.attribute("displayTimeUnit", "ns");
    j.attributeObject("otherData", [&] {
      j.attribute("producer", "collc --simulate --trace");
      j.attribute("time", "one interpreter step per microsecond: the order "
                          "of the simulated interleaving, not GPU time");
    });
  });
  os << "\n";
}
