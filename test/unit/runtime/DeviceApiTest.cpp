//===- DeviceApiTest.cpp - the device handle without a GPU ------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// collcCommGetDeviceHandle (device_api.cpp) on communicators built by hand
// from runtime.h, as RegisterTest does: the refusals (NULL arguments, a
// window of another communicator, a window not every rank registered yet,
// naming the rank), the fields of a handle with and without a window, and
// the report of a device-API wait that timed out (collcCommGetAsyncError's
// message from the error record's words; the next call refused). The GPU
// side: examples/device-api and test/gpu/device_api.
//
//===----------------------------------------------------------------------===//

#include "FakeComm.h"
#include "runtime.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace {

std::string lastError() { return collcGetLastError(); }

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// A communicator of a clique without a device, with made-up addresses for
/// the device API's buffers and a host error record.
struct Comm {
  collcComm comm;
  unsigned long long record[COLLC_DEVICE_ERROR_WORDS] = {};
  Comm(int nranks, int rank) {
    comm.nranks = nranks;
    comm.rank = rank;
    comm.timeoutNs = 2000000000ull;
    comm.clique = std::make_shared<collc::Clique>();
    comm.clique->devices.assign(nranks, 0);
    comm.clique->comms.assign(nranks, nullptr);
    comm.clique->comms[rank] = &comm;
    comm.windowTable = 0x100000;
    comm.deviceInbox = 0x200000;
    comm.deviceExpected = 0x300000;
    comm.deviceInboxPeers = 0x400000;
    comm.deviceError = record;
    comm.deviceErrorDevice = 0x500000;
  }
  collcWindow *window(int slot, unsigned long long bytes, bool complete) {
    collcWindow *w =
        collc::test::fakeWindow(comm, slot, 0x7000000, bytes, complete);
    w->shared->state.assign(comm.nranks, 1);
    return w;
  }
  ~Comm() {
    for (collcWindow *w : comm.windows)
      delete w;
    comm.deviceInbox = comm.deviceExpected = comm.deviceInboxPeers = 0;
  }
};

TEST(DeviceApiTest, NullArgumentsAreRefused) {
  collcDeviceComm h = COLLC_DEVICE_COMM_INITIALIZER;
  EXPECT_EQ(collcCommGetDeviceHandle(nullptr, nullptr, &h),
            collcInvalidArgument);
  EXPECT_TRUE(contains(lastError(),
                       "collcCommGetDeviceHandle : comm argument is NULL"))
      << lastError();
  Comm c(2, 0);
  EXPECT_EQ(collcCommGetDeviceHandle(&c.comm, nullptr, nullptr),
            collcInvalidArgument);
  EXPECT_TRUE(contains(lastError(), "handle argument is NULL")) << lastError();
}

TEST(DeviceApiTest, AHandleOfAnotherVersionIsRefused) {
  Comm c(2, 1);
  collcDeviceComm h = COLLC_DEVICE_COMM_INITIALIZER;
  h.version = COLLC_DEVICE_API_VERSION + 1;
  EXPECT_EQ(collcCommGetDeviceHandle(&c.comm, nullptr, &h),
            collcInvalidArgument);
  EXPECT_TRUE(contains(lastError(), "rank 1: handle->version is 2, but this "
                                    "library fills collcDeviceComm version 1"))
      << lastError();
  EXPECT_EQ(h.nranks, 0); // unchanged
}

TEST(DeviceApiTest, AForeignWindowIsRefused) {
  Comm a(2, 0), b(2, 0);
  collcWindow *w = b.window(0, 4096, true);
  collcDeviceComm h = COLLC_DEVICE_COMM_INITIALIZER;
  EXPECT_EQ(collcCommGetDeviceHandle(&a.comm, w, &h), collcInvalidArgument);
  EXPECT_TRUE(contains(lastError(), "is not a window registered on this "
                                    "communicator"))
      << lastError();
}

TEST(DeviceApiTest, AWindowNotEveryRankRegisteredIsRefused) {
  Comm c(4, 1);
  collcWindow *w = c.window(3, 4096, false);
  w->shared->state[2] = 0;
  collcDeviceComm h = COLLC_DEVICE_COMM_INITIALIZER;
  EXPECT_EQ(collcCommGetDeviceHandle(&c.comm, w, &h), collcInvalidUsage);
  EXPECT_TRUE(contains(lastError(), "rank 1: window 0 is not registered on "
                                    "every rank yet (rank 2 has not"))
      << lastError();
}

TEST(DeviceApiTest, TheHandleNamesTheWindowRowAndTheReadinessWords) {
  Comm c(4, 2);
  c.window(0, 64, true);
  collcWindow *w = c.window(5, 12345, true);
  collcDeviceComm h = COLLC_DEVICE_COMM_INITIALIZER;
  ASSERT_EQ(collcCommGetDeviceHandle(&c.comm, w, &h), collcSuccess)
      << lastError();
  EXPECT_EQ(h.version, (unsigned)COLLC_DEVICE_API_VERSION);
  EXPECT_EQ(h.rank, 2);
  EXPECT_EQ(h.nranks, 4);
  EXPECT_EQ(h.slots, COLLC_DEVICE_SIGNAL_SLOTS);
  // Row 5 of the window table: 5 x 4 pointers in.
  EXPECT_EQ(reinterpret_cast<uintptr_t>(h.peers), 0x100000u + 5 * 4 * 8);
  EXPECT_EQ(h.bytes, 12345u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(h.inbox), 0x400000u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(h.expected), 0x300000u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(h.error), 0x500000u);
  EXPECT_EQ(h.timeoutNs, 2000000000ull);

  collcDeviceComm bare = COLLC_DEVICE_COMM_INITIALIZER;
  ASSERT_EQ(collcCommGetDeviceHandle(&c.comm, nullptr, &bare), collcSuccess);
  EXPECT_EQ(bare.peers, nullptr);
  EXPECT_EQ(bare.bytes, 0u);
  EXPECT_EQ(bare.inbox, h.inbox);
}

TEST(DeviceApiTest, ATimedOutWaitIsReportedAndStopsTheCommunicator) {
  Comm c(2, 0);
  collcResult_t async = collcInternalError;
  ASSERT_EQ(collcCommGetAsyncError(&c.comm, &async), collcSuccess);
  EXPECT_EQ(async, collcSuccess);
  // What api.cuh's record_timeout writes: rank 0, block 3, waited for rank
  // 1's signal on slot 7, count 2 expected, 1 seen.
  c.record[1] = 7, c.record[2] = 0, c.record[3] = 1, c.record[4] = 2;
  c.record[5] = 1, c.record[6] = 3, c.record[7] = COLLC_DEVICE_WAIT_SIGNAL;
  c.record[0] = COLLC_DEVICE_WAIT_TIMEOUT;
  ASSERT_EQ(collcCommGetAsyncError(&c.comm, &async), collcSuccess);
  EXPECT_EQ(async, collcTimeout);
  EXPECT_TRUE(contains(lastError(),
                       "device API (a kernel of yours, block 3): rank 0 timed "
                       "out after 2000 ms waiting for rank 1's signal on slot "
                       "7 (count expected 2, seen 1)"))
      << lastError();
  int x = 0;
  EXPECT_EQ(collcLaunch(&c.comm, "all_reduce", &x, &x, 1, nullptr,
                        collcFloat32, 0, nullptr),
            collcInvalidUsage);
  EXPECT_TRUE(contains(lastError(), "the communicator failed earlier"))
      << lastError();
  EXPECT_TRUE(contains(lastError(), "device API (a kernel of yours"))
      << lastError();
}

} // namespace
