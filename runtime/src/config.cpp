//===- config.cpp - collcConfig_t and environment switches ------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//

#include "collc/collc.h"

#include "checks.h"
#include "runtime.h"

#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace {

// The first collcConfig_t layout (0.1.0). Later versions may only append
// fields, so a struct at least this large has every field read below; fields
// added later must be read only when config->size covers them.
constexpr size_t kMinConfigSize =
    offsetof(collcConfig_t, debugLevel) + sizeof(int);
constexpr unsigned kFirstConfigVersion = COLLC_VERSION(0, 1, 0);

} // namespace

extern "C" COLLC_API collcResult_t
collcConfigValidate(const collcConfig_t *config) {
  COLLC_API_ENTRY();
  COLLC_ARG_NOT_NULL(config);
  // size first: it is the only field known to be inside the caller's struct.
  if (config->size < kMinConfigSize)
    return COLLC_FAIL(collcInvalidArgument,
                      "config->size is %zu, expected at least %zu; initialize "
                      "the config with COLLC_CONFIG_INITIALIZER",
                      config->size, kMinConfigSize);
  // The layouts this library knows: the first (0.1.0), and the current one
  // (forceVariant appended).
  if (config->size != kMinConfigSize && config->size < sizeof(collcConfig_t))
    return COLLC_FAIL(collcInvalidArgument,
                      "config->size is %zu, which is no collcConfig_t layout "
                      "(%zu or %zu bytes); initialize the config with "
                      "COLLC_CONFIG_INITIALIZER",
                      config->size, kMinConfigSize, sizeof(collcConfig_t));
  if (config->size > sizeof(collcConfig_t))
    return COLLC_FAIL(collcInvalidArgument,
                      "config->size is %zu, larger than the %zu bytes this "
                      "library (version %d) knows; the application was built "
                      "against a newer collc.h than the library it runs with",
                      config->size, sizeof(collcConfig_t), COLLC_VERSION_CODE);
  if (config->magic != COLLC_CONFIG_MAGIC)
    return COLLC_FAIL(collcInvalidArgument,
                      "config->magic is 0x%x, expected COLLC_CONFIG_MAGIC "
                      "(0x%x); initialize the config with "
                      "COLLC_CONFIG_INITIALIZER",
                      config->magic, COLLC_CONFIG_MAGIC);
  if (config->version < kFirstConfigVersion)
    return COLLC_FAIL(collcInvalidArgument,
                      "config->version is %u, not a collc version code "
                      "(expected at least %u); initialize the config with "
                      "COLLC_CONFIG_INITIALIZER",
                      config->version, kFirstConfigVersion);
  if (config->version > static_cast<unsigned>(COLLC_VERSION_CODE))
    return COLLC_FAIL(collcInvalidArgument,
                      "config->version is %u, newer than this library (%d); "
                      "the application was built against a newer collc.h "
                      "than the library it runs with",
                      config->version, COLLC_VERSION_CODE);
  // Zero is rejected too: every wait in collc is bounded, and a zero bound
  // would make every wait expire at once.
  if (config->timeoutMs != COLLC_CONFIG_UNDEF_INT && config->timeoutMs <= 0)
    return COLLC_FAIL(collcInvalidArgument,
                      "config->timeoutMs is %d, expected a positive number of "
                      "milliseconds or COLLC_CONFIG_UNDEF_INT for the default",
                      config->timeoutMs);
  if (config->debugLevel != COLLC_CONFIG_UNDEF_INT &&
      (config->debugLevel < collcDebugNone ||
       config->debugLevel > collcDebugTrace))
    return COLLC_FAIL(collcInvalidArgument,
                      "config->debugLevel is %d, expected a collcDebugLevel_t "
                      "(%d to %d) or COLLC_CONFIG_UNDEF_INT",
                      config->debugLevel, collcDebugNone, collcDebugTrace);
  return collcSuccess;
}

collcResult_t collc::envSwitch(const char *name, bool byDefault,
                               const char *whatDefault, const char *whatOther,
                               bool *on) {
  const char *env = std::getenv(name);
  const char *const dflt = byDefault ? "1" : "0";
  *on = byDefault;
  if (!env || !*env || std::strcmp(env, dflt) == 0)
    return collcSuccess;
  if (std::strcmp(env, byDefault ? "0" : "1") == 0) {
    *on = !byDefault;
    return collcSuccess;
  }
  return COLLC_FAIL(collcInvalidArgument,
                    "%s is '%s'; expected %s (%s, the default) or %s (%s)",
                    name, env, dflt, whatDefault, byDefault ? "0" : "1",
                    whatOther);
}
