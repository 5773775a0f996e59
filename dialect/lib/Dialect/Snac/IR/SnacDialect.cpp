//===- SnacDialect.cpp - snac dialect ---------------------------*- C++ -*-===//

#include "collc/Dialect/Snac/IR/SnacDialect.h"
#include "collc/Dialect/Snac/IR/SnacOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace collc::snac;

#include "collc/Dialect/Snac/IR/SnacOpsDialect.cpp.inc"

/// `true` or `false` (a policy's `pdl` and `speculate`).
static ParseResult parseBool(AsmParser &parser, bool &value) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  if (keyword != "true" && keyword != "false")
    return parser.emitError(loc)
           << "expected 'true' or 'false', got '" << keyword << "'";
  value = keyword == "true";
  return success();
}

static void printBool(AsmPrinter &printer, bool value) {
  printer << (value ? "true" : "false");
}

#define GET_ATTRDEF_CLASSES
#include "collc/Dialect/Snac/IR/SnacAttrs.cpp.inc"

void SnacDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "collc/Dialect/Snac/IR/SnacOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "collc/Dialect/Snac/IR/SnacAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// PolicyAttr
//===----------------------------------------------------------------------===//

LogicalResult PolicyAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 Encoding encoding, int64_t slots,
                                 int64_t bandLo, int64_t bandHi, int64_t ctas,
                                 int64_t threads, int64_t grain, bool,
                                 bool speculate) {
  // A flag orders the data written before it, not a payload loaded before
  // the flag was: validating such a load needs a timing assumption (SiFAR
  // 8.1). ll16 and sentinel units carry their own readiness.
  if (speculate && encoding == Encoding::flag)
    return emitError() << "policy speculate needs ll16 or sentinel "
                          "readiness: a flag does not validate a payload "
                          "loaded before it";
  // One slot would be rewritten by the next call while a slow consumer
  // still reads it: the reuse argument needs the call in between.
  if (slots < 2)
    return emitError() << "policy needs at least 2 slots, got " << slots;
  if (bandLo < 0 || bandHi < bandLo)
    return emitError() << "policy band [" << bandLo << ", " << bandHi
                       << "] is not a range of byte counts";
  if (ctas < 0 || threads < 0 || grain < 0)
    return emitError() << "policy ctas, threads and grain must not be "
                          "negative (0: not assigned yet)";
  if (threads % 32 != 0 || threads > 1024)
    return emitError() << "policy threads must be a multiple of 32 up to "
                          "1024, got "
                       << threads;
  if (grain != 0 && (grain % 8 != 0 || grain > 16))
    return emitError() << "policy grain must be 8 or 16 bytes, got " << grain;
  return success();
}
