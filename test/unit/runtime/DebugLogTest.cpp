//===- DebugLogTest.cpp - COLLC_DEBUG logging -------------------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// The runtime reads COLLC_DEBUG once per process, so each case runs in a
// fresh child process: the "threadsafe" death-test style re-executes the
// binary. Nothing may call the runtime before EXPECT_EXIT's statement, or the
// child would read the variable before the statement sets it.
//
//===----------------------------------------------------------------------===//

#include "collc/collc.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

namespace {

// Matchers are POSIX extended regular expressions searched in the child's
// stderr (gtest alone, no gmock: the GPU machines have neither).
class DebugLogDeathTest : public ::testing::Test {
protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(DebugLogDeathTest, WarnLogsLocationCodeAndName) {
  EXPECT_EXIT(
      {
        setenv("COLLC_DEBUG", "WARN", 1);
        collcConfigValidate(nullptr);
        std::exit(0);
      },
      ::testing::ExitedWithCode(0),
      "collc [0-9]+:[0-9]+ WARN config\\.cpp:[0-9]+ collcConfigValidate : "
      "config argument is NULL -> 4 \\(collcInvalidArgument: invalid "
      "argument\\)");
}

TEST_F(DebugLogDeathTest, WarnLogsPropagation) {
  // Without a driver, collcDriverInfo fails inside driverInit() and
  // COLLC_CHECK in device.cpp logs the propagation; with one, it succeeds and
  // there is nothing to log.
  EXPECT_EXIT(
      {
        setenv("COLLC_DEBUG", "warn", 1);
        // One declarator per statement: a comma would split the macro.
        int version = 0;
        int count = 0;
        if (collcDriverInfo(&version, &count) == collcSuccess)
          std::fprintf(stderr, "driver present\n");
        std::exit(0);
      },
      ::testing::ExitedWithCode(0),
      "driver present|WARN device\\.cpp:[0-9]+ -> [12] "
      "\\(collc(SystemError|UnhandledCudaError): ");
}

TEST_F(DebugLogDeathTest, SilentByDefault) {
  EXPECT_EXIT(
      {
        unsetenv("COLLC_DEBUG");
        collcConfigValidate(nullptr);
        std::fprintf(stderr, "done\n");
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "^done\n$");
}

TEST_F(DebugLogDeathTest, UnknownLevelFallsBackToWarn) {
  EXPECT_EXIT(
      {
        setenv("COLLC_DEBUG", "loud", 1);
        collcConfigValidate(nullptr);
        std::exit(0);
      },
      ::testing::ExitedWithCode(0),
      "WARN debug\\.cpp:[0-9]+ COLLC_DEBUG=loud is not one of NONE, WARN, "
      "INFO, TRACE; using WARN\n"
      "collc [0-9]+:[0-9]+ WARN config\\.cpp:[0-9]+ collcConfigValidate : ");
}

} // namespace
