//===- ConfigTest.cpp - collcConfigValidate ---------------------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//

#include "collc/collc.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>

extern "C" collcResult_t collcTestValidateInitializerFromC(void);
extern "C" int collcTestConfigSizeFromC(void);

namespace {

// Expects collcInvalidArgument and a last error that names the function and
// contains \p expected.
void expectRejected(const collcConfig_t &config, const std::string &expected) {
  EXPECT_EQ(collcConfigValidate(&config), collcInvalidArgument);
  std::string error = collcGetLastError();
  EXPECT_EQ(error.rfind("collcConfigValidate : ", 0), 0u) << error;
  EXPECT_NE(error.find(expected), std::string::npos)
      << "expected \"" << expected << "\" in \"" << error << "\"";
}

TEST(ConfigTest, InitializerIsValid) {
  collcConfig_t config = COLLC_CONFIG_INITIALIZER;
  EXPECT_EQ(config.size, sizeof(collcConfig_t));
  EXPECT_EQ(config.magic, COLLC_CONFIG_MAGIC);
  EXPECT_EQ(config.version, static_cast<unsigned>(COLLC_VERSION_CODE));
  EXPECT_EQ(config.timeoutMs, COLLC_CONFIG_UNDEF_INT);
  EXPECT_EQ(config.debugLevel, COLLC_CONFIG_UNDEF_INT);
  EXPECT_EQ(collcConfigValidate(&config), collcSuccess) << collcGetLastError();
}

TEST(ConfigTest, InitializerIsValidFromC) {
  EXPECT_EQ(collcTestValidateInitializerFromC(), collcSuccess)
      << collcGetLastError();
  EXPECT_EQ(collcTestConfigSizeFromC(),
            static_cast<int>(sizeof(collcConfig_t)));
}

TEST(ConfigTest, AcceptsExplicitSettings) {
  collcConfig_t config = COLLC_CONFIG_INITIALIZER;
  config.timeoutMs = 1;
  config.debugLevel = collcDebugTrace;
  EXPECT_EQ(collcConfigValidate(&config), collcSuccess) << collcGetLastError();
  config.debugLevel = collcDebugNone;
  EXPECT_EQ(collcConfigValidate(&config), collcSuccess) << collcGetLastError();
}

TEST(ConfigTest, RejectsNull) {
  EXPECT_EQ(collcConfigValidate(nullptr), collcInvalidArgument);
  EXPECT_STREQ(collcGetLastError(),
               "collcConfigValidate : config argument is NULL");
}

TEST(ConfigTest, RejectsWrongSize) {
  collcConfig_t config = COLLC_CONFIG_INITIALIZER;
  config.size = 0;
  expectRejected(config, "config->size is 0");
  const size_t first = offsetof(collcConfig_t, debugLevel) + sizeof(int);
  config.size = first - 1;
  expectRejected(config, "expected at least");
  config.size = sizeof(collcConfig_t) - 1;
  expectRejected(config, "which is no collcConfig_t layout");
  // The first layout (before forceVariant) is still accepted.
  config.size = first;
  EXPECT_EQ(collcConfigValidate(&config), collcSuccess) << collcGetLastError();
  config.size = sizeof(collcConfig_t) + 8;
  expectRejected(config, "newer collc.h");
}

TEST(ConfigTest, RejectsUninitializedMagic) {
  collcConfig_t config = COLLC_CONFIG_INITIALIZER;
  config.magic = 0;
  expectRejected(config, "config->magic is 0x0, expected COLLC_CONFIG_MAGIC");
}

TEST(ConfigTest, RejectsWrongVersion) {
  collcConfig_t config = COLLC_CONFIG_INITIALIZER;
  config.version = 0;
  expectRejected(config, "config->version is 0, not a collc version code");
  config.version = COLLC_VERSION_CODE + 1;
  expectRejected(config, "newer than this library");
}

TEST(ConfigTest, RejectsNonPositiveTimeout) {
  collcConfig_t config = COLLC_CONFIG_INITIALIZER;
  config.timeoutMs = -1;
  expectRejected(config, "config->timeoutMs is -1");
  config.timeoutMs = 0;
  expectRejected(config, "config->timeoutMs is 0");
}

TEST(ConfigTest, RejectsUnknownDebugLevel) {
  collcConfig_t config = COLLC_CONFIG_INITIALIZER;
  config.debugLevel = collcDebugTrace + 1;
  expectRejected(config, "config->debugLevel is 4");
  config.debugLevel = -1;
  expectRejected(config, "config->debugLevel is -1");
}

} // namespace
