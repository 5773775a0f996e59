//===- debug.cpp - Logging and the last-error string ------------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//

#include "debug.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace collc {
namespace {

// Large enough for a message that names a call, a CUresult and a hint;
// longer messages are truncated rather than allocated, so that reporting an
// error can itself never fail.
constexpr size_t kMaxMessage = 1024;

thread_local char lastError[kMaxMessage];
thread_local const char *currentApi = nullptr;

void logAlways(collcDebugLevel_t level, const char *file, int line,
               const char *fmt, ...) __attribute__((format(printf, 4, 5)));

collcDebugLevel_t parseDebugEnv() {
  const char *env = std::getenv("COLLC_DEBUG");
  if (!env || !*env)
    return collcDebugNone;
  static const struct {
    const char *name;
    collcDebugLevel_t level;
  } levels[] = {{"NONE", collcDebugNone},
                {"WARN", collcDebugWarn},
                {"INFO", collcDebugInfo},
                {"TRACE", collcDebugTrace}};
  for (const auto &entry : levels)
    if (strcasecmp(env, entry.name) == 0)
      return entry.level;
  // A typo must not silently turn logging off: fall back to WARN and say so.
  logAlways(collcDebugWarn, __FILE__, __LINE__,
            "COLLC_DEBUG=%s is not one of NONE, WARN, INFO, TRACE; using WARN",
            env);
  return collcDebugWarn;
}

const char *levelName(collcDebugLevel_t level) {
  switch (level) {
  case collcDebugNone:
    return "NONE";
  case collcDebugWarn:
    return "WARN";
  case collcDebugInfo:
    return "INFO";
  case collcDebugTrace:
    return "TRACE";
  }
  return "?";
}

// __FILE__ is an absolute build path; the file name is enough to find the
// line in the source tree and keeps log lines short.
const char *baseName(const char *file) {
  const char *slash = std::strrchr(file, '/');
  return slash ? slash + 1 : file;
}

void vlog(collcDebugLevel_t level, const char *file, int line, const char *fmt,
          va_list args) {
  char message[kMaxMessage];
  std::vsnprintf(message, sizeof(message), fmt, args);
  // One fprintf per line so that lines from concurrent threads do not
  // interleave mid-line (stdio locks the stream per call).
  std::fprintf(stderr, "collc %d:%ld %s %s:%d %s\n", static_cast<int>(getpid()),
               static_cast<long>(syscall(SYS_gettid)), levelName(level),
               baseName(file), line, message);
}

void logAlways(collcDebugLevel_t level, const char *file, int line,
               const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vlog(level, file, line, fmt, args);
  va_end(args);
}

} // namespace

collcDebugLevel_t debugLevel() {
  // Read once: the environment is not expected to change, and getenv is not
  // safe against a concurrent setenv anyway.
  static const collcDebugLevel_t level = parseDebugEnv();
  return level;
}

void log(collcDebugLevel_t level, const char *file, int line, const char *fmt,
         ...) {
  if (level == collcDebugNone || level > debugLevel())
    return;
  va_list args;
  va_start(args, fmt);
  vlog(level, file, line, fmt, args);
  va_end(args);
}

ApiScope::ApiScope(const char *name) : previous(currentApi) {
  currentApi = name;
}

ApiScope::~ApiScope() { currentApi = previous; }

const char *ApiScope::current() { return currentApi ? currentApi : "collc"; }

collcResult_t fail(collcResult_t result, const char *file, int line,
                   const char *fmt, ...) {
  // Format into a temporary first: the arguments may point into lastError.
  // Truncation is accepted (see kMaxMessage).
  char message[kMaxMessage];
  int prefix =
      std::snprintf(message, sizeof(message), "%s : ", ApiScope::current());
  if (prefix < 0 || static_cast<size_t>(prefix) >= sizeof(message))
    prefix = 0;
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(message + prefix, sizeof(message) - prefix, fmt, args);
  va_end(args);
  std::memcpy(lastError, message, sizeof(message));
  log(collcDebugWarn, file, line, "%s -> %d (%s: %s)", lastError,
      static_cast<int>(result), resultName(result), resultBrief(result));
  return result;
}

void logPropagation(collcResult_t result, const char *file, int line) {
  log(collcDebugWarn, file, line, "-> %d (%s: %s)", static_cast<int>(result),
      resultName(result), resultBrief(result));
}

const char *resultName(collcResult_t result) {
  switch (result) {
#define COLLC_RESULT_CASE(code, brief, hint)                                   \
  case code:                                                                   \
    return #code;
    COLLC_FOR_EACH_RESULT(COLLC_RESULT_CASE)
#undef COLLC_RESULT_CASE
  case collcNumResults:
    break;
  }
  return "unknown collcResult_t";
}

const char *resultBrief(collcResult_t result) {
  switch (result) {
#define COLLC_RESULT_CASE(code, brief, hint)                                   \
  case code:                                                                   \
    return brief;
    COLLC_FOR_EACH_RESULT(COLLC_RESULT_CASE)
#undef COLLC_RESULT_CASE
  case collcNumResults:
    break;
  }
  return "unknown collcResult_t value";
}

const char *lastErrorMessage() { return lastError; }

} // namespace collc
