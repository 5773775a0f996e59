//===- TypedBindingTest.cpp - typed calls bound to semantics --------------===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// collcAllReduce and the other typed entry points run the collective of the
// module that computes what they compute (consume ops, layouts, roots), not
// the one with the library's name, and a reduction picks the collective
// that reduces with the call's operator (docs/runtime.md, "Typed calls").
// Which one a call bound to shows in its first error: a count above the
// limit, reported before any launch, names the collective.
//
//===----------------------------------------------------------------------===//

#include "FakeComm.h"
#include "runtime.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

std::string transform(const char *consume, const char *in, const char *out,
                      const char *reduction = nullptr) {
  return std::string(R"({"consume": ")") + consume + R"(", "input": ")" + in +
         R"(", "output": ")" + out + R"(", "root": "none")" +
         (reduction ? std::string(R"(, "reduction": ")") + reduction + "\""
                    : std::string()) +
         "}";
}

std::string collective(const std::string &name,
                       const std::vector<std::string> &transforms) {
  std::string list;
  for (const std::string &t : transforms)
    list += (list.empty() ? "" : ", ") + t;
  return R"({"name": ")" + name + R"(", "transforms": [)" + list + R"(],
    "schedule": {"roles": [{"name": "stage"}], "ready_events": ["staged"],
                 "free_events": ["free"]}})";
}

std::string v1Kernel(const std::string &collective) {
  return R"({"name": "collc_)" + collective + R"(_f32_n2", "target": "sm_90",
    "collective": ")" + collective + R"(", "element_type": "f32",
    "element_bytes": 4, "world_size": 2, "grid": 16, "threads": 512,
    "pdl": true, "workspace": {"chunk_bytes": 65536, "slots": 4,
      "ready_events": 2, "free_events": 2, "staging_bytes": 524288,
      "intermediate_bytes": 524288, "event_words": 65, "state_words": 19}})";
}

/// AllReduce twice, with sum and with max, under names of their own, and a
/// collective named "all_gather" that computes AllToAll.
std::string module() {
  const std::vector<std::string> allReduce = {
      transform("reduce", "scattered", "packed", "sum"),
      transform("copy", "packed", "scattered")};
  std::vector<std::string> allReduceMax = allReduce;
  allReduceMax[0] = transform("reduce", "scattered", "packed", "max");
  return std::string(R"({"format": "collc-module", "format_version": 1,
  "kernel_abi_version": )") +
         std::to_string(COLLC_KERNEL_ABI_VERSION) + R"(,
  "spec": {"file": "t.coll", "sha256": "00"},
  "collectives": [)" +
         collective("sum_all", allReduce) + ",\n" +
         collective("max_all", allReduceMax) + ",\n" +
         collective("all_gather",
                    {transform("copy", "scattered", "transposed")}) +
         R"(],
  "kernels": [)" +
         v1Kernel("sum_all") + ",\n" + v1Kernel("max_all") + ",\n" +
         v1Kernel("all_gather") + R"(],
  "images": []})";
}

class TypedBinding : public ::testing::Test {
protected:
  void SetUp() override {
    const std::string text = module();
    ASSERT_EQ(collcModuleLoadData(&m, text.data(), text.size()), collcSuccess)
        << collcGetLastError();
    collc::test::fakeComm(comm, m, 2, 0, errors);
    collc::buildRoutes(&comm, collc::ForceVariant());
  }
  void TearDown() override {
    if (m)
      collcModuleDestroy(m);
  }
  /// The error of a call that fails before any launch.
  std::string error(collcResult_t rc) {
    EXPECT_EQ(rc, collcInvalidArgument);
    return collcGetLastError();
  }
  bool says(const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
  }
  collcModule_t m = nullptr;
  collcComm comm;
  std::vector<unsigned long long> errors;
  // Above n x 2^40 elements: refused, naming the collective, before launch.
  const size_t tooMany = (size_t(1) << 41) + 1;
};

} // namespace

TEST_F(TypedBinding, AReductionRunsTheCollectiveWithItsOperator) {
  std::string e = error(collcAllReduce(nullptr, nullptr, tooMany, collcFloat32,
                                       collcSum, &comm, nullptr));
  EXPECT_TRUE(says(e, "sum_all: rank 0: count = ")) << e;
  e = error(collcAllReduce(nullptr, nullptr, tooMany, collcFloat32, collcMax,
                           &comm, nullptr));
  EXPECT_TRUE(says(e, "max_all: rank 0: count = ")) << e;
  // No AllReduce with min: the first one, whose operator is refused.
  e = error(collcAllReduce(nullptr, nullptr, 16, collcFloat32, collcMin, &comm,
                           nullptr));
  EXPECT_TRUE(says(e, "sum_all: the module's sum_all reduces with sum, not "
                      "min"))
      << e;
}

TEST_F(TypedBinding, NamesDoNotBind) {
  // "all_gather" computes AllToAll: collcAllToAll runs it, and
  // collcAllGather finds nothing that computes AllGather.
  std::string e = error(collcAllToAll(nullptr, nullptr, tooMany, collcFloat32,
                                      &comm, nullptr));
  EXPECT_TRUE(says(e, "all_gather: rank 0: count = ")) << e;
  e = error(collcAllGather(nullptr, nullptr, 16, collcFloat32, &comm,
                           nullptr));
  EXPECT_TRUE(says(e, "all_gather: the module has no collective computing "
                      "AllGather (copy(packed -> scattered)); it has sum_all, "
                      "max_all, all_gather"))
      << e;
  e = error(collcReduceScatter(nullptr, nullptr, 16, collcFloat32, collcSum,
                               &comm, nullptr));
  EXPECT_TRUE(says(e, "the module has no collective computing ReduceScatter "
                      "(reduce(scattered -> packed))"))
      << e;
  // collcLaunch still runs a collective by its name.
  e = error(collcLaunch(&comm, "max_all", nullptr, nullptr, tooMany, nullptr,
                        collcFloat32, 0, nullptr));
  EXPECT_TRUE(says(e, "max_all: rank 0: count = ")) << e;
}

// collcCommSupports answers what a typed call would do before it is made:
// yes, or no with the call's own refusal as the reason.
TEST_F(TypedBinding, SupportsAnswersWithTheCallsReason) {
  int yes = -1;
  auto ask = [&](collcCollective_t c, collcDataType_t t, collcRedOp_t op) {
    yes = -1;
    EXPECT_EQ(collcCommSupports(&comm, c, t, op, &yes), collcSuccess)
        << collcGetLastError();
    return yes;
  };
  EXPECT_EQ(ask(collcCollAllReduce, collcFloat32, collcSum), 1);
  EXPECT_EQ(ask(collcCollAllReduce, collcFloat32, collcMax), 1);
  EXPECT_EQ(ask(collcCollAllReduce, collcFloat32, collcMin), 0);
  EXPECT_TRUE(says(collcGetLastError(), "reduces with sum, not min"))
      << collcGetLastError();
  EXPECT_EQ(ask(collcCollAllReduce, collcBfloat16, collcSum), 0);
  EXPECT_TRUE(says(collcGetLastError(), "sum_all: the module has no kernel "
                                        "for bf16 at 2 ranks"))
      << collcGetLastError();
  EXPECT_EQ(ask(collcCollAllGather, collcFloat32, collcSum), 0);
  EXPECT_TRUE(says(collcGetLastError(),
                   "the module has no collective computing AllGather"))
      << collcGetLastError();
  // A copy ignores the operator, even one out of range.
  EXPECT_EQ(ask(collcCollAllToAll, collcFloat32, (collcRedOp_t)99), 1);
  // What the query itself refuses.
  EXPECT_EQ(collcCommSupports(&comm, (collcCollective_t)11, collcFloat32,
                              collcSum, &yes),
            collcInvalidArgument);
  EXPECT_TRUE(says(collcGetLastError(), "collective 11 is not a "
                                        "collcCollective_t"));
  EXPECT_EQ(collcCommSupports(&comm, collcCollAllReduce, collcFloat32,
                              (collcRedOp_t)7, &yes),
            collcInvalidArgument);
  EXPECT_EQ(collcCommSupports(&comm, collcCollAllReduce, (collcDataType_t)9,
                              collcSum, &yes),
            collcInvalidArgument);
  EXPECT_EQ(collcCommSupports(nullptr, collcCollAllReduce, collcFloat32,
                              collcSum, &yes),
            collcInvalidArgument);
  EXPECT_EQ(yes, 0);
  EXPECT_EQ(collcCommSupports(&comm, collcCollAllReduce, collcFloat32,
                              collcSum, nullptr),
            collcInvalidArgument);
}
