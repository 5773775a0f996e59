//===- device.cpp - Driver and device queries -------------------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//

#include "collc/collc.h"

#include "checks.h"

extern "C" COLLC_API collcResult_t collcDriverInfo(int *driverVersion,
                                                   int *deviceCount) {
  COLLC_API_ENTRY();
  // Arguments first, so that a bad call is reported as such even on a
  // machine without a driver.
  COLLC_ARG_NOT_NULL(driverVersion);
  COLLC_ARG_NOT_NULL(deviceCount);
  COLLC_CHECK(collc::driverInit());
  // Write the outputs only on success: a failing call leaves them untouched.
  int version = 0;
  int count = 0;
  CU_CHECK(cuDriverGetVersion(&version));
  CU_CHECK(cuDeviceGetCount(&count));
  *driverVersion = version;
  *deviceCount = count;
  return collcSuccess;
}

extern "C" COLLC_API collcResult_t collcDeviceGetComputeCapability(int device,
                                                                   int *major,
                                                                   int *minor) {
  COLLC_API_ENTRY();
  if (device < 0)
    return COLLC_FAIL(collcInvalidArgument,
                      "device is %d, expected a CUDA device ordinal (>= 0)",
                      device);
  COLLC_ARG_NOT_NULL(major);
  COLLC_ARG_NOT_NULL(minor);
  COLLC_CHECK(collc::driverInit());
  int count = 0;
  CU_CHECK(cuDeviceGetCount(&count));
  // Checked here rather than left to cuDeviceGet so that the message names
  // the range; CUDA_ERROR_INVALID_DEVICE alone does not.
  if (device >= count)
    return COLLC_FAIL(collcInvalidArgument,
                      "device %d is out of range, this process sees %d CUDA "
                      "device(s) (check CUDA_VISIBLE_DEVICES)",
                      device, count);
  CUdevice dev;
  int ccMajor = 0;
  int ccMinor = 0;
  CU_CHECK(cuDeviceGet(&dev, device));
  CU_CHECK(cuDeviceGetAttribute(
      &ccMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  CU_CHECK(cuDeviceGetAttribute(
      &ccMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
  *major = ccMajor;
  *minor = ccMinor;
  return collcSuccess;
}
