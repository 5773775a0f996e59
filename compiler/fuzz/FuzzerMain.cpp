//===- FuzzerMain.cpp - the libFuzzer entry point --------------------------===//
//
// Built by scripts/fuzz.sh with clang and -fsanitize=fuzzer (the
// COLLC_LIBFUZZER build). A finding aborts, which libFuzzer records as a
// crash with the input that caused it.
//
//===----------------------------------------------------------------------===//

#include "FrontEndFuzz.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  collc::fuzz::Result r = collc::fuzz::checkSpec(text);
  if (r.outcome != collc::fuzz::Outcome::Finding)
    return 0;
  std::fprintf(stderr, "collc-fuzz: FINDING [%s]\n%s\n",
               collc::fuzz::findingKindName(r.kind).str().c_str(),
               r.finding.c_str());
  std::abort();
}
