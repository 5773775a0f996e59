//===- ErrorTest.cpp - Error strings, last error, version -------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//

#include "collc/collc.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <thread>

namespace {

TEST(ErrorTest, EveryResultHasADistinctNonEmptyString) {
  std::set<std::string> seen;
  for (int r = collcSuccess; r < collcNumResults; ++r) {
    const char *text = collcGetErrorString(static_cast<collcResult_t>(r));
    ASSERT_NE(text, nullptr) << "result " << r;
    EXPECT_STRNE(text, "") << "result " << r;
    EXPECT_TRUE(seen.insert(text).second)
        << "result " << r << " repeats \"" << text << "\"";
  }
}

TEST(ErrorTest, FailuresPointToTheDetails) {
  for (int r = collcSuccess; r < collcNumResults; ++r) {
    auto result = static_cast<collcResult_t>(r);
    std::string text = collcGetErrorString(result);
    bool isFailure = result != collcSuccess && result != collcInProgress;
    EXPECT_EQ(text.find("COLLC_DEBUG=WARN") != std::string::npos, isFailure)
        << "result " << r << ": \"" << text << "\"";
  }
}

TEST(ErrorTest, UnknownResultsStillGetAString) {
  std::string known = collcGetErrorString(collcInvalidArgument);
  for (int r : {static_cast<int>(collcNumResults), -1, 12345}) {
    const char *text = collcGetErrorString(static_cast<collcResult_t>(r));
    ASSERT_NE(text, nullptr);
    EXPECT_NE(std::string(text).find("unknown"), std::string::npos) << text;
    EXPECT_NE(known, text);
  }
}

TEST(ErrorTest, LastErrorNamesTheFunctionAndTheArgument) {
  EXPECT_EQ(collcGetVersion(nullptr), collcInvalidArgument);
  EXPECT_STREQ(collcGetLastError(),
               "collcGetVersion : version argument is NULL");
  EXPECT_EQ(collcConfigValidate(nullptr), collcInvalidArgument);
  EXPECT_STREQ(collcGetLastError(),
               "collcConfigValidate : config argument is NULL");
}

TEST(ErrorTest, SuccessDoesNotClearTheLastError) {
  ASSERT_EQ(collcGetVersion(nullptr), collcInvalidArgument);
  std::string before = collcGetLastError();
  int version = 0;
  ASSERT_EQ(collcGetVersion(&version), collcSuccess);
  EXPECT_EQ(before, collcGetLastError());
}

TEST(ErrorTest, LastErrorIsPerThread) {
  ASSERT_EQ(collcGetVersion(nullptr), collcInvalidArgument);
  std::string mine = collcGetLastError();
  std::string fresh = "unset";
  std::string theirs;
  std::thread other([&] {
    fresh = collcGetLastError();
    collcConfigValidate(nullptr);
    theirs = collcGetLastError();
  });
  other.join();
  EXPECT_EQ(fresh, "") << "a new thread starts with no last error";
  EXPECT_EQ(theirs, "collcConfigValidate : config argument is NULL");
  EXPECT_EQ(mine, collcGetLastError())
      << "another thread's failure changed this thread's last error";
}

TEST(ErrorTest, LibraryVersionMatchesHeader) {
  int version = -1;
  ASSERT_EQ(collcGetVersion(&version), collcSuccess);
  EXPECT_EQ(version, COLLC_VERSION_CODE);
  EXPECT_EQ(COLLC_VERSION(0, 1, 0), 100);
  EXPECT_EQ(COLLC_VERSION_CODE,
            COLLC_VERSION(COLLC_MAJOR, COLLC_MINOR, COLLC_PATCH));
}

} // namespace
