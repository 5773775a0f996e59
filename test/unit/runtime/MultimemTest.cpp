//===- MultimemTest.cpp - The in-switch opt-in without a GPU ----*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// COLLC_MULTIMEM (multimem.cpp): parsed, refused when malformed; without it
// the driver is never asked about multicast (a counting fake stands in for
// the driver's query); with it, a communicator is refused, naming a device
// without support, or saying that no multimem program exists yet. That
// libcollc cannot create a multicast object at all:
// test/Runtime/no-multicast.test.
//
//===----------------------------------------------------------------------===//

#include "FakeComm.h"
#include "runtime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

std::string lastError() { return collcGetLastError(); }

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

struct Env : collc::test::ScopedEnv {
  explicit Env(const char *value) : ScopedEnv("COLLC_MULTIMEM", value) {}
};

int queries = 0;
collcResult_t fakeQuery(int device, int *supported) {
  ++queries;
  *supported = device == 3 ? 0 : 1;
  return collcSuccess;
}

TEST(MultimemTest, OffUnlessOne) {
  for (const char *off : {(const char *)nullptr, "", "0"}) {
    Env env(off);
    bool on = true;
    ASSERT_EQ(collc::multimemRequested(&on), collcSuccess);
    EXPECT_FALSE(on) << (off ? off : "(unset)");
  }
  Env env("1");
  bool on = false;
  ASSERT_EQ(collc::multimemRequested(&on), collcSuccess);
  EXPECT_TRUE(on);
}

TEST(MultimemTest, AMalformedValueIsRefused) {
  Env env("yes");
  bool on = true;
  EXPECT_EQ(collc::multimemRequested(&on), collcInvalidArgument);
  EXPECT_FALSE(on);
  EXPECT_TRUE(contains(lastError(), "COLLC_MULTIMEM is 'yes'; expected 0"))
      << lastError();
}

TEST(MultimemTest, WithoutTheOptInTheDriverIsNeverAsked) {
  queries = 0;
  int supported = -1;
  ASSERT_EQ(collc::multimemProbe(false, 0, fakeQuery, &supported),
            collcSuccess);
  EXPECT_EQ(queries, 0);
  EXPECT_EQ(supported, 0);
  ASSERT_EQ(collc::multimemProbe(true, 3, fakeQuery, &supported),
            collcSuccess);
  EXPECT_EQ(queries, 1);
  EXPECT_EQ(supported, 0);
  ASSERT_EQ(collc::multimemProbe(true, 1, fakeQuery, &supported),
            collcSuccess);
  EXPECT_EQ(supported, 1);
}

TEST(MultimemTest, AnOptedInCommunicatorIsRefusedWithTheReason) {
  EXPECT_EQ(collc::multimemRefusal(1, {1, 0}, {0, 1}, {1, 1}),
            collcInvalidUsage);
  EXPECT_TRUE(contains(lastError(), "rank 1: COLLC_MULTIMEM=1 on some ranks "
                                    "but not on rank 1"))
      << lastError();
  EXPECT_EQ(collc::multimemRefusal(0, {1, 1, 1}, {4, 5, 6}, {1, 0, 1}),
            collcInvalidUsage);
  EXPECT_TRUE(contains(lastError(),
                       "rank 0: COLLC_MULTIMEM=1, but device 5 of rank 1 "
                       "does not support NVLink multicast"))
      << lastError();
  EXPECT_EQ(collc::multimemRefusal(2, {1, 1}, {0, 1}, {1, 1}),
            collcInvalidUsage);
  EXPECT_TRUE(contains(lastError(), "rank 2: COLLC_MULTIMEM=1 and every "
                                    "device supports NVLink multicast, but "
                                    "this libcollc binds no buffer to a "
                                    "multicast object"))
      << lastError();
}

// Selection, on mocked answers: in-switch programs only where every rank
// opted in and every device answered that it supports multicast.
TEST(MultimemTest, SelectableOnlyWhereEveryRankOptedInAndEveryDeviceSupports) {
  EXPECT_TRUE(collc::multimemSelectable({1, 1, 1}, {1, 1, 1}));
  EXPECT_FALSE(collc::multimemSelectable({1, 0, 1}, {1, 1, 1}));
  EXPECT_FALSE(collc::multimemSelectable({1, 1, 1}, {1, 1, 0}));
  EXPECT_FALSE(collc::multimemSelectable({0, 0}, {0, 0}));
  EXPECT_FALSE(collc::multimemSelectable({}, {}));
  EXPECT_FALSE(collc::multimemSelectable({1, 1}, {1}));
}

// Routing: an in-switch program joins the routes only where the buffers are
// bound to multicast objects; the others always.
TEST(MultimemTest, InSwitchProgramsAreRoutedOnlyWhereBound) {
  collc::ProgramInfo g;
  EXPECT_TRUE(collc::programRoutable(g, false));
  EXPECT_TRUE(collc::programRoutable(g, true));
  g.multicast = true;
  EXPECT_FALSE(collc::programRoutable(g, false));
  EXPECT_TRUE(collc::programRoutable(g, true));
}

} // namespace
