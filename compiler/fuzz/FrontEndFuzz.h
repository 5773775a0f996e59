//===- FrontEndFuzz.h - one fuzz input through the whole front end -*- C++ -*-===//
//
// Runs spec text through everything a user's spec meets before code
// generation: the parser, the coll verifiers, the derivation
// (coll-derive-schedule) and the reference interpreter at small rank counts,
// and checks the properties every input must have:
//   - no crash and no hang (the caller bounds the time per input);
//   - a rejection carries at least one error, and every error has a
//     file:line:col inside the input;
//   - an accepted spec derives, and every schedule simulates clean.
// Both the libFuzzer target and the replay driver (CI) call checkSpec.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_FUZZ_FRONTENDFUZZ_H
#define COLLC_FUZZ_FRONTENDFUZZ_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace collc::fuzz {

enum class Outcome {
  /// Parsed, derived and simulated clean.
  Accepted,
  /// Refused with located errors.
  Rejected,
  /// A property failed: `finding` says which and why.
  Finding,
};

/// Which property a finding broke.
enum class FindingKind {
  None,
  Unlocated,   // A rejection without an error, or an error with no location.
  Accepted,    // Errors were reported yet a module came back.
  Derivation,  // An accepted spec the derivation refused.
  Simulation,  // A derived schedule that failed in the interpreter.
};

struct Result {
  Outcome outcome = Outcome::Accepted;
  FindingKind kind = FindingKind::None;
  std::string finding;
};

struct Options {
  /// Simulate the derived schedules (the slow part).
  bool simulate = true;
  /// Test only: a snac-test-inject-fault fault to put into every derived
  /// schedule, to show that the harness reports a broken one.
  std::string injectFault;
};

/// Name of a finding kind, for reports: "unlocated-error", ...
llvm::StringRef findingKindName(FindingKind kind);

/// Checks one input. Never throws; a crash or hang is the caller's to see.
Result checkSpec(llvm::StringRef text, const Options &options = {});

} // namespace collc::fuzz

#endif // COLLC_FUZZ_FRONTENDFUZZ_H
