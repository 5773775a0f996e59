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

/// `pdl = B` and the policy's optional tail, each entry printed only when it
/// is not the default: `, speculate = true`, `, chunk = N`, `, agree =
/// true`, `, pairs = true`, `, pair_ll16 = N`. One
/// directive, because two optional groups that both start with `,` cannot be
/// told apart by the generated parser.
static ParseResult parsePolicyTail(AsmParser &parser, bool &pdl,
                                   bool &speculate, int64_t &chunk,
                                   bool &agree, bool &pairs,
                                   int64_t &pairLL16) {
  if (parser.parseKeyword("pdl") || parser.parseEqual() ||
      parseBool(parser, pdl))
    return failure();
  speculate = false;
  chunk = 0;
  agree = false;
  pairs = false;
  pairLL16 = 0;
  bool seenSpeculate = false, seenChunk = false, seenAgree = false,
       seenPairs = false, seenPairLL16 = false;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return failure();
    if (key == "speculate" && !seenSpeculate && !seenChunk && !seenAgree &&
        !seenPairs && !seenPairLL16) {
      seenSpeculate = true;
      if (parseBool(parser, speculate))
        return failure();
    } else if (key == "chunk" && !seenChunk && !seenAgree && !seenPairs &&
               !seenPairLL16) {
      seenChunk = true;
      if (parser.parseInteger(chunk))
        return failure();
    } else if (key == "agree" && !seenAgree && !seenPairs && !seenPairLL16) {
      seenAgree = true;
      if (parseBool(parser, agree))
        return failure();
    } else if (key == "pairs" && !seenPairs && !seenPairLL16) {
      seenPairs = true;
      if (parseBool(parser, pairs))
        return failure();
    } else if (key == "pair_ll16" && !seenPairLL16) {
      seenPairLL16 = true;
      if (parser.parseInteger(pairLL16))
        return failure();
    } else {
      return parser.emitError(loc)
             << "expected 'speculate', 'chunk', 'agree', 'pairs' or "
                "'pair_ll16' (in that order, each at most once) after 'pdl', "
                "got '"
             << key << "'";
    }
  }
  return success();
}

static void printPolicyTail(AsmPrinter &printer, bool pdl, bool speculate,
                            int64_t chunk, bool agree, bool pairs,
                            int64_t pairLL16) {
  printer << "pdl = ";
  printBool(printer, pdl);
  if (speculate)
    printer << ", speculate = true";
  if (chunk)
    printer << ", chunk = " << chunk;
  if (agree)
    printer << ", agree = true";
  if (pairs)
    printer << ", pairs = true";
  if (pairLL16)
    printer << ", pair_ll16 = " << pairLL16;
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
                                 bool speculate, int64_t chunk, bool agree,
                                 bool pairs, int64_t pairLL16) {
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
  // A chunked flag program keeps grain / 16 vectors in flight per thread
  // (per source for a reduction): more than 16 cannot stay in registers.
  // Elsewhere a thread-step moves one unit: an LL16 packet's 8 bytes or 16.
  if (encoding == Encoding::flag && chunk > 0) {
    if (grain != 0 && (grain % 16 != 0 || grain > 256))
      return emitError() << "policy grain of a chunked flag program must be "
                            "a multiple of 16 bytes up to 256 (vectors in "
                            "flight per thread), got "
                         << grain;
  } else if (grain != 0 && (grain % 8 != 0 || grain > 16)) {
    return emitError() << "policy grain must be 8 or 16 bytes, got " << grain;
  }
  // A chunk is whole 16-byte units of every encoding's payload, so a CTA's
  // part starts on a unit of the partition.
  if (chunk < 0 || chunk % 16 != 0)
    return emitError() << "policy chunk must be a non-negative multiple of 16 "
                          "bytes (0: not chunked), got "
                       << chunk;
  // The agreement's words sit beside the chunked flag ready words, and it
  // exists to count a chunked call's steps.
  if (agree && (chunk == 0 || encoding != Encoding::flag))
    return emitError() << "policy agree needs a chunked flag program "
                          "(it agrees on a chunked call's steps), got "
                       << (chunk == 0 ? "no chunk" : "another encoding");
  // Pair steps answer agree's question another way: one of them.
  if (pairs && (chunk == 0 || encoding != Encoding::flag))
    return emitError() << "policy pairs needs a chunked flag program "
                          "(each pair runs its own steps of a chunked call), "
                          "got "
                       << (chunk == 0 ? "no chunk" : "another encoding");
  if (pairs && agree)
    return emitError() << "policy pairs and agree are two ways of counting "
                          "a call's steps: choose one";
  // Small pairs by LL16: a pair decides by its own counts, which only pair
  // steps let it do; a packet carries 8 bytes, a part whole 16-byte units.
  if (pairLL16 != 0 && !pairs)
    return emitError() << "policy pair_ll16 needs pairs (a pair chooses its "
                          "own exchange by its own counts)";
  if (pairLL16 < 0 || pairLL16 % 16 != 0)
    return emitError() << "policy pair_ll16 must be a non-negative multiple "
                          "of 16 bytes, got "
                       << pairLL16;
  // A small pair's parts are cut for one step: a CTA's within a chunk.
  if (pairLL16 > chunk)
    return emitError() << "policy pair_ll16 (" << pairLL16
                       << " bytes) exceeds the chunk (" << chunk
                       << "): a small pair's parts are one step's";
  return success();
}
