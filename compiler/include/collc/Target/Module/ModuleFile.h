//===- ModuleFile.h - the collc module file ---------------------*- C++ -*-===//
//
// One self-describing file per spec: a JSON document (readable with jq or
// any JSON tool) holding the manifest — collectives, kernels and their ABI,
// element types, world sizes, workspace needs, policy, targets, compiler
// version, the spec's hash — and one compressed fat binary (base64) per
// target: its cubin, plus PTX for the newest target (forward compatibility),
// each with its SHA-256. docs/module-format.md specifies it.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_TARGET_MODULE_MODULEFILE_H
#define COLLC_TARGET_MODULE_MODULEFILE_H

#include "collc/Target/Cuda/Nvrtc.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace collc {
struct PolicyEntry; // runtime/src/manifest.h
} // namespace collc

namespace collc::module {

/// What one target contributes to a module.
struct TargetImage {
  cuda::Target target;
  /// The compressed fat binary: the cubin, and PTX when `withPtx`.
  std::string fatbin;
  bool withPtx = false;
  std::vector<cuda::KernelInfo> kernels;
  std::vector<cuda::ResourceUsage> resources;
};

/// Writes the module file of `module` (coll + derived snac) to `os`.
/// `specText` is the spec's source, hashed into the manifest;
/// `policyTable`, when not empty, the text of a policy table read by
/// readPolicyTable, stored as the manifest's `policy_table`;
/// `deviceTrace`: the kernels were compiled with --device-trace (the
/// manifest's `device_trace`, written only when true).
void write(mlir::ModuleOp module, llvm::StringRef specName,
           llvm::StringRef specText, const std::vector<TargetImage> &images,
           llvm::raw_ostream &os, llvm::StringRef policyTable = "",
           bool deviceTrace = false);

/// Reads the policy table `text` of file `path` with the runtime's reader
/// (docs/module-format.md, "Policy tables"); on failure `error` says what
/// is wrong and where ("PATH: entries[2].select[0]: ...").
mlir::LogicalResult readPolicyTable(llvm::StringRef path, llvm::StringRef text,
                                    std::vector<PolicyEntry> &entries,
                                    std::string &error);

/// Checks a policy table against the programs derived for `module`, before
/// any code is compiled: every collective it names is the spec's, and for
/// each of the module's targets every variant it selects is a program of
/// the collective (or its v1 schedule) whose band holds the sizes it is
/// selected for. Errors point at the spec's collective.
mlir::LogicalResult checkPolicyTable(mlir::ModuleOp module,
                                     llvm::StringRef path,
                                     llvm::ArrayRef<PolicyEntry> entries);

/// Checks a module file with the runtime's reader (runtime/src/manifest.h,
/// ManifestCheck::Whole): the format name and version, the required fields
/// and their types, programs against abi.h, every image's hash, an image
/// for every target, and that every kernel is in its target's PTX where a
/// PTX image is stored as text (a fatbin's is compressed: the runtime checks
/// its kernels when it loads it). Returns an empty string when valid,
/// else what is wrong (and where). `summary` gets a one-line description
/// when valid.
std::string validate(llvm::StringRef bytes, std::string *summary = nullptr);

} // namespace collc::module

#endif // COLLC_TARGET_MODULE_MODULEFILE_H
