//===- LaunchLimitsTest.cpp - Count limits and the failed state -*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// Every launch entry point at the edges of its counts, and every entry point
// after a kernel recorded a timeout, without a GPU. A communicator needs a
// device, so the tests build one by hand from runtime.h around a module
// loaded from a manifest that lists the shipped library's collectives
// (specs/collectives.coll, specs/variable.coll), as collc writes them. The
// manifest is parsed by the runtime itself, so the layouts the admission
// reads are the real ones.
//
// The binary runs with the toolkit's stub libcuda (see CMakeLists.txt): a
// call whose counts are admitted goes on to its buffer checks and driver
// calls, which fail in a known way (a NULL buffer, or the stub's
// CUDA_ERROR_STUB_LIBRARY), so "admitted" is observable without a launch.
//
//===----------------------------------------------------------------------===//

#include "FakeComm.h"
#include "runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace {

std::string lastError() { return collcGetLastError(); }

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

std::string transform(const char *consume, const char *in, const char *out,
                      const char *root = "none") {
  return std::string(R"({"consume": ")") + consume + R"(", "input": ")" + in +
         R"(", "output": ")" + out + R"(", "root": ")" + root +
         (std::string(consume) == "reduce" ? R"(", "reduction": "sum"})"
                                           : R"("})");
}

/// The shipped collectives, each transform as the spec defines it (a
/// composition lists both of its transforms).
const std::vector<std::pair<std::string, std::string>> &shipped() {
  static const std::vector<std::pair<std::string, std::string>> list = {
      {"reduce_scatter", transform("reduce", "scattered", "packed")},
      {"all_gather", transform("copy", "packed", "scattered")},
      {"all_to_all", transform("copy", "scattered", "transposed")},
      {"all_reduce", transform("reduce", "scattered", "packed") + ", " +
                         transform("copy", "packed", "scattered")},
      {"one_shot_all_reduce", transform("reduce", "packed", "packed")},
      {"scatter", transform("copy", "scattered", "packed", "producer")},
      {"gather", transform("copy", "packed", "scattered", "consumer")},
      {"broadcast", transform("copy", "scattered", "packed", "producer") +
                        ", " + transform("copy", "packed", "scattered")},
      {"reduce", transform("reduce", "scattered", "packed") + ", " +
                     transform("copy", "packed", "scattered", "consumer")},
      {"all_gather_v", transform("copy", "packed_v", "scattered_v")},
      {"reduce_scatter_v", transform("reduce", "scattered_v", "packed_v")},
      {"all_to_all_v", transform("copy", "scattered_v", "transposed_v")},
  };
  return list;
}

std::string manifest() {
  std::string collectives, kernels;
  for (const auto &[name, transforms] : shipped()) {
    collectives += std::string(collectives.empty() ? "" : ",\n") +
                   R"({"name": ")" + name + R"(", "transforms": [)" +
                   transforms + R"(],
      "schedule": {"chunk_bytes": 65536, "slots": 4,
                   "roles": [{"name": "stage"}, {"name": "consume"}],
                   "ready_events": ["staged"], "free_events": ["free"]}})";
    kernels += std::string(kernels.empty() ? "" : ",\n") +
               R"({"name": "collc_)" + name + R"(_f32", "target": "sm_90",
      "collective": ")" + name + R"(", "element_type": "f32",
      "element_bytes": 4, "world_size": 4, "grid": 8, "threads": 512,
      "pdl": false, "workspace": {"chunk_bytes": 65536, "slots": 4,
      "ready_events": 1, "free_events": 1, "staging_bytes": 262144,
      "intermediate_bytes": 0, "event_words": 80, "state_words": 18}})";
  }
  return R"({"format": "collc-module", "format_version": 1,
  "kernel_abi_version": )" +
         std::to_string(COLLC_KERNEL_ABI_VERSION) + R"(,
  "spec": {"file": "shipped.coll", "sha256": "00"},
  "collectives": [)" +
         collectives + R"(],
  "kernels": [)" +
         kernels + R"(],
  "images": []})";
}

/// A communicator as collcCommInitAll leaves it, minus the device: rank
/// `rank` of `nranks`, one workspace per kernel with its error record in
/// ordinary host memory (the runtime only reads it).
class FakeComm {
public:
  explicit FakeComm(int nranks, int rank = 0) {
    std::string text = manifest();
    EXPECT_EQ(collcModuleLoadData(&module, text.data(), text.size()),
              collcSuccess)
        << lastError();
    if (!module)
      return;
    collc::test::fakeComm(comm, module, nranks, rank, errors);
    collc::buildRoutes(&comm, collc::ForceVariant());
  }
  ~FakeComm() {
    if (module)
      collcModuleDestroy(module);
  }
  collcComm_t get() { return &comm; }

  /// Records, as a kernel of `collective` would, that its wait for `peer`
  /// at call 7 timed out.
  void recordTimeout(const std::string &collective, int peer) {
    for (size_t i = 0; i < module->kernels.size(); ++i)
      if (module->kernels[i].collective == collective) {
        unsigned long long *e = errors.data() + i * COLLC_ERROR_WORDS;
        unsigned long long record[8] = {
            COLLC_KERNEL_TIMEOUT, 7, (unsigned long long)comm.rank, 1, 0,
            (unsigned long long)peer, 0, 3};
        std::copy(record, record + 8, e + COLLC_ERROR_REMOTE);
        std::copy(record, record + 8, e);
      }
  }

private:
  collcModule_t module = nullptr;
  collcComm comm;
  std::vector<unsigned long long> errors;
};

constexpr size_t kMax = size_t(1) << 40;
constexpr int kRanks = 4;

/// One launch entry point: its name, the collective, how it names the count
/// under test, and a call that puts `value` there (a V call's other counts
/// are entries()'s `others`).
struct Entry {
  std::string api, collective, arg;
  /// The count is the whole buffer (n partitions): its limit is n * 2^40.
  bool whole;
  std::function<collcResult_t(collcComm_t, size_t)> call;
};

/// A V call's counts: `size` times `others`, with `value` at `at`.
std::vector<size_t> countsWith(int size, int at, size_t value, size_t others) {
  std::vector<size_t> counts(size, others);
  counts[at] = value;
  return counts;
}

std::vector<Entry> entries(int n, size_t others = 1) {
  const collcDataType_t f32 = collcFloat32;
  const std::string last = std::to_string(n - 1);
  std::vector<Entry> list = {
      {"collcAllReduce", "all_reduce", "count", true,
       [=](collcComm_t c, size_t v) {
         return collcAllReduce(nullptr, nullptr, v, f32, collcSum, c, nullptr);
       }},
      {"collcBroadcast", "broadcast", "count", true,
       [=](collcComm_t c, size_t v) {
         return collcBroadcast(nullptr, nullptr, v, f32, 0, c, nullptr);
       }},
      {"collcReduce", "reduce", "count", true,
       [=](collcComm_t c, size_t v) {
         return collcReduce(nullptr, nullptr, v, f32, collcSum, 0, c, nullptr);
       }},
      {"collcAllGather", "all_gather", "sendcount", false,
       [=](collcComm_t c, size_t v) {
         return collcAllGather(nullptr, nullptr, v, f32, c, nullptr);
       }},
      {"collcReduceScatter", "reduce_scatter", "recvcount", false,
       [=](collcComm_t c, size_t v) {
         return collcReduceScatter(nullptr, nullptr, v, f32, collcSum, c,
                                   nullptr);
       }},
      {"collcAllToAll", "all_to_all", "count", false,
       [=](collcComm_t c, size_t v) {
         return collcAllToAll(nullptr, nullptr, v, f32, c, nullptr);
       }},
      {"collcScatter", "scatter", "recvcount", false,
       [=](collcComm_t c, size_t v) {
         return collcScatter(nullptr, nullptr, v, f32, 0, c, nullptr);
       }},
      {"collcGather", "gather", "sendcount", false,
       [=](collcComm_t c, size_t v) {
         return collcGather(nullptr, nullptr, v, f32, 0, c, nullptr);
       }},
      // The V calls: the count under test is the last rank's (rank 0's own
      // must equal sendcount).
      {"collcAllGatherV", "all_gather_v", "recvcounts[" + last + "]", false,
       [=](collcComm_t c, size_t v) {
         std::vector<size_t> counts = countsWith(n, n - 1, v, others);
         return collcAllGatherV(nullptr, others, nullptr, counts.data(),
                                nullptr, f32, c, nullptr);
       }},
      {"collcReduceScatterV", "reduce_scatter_v", "recvcounts[" + last + "]",
       false,
       [=](collcComm_t c, size_t v) {
         std::vector<size_t> counts = countsWith(n, n - 1, v, others);
         return collcReduceScatterV(nullptr, nullptr, counts.data(), f32,
                                    collcSum, c, nullptr);
       }},
      {"collcAllToAllV", "all_to_all_v", "sendcounts[" + last + "]", false,
       [=](collcComm_t c, size_t v) {
         std::vector<size_t> send = countsWith(n, n - 1, v, others),
                             recv(n, others);
         return collcAllToAllV(nullptr, send.data(), nullptr, nullptr,
                               recv.data(), nullptr, f32, c, nullptr);
       }},
      {"collcAllToAllV", "all_to_all_v", "recvcounts[" + last + "]", false,
       [=](collcComm_t c, size_t v) {
         std::vector<size_t> send(n, others),
             recv = countsWith(n, n - 1, v, others);
         return collcAllToAllV(nullptr, send.data(), nullptr, nullptr,
                               recv.data(), nullptr, f32, c, nullptr);
       }},
  };
  // collcLaunch, by name, for every shipped collective.
  for (const auto &[name, transforms] : shipped()) {
    std::string coll = name;
    bool variable = contains(transforms, "_v\"");
    if (!variable) {
      list.push_back({"collcLaunch", coll, "count", false,
                      [=](collcComm_t c, size_t v) {
                        return collcLaunch(c, coll.c_str(), nullptr, nullptr,
                                           v, nullptr, f32, 0, nullptr);
                      }});
      continue;
    }
    bool twoArrays = coll == "all_to_all_v";
    for (int at : twoArrays ? std::vector<int>{n - 1, 2 * n - 1}
                            : std::vector<int>{n - 1}) {
      std::string arg = "counts[" + std::to_string(at) + "]";
      list.push_back({"collcLaunch", coll, arg, false,
                      [=](collcComm_t c, size_t v) {
                        std::vector<size_t> counts =
                            countsWith(twoArrays ? 2 * n : n, at, v, others);
                        return collcLaunch(c, coll.c_str(), nullptr, nullptr,
                                           0, counts.data(), f32, 0, nullptr);
                      }});
    }
  }
  return list;
}

std::string describe(const Entry &e, size_t value) {
  return e.api + " (" + e.collective + ") with " + e.arg +
         " = " + std::to_string(value);
}

/// The call passed every count check: it went on to the buffer checks (a
/// NULL buffer that must move bytes) or to the driver (the stub fails).
void expectAdmitted(const Entry &e, size_t value, collcResult_t result) {
  std::string error = lastError();
  SCOPED_TRACE(describe(e, value) + ": " + error);
  if (result == collcUnhandledCudaError) {
    EXPECT_TRUE(contains(error, "CUDA_ERROR_STUB_LIBRARY"));
    return;
  }
  EXPECT_EQ(result, collcInvalidArgument);
  EXPECT_TRUE(contains(error, "buff is NULL but the call moves"));
}

/// The call was refused for the count, naming the function, the
/// collective, the rank and the argument.
void expectRefused(const Entry &e, size_t value, collcResult_t result) {
  std::string error = lastError();
  SCOPED_TRACE(describe(e, value) + ": " + error);
  EXPECT_EQ(result, collcInvalidArgument);
  EXPECT_EQ(error.rfind(e.api + " : " + e.collective + ": rank 0: ", 0), 0u);
  EXPECT_TRUE(contains(error, e.arg));
  EXPECT_TRUE(contains(error, "larger than the limit") ||
              contains(error, "overflows"));
}

class LaunchLimitsTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!std::getenv("COLLC_TEST_STUB_DRIVER"))
      GTEST_SKIP() << "run through ctest or lit, which set up the stub driver";
    // Resolves the driver entry points (the stub's cuInit then fails).
    int version = 0, count = 0;
    ASSERT_EQ(collcDriverInfo(&version, &count), collcUnhandledCudaError)
        << lastError();
  }
};

TEST_F(LaunchLimitsTest, ZeroOneAndTheLimitAreAdmitted) {
  FakeComm comm(kRanks);
  for (const Entry &e : entries(kRanks)) {
    size_t limit = e.whole ? kRanks * kMax : kMax;
    for (size_t value : {size_t(0), size_t(1), size_t(17), limit})
      expectAdmitted(e, value, e.call(comm.get(), value));
  }
}

TEST_F(LaunchLimitsTest, CountsNear2To64AreRefused) {
  FakeComm comm(kRanks);
  for (const Entry &e : entries(kRanks)) {
    size_t limit = e.whole ? kRanks * kMax : kMax;
    // Past the limit; SIZE_MAX (-1 as a long long); the largest count whose
    // bytes fit in size_t and the first that wraps; 2^63 (negative as a long
    // long); 2^62, whose 4-byte extent wraps to 0; 2^64 / n, whose n
    // partitions wrap to 0.
    for (size_t value :
         {limit + 1, SIZE_MAX, SIZE_MAX / 4, SIZE_MAX / 4 + 1,
          size_t(1) << 63, size_t(1) << 62, (SIZE_MAX / kRanks) + 1})
      expectRefused(e, value, e.call(comm.get(), value));
  }
}

TEST_F(LaunchLimitsTest, MessagesSayWhatIsWrong) {
  FakeComm comm(kRanks, 2);
  EXPECT_EQ(collcAllReduce(nullptr, nullptr, SIZE_MAX, collcFloat32, collcSum,
                           comm.get(), nullptr),
            collcInvalidArgument);
  EXPECT_EQ(lastError(),
            "collcAllReduce : all_reduce: rank 2: count = "
            "18446744073709551615 is larger than the limit of 4398046511104 "
            "elements (4 partitions of at most 2^40)");
  std::vector<size_t> counts(kRanks, 1);
  counts[3] = SIZE_MAX;
  EXPECT_EQ(collcAllGatherV(nullptr, 1, nullptr, counts.data(), nullptr,
                            collcFloat32, comm.get(), nullptr),
            collcInvalidArgument);
  EXPECT_EQ(lastError(),
            "collcAllGatherV : all_gather_v: rank 2: recvcounts[3] = "
            "18446744073709551615 is larger than the limit of 2^40 = "
            "1099511627776 elements per partition");
  EXPECT_EQ(collcLaunch(comm.get(), "all_gather", nullptr, nullptr,
                        size_t(1) << 63, nullptr, collcFloat32, 0, nullptr),
            collcInvalidArgument);
  EXPECT_EQ(lastError(), "collcLaunch : all_gather: rank 2: count = "
                         "9223372036854775808 is larger than the limit of "
                         "2^40 = 1099511627776 elements per partition");
}

TEST_F(LaunchLimitsTest, AdmittedExtentsAreExact) {
  // What the buffer checks are asked for, against extents written out by
  // hand: at 4 ranks and 4-byte elements, AllGather reads one partition,
  // Scatter's root reads four, AllReduce at 2^40 * 4 elements reads them all.
  FakeComm comm(kRanks);
  EXPECT_EQ(collcAllGather(nullptr, nullptr, kMax, collcFloat32, comm.get(),
                           nullptr),
            collcInvalidArgument);
  EXPECT_TRUE(contains(lastError(), "moves 4398046511104 bytes"))
      << lastError();
  EXPECT_EQ(collcScatter(nullptr, nullptr, kMax, collcFloat32, 0, comm.get(),
                         nullptr),
            collcInvalidArgument);
  EXPECT_TRUE(contains(lastError(), "moves 17592186044416 bytes"))
      << lastError();
  EXPECT_EQ(collcAllReduce(nullptr, nullptr, kRanks * kMax, collcFloat32,
                           collcSum, comm.get(), nullptr),
            collcInvalidArgument);
  EXPECT_TRUE(contains(lastError(), "moves 17592186044416 bytes"))
      << lastError();
  // The sum of V counts: 3 + 5 + 2^40 + 0 elements of 4 bytes.
  const size_t counts[] = {3, 5, kMax, 0};
  EXPECT_EQ(collcReduceScatterV(nullptr, nullptr, counts, collcFloat32,
                                collcSum, comm.get(), nullptr),
            collcInvalidArgument);
  EXPECT_TRUE(contains(lastError(), "moves 4398046511136 bytes"))
      << lastError();
}

// With enough ranks, counts within the limit still overflow once multiplied
// by n or summed: the products and sums themselves are checked.
TEST_F(LaunchLimitsTest, ProductsAndSumsOverManyRanksAreChecked) {
  const int n = 1 << 21; // 2^21 * 2^40 * 4 bytes = 2^63
  FakeComm comm(n);
  // Every entry point, every count at its limit: each count is admitted on
  // its own, the n-partition extent in bytes is one past LLONG_MAX.
  for (const Entry &e : entries(n, kMax)) {
    size_t value = e.whole ? n * kMax : kMax;
    collcResult_t result = e.call(comm.get(), value);
    std::string error = lastError();
    SCOPED_TRACE(describe(e, value) + ": " + error);
    EXPECT_EQ(result, collcInvalidArgument);
    EXPECT_EQ(error.rfind(e.api + " : " + e.collective + ": rank 0: ", 0), 0u);
    EXPECT_TRUE(contains(error, "overflows a 64-bit size"));
  }
  // What the messages say.
  EXPECT_EQ(collcAllGather(nullptr, nullptr, kMax, collcFloat32, comm.get(),
                           nullptr),
            collcInvalidArgument);
  EXPECT_EQ(lastError(), "collcAllGather : all_gather: rank 0: 2097152 ranks "
                         "x sendcount 1099511627776 x 4 bytes overflows a "
                         "64-bit size");
  EXPECT_EQ(collcAllReduce(nullptr, nullptr, size_t(n) * kMax, collcFloat32,
                           collcSum, comm.get(), nullptr),
            collcInvalidArgument);
  EXPECT_EQ(lastError(), "collcAllReduce : all_reduce: rank 0: count "
                         "2305843009213693952 x 4 bytes overflows a 64-bit "
                         "size");
  std::vector<size_t> counts(n, kMax);
  EXPECT_EQ(collcAllGatherV(nullptr, kMax, nullptr, counts.data(), nullptr,
                            collcFloat32, comm.get(), nullptr),
            collcInvalidArgument);
  EXPECT_EQ(lastError(), "collcAllGatherV : all_gather_v: rank 0: the sum of "
                         "recvcounts is 2305843009213693952 elements, whose "
                         "4-byte extent overflows a 64-bit size");
  std::vector<size_t> ones(n, 1);
  EXPECT_EQ(collcAllToAllV(nullptr, ones.data(), nullptr, nullptr,
                           counts.data(), nullptr, collcFloat32, comm.get(),
                           nullptr),
            collcInvalidArgument);
  EXPECT_TRUE(contains(lastError(), "the sum of recvcounts is "))
      << lastError();
  // 2^23 counts of 2^40: 2^63 elements, past what a size can hold.
  FakeComm more(1 << 23);
  counts.assign(size_t(1) << 23, kMax);
  EXPECT_EQ(collcReduceScatterV(nullptr, nullptr, counts.data(), collcFloat32,
                                collcSum, more.get(), nullptr),
            collcInvalidArgument);
  EXPECT_EQ(lastError(), "collcReduceScatterV : reduce_scatter_v: rank 0: "
                         "the sum of recvcounts overflows (more than 2^63 - "
                         "1 elements)");
}

TEST_F(LaunchLimitsTest, VCountArgumentsAreConsistent) {
  FakeComm comm(kRanks, 1);
  std::vector<size_t> counts(kRanks, 2);
  EXPECT_EQ(collcAllGatherV(nullptr, 3, nullptr, counts.data(), nullptr,
                            collcFloat32, comm.get(), nullptr),
            collcInvalidArgument);
  EXPECT_EQ(lastError(), "collcAllGatherV : all_gather_v: rank 1: sendcount "
                         "is 3 but recvcounts[1] (this rank) is 2");
  // Displacements that are the prefix sums pass; any other are refused.
  std::vector<size_t> displs = {0, 2, 4, 6};
  EXPECT_EQ(collcAllGatherV(nullptr, 2, nullptr, counts.data(),
                            displs.data(), collcFloat32, comm.get(), nullptr),
            collcInvalidArgument);
  EXPECT_TRUE(contains(lastError(), "sendbuff is NULL")) << lastError();
  displs[3] = 7;
  EXPECT_EQ(collcAllGatherV(nullptr, 2, nullptr, counts.data(),
                            displs.data(), collcFloat32, comm.get(), nullptr),
            collcInvalidArgument);
  EXPECT_EQ(lastError(),
            "collcAllGatherV : all_gather_v: rank 1: displs[3] is 7, but "
            "collc's partitions are packed in rank order (expected 6, the "
            "sum of the counts before it); pass NULL or the prefix sums");
  // A rank's send to itself is both a send and a receive count.
  std::vector<size_t> send(kRanks, 2), recv(kRanks, 2);
  recv[1] = 5;
  EXPECT_EQ(collcAllToAllV(nullptr, send.data(), nullptr, nullptr,
                           recv.data(), nullptr, collcFloat32, comm.get(),
                           nullptr),
            collcInvalidArgument);
  EXPECT_EQ(lastError(), "collcAllToAllV : all_to_all_v: rank 1: "
                         "sendcounts[1] = 2 but recvcounts[1] = 5; what a "
                         "rank sends itself must equal what it receives from "
                         "itself");
  std::vector<size_t> both(send);
  both.insert(both.end(), recv.begin(), recv.end());
  EXPECT_EQ(collcLaunch(comm.get(), "all_to_all_v", nullptr, nullptr, 0,
                        both.data(), collcFloat32, 0, nullptr),
            collcInvalidArgument);
  EXPECT_TRUE(contains(lastError(), "counts[1] = 2 but counts[5] = 5"))
      << lastError();
  EXPECT_EQ(collcLaunch(comm.get(), "all_gather_v", nullptr, nullptr, 0,
                        nullptr, collcFloat32, 0, nullptr),
            collcInvalidArgument);
  EXPECT_EQ(lastError(), "collcLaunch : all_gather_v: rank 1: counts is "
                         "NULL, but the collective has variable partition "
                         "sizes");
}

TEST_F(LaunchLimitsTest, AfterATimeoutEveryLaunchIsRefused) {
  FakeComm comm(kRanks);
  std::vector<Entry> all = entries(kRanks);
  // Admitted before anything failed.
  for (const Entry &e : all)
    expectAdmitted(e, 0, e.call(comm.get(), 0));
  comm.recordTimeout("all_gather", 3);
  collcResult_t async = collcSuccess;
  ASSERT_EQ(collcCommGetAsyncError(comm.get(), &async), collcSuccess);
  ASSERT_EQ(async, collcTimeout);
  std::string timeout = lastError();
  ASSERT_EQ(timeout.rfind("collcCommGetAsyncError : ", 0), 0u) << timeout;
  timeout.erase(0, std::string("collcCommGetAsyncError : ").size());
  for (const Entry &e : all)
    // Checked first: even a count that is refused on its own is not looked
    // at, so every rank gets the same answer.
    for (size_t value : {size_t(0), SIZE_MAX}) {
      collcResult_t result = e.call(comm.get(), value);
      std::string error = lastError();
      SCOPED_TRACE(describe(e, value) + ": " + error);
      EXPECT_EQ(result, collcInvalidUsage);
      EXPECT_EQ(error, e.api + " : " + e.collective +
                           ": rank 0: the communicator failed earlier and "
                           "accepts no more calls (" +
                           timeout +
                           "); call collcCommAbort and create a new "
                           "communicator");
    }
  // The earlier error stays readable.
  EXPECT_EQ(collcCommGetAsyncError(comm.get(), &async), collcSuccess);
  EXPECT_EQ(async, collcTimeout);
  EXPECT_TRUE(contains(lastError(), "from rank 3")) << lastError();
}

TEST_F(LaunchLimitsTest, ATimeoutOfOneCollectiveStopsTheOthers) {
  // The record of whichever kernel timed out counts: the call counters of
  // the whole communicator are out of step, not only that collective's.
  FakeComm comm(kRanks);
  comm.recordTimeout("all_to_all_v", 1);
  EXPECT_EQ(collcAllReduce(nullptr, nullptr, 16, collcFloat32, collcSum,
                           comm.get(), nullptr),
            collcInvalidUsage);
  EXPECT_TRUE(contains(lastError(), "collective 'all_to_all_v'"))
      << lastError();
  EXPECT_TRUE(contains(lastError(), "call collcCommAbort")) << lastError();
}

} // namespace
