//===- RegisterTest.cpp - registered buffers without a GPU ------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// collcCommRegister / collcCommDeregister and the launch path's window
// lookup (findWindow, noteWindowUse), where no driver call is needed: the
// argument checks (and that a refusing rank still takes part in the
// exchange, so no peer is left waiting), overlap with a registered window,
// the 64-window limit, the refusal while captured graphs hold a window,
// and the `where` encoding. Communicators and windows are built by hand
// from runtime.h (as in LaunchLimitsTest); the GPU side is
// test/gpu/collectives/registration.cpp.
//
//===----------------------------------------------------------------------===//

#include "FakeComm.h"
#include "runtime.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

std::string lastError() { return collcGetLastError(); }

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// A stand-in for the bootstrap: every peer sends what this rank sends
/// (or what `edit` makes of it); counts its calls; fails when told to.
struct FakeBootstrap {
  int calls = 0;
  bool fail = false;
  static int allgather(const void *send, void *recv, size_t bytes,
                       void *userData) {
    auto *self = static_cast<FakeBootstrap *>(userData);
    ++self->calls;
    if (self->fail)
      return 1;
    auto *out = static_cast<char *>(recv);
    for (int p = 0; p < self->nranks; ++p)
      std::memcpy(out + p * bytes, send, bytes);
    return 0;
  }
  int nranks = 2;
};

/// A communicator without a device: rank `rank` of `nranks`, either of one
/// process per rank (with the fake bootstrap) or of a clique.
struct Comm {
  collcComm comm;
  FakeBootstrap boot;
  Comm(int nranks, int rank, bool clique) {
    comm.nranks = nranks;
    comm.rank = rank;
    comm.timeoutNs = 1000000000ull;
    boot.nranks = nranks;
    if (clique) {
      comm.clique = std::make_shared<collc::Clique>();
      comm.clique->devices.assign(nranks, 0);
      comm.clique->comms.assign(nranks, nullptr);
      comm.clique->comms[rank] = &comm;
    } else {
      comm.allgather = &FakeBootstrap::allgather;
      comm.userData = &boot;
    }
  }
  /// Adds a registered window (as collcCommRegister leaves it) in the
  /// lowest free slot.
  collcWindow *window(unsigned long long buff, unsigned long long bytes,
                      bool complete = true) {
    int slot = 0;
    while (comm.windowSlots[slot])
      ++slot;
    collcWindow *w = collc::test::fakeWindow(comm, slot, buff, bytes, complete);
    w->mappings.assign(comm.nranks, -1);
    return w;
  }
  ~Comm() {
    for (collcWindow *w : comm.windows)
      delete w;
  }
};

TEST(RegisterTest, NullCommunicatorIsRefused) {
  collcWindow_t w = nullptr;
  int x = 0;
  EXPECT_EQ(collcCommRegister(nullptr, &x, 4, &w), collcInvalidArgument);
  EXPECT_TRUE(contains(lastError(), "collcCommRegister : comm argument is NULL"))
      << lastError();
  EXPECT_EQ(collcCommDeregister(nullptr, w), collcInvalidArgument);
  EXPECT_TRUE(
      contains(lastError(), "collcCommDeregister : comm argument is NULL"))
      << lastError();
}

TEST(RegisterTest, BadArgumentsAreRefusedAfterTheExchange) {
  for (bool clique : {false, true}) {
    SCOPED_TRACE(clique ? "one process" : "one process per rank");
    Comm c(2, 1, clique);
    collcWindow_t w = reinterpret_cast<collcWindow_t>(0x1);
    int x = 0;
    EXPECT_EQ(collcCommRegister(&c.comm, &x, 4, nullptr), collcInvalidArgument);
    EXPECT_TRUE(contains(lastError(), "collcCommRegister : rank 1: window "
                                      "argument is NULL"))
        << lastError();
    EXPECT_EQ(collcCommRegister(&c.comm, nullptr, 64, &w), collcInvalidArgument);
    EXPECT_TRUE(contains(lastError(), "rank 1: buff argument is NULL (64 bytes)"))
        << lastError();
    EXPECT_EQ(w, nullptr);
    EXPECT_EQ(collcCommRegister(&c.comm, &x, 0, &w), collcInvalidArgument);
    EXPECT_TRUE(contains(lastError(), "rank 1: bytes is 0")) << lastError();
    EXPECT_EQ(collcCommRegister(&c.comm, &x, (size_t)1 << 49, &w),
              collcInvalidArgument);
    EXPECT_TRUE(contains(lastError(), "at most 2^48 bytes")) << lastError();
    // A refusing rank still takes part in the exchange (peers would wait
    // for it), and a refused call does not count.
    EXPECT_EQ(c.boot.calls, clique ? 0 : 4);
    EXPECT_EQ(c.comm.registrations, 0u);
    EXPECT_TRUE(c.comm.windows.empty());
    if (clique) {
      EXPECT_TRUE(c.comm.clique->pending.empty());
    }
  }
}

TEST(RegisterTest, OverlapWithARegisteredWindowIsRefused) {
  for (bool clique : {false, true}) {
    SCOPED_TRACE(clique ? "one process" : "one process per rank");
    Comm c(2, 0, clique);
    c.window(0x100000, 4096);
    collcWindow_t w = nullptr;
    for (unsigned long long at : {0x100000ull, 0x100ff0ull, 0x0fff00ull}) {
      EXPECT_EQ(collcCommRegister(&c.comm, reinterpret_cast<void *>(at), 512,
                                  &w),
                collcInvalidArgument);
      EXPECT_TRUE(contains(lastError(), "overlaps window 0")) << lastError();
      EXPECT_TRUE(contains(lastError(), "4096 bytes, slot 0")) << lastError();
    }
    EXPECT_EQ(c.comm.windows.size(), 1u);
  }
}

TEST(RegisterTest, MoreThanMaxWindowsIsRefused) {
  Comm c(2, 0, false);
  for (int i = 0; i < collc::kMaxWindows; ++i)
    c.window(0x100000 + i * 0x1000ull, 0x1000);
  collcWindow_t w = nullptr;
  EXPECT_EQ(collcCommRegister(&c.comm, reinterpret_cast<void *>(0x900000), 16,
                              &w),
            collcInvalidUsage);
  EXPECT_TRUE(contains(lastError(), "64 windows are registered on this "
                                    "communicator already"))
      << lastError();
  EXPECT_EQ(c.boot.calls, 1); // still exchanged
}

TEST(RegisterTest, AFailingAllgatherIsASystemError) {
  Comm c(2, 0, false);
  c.boot.fail = true;
  collcWindow_t w = nullptr;
  EXPECT_EQ(collcCommRegister(&c.comm, nullptr, 16, &w), collcSystemError);
  EXPECT_TRUE(contains(lastError(), "allgather callback failed")) << lastError();
  collcWindow *mine = c.window(0x100000, 64);
  mine->shared->graphs->live = 1; // refused locally, then the exchange fails
  EXPECT_EQ(collcCommDeregister(&c.comm, mine), collcSystemError);
  EXPECT_TRUE(contains(lastError(), "allgather callback failed")) << lastError();
}

TEST(RegisterTest, NoBootstrapIsAnInternalError) {
  Comm c(2, 0, false);
  c.comm.allgather = nullptr;
  collcWindow_t w = nullptr;
  EXPECT_EQ(collcCommRegister(&c.comm, nullptr, 16, &w), collcInternalError);
}

TEST(RegisterTest, DeregisterRefusesForeignAndNullWindows) {
  for (bool clique : {false, true}) {
    SCOPED_TRACE(clique ? "one process" : "one process per rank");
    Comm a(2, 0, clique), b(2, 0, clique);
    collcWindow *other = b.window(0x100000, 64);
    EXPECT_EQ(collcCommDeregister(&a.comm, nullptr), collcInvalidArgument);
    EXPECT_TRUE(contains(lastError(), "rank 0: window argument is NULL"))
        << lastError();
    EXPECT_EQ(collcCommDeregister(&a.comm, other), collcInvalidArgument);
    EXPECT_TRUE(contains(lastError(), "is not a window registered on this "
                                      "communicator"))
        << lastError();
    EXPECT_EQ(b.comm.windows.size(), 1u);
  }
}

TEST(RegisterTest, DeregisterIsRefusedWhileGraphsHoldTheWindow) {
  for (bool clique : {false, true}) {
    SCOPED_TRACE(clique ? "one process" : "one process per rank");
    Comm c(2, 1, clique);
    c.window(0x100000, 64);
    collcWindow *w = c.window(0x200000, 4096);
    w->shared->graphs->live = 3;
    EXPECT_EQ(collcCommDeregister(&c.comm, w), collcInvalidUsage);
    EXPECT_TRUE(contains(lastError(), "window 1 (slot 1,")) << lastError();
    EXPECT_TRUE(contains(lastError(), "is used by 3 captured CUDA graphs; "
                                      "destroy their graphs and graph "
                                      "executions first"))
        << lastError();
    // Nothing changed.
    EXPECT_EQ(c.comm.windows.size(), 2u);
    EXPECT_EQ(c.comm.windowSlots[1], w);
    unsigned long long where = 0;
    EXPECT_TRUE(collc::findWindow(&c.comm, (void *)0x200010, 16, &where));
  }
}

TEST(RegisterTest, FindWindowEncodesSlotAndOffset) {
  Comm c(4, 2, true);
  c.window(0x100000, 0x1000);
  c.window(0x200000, 0x10000);
  c.window(0x300000, 0x100, /*complete=*/false);
  unsigned long long where = 0;
  EXPECT_TRUE(collc::findWindow(&c.comm, (void *)0x100000, 0x1000, &where));
  EXPECT_EQ(where, 0ull);
  EXPECT_TRUE(collc::findWindow(&c.comm, (void *)0x200040, 0x100, &where));
  EXPECT_EQ(where, (1ull << collc::kWindowShift) | 0x40);
  EXPECT_EQ(where >> collc::kWindowShift, 1ull);
  EXPECT_TRUE(collc::findWindow(&c.comm, (void *)0x20ffff, 1, &where));
  EXPECT_EQ(where, (1ull << collc::kWindowShift) | 0xffff);
  EXPECT_TRUE(collc::findWindow(&c.comm, (void *)0x200000, 0, &where));
  // Outside, straddling the end, just past the end, incomplete.
  where = 7;
  EXPECT_FALSE(collc::findWindow(&c.comm, (void *)0x0fffff, 2, &where));
  EXPECT_FALSE(collc::findWindow(&c.comm, (void *)0x100f00, 0x101, &where));
  EXPECT_FALSE(collc::findWindow(&c.comm, (void *)0x101000, 1, &where));
  EXPECT_FALSE(collc::findWindow(&c.comm, (void *)0x300000, 16, &where));
  EXPECT_FALSE(collc::findWindow(&c.comm, nullptr, 16, &where));
  EXPECT_EQ(where, 7ull);
  // A freed slot is taken again, and the encoding follows the slot.
  collcWindow *first = c.comm.windows[0];
  c.comm.windowSlots[0] = nullptr;
  c.comm.windows.erase(c.comm.windows.begin());
  delete first;
  c.window(0x500000, 0x100);
  EXPECT_TRUE(collc::findWindow(&c.comm, (void *)0x500010, 8, &where));
  EXPECT_EQ(where, 0x10ull);
}

TEST(RegisterTest, NoteWindowUseOfAnEmptySlotIsAnInternalError) {
  Comm c(2, 0, false);
  EXPECT_EQ(collc::noteWindowUse(&c.comm, 3ull << collc::kWindowShift, nullptr),
            collcInternalError);
  EXPECT_TRUE(contains(lastError(), "slot 3")) << lastError();
  EXPECT_EQ(collc::noteWindowUse(&c.comm, ~0ull, nullptr), collcInternalError);
}

} // namespace
