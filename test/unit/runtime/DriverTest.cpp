//===- DriverTest.cpp - Lazy driver loading and device queries --*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// These tests pass with or without a GPU: what they check is that every
// outcome is either a real answer or a clear error, never a crash.
//
//===----------------------------------------------------------------------===//

#include "collc/collc.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

// Checks a failed driver query: only the two driver errors are acceptable,
// each with a message that names \p function and says what failed.
void expectClearDriverError(collcResult_t result, const std::string &function) {
  std::string error = collcGetLastError();
  EXPECT_EQ(error.rfind(function + " : ", 0), 0u) << error;
  switch (result) {
  case collcSystemError:
    EXPECT_TRUE(contains(error, "libcuda.so.1")) << error;
    EXPECT_TRUE(contains(error, "LD_LIBRARY_PATH")) << error;
    break;
  case collcUnhandledCudaError:
    EXPECT_TRUE(contains(error, "failed with CUDA driver error")) << error;
    break;
  default:
    ADD_FAILURE() << "unexpected " << collcGetErrorString(result) << ": "
                  << error;
  }
}

TEST(DriverTest, NullArgumentsAreRejectedBeforeTouchingTheDriver) {
  int value = 0;
  EXPECT_EQ(collcDriverInfo(nullptr, &value), collcInvalidArgument);
  EXPECT_STREQ(collcGetLastError(),
               "collcDriverInfo : driverVersion argument is NULL");
  EXPECT_EQ(collcDriverInfo(&value, nullptr), collcInvalidArgument);
  EXPECT_STREQ(collcGetLastError(),
               "collcDriverInfo : deviceCount argument is NULL");
  EXPECT_EQ(collcDeviceGetComputeCapability(0, nullptr, &value),
            collcInvalidArgument);
  EXPECT_STREQ(collcGetLastError(),
               "collcDeviceGetComputeCapability : major argument is NULL");
}

TEST(DriverTest, NegativeDeviceIsRejected) {
  int major = 0, minor = 0;
  EXPECT_EQ(collcDeviceGetComputeCapability(-1, &major, &minor),
            collcInvalidArgument);
  EXPECT_STREQ(collcGetLastError(), "collcDeviceGetComputeCapability : device "
                                    "is -1, expected a CUDA device ordinal "
                                    "(>= 0)");
}

TEST(DriverTest, ReportsTheDriverOrAClearError) {
  const int sentinel = -12345;
  int version = sentinel, count = sentinel;
  collcResult_t result = collcDriverInfo(&version, &count);
  if (result == collcSuccess) {
    EXPECT_GT(version, 0);
    EXPECT_GE(count, 0);
    return;
  }
  expectClearDriverError(result, "collcDriverInfo");
  EXPECT_EQ(version, sentinel) << "a failing call must not write outputs";
  EXPECT_EQ(count, sentinel) << "a failing call must not write outputs";
}

TEST(DriverTest, RepeatedCallsGiveTheSameAnswer) {
  int version1 = 0, count1 = 0, version2 = 0, count2 = 0;
  collcResult_t first = collcDriverInfo(&version1, &count1);
  std::string firstError = collcGetLastError();
  collcResult_t second = collcDriverInfo(&version2, &count2);
  EXPECT_EQ(first, second);
  if (first == collcSuccess) {
    EXPECT_EQ(version1, version2);
    EXPECT_EQ(count1, count2);
  } else {
    EXPECT_EQ(firstError, collcGetLastError());
  }
}

TEST(DriverTest, ComputeCapabilityOfEveryDevice) {
  int version = 0, count = 0;
  collcResult_t info = collcDriverInfo(&version, &count);
  int major = -1, minor = -1;
  if (info != collcSuccess) {
    // Without a driver the query fails the same way, naming itself.
    collcResult_t result = collcDeviceGetComputeCapability(0, &major, &minor);
    EXPECT_EQ(result, info);
    expectClearDriverError(result, "collcDeviceGetComputeCapability");
    EXPECT_EQ(major, -1);
    return;
  }
  for (int device = 0; device < count; ++device) {
    ASSERT_EQ(collcDeviceGetComputeCapability(device, &major, &minor),
              collcSuccess)
        << collcGetLastError();
    EXPECT_GE(major, 5) << "device " << device;
    EXPECT_GE(minor, 0) << "device " << device;
  }
  EXPECT_EQ(collcDeviceGetComputeCapability(count, &major, &minor),
            collcInvalidArgument);
  EXPECT_TRUE(contains(collcGetLastError(), "is out of range"))
      << collcGetLastError();
}

} // namespace
