//===- TraceJsonTest.cpp - Device timelines as Chrome traces ----*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// collc::traceJson (runtime/src/trace_json.h) on hand-made events of two
// ranks: processes and tracks named, a call's and a wait's slices paired
// and timed, the ranks' clocks aligned by their offsets, instants for ready
// words and failures, unfinished slices marked, dropped events counted.
//
//===----------------------------------------------------------------------===//

#include "trace_json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using json = nlohmann::json;

namespace {

collcTraceEvent event(unsigned long long ns, unsigned kind, unsigned cta,
                      unsigned warp, unsigned long long key = 0x1000,
                      unsigned long long call = 7, unsigned arg = 0) {
  collcTraceEvent e{};
  e.ns = ns;
  e.key = key;
  e.call = call;
  e.arg = arg;
  e.cta = (unsigned short)cta;
  e.warp = (unsigned char)warp;
  e.kind = (unsigned char)kind;
  return e;
}

std::vector<json> named(const json &doc, const std::string &ph,
                        const std::string &name, int pid) {
  std::vector<json> out;
  for (const json &e : doc["traceEvents"])
    if (e["ph"] == ph && e["name"] == name && e["pid"] == pid)
      out.push_back(e);
  return out;
}

TEST(TraceJsonTest, PairsCallsAndWaitsAndAlignsRanks) {
  collc::TraceSource r0, r1;
  r0.rank = 0;
  r0.device = 0;
  r0.offsetNs = 0;
  r0.kernels = {{0x1000, "collc_all_reduce__one_shot_ll16_bf16_n2"}};
  // Recorded out of order (the buffer is filled by atomics).
  r0.events = {event(5000, COLLC_TRACE_WAIT_END, 0, 1, 0x1000, 7, 1),
               event(1000, COLLC_TRACE_BEGIN, 0, 0),
               event(2000, COLLC_TRACE_WAIT_BEGIN, 0, 1),
               event(6000, COLLC_TRACE_NOTIFY, 0, 2),
               event(9000, COLLC_TRACE_END, 0, 0)};
  r0.recorded = 5;
  // Rank 1's clock runs 1 ms ahead: its offset brings it in line.
  r1.rank = 1;
  r1.device = 0;
  r1.offsetNs = -1000000;
  r1.kernels = {{0x2000, "collc_all_reduce__one_shot_ll16_bf16_n2"}};
  r1.events = {event(1000000 + 1500, COLLC_TRACE_BEGIN, 3, 0, 0x2000),
               event(1000000 + 4000, COLLC_TRACE_WAIT_BEGIN, 3, 0, 0x2000),
               event(1000000 + 4500, COLLC_TRACE_FAILED, 3, 0, 0x2000, 7,
                     2)};
  r1.recorded = 9; // 6 dropped
  json doc = json::parse(collc::traceJson({r0, r1}));

  ASSERT_TRUE(doc["traceEvents"].is_array());
  EXPECT_EQ(doc["otherData"]["dropped_events"], 6);
  EXPECT_EQ(named(doc, "M", "process_name", 1).at(0)["args"]["name"],
            "device timelines, rank 1");
  EXPECT_EQ(named(doc, "M", "process_labels", 1).at(0)["args"]["labels"],
            "device 0");

  // Rank 0's call: 1000 -> 9000 ns, from the earliest event (1000 ns).
  auto calls = named(doc, "X", "collc_all_reduce__one_shot_ll16_bf16_n2", 0);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_DOUBLE_EQ(calls[0]["ts"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(calls[0]["dur"].get<double>(), 8.0);
  EXPECT_EQ(calls[0]["tid"], 0);
  EXPECT_EQ(calls[0]["args"]["call"], 7);
  EXPECT_FALSE(calls[0]["args"].contains("unfinished"));

  // Warp 1's wait: 2000 -> 5000 ns, ready, on its own track.
  auto waits = named(doc, "X", "wait", 0);
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_DOUBLE_EQ(waits[0]["ts"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(waits[0]["dur"].get<double>(), 3.0);
  EXPECT_EQ(waits[0]["tid"], 1);
  EXPECT_EQ(waits[0]["args"]["result"], "ready");
  EXPECT_EQ(named(doc, "i", "ready word", 0).at(0)["tid"], 2);

  // Rank 1, aligned: its call starts 0.5 us after rank 0's; it never ended
  // (the events stop at the failure), so call and wait run to the last
  // event, marked unfinished.
  auto calls1 = named(doc, "X", "collc_all_reduce__one_shot_ll16_bf16_n2", 1);
  ASSERT_EQ(calls1.size(), 1u);
  EXPECT_DOUBLE_EQ(calls1[0]["ts"].get<double>(), 0.5);
  EXPECT_EQ(calls1[0]["tid"], 3 * 64);
  EXPECT_EQ(calls1[0]["args"]["unfinished"], true);
  auto waits1 = named(doc, "X", "wait", 1);
  ASSERT_EQ(waits1.size(), 1u);
  EXPECT_EQ(waits1[0]["args"]["unfinished"], true);
  EXPECT_EQ(named(doc, "i", "failed", 1).at(0)["args"]["op"], 2);

  // Every track is named.
  auto tracks = named(doc, "M", "thread_name", 0);
  EXPECT_EQ(tracks.size(), 3u); // CTA 0, CTA 0 warp 1, CTA 0 warp 2
}

TEST(TraceJsonTest, UnknownKernelsAndNoEvents) {
  collc::TraceSource s;
  s.events = {event(10, COLLC_TRACE_BEGIN, 0, 0, 0x5),
              event(20, COLLC_TRACE_END, 0, 0, 0x5)};
  s.recorded = 2;
  json doc = json::parse(collc::traceJson({s}));
  EXPECT_EQ(named(doc, "X", "unknown kernel", 0).size(), 1u);
  EXPECT_EQ(doc["otherData"]["dropped_events"], 0);
  json empty = json::parse(collc::traceJson({}));
  EXPECT_TRUE(empty["traceEvents"].empty());
}

} // namespace
