//===- ManifestTest.cpp - the module-file reader ----------------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// The reader the runtime and `collc --validate-module` share (manifest.h):
// what only a whole file must have, and the base64 of cubin images. The
// checks both make are tested through the C API (ModuleTest.cpp,
// ProgramTest.cpp) and through collc (test/Target/Module/validate*.test).
//
//===----------------------------------------------------------------------===//

#include "manifest.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

using namespace collc;

/// A loadable manifest without `compiler` and `targets`: what the runtime
/// needs and no more.
std::string loadable(const std::string &variant = "one_shot") {
  return std::string(R"({"format": "collc-module", "format_version": 1,
  "kernel_abi_version": )") +
         std::to_string(COLLC_KERNEL_ABI_VERSION) +
         R"(, "program_abi_version": )" +
         std::to_string(COLLC_PROGRAM_ABI_VERSION) + R"(,
  "spec": {"file": "t.coll", "sha256": "00"}, "collectives": [],
  "kernels": [{"name": "k", "target": "sm_90", "collective": "c",
    "element_type": "f32", "element_bytes": 4, "world_size": 2, "grid": 1,
    "threads": 32, "pdl": false, "program": {"variant": ")" +
         variant + R"(", "encoding": "flag", "band": [0, 16], "slots": 2,
    "region_bytes": )" +
         std::to_string(collcRxRegionBytes(COLLC_ENCODING_FLAG, 16, 1)) +
         R"(, "rx_bytes": )" +
         std::to_string(collcRxBytes(
             2, 2, collcRxRegionBytes(COLLC_ENCODING_FLAG, 16, 1))) +
         R"(, "rx_fill": )" +
         std::to_string(collcRxFillByte(COLLC_ENCODING_FLAG)) +
         R"(, "counter_words": 1, "input_packed": true}}],
  "images": []})";
}

ManifestProblem read(const std::string &text, ManifestCheck check) {
  Manifest m;
  return readManifest(text.data(), text.size(), m, check, "test");
}

TEST(ManifestTest, LoadingNeedsLessThanAWholeFile) {
  EXPECT_FALSE(read(loadable(), ManifestCheck::Load))
      << read(loadable(), ManifestCheck::Load).message;
  ManifestProblem whole = read(loadable(), ManifestCheck::Whole);
  EXPECT_EQ(whole.message, "manifest: missing field 'compiler'");
  EXPECT_TRUE(whole.corrupt);
}

// The variant sizes the receive buffers (two-shot has two), so loading
// refuses a variant it does not know as a whole-file check does.
TEST(ManifestTest, EveryReaderNeedsAKnownVariant) {
  EXPECT_FALSE(read(loadable("two_shot"), ManifestCheck::Load).message.find(
                   "unknown variant") != std::string::npos);
  const char *unknown = "kernels[0].program: unknown variant \"three_shot\", "
                        "expected \"one_shot\", \"two_shot\", \"multimem\" or "
                        "\"multimem_pull\"";
  EXPECT_EQ(read(loadable("three_shot"), ManifestCheck::Load).message,
            unknown);
  std::string text = loadable("three_shot");
  text.replace(text.find(R"("spec")"), 0, R"("compiler": {}, "targets": [], )");
  EXPECT_EQ(read(text, ManifestCheck::Whole).message, unknown);
}

/// loadable() with collective "c" (copy packed -> scattered, root role
/// `collRoot`) and its program's `root` set to `programRoot` (absent: "").
std::string withRoots(const std::string &collRoot,
                      const std::string &programRoot) {
  std::string text = loadable();
  text.replace(text.find(R"("collectives": [])"), 17,
               R"("collectives": [{"name": "c", "transforms": [{"consume":
    "copy", "input": "packed", "output": "scattered", "root": ")" +
                   collRoot + R"("}],
    "schedule": {"ready_events": [], "free_events": [], "roles": []}}])");
  if (!programRoot.empty())
    text.replace(text.find(R"("input_packed": true)"), 20,
                 R"("input_packed": true, "root": ")" + programRoot + "\"");
  return text;
}

// The runtime shapes a rooted call's sizes as the program's `root` says:
// loading refuses a program whose rule disagrees with its collective.
TEST(ManifestTest, AProgramsRootMatchesItsCollective) {
  EXPECT_EQ(read(withRoots("consumer", ""), ManifestCheck::Load).message,
            "kernels[0]: program \"k\" has root \"none\" but collective "
            "\"c\" is rooted");
  const std::string rooted = withRoots("consumer", "consumer");
  EXPECT_FALSE(read(rooted, ManifestCheck::Load))
      << read(rooted, ManifestCheck::Load).message;
  EXPECT_EQ(read(withRoots("none", "producer"), ManifestCheck::Load).message,
            "kernels[0]: program \"k\" has root \"producer\" but "
            "collective \"c\" is not rooted");
}

TEST(ManifestTest, VersionProblemsAreNotCorruption) {
  std::string text = loadable();
  text.replace(text.find(R"("format_version": 1)"), 19,
               R"("format_version": 3)");
  ManifestProblem p = read(text, ManifestCheck::Load);
  EXPECT_FALSE(p.corrupt);
  EXPECT_EQ(p.message, "module format version 3 is not supported by this test "
                       "(it reads version 1); rebuild the module with a "
                       "matching collc");
}

TEST(ManifestTest, Base64RoundTrips) {
  // RFC 4648 section 10's vectors, and every byte value.
  const std::pair<std::string, std::string> vectors[] = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"}};
  for (const auto &[raw, encoded] : vectors) {
    EXPECT_EQ(encodeBase64(raw), encoded);
    std::string back;
    EXPECT_TRUE(decodeBase64(encoded, back)) << encoded;
    EXPECT_EQ(back, raw);
  }
  std::string all;
  for (int i = 0; i < 256; ++i)
    all.push_back(static_cast<char>(i));
  std::string back;
  EXPECT_TRUE(decodeBase64(encodeBase64(all), back));
  EXPECT_EQ(back, all);
}

TEST(ManifestTest, MalformedBase64IsRefused) {
  std::string out;
  for (const char *bad : {"@@@@", "Zg=", "Zm9", "Z===", "Zg==Zg==", "Zm 9v"})
    EXPECT_FALSE(decodeBase64(bad, out)) << bad;
}

} // namespace

namespace {
Image image(const char *target, bool cubin, bool ptx) {
  Image im;
  im.target = target;
  im.kind = "fatbin";
  im.capability = std::atoi(target + 3);
  im.hasCubin = cubin;
  im.hasPtx = ptx;
  return im;
}
std::string targetFor(const Manifest &m, int cc) {
  const Image *im = m.imageFor(cc);
  return im ? im->target : "none";
}
} // namespace

// What collc writes (a cubin per target, PTX for the newest): each device
// runs the cubin built for it, else one of its major built for less, else
// the newest PTX not above it. An 'a' or 'f' target's cubin is never picked
// by capability (it needs that exact architecture's features).
TEST(ManifestTest, ImageForEachDevice) {
  Manifest m;
  m.images = {image("sm_80", true, false), image("sm_90a", true, false),
              image("sm_90", true, false), image("sm_100", true, true)};
  EXPECT_EQ(targetFor(m, 80), "sm_80");
  EXPECT_EQ(targetFor(m, 86), "sm_80");
  EXPECT_EQ(targetFor(m, 89), "sm_80");
  EXPECT_EQ(targetFor(m, 90), "sm_90");
  EXPECT_EQ(targetFor(m, 100), "sm_100");
  EXPECT_EQ(targetFor(m, 103), "sm_100");
  EXPECT_EQ(targetFor(m, 120), "sm_100"); // the PTX, JIT-compiled
  EXPECT_EQ(targetFor(m, 75), "none");
  // Without a plain sm_90 cubin an sm_90 GPU has sm_90a's alone in its
  // major, and no PTX at or below it: nothing.
  m.images = {image("sm_80", true, false), image("sm_90a", true, false),
              image("sm_100", true, true)};
  EXPECT_EQ(targetFor(m, 90), "none");
  // Text PTX and cubin images of the first format still work.
  Manifest old;
  Image ptx = image("sm_80", false, true), cubin = image("sm_80", true, false);
  ptx.kind = "ptx";
  cubin.kind = "cubin";
  old.images = {ptx, cubin};
  EXPECT_EQ(old.imageFor(80), &old.images[1]);
  EXPECT_EQ(old.imageFor(90), &old.images[0]);
}
