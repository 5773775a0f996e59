//===- ProgramTest.cpp - SNAC v2 programs in the runtime --------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// Without a GPU: a manifest with program kernels (docs/module-format.md) is
// read and every receive-buffer fact is checked against abi.h's formulas;
// calls are routed to the first program whose band holds their bytes, else
// to the v1 kernel, as COLLC_FORCE_VARIANT allows; a program's timeout and
// sequence mismatch read as messages that name the rank and the program.
// Communicators are built by hand from runtime.h (as in LaunchLimitsTest).
//
//===----------------------------------------------------------------------===//

#include "FakeComm.h"
#include "runtime.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

std::string lastError() { return collcGetLastError(); }

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// A program kernel entry of all_reduce f32 at 2 ranks (16 x 512 threads),
/// with its receive-buffer facts from abi.h unless `edit` changes them.
struct ProgramEntry {
  std::string name = "collc_all_reduce__one_shot_ll16_f32_n2";
  std::string variant = "one_shot", encoding = "ll16";
  unsigned long long lo = 0, hi = 65536;
  int slots = 2, grid = 16, threads = 512, world = 2;
  long long region = -1, rx = -1, fill = -1, counters = -1;
  /// The manifest's `chunk` text (a number, or anything else to test the
  /// reader); empty: absent.
  std::string chunk;
  /// The manifest's `registered` text (a zero-copy program); empty: absent.
  std::string registered;
  /// The manifest's `agree` text (agreed steps); empty: absent.
  std::string agree;
  /// The manifest's `pairs` text (pair steps); empty: absent.
  std::string pairs;
  /// The manifest's `pair_ll16` text (small pairs by LL16); empty: absent.
  std::string pairLL16;
  /// The manifest's `multicast` text (an in-switch program); empty: absent.
  std::string multicast;
  /// The kernel's element; `serves` its text (a copy's bytes kernel);
  /// empty: absent.
  std::string type = "f32";
  int typeBytes = 4;
  std::string serves;
  std::string text() const {
    const int enc = encoding == "flag"       ? COLLC_ENCODING_FLAG
                    : encoding == "sentinel" ? COLLC_ENCODING_SENTINEL
                                             : COLLC_ENCODING_LL16;
    const unsigned long long r =
        region >= 0 ? region : collcRxRegionBytes(enc, hi, grid * threads / 32);
    const unsigned long long x = rx >= 0 ? rx : collcRxBytes(slots, world, r);
    const long long f = fill >= 0 ? fill : collcRxFillByte(enc);
    const long long c = counters >= 0 ? counters : grid;
    return R"({"name": ")" + name + R"(", "target": "sm_90",
      "collective": "all_reduce", "element_type": ")" + type +
           R"(", "element_bytes": )" + std::to_string(typeBytes) +
           (serves.empty() ? "" : R"(, "serves": )" + serves) + R"(,
      "world_size": )" + std::to_string(world) + R"(, "grid": )" +
           std::to_string(grid) + R"(, "threads": )" + std::to_string(threads) +
           R"(, "pdl": true, "resources": {},
      "program": {"variant": ")" + variant + R"(", "encoding": ")" + encoding +
           R"(", "band": [)" + std::to_string(lo) + ", " + std::to_string(hi) +
           R"(], "slots": )" + std::to_string(slots) + R"(, "region_bytes": )" +
           std::to_string(r) + R"(, "rx_bytes": )" + std::to_string(x) +
           R"(, "rx_fill": )" + std::to_string(f) + R"(, "counter_words": )" +
           std::to_string(c) + R"(, "input_packed": true)" +
           (chunk.empty() ? "" : R"(, "chunk": )" + chunk) +
           (registered.empty() ? "" : R"(, "registered": )" + registered) +
           (agree.empty() ? "" : R"(, "agree": )" + agree) +
           (pairs.empty() ? "" : R"(, "pairs": )" + pairs) +
           (pairLL16.empty() ? "" : R"(, "pair_ll16": )" + pairLL16) +
           (multicast.empty() ? "" : R"(, "multicast": )" + multicast) +
           "}}";
  }
};

const char *kV1Kernel = R"({"name": "collc_all_reduce_f32_n2", "target": "sm_90",
    "collective": "all_reduce", "element_type": "f32", "element_bytes": 4,
    "world_size": 2, "grid": 16, "threads": 512, "pdl": true,
    "workspace": {"chunk_bytes": 65536, "slots": 4, "ready_events": 2,
      "free_events": 2, "staging_bytes": 524288, "intermediate_bytes": 524288,
      "event_words": 65, "state_words": 19}})";

/// The program ABI this runtime speaks, as a manifest spells it.
const std::string kAbi = std::to_string(COLLC_PROGRAM_ABI_VERSION);

std::string manifest(const std::vector<std::string> &kernels,
                     const char *programAbi = kAbi.c_str(),
                     const std::string &policyTable = "") {
  std::string list;
  for (const std::string &k : kernels)
    list += (list.empty() ? "" : ",\n") + k;
  return std::string(R"({"format": "collc-module", "format_version": 1,
  "kernel_abi_version": )") +
         std::to_string(COLLC_KERNEL_ABI_VERSION) +
         (programAbi ? std::string(R"(, "program_abi_version": )") + programAbi
                     : std::string()) +
         R"(,
  "spec": {"file": "t.coll", "sha256": "00"},
  "collectives": [{"name": "all_reduce", "transforms": [
    {"consume": "reduce", "input": "scattered", "output": "packed", "root": "none", "reduction": "sum"},
    {"consume": "copy", "input": "packed", "output": "scattered", "root": "none"}],
    "schedule": {"roles": [{"name": "stage"}], "ready_events": ["staged"],
                 "free_events": ["free"]}}],
  "kernels": [)" + list + R"(],)" +
         (policyTable.empty() ? "" : "\n  \"policy_table\": " + policyTable + ",") +
         R"(
  "images": []})";
}

collcResult_t load(const std::string &text, collcModule_t *m) {
  *m = nullptr;
  return collcModuleLoadData(m, text.data(), text.size());
}

/// Loads `kernels`, expects a refusal whose message holds every `parts`.
void expectRefused(const std::vector<std::string> &kernels,
                   const std::vector<std::string> &parts,
                   const char *programAbi = kAbi.c_str()) {
  collcModule_t m = nullptr;
  EXPECT_EQ(load(manifest(kernels, programAbi), &m), collcInvalidArgument);
  EXPECT_EQ(m, nullptr);
  const std::string error = lastError();
  for (const std::string &p : parts)
    EXPECT_TRUE(contains(error, p)) << "missing '" << p << "' in: " << error;
}

/// A module with the v1 kernel and three programs: ll16 [0, 64 KiB],
/// sentinel [64 KiB + 1, 256 KiB], flag [0, `flagHi`].
std::string threePrograms(unsigned long long flagHi) {
  ProgramEntry ll, sentinel, flag;
  sentinel.name = "collc_all_reduce__one_shot_sentinel_f32_n2";
  sentinel.encoding = "sentinel";
  sentinel.lo = 65537;
  sentinel.hi = 262144;
  flag.name = "collc_all_reduce__one_shot_flag_f32_n2";
  flag.encoding = "flag";
  flag.hi = flagHi;
  return manifest({kV1Kernel, ll.text(), sentinel.text(), flag.text()});
}

TEST(ProgramManifestTest, ProgramsLoadBesideTheV1Kernel) {
  collcModule_t m = nullptr;
  ASSERT_EQ(load(threePrograms(65536), &m), collcSuccess) << lastError();
  ASSERT_EQ(m->kernels.size(), 4u);
  EXPECT_FALSE(m->kernels[0].isProgram);
  const collc::KernelInfo &s = m->kernels[2];
  ASSERT_TRUE(s.isProgram);
  EXPECT_EQ(s.program.variant, "one_shot");
  EXPECT_EQ(s.program.encoding, COLLC_ENCODING_SENTINEL);
  EXPECT_EQ(s.program.bandLo, 65537u);
  EXPECT_EQ(s.program.bandHi, 262144u);
  EXPECT_EQ(s.program.rxFill, 0xFF);
  EXPECT_EQ(s.program.counterWords, 16);
  EXPECT_TRUE(s.program.inputPacked);
  EXPECT_EQ(m->kernels[3].program.regionBytes,
            collcRxRegionBytes(COLLC_ENCODING_FLAG, 65536, 256));
  collcModuleDestroy(m);
}

TEST(ProgramManifestTest, ReceiveBufferFactsMustBeTheABIs) {
  ProgramEntry e;
  e.encoding = "ll17";
  expectRefused({e.text()},
                {"kernels[0].program", "unknown encoding \"ll17\""});
  e = ProgramEntry();
  e.lo = 10;
  e.hi = 5;
  expectRefused({e.text()}, {"band [10,5] is not [lo, hi]"});
  e = ProgramEntry();
  e.slots = 1;
  expectRefused({e.text()}, {"slots is 1", "at least 2"});
  e = ProgramEntry();
  e.region = 65536; // LL16 needs twice the band's top
  expectRefused({e.text()}, {"region_bytes is 65536", "needs 131072"});
  e = ProgramEntry();
  e.rx = 12345;
  expectRefused({e.text()}, {"rx_bytes is 12345", "expected 524288"});
  e = ProgramEntry();
  e.encoding = "sentinel";
  e.fill = 0;
  expectRefused({e.text()},
                {"rx_fill is 0", "expected 255 for encoding \"sentinel\""});
  e = ProgramEntry();
  e.counters = 8;
  expectRefused({e.text()}, {"counter_words is 8", "expected 16 (the grid)"});
}

TEST(ProgramManifestTest, TheProgramABIVersionIsChecked) {
  ProgramEntry e;
  expectRefused({e.text()}, {"no 'program_abi_version'"}, nullptr);
  expectRefused({e.text()}, {"program ABI version is 7", "speaks " + kAbi},
                "7");
  // A module without programs need not name the program ABI.
  collcModule_t m = nullptr;
  EXPECT_EQ(load(manifest({kV1Kernel}, nullptr), &m), collcSuccess)
      << lastError();
  collcModuleDestroy(m);
}

/// A two-rank communicator around a module with the v1 kernel and three
/// programs: ll16 [0, 64 KiB], sentinel [64 KiB + 1, 256 KiB], flag
/// [0, 1 MiB] (reached only by forcing it).
class Routing : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(load(threePrograms(1 << 20), &module), collcSuccess)
        << lastError();
    collc::test::fakeComm(comm, module, 2, 0, errors);
  }
  void TearDown() override {
    if (module)
      collcModuleDestroy(module);
  }

  /// The kernel a call of `bytes` runs under `force` ("" = unset).
  std::string route(const char *force, unsigned long long bytes) {
    return collc::test::routeOf(comm, force, bytes);
  }

  collcModule_t module = nullptr;
  collcComm comm;
  std::vector<unsigned long long> errors;
};

TEST_F(Routing, TheFirstProgramWhoseBandHoldsTheCallElseV1) {
  const std::string ll = "collc_all_reduce__one_shot_ll16_f32_n2";
  const std::string sentinel = "collc_all_reduce__one_shot_sentinel_f32_n2";
  const std::string flag = "collc_all_reduce__one_shot_flag_f32_n2";
  const std::string v1 = "collc_all_reduce_f32_n2";
  EXPECT_EQ(route("", 0), ll); // bands are inclusive
  EXPECT_EQ(route("", 4096), ll);
  EXPECT_EQ(route("", 65536), ll);
  EXPECT_EQ(route("", 65537), sentinel); // first in manifest order wins
  EXPECT_EQ(route("", 262144), sentinel);
  EXPECT_EQ(route("", 262145), flag);
  EXPECT_EQ(route("", (1 << 20) + 1), v1);
  // Other types have no program: v1, and no routes cross types.
  collc::buildRoutes(&comm, collc::ForceVariant());
  EXPECT_EQ(comm.routes[collcBfloat16].v1, nullptr);
  EXPECT_TRUE(comm.routes[collcBfloat16].programs.empty());
}

TEST_F(Routing, ForcingPicksOneProgramOrNone) {
  const std::string sentinel = "collc_all_reduce__one_shot_sentinel_f32_n2";
  const std::string v1 = "collc_all_reduce_f32_n2";
  EXPECT_EQ(route("v1", 0), v1);
  EXPECT_EQ(route("v1", 65536), v1);
  EXPECT_EQ(route("one_shot:sentinel", 100000), sentinel);
  // Outside the forced program's band: the v1 kernel.
  EXPECT_EQ(route("one_shot:sentinel", 1024), v1);
  EXPECT_EQ(route("one_shot:flag", 1024),
            "collc_all_reduce__one_shot_flag_f32_n2");
  // A variant the module does not have: nothing but v1.
  EXPECT_EQ(route("two_shot:ll16", 1024), v1);
}

// Residency admission: the ranks sharing a device split what it keeps
// resident, two grids each with PDL, and leave one more grid's worth free
// when they would fill nine tenths of it; never more than the manifest's.
TEST(AdmissionTest, TheGridIsWhatFitsForEveryRankSharingTheDevice) {
  // 132 SMs x 2 CTAs of the kernel: 264 resident.
  EXPECT_EQ(collc::admittedGrid(32, 264, 2, true), 32);  // 128 of 264 used
  EXPECT_EQ(collc::admittedGrid(64, 264, 2, true), 44);  // 256 of 264: 264 / 6
  EXPECT_EQ(collc::admittedGrid(128, 660, 2, true), 128); // 512 of 660 used
  EXPECT_EQ(collc::admittedGrid(32, 264, 8, true), 11);  // 264 / 24; 16 fit
  EXPECT_EQ(collc::admittedGrid(32, 264, 8, false), 16); // 264 / 16; 33 fit
  EXPECT_EQ(collc::admittedGrid(64, 264, 3, true), 29);  // 264 / 9
  // One rank on the device: all that fits.
  EXPECT_EQ(collc::admittedGrid(128, 264, 1, true), 128);
  EXPECT_EQ(collc::admittedGrid(200, 264, 1, true), 132);
  // The spare grid is a preference: one CTA per rank still runs.
  EXPECT_EQ(collc::admittedGrid(16, 264, 100, true), 1);
  // Not even one CTA per rank: 0 (the communicator is refused).
  EXPECT_EQ(collc::admittedGrid(16, 264, 133, true), 0);
  EXPECT_EQ(collc::admittedGrid(16, 264, 265, false), 0);
  EXPECT_EQ(collc::admittedGrid(16, 0, 1, false), 0);
}

TEST_F(Routing, AdmissionSetsEveryProgramsGridAndLeavesV1Alone) {
  for (collc::Workspace &w : comm.workspaces) {
    w.grid = w.kernel->grid; // 16 in every entry of the fixture
    w.resident = 3 * 132;
  }
  collc::admitPrograms(&comm, 8);
  EXPECT_EQ(comm.workspaces[0].grid, 16); // v1: the manifest's, cooperative
  for (size_t i = 1; i < comm.workspaces.size(); ++i)
    EXPECT_EQ(comm.workspaces[i].grid, 16) << comm.workspaces[i].kernel->name;
  EXPECT_EQ(collc::checkAdmitted(&comm, 8), collcSuccess) << lastError();
  comm.workspaces[2].resident = 40; // the sentinel program fits 40 at once
  collc::admitPrograms(&comm, 8);
  EXPECT_EQ(comm.workspaces[1].grid, 16);
  EXPECT_EQ(comm.workspaces[2].grid, 2); // 40 / (8 ranks x 2 grids): 32 used
  collc::admitPrograms(&comm, 4);
  EXPECT_EQ(comm.workspaces[2].grid, 3); // 5 fit, 40 used: 40 / (4 x 3)
  EXPECT_EQ(comm.workspaces[0].grid, 16);
  // 21 ranks on the device: 40 / 42 is 0, the communicator is refused.
  collc::admitPrograms(&comm, 21);
  EXPECT_EQ(comm.workspaces[2].grid, 0);
  EXPECT_EQ(collc::checkAdmitted(&comm, 21), collcInvalidArgument);
  const std::string error = lastError();
  for (const char *part :
       {"program 'collc_all_reduce__one_shot_sentinel_f32_n2'",
        "holds 40 of its CTAs", "21 ranks of the communicator share it",
        "two grids in flight", "not even one CTA per rank fits",
        "one_hop_max_bytes = 0"})
    EXPECT_TRUE(contains(error, part)) << "missing '" << part << "' in: "
                                       << error;
}

TEST(SelectionTest, TheBytesThatPickAProgramAreTheSameOnEveryRank) {
  auto coll = [](bool reduce, collc::Layout in, collc::Layout out,
                 bool variable) {
    collc::CollectiveInfo c;
    collc::TransformInfo t;
    t.reduce = reduce;
    t.in = in;
    t.out = out;
    t.variable = variable;
    c.parts.push_back(t);
    return c;
  };
  using L = collc::Layout;
  // AllGatherV (packed input, 3 ranks): the largest rank's input, on
  // every rank.
  const collc::CollectiveInfo agv = coll(false, L::Packed, L::Scattered, true);
  const long long packed[] = {10, 700, 30};
  for (int r = 0; r < 3; ++r)
    EXPECT_EQ(collc::selectionBytes(agv, packed, 3, r, 2), 1400) << r;
  // A fixed-size all-gather: this rank's input (every rank's is equal).
  const collc::CollectiveInfo ag = coll(false, L::Packed, L::Scattered, false);
  const long long same[] = {64, 64, 64};
  EXPECT_EQ(collc::selectionBytes(ag, same, 3, 1, 4), 256);
  // ReduceScatterV: every row is the counts, so every rank's row sum.
  const collc::CollectiveInfo rsv =
      coll(true, L::Scattered, L::Packed, true);
  const long long rows[] = {1, 2, 3, 1, 2, 3, 1, 2, 3};
  for (int r = 0; r < 3; ++r)
    EXPECT_EQ(collc::selectionBytes(rsv, rows, 3, r, 2), 12) << r;
  // AllToAllV: a rank does not know the other rows: v1 only.
  const collc::CollectiveInfo a2av =
      coll(false, L::Scattered, L::Transposed, true);
  const long long matrix[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_EQ(collc::selectionBytes(a2av, matrix, 3, 0, 2), -1);
}

TEST(ForceVariantTest, MalformedValuesAreRefused) {
  collc::ForceVariant f;
  EXPECT_EQ(collc::parseForceVariant(nullptr, f), collcSuccess);
  EXPECT_EQ(f.kind, collc::ForceVariant::None);
  EXPECT_EQ(collc::parseForceVariant("", f), collcSuccess);
  EXPECT_EQ(f.kind, collc::ForceVariant::None);
  EXPECT_EQ(collc::parseForceVariant("one_shot:ll16", f), collcSuccess);
  EXPECT_EQ(f.kind, collc::ForceVariant::Program);
  EXPECT_EQ(f.variant, "one_shot");
  EXPECT_EQ(f.encoding, COLLC_ENCODING_LL16);
  EXPECT_FALSE(f.staged);
  EXPECT_EQ(collc::parseForceVariant("one_shot:flag:staged", f), collcSuccess);
  EXPECT_EQ(f.kind, collc::ForceVariant::Program);
  EXPECT_EQ(f.variant, "one_shot");
  EXPECT_EQ(f.encoding, COLLC_ENCODING_FLAG);
  EXPECT_TRUE(f.staged);
  for (const char *bad : {"v2", "one_shot", "one_shot:ll", ":ll16",
                          "one_shot:", "one_shot:staged",
                          "one_shot:flag:stage", "one_shot:flag:staged:"}) {
    EXPECT_EQ(collc::parseForceVariant(bad, f), collcInvalidArgument) << bad;
    const std::string error = lastError();
    EXPECT_TRUE(contains(error, std::string("COLLC_FORCE_VARIANT is '") +
                                    bad + "'"))
        << error;
    EXPECT_TRUE(contains(error, "'v1' or '<variant>:<encoding>[:staged]'"))
        << error;
  }
}

/// Two-shot AllReduce above the one-shot band: its receive buffers (two,
/// regions of one partition) checked against abi.h, variants with
/// overlapping bands refused, and COLLC_FORCE_VARIANT=two_shot:<encoding>
/// routing to it.
/// The two-shot flag program of all_reduce f32 at 2 ranks, band [lo, 1 MiB],
/// with its receive buffers (two, regions of one partition) from abi.h.
ProgramEntry twoShotFlag(unsigned long long lo) {
  ProgramEntry two;
  two.name = "collc_all_reduce__two_shot_flag_f32_n2";
  two.variant = "two_shot";
  two.encoding = "flag";
  two.lo = lo;
  two.hi = 1 << 20;
  two.region = (long long)collcRxRegionBytes(
      COLLC_ENCODING_FLAG,
      collcRxPayloadBytes(COLLC_VARIANT_TWO_SHOT, two.hi, two.world),
      two.grid * two.threads / 32);
  two.rx = 2 * (long long)collcRxBytes(two.slots, two.world, two.region);
  return two;
}

TEST(TwoShotTest, ProgramsOfTwoVariantsSplitTheSizes) {
  ProgramEntry one, two = twoShotFlag(65537);
  EXPECT_EQ(two.region, (1 << 19) + 2048); // half the band's top, 256 words

  collcModule_t m = nullptr;
  ASSERT_EQ(load(manifest({kV1Kernel, one.text(), two.text()}), &m),
            collcSuccess)
      << lastError();
  EXPECT_EQ(m->kernels[2].program.variant, "two_shot");
  EXPECT_EQ(m->kernels[2].program.rxBytes, (unsigned long long)two.rx);
  {
    collcComm comm;
    std::vector<unsigned long long> errors;
    collc::test::fakeComm(comm, m, 2, 0, errors);
    auto route = [&](const char *force, unsigned long long bytes) {
      return collc::test::routeOf(comm, force, bytes);
    };
    EXPECT_EQ(route("", 65536), one.name);
    EXPECT_EQ(route("", 65537), two.name);
    EXPECT_EQ(route("", 1 << 20), two.name);
    EXPECT_EQ(route("", (1 << 20) + 1), "collc_all_reduce_f32_n2");
    EXPECT_EQ(route("two_shot:flag", 65537), two.name);
    EXPECT_EQ(route("two_shot:flag", 1024), "collc_all_reduce_f32_n2");
    EXPECT_EQ(route("one_shot:ll16", 65537), "collc_all_reduce_f32_n2");
  }
  collcModuleDestroy(m);

  // One receive buffer's bytes, or a region for the whole band's top
  // missing: refused with the formula.
  ProgramEntry bad = two;
  bad.rx = (long long)collcRxBytes(two.slots, two.world, two.region);
  expectRefused({bad.text()},
                {"rx_bytes is", "receive buffers x slots x world_size"});
  bad = two;
  bad.region = 4096;
  bad.rx = 2 * (long long)collcRxBytes(two.slots, two.world, 4096);
  expectRefused({bad.text()}, {"region_bytes is 4096", "needs 526336"});
  bad = two;
  bad.variant = "three_shot";
  expectRefused({bad.text()}, {"unknown variant \"three_shot\""});
  // Overlapping variants: the later one would be unreachable.
  bad = two;
  bad.lo = 65536;
  expectRefused({one.text(), bad.text()},
                {"kernels[1]", "band [65536, 1048576] overlaps that of "
                               "'collc_all_reduce__one_shot_ll16_f32_n2'",
                 "disjoint bands"});
}

TEST(ChunkedTest, AChunkedRegionHoldsOneStepWhateverTheBand) {
  // Two-shot chunked AllReduce above a one-shot band: every size up to the
  // largest the band can say, regions of one step (a chunk and a flag word
  // per CTA), not of the band's top.
  ProgramEntry one, big;
  big.name = "collc_all_reduce__two_shot_flag_chunked_f32_n2";
  big.variant = "two_shot";
  big.encoding = "flag";
  big.lo = 65537;
  big.hi = 9223372036854775807ull;
  big.chunk = "131072";
  big.region = (long long)collcRxRegionBytes(
      COLLC_ENCODING_FLAG, collcRxChunkedPayloadBytes(big.grid, 131072),
      big.grid);
  EXPECT_EQ(big.region, 16 * 131072 + 128);
  big.rx = 2 * (long long)collcRxBytes(big.slots, big.world, big.region);
  collcModule_t m = nullptr;
  ASSERT_EQ(load(manifest({kV1Kernel, one.text(), big.text()}), &m),
            collcSuccess)
      << lastError();
  EXPECT_EQ(m->kernels[2].program.chunk, 131072u);
  EXPECT_EQ(m->kernels[1].program.chunk, 0u); // absent: not chunked
  {
    collcComm comm;
    std::vector<unsigned long long> errors;
    collc::test::fakeComm(comm, m, 2, 0, errors);
    EXPECT_EQ(collc::test::routeOf(comm, "", 65537), big.name);
    EXPECT_EQ(collc::test::routeOf(comm, "", 1ull << 40), big.name);
  }
  collcModuleDestroy(m);

  // A region short of one step, and chunks that are not whole 16-byte
  // units, are refused with what is wrong.
  ProgramEntry bad = big;
  bad.region -= 16;
  bad.rx = 2 * (long long)collcRxBytes(bad.slots, bad.world, bad.region);
  expectRefused({bad.text()},
                {"region_bytes is 2097264", "a step of 16 chunks of 131072 "
                                            "bytes needs 2097280"});
  bad = big;
  bad.chunk = "24";
  expectRefused({bad.text()}, {"chunk is 24", "multiple of 16"});
  bad.chunk = "\"big\"";
  expectRefused({bad.text()}, {"chunk is \"big\""});
}

TEST(AgreedStepsTest, OnlyProgramsWhoseRanksAgreeServeAnUnknownSize) {
  // A V exchange's ranks know no size in common (selectionBytes -1): only
  // a program whose ranks agree on its steps serves it, whatever its band;
  // a known size picks by band as before.
  ProgramEntry oneShot, zc, agreed;
  oneShot.encoding = "flag";
  oneShot.name = "collc_all_reduce__one_shot_flag_f32_n2";
  for (ProgramEntry *e : {&zc, &agreed}) {
    e->encoding = "flag";
    e->lo = 0;
    e->hi = 9223372036854775807ull;
    e->agree = "true";
  }
  agreed.name = "collc_all_reduce__one_shot_flag_chunked_f32_n2";
  agreed.chunk = "131072";
  // A row of agreement words (one per CTA) before the ready words.
  agreed.region = (long long)collcRxRegionBytes(
      COLLC_ENCODING_FLAG, collcRxChunkedPayloadBytes(agreed.grid, 131072),
      collcRxChunkedWords(agreed.grid, 1));
  EXPECT_EQ(agreed.region, 16 * 131072 + 2 * 128);
  zc.name = "collc_all_reduce__one_shot_flag_zero_copy_f32_n2";
  zc.chunk = "1073741824";
  zc.registered = R"(["input"])";
  zc.region = (long long)collcRxRegionBytes(
      COLLC_ENCODING_FLAG, collcRxInPlacePayloadBytes(zc.grid),
      collcRxChunkedWords(zc.grid, 1));
  collcModule_t m = nullptr;
  ASSERT_EQ(load(manifest({oneShot.text(), zc.text(), agreed.text()}), &m),
            collcSuccess)
      << lastError();
  EXPECT_FALSE(m->kernels[0].program.agree); // absent: false
  EXPECT_TRUE(m->kernels[1].program.agree);
  EXPECT_TRUE(m->kernels[2].program.agree);
  {
    collcComm comm;
    std::vector<unsigned long long> errors;
    collc::test::fakeComm(comm, m, 2, 0, errors);
    auto pick = [&](long long key, unsigned registered) {
      return collc::test::routeOf(comm, "", key, registered);
    };
    EXPECT_EQ(pick(-1, 0), agreed.name);
    EXPECT_EQ(pick(-1, collc::ProgramInfo::kRegisteredInput), zc.name);
    EXPECT_EQ(pick(100, 0), oneShot.name);
    EXPECT_EQ(pick(1 << 20, 0), agreed.name);
    // A clique's ordinary buffers: a call whose ranks share no size stages
    // them, as does a route without a registered policy entry.
    comm.clique = std::make_shared<collc::Clique>();
    comm.clique->devices.assign(2, 0);
    comm.cliqueDirect = comm.cliqueOneDevice = true;
    collcWindowParams win{};
    unsigned found = 0;
    collc::Route route = comm.routes[collcFloat32];
    void *send = (void *)0x10000000ull, *recv = (void *)0x20000000ull;
    collc::Workspace *w =
        collc::routeCall(&comm, route, -1, send, 4096, recv, 4096, &win, &found);
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->kernel->name, agreed.name);
    EXPECT_EQ(win.input, 0ull);
    w = collc::routeCall(&comm, route, 1 << 20, send, 1 << 20, recv, 1 << 20,
                         &win, &found);
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->kernel->name, agreed.name); // no registered entry
    // With one naming the zero-copy program, even key -1 stays staged.
    collc::Route::Choice any;
    any.upto = LLONG_MAX;
    any.programs = route.programs;
    route.table[1].push_back(any);
    w = collc::routeCall(&comm, route, -1, send, 4096, recv, 4096, &win, &found);
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->kernel->name, agreed.name);
    EXPECT_EQ(win.input, 0ull);
    w = collc::routeCall(&comm, route, 1 << 20, send, 1 << 20, recv, 1 << 20,
                         &win, &found);
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->kernel->name, zc.name);
    EXPECT_EQ(win.input >> collc::kWindowShift,
              (unsigned long long)collc::kDirectWindow);
  }
  collcModuleDestroy(m);
  // Without an agreeing program an unknown size has none (the v1 kernel).
  ASSERT_EQ(load(manifest({oneShot.text()}), &m), collcSuccess)
      << lastError();
  {
    collcComm comm;
    std::vector<unsigned long long> errors;
    collc::test::fakeComm(comm, m, 2, 0, errors);
    EXPECT_EQ(collc::test::routeOf(comm, "", -1), "none");
  }
  collcModuleDestroy(m);

  // What the reader refuses, with what is wrong.
  ProgramEntry bad = agreed;
  bad.agree = "\"yes\"";
  expectRefused({bad.text()}, {"agree is \"yes\"", "expected true or false"});
  bad = oneShot;
  bad.agree = "true";
  expectRefused({bad.text()}, {"agree (steps agreed on the device) needs "
                               "encoding \"flag\" and a chunk"});
  bad = agreed;
  bad.region = (long long)collcRxRegionBytes(
      COLLC_ENCODING_FLAG, collcRxChunkedPayloadBytes(agreed.grid, 131072),
      agreed.grid);
  expectRefused({bad.text()}, {"region_bytes is 2097280", "needs 2097408"});
}

TEST(PairStepsTest, PairProgramsServeAnUnknownSizeWithACounterPerPeer) {
  // A program whose pairs of ranks run their own steps serves a V
  // exchange's unknown size (key -1) like an agreeing one; its counters are
  // a call counter per CTA, then one per CTA and peer.
  ProgramEntry oneShot, pairs;
  oneShot.encoding = "flag";
  oneShot.name = "collc_all_reduce__one_shot_flag_f32_n2";
  pairs.encoding = "flag";
  pairs.lo = 0;
  pairs.hi = 9223372036854775807ull;
  pairs.pairs = "true";
  pairs.name = "collc_all_reduce__one_shot_flag_chunked_f32_n2";
  pairs.chunk = "131072";
  // No agreement row: the chunked program's regions.
  pairs.region = (long long)collcRxRegionBytes(
      COLLC_ENCODING_FLAG, collcRxChunkedPayloadBytes(pairs.grid, 131072),
      collcRxChunkedWords(pairs.grid, 0));
  pairs.counters = collcProgramCounterWords(pairs.grid, 2, 1);
  EXPECT_EQ(pairs.counters, 16 * 3);
  EXPECT_EQ(collcProgramCounterWords(16, 2, 0), 16);
  collcModule_t m = nullptr;
  ASSERT_EQ(load(manifest({oneShot.text(), pairs.text()}), &m), collcSuccess)
      << lastError();
  EXPECT_FALSE(m->kernels[0].program.pairs); // absent: false
  EXPECT_TRUE(m->kernels[1].program.pairs);
  EXPECT_EQ(m->kernels[1].program.counterWords, 48);
  {
    collcComm comm;
    std::vector<unsigned long long> errors;
    collc::test::fakeComm(comm, m, 2, 0, errors);
    EXPECT_EQ(collc::test::routeOf(comm, "", -1), pairs.name);
    EXPECT_EQ(collc::test::routeOf(comm, "", 100), oneShot.name);
  }
  collcModuleDestroy(m);

  // What the reader refuses, with what is wrong.
  ProgramEntry bad = pairs;
  bad.pairs = "1";
  expectRefused({bad.text()}, {"pairs is 1", "expected true or false"});
  bad = pairs;
  bad.counters = 16;
  expectRefused({bad.text()},
                {"counter_words is 16",
                 "expected 48 (the grid x (1 + world_size): pairs)"});
  bad = pairs;
  bad.agree = "true";
  expectRefused({bad.text()}, {"pairs (each pair of ranks at its own steps) "
                               "needs encoding \"flag\", a chunk and no "
                               "agree"});
  bad = oneShot;
  bad.pairs = "true";
  bad.counters = collcProgramCounterWords(bad.grid, 2, 1);
  expectRefused({bad.text()}, {"pairs (each pair of ranks at its own steps)"});

  // Small pairs by LL16: the LL16 area after the regions, a sub-region per
  // (slot, source, CTA) of twice a CTA's part of 65536 bytes (4096).
  ProgramEntry ll = pairs;
  ll.pairLL16 = "65536";
  EXPECT_EQ(collcRxPairLL16SubBytes(16, 65536), 8192ull);
  EXPECT_EQ(collcRxPairLL16Bytes(2, 2, 16, 0), 0ull);
  ll.rx = (long long)(collcRxBytes(2, 2, (unsigned long long)pairs.region) +
                      collcRxPairLL16Bytes(2, 2, 16, 65536));
  EXPECT_EQ(ll.rx, 2 * 2 * pairs.region + 2 * 2 * 16 * 8192);
  ASSERT_EQ(load(manifest({ll.text()}), &m), collcSuccess) << lastError();
  EXPECT_EQ(m->kernels[0].program.pairLL16, 65536);
  collcModuleDestroy(m);
  bad = ll;
  bad.rx = (long long)collcRxBytes(2, 2, (unsigned long long)pairs.region);
  expectRefused({bad.text()}, {"rx_bytes is", "then the LL16 area of pair_ll16"});
  bad = ll;
  bad.pairLL16 = "24";
  expectRefused({bad.text()}, {"pair_ll16 is 24", "a multiple of 16"});
  bad = ll;
  bad.pairLL16 = "262144";
  expectRefused({bad.text()}, {"pair_ll16 is 262144", "at most the chunk"});
  bad = ll;
  bad.pairLL16 = "\"big\"";
  expectRefused({bad.text()}, {"pair_ll16 is \"big\"", "expected an integer"});
  bad = ll;
  bad.pairs.clear();
  bad.counters = 16;
  expectRefused({bad.text()}, {"pair_ll16 is 65536", "with pairs true"});
}

/// The two-shot flag AllReduce at 2 ranks (f32) above 1 MiB twice: its
/// zero-copy twin (both buffers registered) and its staged chunked program.
void twoShotTwins(ProgramEntry &zc, ProgramEntry &chunked) {
  for (ProgramEntry *e : {&zc, &chunked}) {
    e->variant = "two_shot";
    e->encoding = "flag";
    e->lo = 1048577;
    e->hi = 9223372036854775807ull;
  }
  chunked.name = "collc_all_reduce__two_shot_flag_chunked_f32_n2";
  chunked.chunk = "131072";
  chunked.region = (long long)collcRxRegionBytes(
      COLLC_ENCODING_FLAG, collcRxChunkedPayloadBytes(chunked.grid, 131072),
      chunked.grid);
  chunked.rx = 2 * (long long)collcRxBytes(2, 2, chunked.region);
  zc.name = "collc_all_reduce__two_shot_flag_zero_copy_f32_n2";
  zc.chunk = "1073741824";
  zc.registered = R"(["input", "output"])";
  // Words only: where, retire, output where and ready, one each per CTA.
  zc.region = (long long)collcRxRegionBytes(
      COLLC_ENCODING_FLAG, collcRxInPlacePayloadBytes(zc.grid), zc.grid);
  EXPECT_EQ(zc.region, 4 * 128);
  zc.rx = 2 * (long long)collcRxBytes(2, 2, zc.region);
}

TEST(ZeroCopyTest, RegisteredBuffersPickTheZeroCopyTwin) {
  // The zero-copy twin before the chunked program, the same band: a call
  // runs it only when the buffers it names are registered.
  ProgramEntry zc, chunked;
  twoShotTwins(zc, chunked);
  collcModule_t m = nullptr;
  ASSERT_EQ(load(manifest({kV1Kernel, zc.text(), chunked.text()}), &m),
            collcSuccess)
      << lastError();
  EXPECT_EQ(m->kernels[1].program.registered,
            collc::ProgramInfo::kRegisteredInput |
                collc::ProgramInfo::kRegisteredOutput);
  EXPECT_EQ(m->kernels[2].program.registered, 0u); // absent: staged
  {
    collcComm comm;
    std::vector<unsigned long long> errors;
    collc::test::fakeComm(comm, m, 2, 0, errors);
    auto pick = [&](unsigned registered) {
      return collc::test::routeOf(comm, "", 1ll << 28, registered);
    };
    EXPECT_EQ(pick(0), chunked.name);
    EXPECT_EQ(pick(collc::ProgramInfo::kRegisteredInput), chunked.name);
    EXPECT_EQ(pick(collc::ProgramInfo::kRegisteredInput |
                   collc::ProgramInfo::kRegisteredOutput),
              zc.name);
    // Forced: the variant's name takes the twin; ":staged" never does.
    const unsigned both = collc::ProgramInfo::kRegisteredInput |
                          collc::ProgramInfo::kRegisteredOutput;
    EXPECT_EQ(collc::test::routeOf(comm, "two_shot:flag", 1ll << 28, both),
              zc.name);
    EXPECT_EQ(
        collc::test::routeOf(comm, "two_shot:flag:staged", 1ll << 28, both),
        chunked.name);
    EXPECT_EQ(collc::test::routeOf(comm, "two_shot:flag:staged", 1ll << 28),
              chunked.name);
  }
  collcModuleDestroy(m);

  // What the reader refuses, with what is wrong.
  ProgramEntry bad = zc;
  bad.registered = R"(["input", "input"])";
  expectRefused({bad.text()}, {"registered is [\"input\",\"input\"]",
                               "distinct \"input\" and \"output\""});
  bad.registered = R"(["staging"])";
  expectRefused({bad.text()}, {"registered is [\"staging\"]"});
  bad.registered = "[]";
  expectRefused({bad.text()}, {"registered is []", "non-empty"});
  bad = zc;
  bad.chunk = "";
  expectRefused({bad.text()}, {"registered (a zero-copy program) needs "
                               "encoding \"flag\", a chunk"});
  bad = zc;
  bad.region -= 16;
  bad.rx = 2 * (long long)collcRxBytes(2, 2, bad.region);
  expectRefused({bad.text()}, {"region_bytes is 496", "the words of 16 CTAs "
                                                      "(zero-copy) needs 512"});
}

TEST_F(Routing, ProgramErrorsNameTheRankTheProgramAndTheCall) {
  collc::buildRoutes(&comm, collc::ForceVariant());
  // The ll16 program (kernel 1) timed out at call 9 waiting for rank 1.
  unsigned long long *e = errors.data() + 1 * COLLC_ERROR_WORDS;
  const unsigned long long timeout[8] = {COLLC_KERNEL_TIMEOUT, 9, 0, 1,
                                         ~0ull, 1, 1, 4096};
  std::copy(timeout, timeout + 8, e + COLLC_ERROR_REMOTE);
  collcResult_t async = collcSuccess;
  EXPECT_EQ(collcCommGetAsyncError(&comm, &async), collcSuccess);
  EXPECT_EQ(async, collcTimeout);
  std::string error = lastError();
  for (const char *part :
       {"collective 'all_reduce' (f32, program one_shot:ll16, call 9)",
        "rank 0 timed out after 2000 ms waiting for rank 1's data (op 1, "
        "slot 1, element 4096)",
        "collcCommAbort"})
    EXPECT_TRUE(contains(error, part)) << part << " in: " << error;

  // Op ~0: the agreement on a call's steps (program.cuh, agree).
  const unsigned long long agreement[8] = {COLLC_KERNEL_TIMEOUT, 9, 0, ~0ull,
                                           ~0ull, 1, 0, ~0ull};
  std::copy(agreement, agreement + 8, e + COLLC_ERROR_REMOTE);
  EXPECT_EQ(collcCommGetAsyncError(&comm, &async), collcSuccess);
  EXPECT_EQ(async, collcTimeout);
  error = lastError();
  EXPECT_TRUE(contains(error, "waiting for rank 1's data (agreeing on the "
                              "call's steps, slot 0)"))
      << error;

  const unsigned long long sequence[8] = {COLLC_KERNEL_SEQUENCE, 9, 0, 1,
                                          ~0ull, 1, 1, 0};
  std::copy(sequence, sequence + 8, e + COLLC_ERROR_REMOTE);
  EXPECT_EQ(collcCommGetAsyncError(&comm, &async), collcSuccess);
  EXPECT_EQ(async, collcTimeout);
  error = lastError();
  for (const char *part :
       {"program one_shot:ll16, call 9", "received data of a later call from "
        "rank 1", "did not issue the same sequence of calls"})
    EXPECT_TRUE(contains(error, part)) << part << " in: " << error;

  // A failed program stops every later call of the communicator.
  EXPECT_EQ(collcAllReduce(nullptr, nullptr, 16, collcFloat32, collcSum, &comm,
                           nullptr),
            collcInvalidUsage);
  EXPECT_TRUE(contains(lastError(), "failed earlier")) << lastError();
}

} // namespace

// A copy's kernel moves bytes (element "bytes", 1 byte) and serves the types
// it lists: routed for each of them and for no other; the reader refuses a
// served name that is no type and an element that does not divide one.
TEST(ZeroCopyTest, CliqueDirectIsOneOrZero) {
  struct Env : collc::test::ScopedEnv {
    explicit Env(const char *value)
        : ScopedEnv("COLLC_CLIQUE_DIRECT", value) {}
  };
  bool on = false;
  {
    Env e(nullptr);
    EXPECT_EQ(collc::cliqueDirectRequested(&on), collcSuccess);
    EXPECT_TRUE(on);
  }
  {
    Env e("0");
    EXPECT_EQ(collc::cliqueDirectRequested(&on), collcSuccess);
    EXPECT_FALSE(on);
  }
  {
    Env e("1");
    EXPECT_EQ(collc::cliqueDirectRequested(&on), collcSuccess);
    EXPECT_TRUE(on);
  }
  {
    Env e("yes");
    EXPECT_EQ(collc::cliqueDirectRequested(&on), collcInvalidArgument);
    EXPECT_TRUE(contains(lastError(), "COLLC_CLIQUE_DIRECT is 'yes'; expected "
                                      "1"))
        << lastError();
  }
}

TEST(BytesKernelTest, ACopysKernelServesTheTypesItLists) {
  ProgramEntry bytes;
  bytes.name = "collc_all_reduce__one_shot_ll16_bytes_n2";
  bytes.type = "bytes";
  bytes.typeBytes = 1;
  bytes.serves = R"(["bf16", "f32"])";
  collcModule_t m = nullptr;
  ASSERT_EQ(load(manifest({kV1Kernel, bytes.text()}), &m), collcSuccess)
      << lastError();
  EXPECT_TRUE(m->kernels[1].servesType("bf16"));
  EXPECT_TRUE(m->kernels[1].servesType("bytes"));
  EXPECT_FALSE(m->kernels[1].servesType("f16"));
  {
    collcComm comm;
    std::vector<unsigned long long> errors;
    collc::test::fakeComm(comm, m, 2, 0, errors);
    EXPECT_EQ(collc::test::routeOf(comm, "", 64), bytes.name);
    auto programs = [&](collcDataType_t t) {
      return comm.routes[0 * collcNumTypes + t].programs.size();
    };
    EXPECT_EQ(programs(collcBfloat16), 1u);
    EXPECT_EQ(programs(collcFloat32), 1u);
    EXPECT_EQ(programs(collcFloat16), 0u);
    // The v1 kernel serves f32 alone.
    EXPECT_EQ(comm.routes[0 * collcNumTypes + collcBfloat16].v1, nullptr);
    EXPECT_NE(comm.routes[0 * collcNumTypes + collcFloat32].v1, nullptr);
  }
  collcModuleDestroy(m);

  ProgramEntry unknown = bytes;
  unknown.serves = R"(["bf16", "int7"])";
  expectRefused({unknown.text()},
                {"kernels[0]", "'serves' names \"int7\", which is not an "
                               "element type"});
  ProgramEntry wide = bytes;
  wide.typeBytes = 4;
  wide.serves = R"(["bf16"])";
  expectRefused({wide.text()},
                {"kernels[0]", "serves \"bf16\" (2 bytes) with elements of 4 "
                               "bytes, which do not divide it"});
}

// The config's forceVariant overrides COLLC_FORCE_VARIANT; NULL, or a
// struct from a header before the field, follows the environment; a
// malformed value is refused naming the field.
TEST(ForceVariantTest, TheConfigFieldOverridesTheEnvironment) {
  const char *saved = std::getenv("COLLC_FORCE_VARIANT");
  const std::string before = saved ? saved : "";
  setenv("COLLC_FORCE_VARIANT", "two_shot:flag", 1);
  collc::ForceVariant f;
  collcConfig_t config = COLLC_CONFIG_INITIALIZER;
  EXPECT_EQ(config.forceVariant, nullptr);
  EXPECT_EQ(collc::forceVariantOf(&config, f), collcSuccess);
  EXPECT_EQ(f.kind, collc::ForceVariant::Program);
  EXPECT_EQ(f.variant, "two_shot");
  EXPECT_EQ(collc::forceVariantOf(nullptr, f), collcSuccess);
  EXPECT_EQ(f.variant, "two_shot");
  config.forceVariant = "v1";
  EXPECT_EQ(collc::forceVariantOf(&config, f), collcSuccess);
  EXPECT_EQ(f.kind, collc::ForceVariant::V1);
  config.forceVariant = ""; // set, and empty: no variant forced
  EXPECT_EQ(collc::forceVariantOf(&config, f), collcSuccess);
  EXPECT_EQ(f.kind, collc::ForceVariant::None);
  config.forceVariant = "one_shot:ll";
  EXPECT_EQ(collc::forceVariantOf(&config, f), collcInvalidArgument);
  EXPECT_TRUE(contains(lastError(), "config->forceVariant is 'one_shot:ll'"))
      << lastError();
  // The first layout ends before the field: it is not read.
  config.size = offsetof(collcConfig_t, forceVariant);
  EXPECT_EQ(collc::forceVariantOf(&config, f), collcSuccess);
  EXPECT_EQ(f.variant, "two_shot");
  setenv("COLLC_FORCE_VARIANT", "one_shot", 1);
  EXPECT_EQ(collc::forceVariantOf(&config, f), collcInvalidArgument);
  EXPECT_TRUE(contains(lastError(), "COLLC_FORCE_VARIANT is 'one_shot'"))
      << lastError();
  if (saved)
    setenv("COLLC_FORCE_VARIANT", before.c_str(), 1);
  else
    unsetenv("COLLC_FORCE_VARIANT");
}

namespace {

/// A policy table for all_reduce at 2 ranks on sm_90 whose entries are
/// `entries` (JSON objects, comma-separated).
std::string policyTable(const std::string &entries) {
  return R"({"format": "collc-policy-table", "version": 1,
    "machine": "test", "gpu": "none", "driver": 0, "date": "2026-12-02",
    "method": "hand-written", "entries": [)" +
         entries + "]}";
}

std::string entry(const std::string &select,
                  const std::string &buffers = "ordinary",
                  const std::string &collective = "all_reduce",
                  int ranks = 2, const std::string &target = "sm_90") {
  return R"({"target": ")" + target + R"(", "ranks": )" +
         std::to_string(ranks) + R"(, "collective": ")" + collective +
         R"(", "buffers": ")" + buffers + R"(", "fits": [
      {"variant": "one_shot:ll16", "a_us": 1.5, "b_us_per_byte": 1e-5,
       "residual": 0.02, "key_lo": 16, "key_hi": 65536, "points": 7}],
    "select": )" + select + "}";
}

/// The v1 kernel and the two-shot twins (twoShotTwins) with policy table
/// `table`, loaded into *m; a communicator of rank 0 of 2 on sm_90 over it
/// (its routes built apart).
void loadTwins(const std::string &table, ProgramEntry &zc,
               ProgramEntry &chunked, collcModule_t *m, collcComm &comm,
               std::vector<unsigned long long> &errors) {
  twoShotTwins(zc, chunked);
  ASSERT_EQ(load(manifest({kV1Kernel, zc.text(), chunked.text()}, kAbi.c_str(),
                          table),
                 m),
            collcSuccess)
      << lastError();
  collc::test::fakeComm(comm, *m, 2, 0, errors);
  comm.imageTarget = "sm_90";
}

/// The v1 kernel and one-shot programs with capacity bands: ll16
/// [0, 64 KiB], sentinel [0, 256 KiB], flag [0, 1 MiB]; `table` baked in.
std::string tabled(const std::string &table, bool withV1 = true) {
  ProgramEntry ll, sentinel, flag;
  sentinel.name = "collc_all_reduce__one_shot_sentinel_f32_n2";
  sentinel.encoding = "sentinel";
  sentinel.hi = 262144;
  flag.name = "collc_all_reduce__one_shot_flag_f32_n2";
  flag.encoding = "flag";
  flag.hi = 1 << 20;
  std::vector<std::string> kernels = {ll.text(), sentinel.text(),
                                      flag.text()};
  if (withV1)
    kernels.insert(kernels.begin(), kV1Kernel);
  return manifest(kernels, kAbi.c_str(), table);
}

const char *kSelect = R"([{"upto": 4096, "variant": "one_shot:sentinel"},
    {"upto": 65536, "variant": "one_shot:ll16"},
    {"upto": 1048576, "variant": "one_shot:flag"}, {"variant": "v1"}])";

/// Loads `text`, expects a refusal whose message holds every `parts`.
void expectTableRefused(const std::string &text,
                        const std::vector<std::string> &parts) {
  collcModule_t m = nullptr;
  EXPECT_EQ(load(text, &m), collcInvalidArgument);
  EXPECT_EQ(m, nullptr);
  const std::string error = lastError();
  for (const std::string &p : parts)
    EXPECT_TRUE(contains(error, p)) << "missing '" << p << "' in: " << error;
}

class PolicyRouting : public ::testing::Test {
protected:
  void SetUp() override {
    const std::string table = policyTable(
        entry(kSelect) + ", " +
        entry(R"([{"upto": 100, "variant": "one_shot:flag"},
                  {"variant": "v1"}])",
              "registered") +
        // Another machine's target: kept, never consulted.
        ", " + entry(R"([{"variant": "two_shot:flag"}])", "ordinary",
                     "all_reduce", 2, "sm_100"));
    ASSERT_EQ(load(tabled(table), &module), collcSuccess) << lastError();
    collc::test::fakeComm(comm, module, 2, 0, errors);
    comm.imageTarget = "sm_90";
  }
  void TearDown() override {
    if (module)
      collcModuleDestroy(module);
  }
  std::string route(const char *force, long long key,
                    unsigned registered = 0) {
    return collc::test::routeOf(comm, force, key, registered);
  }
  collcModule_t module = nullptr;
  collcComm comm;
  std::vector<unsigned long long> errors;
};

const std::string kLl = "collc_all_reduce__one_shot_ll16_f32_n2";
const std::string kSentinel = "collc_all_reduce__one_shot_sentinel_f32_n2";
const std::string kFlag = "collc_all_reduce__one_shot_flag_f32_n2";
const std::string kV1 = "collc_all_reduce_f32_n2";

} // namespace

// The bands overlap (capacities); the table, not manifest order, chooses.
TEST_F(PolicyRouting, TheTableChoosesAtEverySize) {
  ASSERT_TRUE(module->hasPolicyTable);
  ASSERT_EQ(module->policy.size(), 3u);
  EXPECT_EQ(route("", 0), kSentinel);
  EXPECT_EQ(route("", 4096), kSentinel); // bounds are inclusive
  EXPECT_EQ(route("", 4097), kLl);
  EXPECT_EQ(route("", 65536), kLl);
  EXPECT_EQ(route("", 65537), kFlag);
  EXPECT_EQ(route("", 1 << 20), kFlag);
  EXPECT_EQ(route("", (1 << 20) + 1), kV1);
  EXPECT_EQ(route("", 1ll << 40), kV1);
}

TEST_F(PolicyRouting, RegisteredBuffersUseTheirOwnEntry) {
  const unsigned both = collc::ProgramInfo::kRegisteredInput |
                        collc::ProgramInfo::kRegisteredOutput;
  EXPECT_EQ(route("", 50, both), kFlag);
  EXPECT_EQ(route("", 100, both), kFlag);
  EXPECT_EQ(route("", 101, both), kV1);
  // One buffer registered is not a registered call: the ordinary entry.
  EXPECT_EQ(route("", 50, collc::ProgramInfo::kRegisteredInput), kSentinel);
}

TEST_F(PolicyRouting, ForcingOverridesTheTable) {
  EXPECT_EQ(route("one_shot:ll16", 100), kLl);
  EXPECT_EQ(route("v1", 100), kV1);
  // Outside the forced program's band: v1, as without a table.
  EXPECT_EQ(route("one_shot:ll16", 100000), kV1);
}

// A registered entry may select the staged program over its zero-copy
// twin ("<variant>:<encoding>:staged"), and the reader checks its band.
TEST(PolicyTableTest, ARegisteredEntryMaySelectTheStagedProgram) {
  ProgramEntry zc, chunked;
  const unsigned both = collc::ProgramInfo::kRegisteredInput |
                        collc::ProgramInfo::kRegisteredOutput;
  const std::string table = policyTable(
      entry(R"([{"upto": 1048576, "variant": "v1"},
                {"upto": 16777216, "variant": "two_shot:flag:staged"},
                {"variant": "two_shot:flag"}])",
            "registered"));
  collcModule_t m = nullptr;
  {
    collcComm comm;
    std::vector<unsigned long long> errors;
    loadTwins(table, zc, chunked, &m, comm, errors);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(collc::test::routeOf(comm, "", 1 << 22, both), chunked.name);
    EXPECT_EQ(collc::test::routeOf(comm, "", 1 << 25, both), zc.name);
    EXPECT_EQ(collc::test::routeOf(comm, "", 1 << 10, both),
              "collc_all_reduce_f32_n2");
  }
  collcModuleDestroy(m);
  // Its band starts above 1 MiB: selecting it from 0 is refused.
  expectTableRefused(
      manifest({kV1Kernel, zc.text(), chunked.text()}, kAbi.c_str(),
               policyTable(entry(R"([{"variant": "two_shot:flag:staged"}])",
                                 "registered"))),
      {"selects two_shot:flag:staged for [0, any] bytes, but the band of "
       "\"collc_all_reduce__two_shot_flag_chunked_f32_n2\""});
}

TEST(PolicyTableTest, AnotherCommunicatorsTargetOrRanksFallBackToBands) {
  collcModule_t m = nullptr;
  ASSERT_EQ(load(tabled(policyTable(entry(kSelect))), &m), collcSuccess)
      << lastError();
  collcComm comm;
  std::vector<unsigned long long> errors;
  collc::test::fakeComm(comm, m, 2, 0, errors);
  comm.imageTarget = "sm_80"; // no entry: the first program whose band holds
  EXPECT_EQ(collc::test::routeOf(comm, "", 100), kLl);
  EXPECT_EQ(collc::test::routeOf(comm, "", 100000), kSentinel);
  collcModuleDestroy(m);
}

TEST(PolicyTableTest, TheReaderChecksTheTableAgainstTheKernels) {
  // A variant the module does not have.
  expectTableRefused(
      tabled(policyTable(entry(R"([{"variant": "two_shot:ll16"}])"))),
      {"policy_table.entries[0].select[0]", "selects two_shot:ll16",
       "[0, any]", "which the module does not have for \"all_reduce\" at 2 "
                   "ranks on sm_90"});
  // A size the program's band does not hold.
  expectTableRefused(
      tabled(policyTable(entry(R"([{"upto": 100000, "variant": "one_shot:ll16"},
                                   {"variant": "v1"}])"))),
      {"select[0]: selects one_shot:ll16 for [0, 100000] bytes",
       "the band of \"collc_all_reduce__one_shot_ll16_f32_n2\" is [0, 65536]"});
  // v1 without a v1 kernel.
  expectTableRefused(
      tabled(policyTable(entry(R"([{"variant": "v1"}])")), /*withV1=*/false),
      {"select[0]: selects v1"});
  expectTableRefused(tabled(policyTable(entry(kSelect, "ordinary", "bcast"))),
                     {"collective \"bcast\" is not in the module"});
  expectTableRefused(
      tabled(policyTable(entry(kSelect, "ordinary", "all_reduce", 4))),
      {"no kernel of \"all_reduce\" at 4 ranks on sm_90"});
}

TEST(PolicyTableTest, MalformedTablesAreRefusedSayingWhere) {
  auto refused = [](const std::string &table,
                    const std::vector<std::string> &parts) {
    expectTableRefused(tabled(table), parts);
  };
  refused(policyTable(entry(R"([{"upto": 10, "variant": "v1"},
                                {"upto": 10, "variant": "v1"}, {"variant": "v1"}])")),
          {"entries[0].select[1]: upto 10 does not exceed", "must increase"});
  refused(policyTable(entry(R"([{"upto": 10, "variant": "v1"}])")),
          {"select[0]: the last interval has an 'upto'"});
  refused(policyTable(entry(R"([])")), {"entries[0]: select is empty"});
  refused(policyTable(entry(R"([{"variant": "one_shot:ll"}])")),
          {"select[0]: variant \"one_shot:ll\" is not 'v1' or"});
  refused(policyTable(entry(kSelect, "pinned")),
          {"buffers is \"pinned\", expected"});
  refused(policyTable(entry(kSelect) + ", " + entry(kSelect)),
          {"entries[1]: a second entry for \"all_reduce\" at 2 ranks on "
           "sm_90 with ordinary buffers"});
  refused(R"({"format": "collc-policy-table", "version": 2})",
          {"policy_table: version 2 is not supported"});
  refused(R"({"format": "table", "version": 1})",
          {"policy_table: format is \"table\""});
  refused(R"({"format": "collc-policy-table", "version": 1, "machine": "m",
              "gpu": "g", "driver": 1, "date": "d", "method": "m",
              "entries": [{"target": "sm_90", "ranks": 2,
                "collective": "all_reduce", "buffers": "ordinary",
                "fits": [{"variant": "v1", "a_us": "fast"}],
                "select": [{"variant": "v1"}]}]})",
          {"entries[0].fits[0]: field 'a_us' is not a number"});
}

// Overlapping bands of two variants: refused without a table (the later
// would be unreachable), chosen between by one.
TEST(PolicyTableTest, WithATableVariantsMayOverlap) {
  ProgramEntry one, two = twoShotFlag(0);
  const std::vector<std::string> kernels = {kV1Kernel, one.text(),
                                            two.text()};
  expectTableRefused(manifest(kernels),
                     {"overlaps that of", "need disjoint bands"});
  collcModule_t m = nullptr;
  ASSERT_EQ(load(manifest(kernels, kAbi.c_str(),
                          policyTable(entry(
                              R"([{"upto": 4096, "variant": "two_shot:flag"},
                                  {"upto": 65536, "variant": "one_shot:ll16"},
                                  {"variant": "v1"}])"))),
                 &m),
            collcSuccess)
      << lastError();
  collcComm comm;
  std::vector<unsigned long long> errors;
  collc::test::fakeComm(comm, m, 2, 0, errors);
  comm.imageTarget = "sm_90";
  EXPECT_EQ(collc::test::routeOf(comm, "", 100), two.name);
  EXPECT_EQ(collc::test::routeOf(comm, "", 4097), one.name);
  EXPECT_EQ(collc::test::routeOf(comm, "", 65537), kV1);
  collcModuleDestroy(m);
}

// In-switch programs (variant multimem, collc --enable-multimem): no receive
// buffer, registered buffers bound to multicast objects.
namespace {
ProgramEntry inSwitch() {
  ProgramEntry e;
  e.name = "collc_all_reduce__multimem_flag_f32_n2";
  e.variant = "multimem";
  e.encoding = "flag";
  e.hi = 9223372036854775807ull;
  e.region = 0;
  e.rx = 0;
  e.registered = R"(["input", "output"])";
  e.multicast = "true";
  return e;
}
} // namespace

TEST(ProgramManifestTest, InSwitchProgramsLoadAndTheirFactsAreChecked) {
  collcModule_t m = nullptr;
  ASSERT_EQ(load(manifest({kV1Kernel, inSwitch().text()}), &m), collcSuccess)
      << lastError();
  const collc::KernelInfo &k = m->kernels[1];
  EXPECT_TRUE(k.program.multicast);
  EXPECT_EQ(k.program.variant, "multimem");
  EXPECT_EQ(k.program.registered, collc::ProgramInfo::kRegisteredInput |
                                      collc::ProgramInfo::kRegisteredOutput);
  collcModuleDestroy(m);
  ProgramEntry e = inSwitch();
  e.multicast = "false";
  expectRefused({e.text()}, {"an in-switch program needs multicast: true"});
  e = inSwitch();
  e.variant = "one_shot";
  expectRefused({e.text()},
                {"multicast is true, which only an in-switch"});
  e = inSwitch();
  e.region = 16;
  expectRefused({e.text()}, {"an in-switch program needs registered "
                             "buffers", "region_bytes and rx_bytes 0"});
  e = inSwitch();
  e.registered.clear();
  expectRefused({e.text()}, {"an in-switch program needs registered "
                             "buffers"});
  e = inSwitch();
  e.multicast = "1";
  expectRefused({e.text()}, {"multicast is 1, expected true or false"});
  e = inSwitch();
  e.variant = "three_shot";
  expectRefused({e.text()}, {"unknown variant \"three_shot\", expected "
                             "\"one_shot\", \"two_shot\", \"multimem\" or "
                             "\"multimem_pull\""});
  // The redundant pull is an in-switch program too.
  e = inSwitch();
  e.name = "collc_all_reduce__multimem_pull_flag_f32_n2";
  e.variant = "multimem_pull";
  e.hi = 32768;
  e.registered = R"(["input"])";
  ASSERT_EQ(load(manifest({kV1Kernel, e.text()}), &m), collcSuccess)
      << lastError();
  EXPECT_TRUE(m->kernels[1].program.multicast);
  collcModuleDestroy(m);
}

/// The in-switch program first (as collc derives it), then the LL16 one of
/// Routing's module.
class InSwitchRouting : public ::testing::Test {
protected:
  void SetUp() override {
    ProgramEntry ll;
    ASSERT_EQ(load(manifest({kV1Kernel, inSwitch().text(), ll.text()}),
                   &module),
              collcSuccess)
        << lastError();
    collc::test::fakeComm(comm, module, 2, 0, errors);
  }
  void TearDown() override {
    if (module)
      collcModuleDestroy(module);
  }
  collcModule_t module = nullptr;
  collcComm comm;
  std::vector<unsigned long long> errors;
};

TEST_F(InSwitchRouting, OnlyWhereBoundRegisteredAndWholeVectors) {
  const unsigned both = collc::ProgramInfo::kRegisteredInput |
                        collc::ProgramInfo::kRegisteredOutput;
  const std::string mc = "collc_all_reduce__multimem_flag_f32_n2";
  const std::string ll = "collc_all_reduce__one_shot_ll16_f32_n2";
  // Not bound (this build, always): never, not even when forced.
  EXPECT_EQ(collc::test::routeOf(comm, "", 1024, both), ll);
  EXPECT_EQ(collc::test::routeOf(comm, "multimem:flag", 1024, both),
            "collc_all_reduce_f32_n2");
  // Bound (a build that creates multicast objects, on mocked answers): the
  // first program for registered buffers of whole 16-byte vectors.
  comm.multicastBound = true;
  EXPECT_EQ(collc::test::routeOf(comm, "", 1024, both), mc);
  EXPECT_EQ(collc::test::routeOf(comm, "", 1000, both), ll);
  EXPECT_EQ(collc::test::routeOf(comm, "", 1024,
                                 collc::ProgramInfo::kRegisteredInput),
            ll);
  EXPECT_EQ(collc::test::routeOf(comm, "", 1024, 0), ll);
  EXPECT_EQ(collc::test::routeOf(comm, "multimem:flag", 1 << 20, both), mc);
  // Before a policy table (measured where the switch does not reduce) that
  // chooses the LL16 program for these sizes.
  collc::buildRoutes(&comm, collc::ForceVariant());
  collc::Route &route = comm.routes[0 * collcNumTypes + collcFloat32];
  collc::Route::Choice choice;
  choice.upto = 1 << 20;
  for (collc::Workspace *w : route.programs)
    if (!w->kernel->program.multicast)
      choice.programs.push_back(w);
  route.table[1].push_back(choice);
  EXPECT_EQ(collc::pickProgram(route, 1024, both)->kernel->name, mc);
  EXPECT_EQ(collc::pickProgram(route, 1000, both)->kernel->name, ll);
}

TEST(ZeroCopyTest, ACliquesOrdinaryBuffersAreReadInPlace) {
  // One process driving every rank (collcCommInitAll): a call whose
  // registered entry of the policy table names a zero-copy program, with
  // buffers no window holds, runs that program anyway, each buffer
  // published as its address (the direct row of the window table), unless
  // COLLC_CLIQUE_DIRECT=0 (cliqueDirect false). Where the registered entry
  // chooses the staged program, or no registered entry was measured, the
  // ordinary buffers stage.
  ProgramEntry zc, chunked;
  const std::string table = policyTable(
      entry(R"([{"upto": 1048576, "variant": "v1"},
                {"variant": "two_shot:flag"}])") +
      "," +
      entry(R"([{"upto": 1048576, "variant": "v1"},
                {"upto": 4194304, "variant": "two_shot:flag:staged"},
                {"variant": "two_shot:flag"}])",
            "registered"));
  collcModule_t m = nullptr;
  {
    collcComm comm;
    std::vector<unsigned long long> errors;
    loadTwins(table, zc, chunked, &m, comm, errors);
    ASSERT_NE(m, nullptr);
    collc::test::routeOf(comm, "", 0); // builds the routes (and tables)
    const collc::Route &route = comm.routes[collcFloat32];
    ASSERT_FALSE(route.table[1].empty());
    const unsigned long long send = 0x10000000ull, recv = 0x20000000ull;
    const unsigned long long direct = (unsigned long long)collc::kDirectWindow
                                      << collc::kWindowShift;
    const long long big = 1ll << 28;
    collcWindowParams win{};
    unsigned found = 7;
    auto route_ = [&](long long key, unsigned long long s,
                      unsigned long long sBytes, unsigned long long r,
                      unsigned long long rBytes) {
      collc::Workspace *w = collc::routeCall(&comm, route, key, (void *)s,
                                             sBytes, (void *)r, rBytes, &win,
                                             &found);
      return w ? w->kernel->name : std::string("v1");
    };
    // One process per rank (no clique): staged.
    EXPECT_EQ(route_(big, send, big, recv, big), chunked.name);
    EXPECT_EQ(found, 0u);
    EXPECT_EQ(win.input, 0ull);
    EXPECT_EQ(win.output, 0ull);
    // A clique on one device: the twin, both buffers direct.
    comm.clique = std::make_shared<collc::Clique>();
    comm.clique->devices.assign(2, 0);
    comm.cliqueDirect = true;
    comm.cliqueOneDevice = true;
    EXPECT_EQ(route_(big, send, big, recv, big), zc.name);
    EXPECT_EQ(found, 0u); // no window: no use to note
    EXPECT_EQ(win.input, direct | send);
    EXPECT_EQ(win.output, direct | recv);
    EXPECT_EQ(win.input >> collc::kWindowShift,
              (unsigned long long)COLLC_MAX_WINDOWS);
    // Where the registered entry stages (up to 4 MiB), so do they.
    EXPECT_EQ(route_(2 << 20, send, 2 << 20, recv, 2 << 20), chunked.name);
    EXPECT_EQ(win.input, 0ull);
    // In place: one address for both.
    EXPECT_EQ(route_(big, send, big, send, big), zc.name);
    EXPECT_EQ(win.output, direct | send);
    // A registered input keeps its window; the output goes direct.
    collc::test::fakeWindow(comm, 3, send, big, true);
    EXPECT_EQ(route_(big, send, big, recv, big), zc.name);
    EXPECT_EQ(found, collc::ProgramInfo::kRegisteredInput);
    EXPECT_EQ(win.input, 3ull << collc::kWindowShift);
    EXPECT_EQ(win.output, direct | recv);
    // In the latency bands nothing changes (v1 here: no program serves).
    EXPECT_EQ(route_(1024, recv, 1024, recv + 4096, 1024), "v1");
    EXPECT_EQ(win.input, 0ull);
    // An address the where word cannot carry: staged.
    const unsigned long long high = 1ull << collc::kWindowShift;
    EXPECT_EQ(route_(big, high, big, recv, big), chunked.name);
    EXPECT_EQ(win.input, 0ull);
    EXPECT_EQ(win.output, 0ull);
    EXPECT_FALSE(collc::directReadable(&comm, (void *)(high - 16), 32));
    EXPECT_TRUE(collc::directReadable(&comm, (void *)(high - 32), 32));
    // COLLC_CLIQUE_DIRECT=0: staged again.
    comm.cliqueDirect = false;
    EXPECT_EQ(route_(big, recv, big, recv + big, big), chunked.name);
    EXPECT_FALSE(collc::directReadable(&comm, (void *)recv, 32));
    // A forced variant has no table: staged.
    comm.cliqueDirect = true;
    collc::test::routeOf(comm, "two_shot:flag", 0);
    EXPECT_TRUE(comm.routes[collcFloat32].table[1].empty());
    EXPECT_EQ(route_(big, recv, big, recv + big, big), chunked.name);
    EXPECT_EQ(win.input, 0ull);
    for (collcWindow *w : comm.windows)
      delete w;
  }
  collcModuleDestroy(m);
}
