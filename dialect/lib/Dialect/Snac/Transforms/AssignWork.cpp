//===- AssignWork.cpp - the grid and grain of each program ------*- C++ -*-===//
//
// The work-assignment level of a program: how many CTAs and threads run it
// and how many payload bytes a thread moves per step, decided here from the
// policy and the targets rather than in the printer.
//
//===----------------------------------------------------------------------===//

#include "collc/Dialect/Snac/IR/SnacOps.h"
#include "collc/Dialect/Snac/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

namespace collc::snac {
#define GEN_PASS_DEF_SNACASSIGNWORK
#include "collc/Dialect/Snac/Transforms/Passes.h.inc"
} // namespace collc::snac

using namespace mlir;
using namespace collc::snac;

/// Payload bytes per thread-step: an LL16 packet carries 8 bytes beside its
/// sequence; flag and sentinel move one 16-byte vector; a chunked flag
/// program's thread keeps 8 of them in flight (the Atom's register path: a
/// CTA then moves about 2.4x what one vector in flight does,
/// runtime/include/collc/device/THROUGHPUT.md).
static int64_t grainOf(Encoding encoding, bool chunked) {
  if (encoding == Encoding::flag && chunked)
    return 128;
  return encoding == Encoding::ll16 ? 8 : 16;
}

/// The compute capability of "sm_90a" (90), or none.
static std::optional<unsigned> smVersion(StringRef target) {
  unsigned version;
  if (!target.consume_front("sm_") || target.consumeInteger(10, version))
    return std::nullopt;
  return version;
}

namespace {
struct SnacAssignWorkPass
    : public collc::snac::impl::SnacAssignWorkBase<SnacAssignWorkPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto badThreads = [](int64_t t) {
      return t <= 0 || t % 32 != 0 || t > 1024;
    };
    if (badThreads(threads) || badThreads(chunkedThreads) || maxCtas < 1 ||
        chunkedCtas < 1) {
      module.emitError() << "snac-assign-work: threads and chunked-threads "
                            "must be multiples of 32 up to 1024, max-ctas "
                            "and chunked-ctas at least 1, got "
                         << threads.getValue() << ", "
                         << chunkedThreads.getValue() << ", "
                         << maxCtas.getValue() << " and "
                         << chunkedCtas.getValue();
      return signalPassFailure();
    }
    // PDL (griddepcontrol) exists from sm_90: without any such target there
    // is no dependent launch to place.
    bool anyPdl = targets.empty();
    for (const std::string &target : targets) {
      std::optional<unsigned> sm = smVersion(target);
      if (!sm) {
        module.emitError() << "snac-assign-work: unknown target '" << target
                           << "'; expected sm_<version>, e.g. sm_90a";
        return signalPassFailure();
      }
      anyPdl |= *sm >= 90;
    }
    for (auto program : module.getOps<ProgramOp>()) {
      PolicyAttr p = program.getPolicy();
      int64_t grain =
          p.getGrain() ? p.getGrain() : grainOf(p.getEncoding(), p.isChunked());
      int64_t thr = p.getThreads()       ? p.getThreads()
                    : p.isChunked() ? int64_t(chunkedThreads)
                                         : int64_t(threads);
      // One step of every thread covers the most an op moves: the largest
      // input of the band, or for two-shot (whose ops move one partition)
      // the largest partition, half the input at two ranks.
      int64_t most = p.getBandHi();
      if (program.getVariant() == Variant::two_shot)
        most = llvm::divideCeil(most, 2);
      int64_t ctas = p.getCtas();
      if (!ctas && p.isChunked())
        ctas = chunkedCtas;
      if (!ctas)
        ctas = std::clamp<int64_t>(llvm::divideCeil(most, thr * grain),
                                   std::min<int64_t>(2, maxCtas), maxCtas);
      program.setPolicyAttr(PolicyAttr::get(
          &getContext(), p.getEncoding(), p.getSlots(), p.getBandLo(),
          p.getBandHi(), ctas, thr, grain, p.getPdl() && anyPdl,
          p.getSpeculate(), p.getChunk(), p.getAgree(), p.getPairs(),
          p.getPairLl16()));
    }
  }
};
} // namespace
