//===- PolicyTable.cpp - a calibration's policy table in a module -*- C++ -*-===//
//
// `collc --policy-table=FILE`: the table a calibration run wrote
// (docs/module-format.md, "Policy tables") is read with the runtime's
// reader, checked against the programs the passes derived, before any code
// is compiled, and baked into the module verbatim (module::write), where
// the runtime's reader checks it again against the kernels.
//
//===----------------------------------------------------------------------===//

#include "collc/Target/Module/ModuleFile.h"

#include "collc/Dialect/Coll/IR/CollOps.h"
#include "collc/Dialect/Snac/IR/SnacOps.h"

#include "llvm/ADT/STLExtras.h"

// The runtime's table reader (policy.cpp).
#include "manifest.h"

using namespace mlir;
using namespace collc;

LogicalResult module::readPolicyTable(llvm::StringRef path,
                                      llvm::StringRef text,
                                      std::vector<PolicyEntry> &entries,
                                      std::string &error) {
  error = collc::readPolicyTable(text.data(), text.size(), entries,
                                 path.str());
  return success(error.empty());
}

LogicalResult module::checkPolicyTable(ModuleOp module, llvm::StringRef path,
                                       llvm::ArrayRef<PolicyEntry> entries) {
  const std::vector<std::string> targets = [&] {
    std::vector<std::string> t;
    for (StringRef name : coll::CollDialect::getTargets(module))
      t.push_back(name.str());
    return t;
  }();
  for (auto [i, e] : llvm::enumerate(entries)) {
    std::string where =
        (path + ": entries[" + llvm::Twine(i) + "]").str();
    auto collective = module.lookupSymbol<coll::CollectiveOp>(e.collective);
    if (!collective)
      return module.emitError()
             << where << " names collective '" << e.collective
             << "', which this spec does not define; the table was made for "
                "another spec";
    // A table may hold targets this module is not built for (it is one
    // machine's calibration): those entries are never consulted.
    if (!llvm::is_contained(targets, e.target))
      continue;
    if (!llvm::is_contained(collective.getWorldSizes(), (int64_t)e.ranks))
      return collective.emitError()
             << where << " is for " << e.ranks << " ranks, which @"
             << collective.getSymName() << " is not compiled for";
    bool hasSchedule = llvm::any_of(
        module.getOps<snac::ScheduleOp>(), [&](snac::ScheduleOp s) {
          return s.getCollective() == collective.getSymName();
        });
    int64_t lo = 0;
    for (auto [j, choice] : llvm::enumerate(e.select)) {
      const std::string name = choice.variant.spelling();
      const std::string range =
          "[" + std::to_string(lo) + ", " +
          (choice.upto == PolicyChoice::kUnbounded ? std::string("any")
                                                   : std::to_string(choice.upto)) +
          "]";
      auto bad = [&] {
        return collective.emitError()
               << where << ".select[" << j << "] selects " << name << " for "
               << range << " bytes of input, but ";
      };
      if (choice.variant.v1) {
        if (!hasSchedule)
          return bad() << "@" << collective.getSymName()
                       << " has no v1 schedule";
      } else {
        bool found = false;
        for (auto program : module.getOps<snac::ProgramOp>()) {
          snac::PolicyAttr p = program.getPolicy();
          if (program.getCollective() != collective.getSymName() ||
              snac::stringifyVariant(program.getVariant()) !=
                  choice.variant.variant ||
              snac::stringifyEncoding(p.getEncoding()) !=
                  encodingName(choice.variant.encoding) ||
              // A zero-copy twin serves registered buffers, never as
              // "<variant>:<encoding>:staged".
              (program.isZeroCopy() &&
               (!e.registered || choice.variant.staged)))
            continue;
          found = true;
          if (p.getBandLo() > lo || p.getBandHi() < choice.upto)
            return bad() << "its band is [" << p.getBandLo() << ", "
                         << p.getBandHi()
                         << "] (the spec's policy sets a program's top: "
                            "one_hop_max_bytes, two_shot_max_bytes)";
        }
        if (!found)
          return bad() << "the spec derives no such program for @"
                       << collective.getSymName()
                       << (e.registered ? "" : " with ordinary buffers");
      }
      if (choice.upto != PolicyChoice::kUnbounded)
        lo = choice.upto + 1;
    }
  }
  return success();
}
