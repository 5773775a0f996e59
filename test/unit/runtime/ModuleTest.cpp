//===- ModuleTest.cpp - module loading and call admission -------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// No GPU needed: module files are parsed and checked before any device is
// touched, and calls on missing communicators are refused before any launch.
//
//===----------------------------------------------------------------------===//

#include "collc/collc.h"
#include "collc/device/snac/abi.h"

#include <gtest/gtest.h>

#include <string>

namespace {

std::string lastError() { return collcGetLastError(); }

/// A small, well-formed module manifest (no GPU code is run from it here).
std::string manifest(int formatVersion = 1,
                     int abi = COLLC_KERNEL_ABI_VERSION) {
  return R"({"format": "collc-module", "format_version": )" +
         std::to_string(formatVersion) + R"(, "kernel_abi_version": )" +
         std::to_string(abi) + R"(,
  "compiler": {"name": "collc", "version": "0.1.0", "nvrtc": "13.0"},
  "spec": {"file": "t.coll", "sha256": "00"},
  "targets": ["sm_90"], "policy": {},
  "collectives": [{"name": "all_gather",
    "transforms": [{"consume": "copy", "input": "packed", "output": "scattered", "root": "none"}],
    "schedule": {"chunk_bytes": 65536, "slots": 4,
                 "roles": [{"name": "stage"}, {"name": "copy"}],
                 "ready_events": ["staged"], "free_events": ["stage_free"]}}],
  "kernels": [{"name": "collc_all_gather_f32_n2", "target": "sm_90",
    "collective": "all_gather", "element_type": "f32", "element_bytes": 4,
    "world_size": 2, "grid": 16, "threads": 512, "pdl": true,
    "workspace": {"chunk_bytes": 65536, "slots": 4, "ready_events": 1,
      "free_events": 1, "staging_bytes": 262144, "intermediate_bytes": 0,
      "event_words": 24, "state_words": 10}}],
  "images": [{"target": "sm_90", "kind": "ptx", "encoding": "text",
              "size": 3, "sha256": "d9657e50116f295ed2619730493b11018e73fa798b576fffa7f01973aba8d929", "data": "ptx"}]})";
}

collcResult_t load(const std::string &text, collcModule_t *m) {
  return collcModuleLoadData(m, text.data(), text.size());
}

TEST(ModuleTest, AWellFormedManifestLoads) {
  collcModule_t m = nullptr;
  ASSERT_EQ(load(manifest(), &m), collcSuccess) << lastError();
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(collcModuleDestroy(m), collcSuccess);
}

TEST(ModuleTest, EmptyTruncatedAndGarbageAreRefused) {
  collcModule_t m = nullptr;
  EXPECT_EQ(load("", &m), collcInvalidArgument);
  EXPECT_NE(lastError().find("empty"), std::string::npos) << lastError();
  std::string full = manifest();
  EXPECT_EQ(load(full.substr(0, full.size() / 2), &m), collcInvalidArgument);
  EXPECT_NE(lastError().find("not valid JSON"), std::string::npos)
      << lastError();
  EXPECT_EQ(load("\x7f" "ELF\x02\x01", &m), collcInvalidArgument);
  EXPECT_EQ(load(R"({"format": "onnx"})", &m), collcInvalidArgument);
  EXPECT_NE(lastError().find("not a collc module"), std::string::npos)
      << lastError();
  EXPECT_EQ(m, nullptr);
}

TEST(ModuleTest, VersionsAreChecked) {
  collcModule_t m = nullptr;
  EXPECT_EQ(load(manifest(2, 1), &m), collcInvalidArgument);
  EXPECT_NE(lastError().find("format version 2"), std::string::npos)
      << lastError();
  EXPECT_EQ(load(manifest(1, 9), &m), collcInvalidArgument);
  EXPECT_NE(lastError().find("kernel ABI version is 9"), std::string::npos)
      << lastError();
}

TEST(ModuleTest, MissingOrMistypedFieldsAreNamed) {
  collcModule_t m = nullptr;
  std::string text = manifest();
  std::string noGrid = text;
  noGrid.replace(noGrid.find(R"("grid": 16,)"), 11, "");
  EXPECT_EQ(load(noGrid, &m), collcInvalidArgument);
  EXPECT_NE(lastError().find("kernels[0]: missing field 'grid'"),
            std::string::npos)
      << lastError();
  std::string badType = text;
  badType.replace(badType.find(R"("world_size": 2)"), 15,
                  R"("world_size": "2")");
  EXPECT_EQ(load(badType, &m), collcInvalidArgument);
  EXPECT_NE(
      lastError().find("field 'world_size' has type string, expected number"),
      std::string::npos)
      << lastError();
}

TEST(ModuleTest, ACapacityHoldsTheWorldSize) {
  // A kernel of several world sizes (capacity) is listed once per world
  // size; its parameters hold between the world size and 250 ranks.
  collcModule_t m = nullptr;
  auto withCapacity = [](int capacity) {
    std::string text = manifest();
    text.replace(text.find(R"("world_size": 2,)"), 16,
                 R"("world_size": 2, "capacity": )" +
                     std::to_string(capacity) + ",");
    return text;
  };
  ASSERT_EQ(load(withCapacity(8), &m), collcSuccess) << lastError();
  EXPECT_EQ(collcModuleDestroy(m), collcSuccess);
  m = nullptr;
  for (int bad : {1, 251}) {
    EXPECT_EQ(load(withCapacity(bad), &m), collcInvalidArgument) << bad;
    EXPECT_NE(lastError().find("kernels[0]: capacity " + std::to_string(bad) +
                               " is not between the world size (2) and 250"),
              std::string::npos)
        << lastError();
    EXPECT_EQ(m, nullptr);
  }
}

TEST(ModuleTest, ACorruptImageIsRefused) {
  collcModule_t m = nullptr;
  std::string text = manifest();
  text.replace(text.find(R"("data": "ptx")"), 13, R"("data": "ptX")");
  EXPECT_EQ(load(text, &m), collcInvalidArgument);
  EXPECT_NE(lastError().find("images[0] (sm_90 ptx): SHA-256 mismatch"),
            std::string::npos)
      << lastError();
}

TEST(ModuleTest, ImageHashesAreChecked) {
  // Lengths around the SHA-256 padding boundaries (55, 56, 64 bytes), a
  // multi-block image and an empty one; hashes from Python's hashlib.
  const std::pair<std::string, std::string> vectors[] = {
      {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
      {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
      {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
      {"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "aa20c23e3201834050679e1d88941b9a6fed0557c9a705cb2c315e2e63fd486d"},
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
  };
  for (const auto &[data, sha] : vectors) {
    std::string text = manifest();
    std::string from = R"("sha256": ")";
    size_t imageSha = text.rfind(from);
    text.replace(imageSha + from.size(), 64, sha);
    text.replace(text.find(R"("data": "ptx")"), 13,
                 R"("data": ")" + data + "\"");
    collcModule_t m = nullptr;
    EXPECT_EQ(load(text, &m), collcSuccess)
        << data.size() << " bytes: " << lastError();
    if (m)
      collcModuleDestroy(m);
  }
}

TEST(ModuleTest, MissingFileIsNamed) {
  collcModule_t m = nullptr;
  EXPECT_EQ(collcModuleLoad(&m, "/nonexistent/x.collcmod"),
            collcInvalidArgument);
  EXPECT_NE(lastError().find("/nonexistent/x.collcmod"), std::string::npos)
      << lastError();
}

TEST(ModuleTest, CallsWithoutACommunicatorAreRefused) {
  float buffer[4] = {};
  EXPECT_EQ(collcAllReduce(buffer, buffer, 4, collcFloat32, collcSum, nullptr,
                           nullptr),
            collcInvalidArgument);
  EXPECT_NE(lastError().find("comm argument is NULL"), std::string::npos)
      << lastError();
  EXPECT_EQ(collcLaunch(nullptr, "all_gather", buffer, buffer, 1, nullptr,
                        collcFloat32, 0, nullptr),
            collcInvalidArgument);
  collcResult_t async;
  EXPECT_EQ(collcCommGetAsyncError(nullptr, &async), collcInvalidArgument);
  EXPECT_EQ(collcCommDestroy(nullptr), collcInvalidArgument);
}

TEST(ModuleTest, ACommunicatorNeedsADriver) {
  // This machine has no GPU driver: creating a communicator must fail with a
  // clear error, not crash.
  collcModule_t m = nullptr;
  ASSERT_EQ(load(manifest(), &m), collcSuccess) << lastError();
  collcComm_t comms[2] = {};
  int devices[2] = {0, 1};
  collcResult_t res = collcCommInitAll(comms, m, 2, devices, nullptr);
  EXPECT_NE(res, collcSuccess);
  EXPECT_FALSE(lastError().empty());
  EXPECT_EQ(comms[0], nullptr);
  collcModuleDestroy(m);
}

} // namespace
