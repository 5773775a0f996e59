//===- StubDriverTest.cpp - Driver errors from the stub libcuda -*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// The CUDA driver error path, made reproducible without a GPU: ctest runs
// this binary with the CUDA toolkit's stub libcuda first on LD_LIBRARY_PATH
// as libcuda.so.1. The stub loads, and its cuInit fails with
// CUDA_ERROR_STUB_LIBRARY. A separate binary, because the stub must be the
// only libcuda the process ever sees.
//
//===----------------------------------------------------------------------===//

#include "collc/collc.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

TEST(StubDriverTest, CuInitFailureNamesTheCallAndTheCode) {
  if (!std::getenv("COLLC_TEST_STUB_DRIVER"))
    GTEST_SKIP() << "run through ctest, which sets up the stub driver";
  const int sentinel = -12345;
  int version = sentinel, count = sentinel;
  EXPECT_EQ(collcDriverInfo(&version, &count), collcUnhandledCudaError);
  std::string error = collcGetLastError();
  EXPECT_NE(error.find("collcDriverInfo : cuInit(0) failed with CUDA driver "
                       "error 34 CUDA_ERROR_STUB_LIBRARY"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("LD_LIBRARY_PATH"), std::string::npos) << error;
  EXPECT_EQ(version, sentinel);
  EXPECT_EQ(count, sentinel);
}

} // namespace
