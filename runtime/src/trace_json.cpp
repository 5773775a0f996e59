//===- trace_json.cpp - Device timelines as Chrome traces -------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//

#include "trace_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

using json = nlohmann::json;

namespace collc {
namespace {

/// A track: one warp of one CTA (warp 0 also carries the CTA's calls).
int tidOf(const collcTraceEvent &e) { return e.cta * 64 + e.warp; }

std::string trackName(const collcTraceEvent &e) {
  return "CTA " + std::to_string(e.cta) +
         (e.warp ? " warp " + std::to_string(e.warp) : "");
}

const char *waitResult(unsigned arg) {
  return arg == 1 ? "ready" : arg == 2 ? "failed (a later call)" : "timed out";
}

} // namespace

std::string traceJson(const std::vector<TraceSource> &sources) {
  // Microseconds from the earliest event of any rank.
  long long origin = std::numeric_limits<long long>::max();
  for (const TraceSource &s : sources)
    for (const collcTraceEvent &e : s.events)
      origin = std::min(origin, (long long)e.ns + s.offsetNs);
  json events = json::array();
  unsigned long long dropped = 0;
  for (const TraceSource &s : sources) {
    std::map<unsigned long long, std::string> names(s.kernels.begin(),
                                                    s.kernels.end());
    auto kernelName = [&](unsigned long long key) {
      auto it = names.find(key);
      return it == names.end() ? std::string("unknown kernel") : it->second;
    };
    auto us = [&](unsigned long long ns) {
      return double((long long)ns + s.offsetNs - origin) / 1000.0;
    };
    dropped += s.recorded > s.events.size() ? s.recorded - s.events.size() : 0;
    // "<run>, rank R", as the interpreter's traces name theirs, so one
    // file's ranks are one run to collc-trace-plot.
    events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", s.rank},
                      {"args", {{"name", "device timelines, rank " +
                                             std::to_string(s.rank)}}}});
    events.push_back({{"ph", "M"}, {"name", "process_labels"},
                      {"pid", s.rank},
                      {"args", {{"labels", "device " +
                                               std::to_string(s.device)}}}});
    std::vector<collcTraceEvent> sorted = s.events;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const collcTraceEvent &a, const collcTraceEvent &b) {
                       return a.ns < b.ns;
                     });
    std::map<int, std::string> tracks;
    // Open slices: a call per (key, cta), a wait per track.
    std::map<std::pair<unsigned long long, int>, const collcTraceEvent *> calls;
    std::map<int, const collcTraceEvent *> waits;
    unsigned long long last = sorted.empty() ? 0 : sorted.back().ns;
    auto slice = [&](const collcTraceEvent &b, unsigned long long endNs,
                     std::string name, json args) {
      events.push_back({{"ph", "X"}, {"name", std::move(name)},
                        {"pid", s.rank}, {"tid", tidOf(b)}, {"ts", us(b.ns)},
                        {"dur", double(endNs - b.ns) / 1000.0},
                        {"args", std::move(args)}});
    };
    for (const collcTraceEvent &e : sorted) {
      tracks.emplace(tidOf(e), trackName(e));
      switch (e.kind) {
      case COLLC_TRACE_BEGIN:
        calls[{e.key, e.cta}] = &e;
        break;
      case COLLC_TRACE_END:
        if (auto it = calls.find({e.key, e.cta}); it != calls.end()) {
          slice(*it->second, e.ns, kernelName(e.key),
                {{"call", it->second->call}});
          calls.erase(it);
        }
        break;
      case COLLC_TRACE_WAIT_BEGIN:
        waits[tidOf(e)] = &e;
        break;
      case COLLC_TRACE_WAIT_END:
        if (auto it = waits.find(tidOf(e)); it != waits.end()) {
          slice(*it->second, e.ns, "wait",
                {{"kernel", kernelName(e.key)}, {"call", e.call},
                 {"result", waitResult(e.arg)}});
          waits.erase(it);
        }
        break;
      default:
        events.push_back(
            {{"ph", "i"}, {"s", "t"},
             {"name", e.kind == COLLC_TRACE_NOTIFY ? "ready word" : "failed"},
             {"pid", s.rank}, {"tid", tidOf(e)}, {"ts", us(e.ns)},
             {"args", {{"kernel", kernelName(e.key)}, {"call", e.call},
                       {"op", e.arg}}}});
      }
    }
    // A call or wait still open when the events end (a hang, or a full
    // buffer) runs to the last event, marked.
    for (const auto &[where, b] : calls)
      slice(*b, last, kernelName(b->key),
            {{"call", b->call}, {"unfinished", true}});
    for (const auto &[tid, b] : waits)
      slice(*b, last, "wait",
            {{"kernel", kernelName(b->key)}, {"call", b->call},
             {"unfinished", true}});
    for (const auto &[tid, name] : tracks)
      events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", s.rank},
                        {"tid", tid}, {"args", {{"name", name}}}});
  }
  json doc = {{"traceEvents", std::move(events)},
              {"displayTimeUnit", "ns"},
              {"otherData",
               {{"source", "collc device timelines (COLLC_TRACE)"},
                {"dropped_events", dropped}}}};
  return doc.dump();
}

} // namespace collc
