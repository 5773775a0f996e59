//===- VerifyProgram.cpp - prove a program before emitting it -------------===//
//
// Small worlds find what large ones do (a slot reused early needs two ranks,
// a wrong source three); an empty call in the middle makes every pair
// exchange padding units only, which is where a dropped padding unit breaks
// the reuse argument; the exhaustive run covers every order at two ranks.
//
//===----------------------------------------------------------------------===//

#include "collc/Interpreter/Verify.h"

#include "collc/Interpreter/Interpreter.h"

#include "Common.h"

#include "collc/Dialect/Coll/IR/CollOps.h"
#include "collc/Dialect/Snac/IR/SnacOps.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
using namespace collc;
using namespace collc::interp;

LogicalResult interp::verifyProgram(snac::ProgramOp program,
                                    raw_ostream *report, VerifyStats *stats) {
  auto collective = collectiveNextTo(program, program.getCollective());
  if (!collective)
    return program.emitError()
           << "no coll.collective named @" << program.getCollective()
           << " next to this program";
  std::vector<sim::ElemType> types = elemTypesOf(collective);

  auto start = std::chrono::steady_clock::now();
  std::vector<SimOptions> runs;
  unsigned index = 0;
  for (int n : {2, 3, 5})
    for (int strategy = 0; strategy < kNumStrategies; ++strategy) {
      SimOptions o;
      o.worldSize = n;
      o.seed = 1 + index + 100 * n;
      o.shape = index % 2 ? sim::Shape::Skew : sim::Shape::Uniform;
      o.type = types[index % types.size()];
      o.strategy = static_cast<Strategy>(strategy);
      o.specialInputs = index % 2 == 0;
      o.calls = 3;
      // An empty middle call (padding units only) where the band holds
      // small calls; a chunked program's too: its band has no top, and an
      // empty part of a step is the padding that proves its slots.
      if (strategy == 0 && (program.getPolicy().getBandLo() == 0 ||
                            program.getPolicy().isChunked()))
        o.counts = {5, 0, 5};
      runs.push_back(o);
      ++index;
    }
  for (sim::Shape shape : {sim::Shape::Uniform, sim::Shape::Skew}) {
    SimOptions o;
    o.worldSize = 2;
    o.shape = shape;
    o.type = types[index++ % types.size()];
    o.exhaustive = true;
    o.calls = 2;
    o.count = program.getPolicy().getBandLo() == 0 ? 5 : -1;
    o.specialInputs = true;
    // An in-switch program's CTA h meets only the CTAs h of the other ranks
    // (a barrier counter per CTA) and moves vectors no other CTA touches:
    // one CTA per rank covers every order its groups can take, where two
    // put the search past its budget (their interleavings multiply).
    if (program.isMultimem())
      o.workers = 1;
    runs.push_back(o);
  }

  for (const SimOptions &o : runs) {
    std::optional<Finding> finding;
    if (succeeded(capture(program.getContext(), finding,
                          [&] { return simulateProgram(program, o); })))
      continue;
    refuse(collective.emitError()
               << "refusing to emit the "
               << stringifyEncoding(program.getEncoding()) << " program of @"
               << collective.getSymName()
               << ": it fails verification in the reference interpreter ("
               << describe(o)
               << "); this is a collc bug, please report it with this spec",
           finding);
    return failure();
  }
  double seconds = countVerified(stats, runs.size(), start);
  if (report)
    *report << llvm::formatv("verified the {0} program of @{1}: {2} "
                             "simulations in {3:F1} ms\n",
                             stringifyEncoding(program.getEncoding()),
                             collective.getSymName(), runs.size(),
                             seconds * 1e3);
  return success();
}
