//===- manifest.h - reading and checking a collc module file ----*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The one reader of the module file (docs/module-format.md): the runtime
/// loads modules with it and `collc --validate-module` checks them with it,
/// so every check on a module lives here once. Plain C++17 and nlohmann/json
/// only (library collc_manifest), built without exceptions: a corrupt file
/// is an error message, never an abort. The writer is the compiler's
/// (compiler/lib/Target/Module/ModuleFile.cpp).
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_RUNTIME_SRC_MANIFEST_H
#define COLLC_RUNTIME_SRC_MANIFEST_H

#include "collc/collc.h"
#include "collc/device/snac/abi.h"
#include "collc/vocab.h"

#include <cstddef>
#include <algorithm>
#include <string>
#include <vector>

namespace collc {

/// The format this reader reads (and the compiler writes).
inline constexpr int kModuleFormatVersion = 1;
inline constexpr const char *kModuleFormatName = "collc-module";

using vocab::Layout;
using vocab::Root;

/// One transform of a collective, from the manifest.
struct TransformInfo {
  bool reduce = false;
  collcRedOp_t op = collcSum;
  Layout in = Layout::Packed, out = Layout::Packed;
  bool variable = false;
  Root root = Root::None;
  /// The transform in the vocabulary's terms (the layout algebra's input).
  vocab::Transform shape() const {
    return {reduce ? vocab::Consume::Reduce : vocab::Consume::Copy, in, out,
            root};
  }
};

struct CollectiveInfo {
  std::string name;
  std::vector<TransformInfo> parts;
  std::vector<std::string> roles, readyEvents, freeEvents;
  bool rooted() const {
    for (const TransformInfo &t : parts)
      if (t.root != Root::None)
        return true;
    return false;
  }
};

/// A program kernel's `program` object (abi.h "Programs",
/// docs/module-format.md).
struct ProgramInfo {
  std::string variant;
  int encoding = COLLC_ENCODING_FLAG; // COLLC_ENCODING_*
  /// Inclusive bounds on the bytes of a rank's input this program serves.
  unsigned long long bandLo = 0, bandHi = 0;
  int slots = 0;
  unsigned long long regionBytes = 0, rxBytes = 0;
  int rxFill = 0, counterWords = 0;
  bool inputPacked = true;
  /// How a rooted call's sizes become the program's (vocab::programSize).
  vocab::Root root = vocab::Root::None;
  /// Speculative takes (informative: the kernel is compiled with it).
  bool speculate = false;
  /// Payload bytes per CTA, partition and step of a chunked program; 0: the
  /// band's top bounds a region.
  unsigned long long chunk = 0;
  /// Chunked: the ranks agree on a call's steps on the device (two more
  /// words per CTA in each region: collcRxChunkedWords).
  bool agree = false;
  /// Chunked: each pair of ranks runs its own steps (policy pairs); its
  /// counters hold a word per CTA and peer after the call counters.
  bool pairs = false;
  /// Pairs: a pair whose larger count is at most this many bytes exchanges
  /// by LL16 in one step, in an area after the regions (0: none).
  long long pairLL16 = 0;
  /// Zero-copy programs: the user buffers a call must have registered
  /// (kRegisteredInput | kRegisteredOutput); 0 for every other program.
  unsigned registered = 0;
  static constexpr unsigned kRegisteredInput = 1, kRegisteredOutput = 2;
  /// In-switch programs (variant "multimem", sm_90+): the registered
  /// buffers must be bound to multicast objects (collcMulticastParams); no
  /// receive buffer. Routed only where programRoutable says so.
  bool multicast = false;
};

/// The manifest spelling of a COLLC_ENCODING_* ("ll16"), "?" if none.
const char *encodingName(int encoding);

struct KernelInfo {
  std::string name, target, collective, elementType;
  int elementBytes = 0, worldSize = 0, grid = 0, threads = 0;
  /// World sizes its parameters hold (peer pointers, size vector): the
  /// world size, or more for a kernel that serves several (`capacity`; the
  /// launch pads the parameters with zeros). Such a kernel is listed once
  /// per world size, under one name.
  int capacity = 0;
  /// The call types it also serves (`serves`: a copy's "bytes" kernel
  /// serves every type of its collective), their counts scaled to its
  /// elements by the runtime.
  std::vector<std::string> serves;
  bool servesType(const std::string &type) const {
    return elementType == type ||
           std::find(serves.begin(), serves.end(), type) != serves.end();
  }
  bool pdl = false;
  /// A SNAC v2 program (collcProgramParams), not an ABI 2 kernel.
  bool isProgram = false;
  ProgramInfo program;
  long long chunkBytes = 0;
  int slots = 0, readyEvents = 0, freeEvents = 0;
  unsigned long long stagingBytes = 0, intermediateBytes = 0;
  unsigned long long eventWords = 0, stateWords = 0;
};

/// A variant as COLLC_FORCE_VARIANT and policy tables name it: "v1" (the
/// schedule's kernel), "<variant>:<encoding>" (e.g. "one_shot:ll16"; with
/// registered buffers its zero-copy twin where it has one), or
/// "<variant>:<encoding>:staged" (its staged programs only: with registered
/// buffers the staged program can be the faster one).
struct VariantName {
  bool v1 = false;
  std::string variant;
  int encoding = COLLC_ENCODING_FLAG; // COLLC_ENCODING_*
  bool staged = false;
  /// Whether program `g` is this variant (never for v1).
  bool names(const ProgramInfo &g) const {
    return !v1 && g.variant == variant && g.encoding == encoding &&
           !(staged && g.registered);
  }
  std::string spelling() const;
};

/// Parses a variant name; false for anything but the forms above.
bool parseVariantName(const std::string &text, VariantName &out);

/// One interval of a policy table's selection: the variant that serves
/// the calls whose selection bytes (a rank's input bytes; runtime.h,
/// selectionBytes) are at most `upto` and above the interval before it.
struct PolicyChoice {
  /// Inclusive; kUnbounded for the last interval.
  long long upto = 0;
  VariantName variant;
  static constexpr long long kUnbounded = 0x7fffffffffffffffll;
};

/// One entry of a policy table (docs/module-format.md, "Policy tables"):
/// which variant serves each size of one collective, on one target, at one
/// rank count, with ordinary or registered buffers, as a calibration run
/// measured it.
struct PolicyEntry {
  std::string target, collective;
  int ranks = 0;
  bool registered = false;
  std::vector<PolicyChoice> select;
};

struct Image {
  std::string target, kind, data; // data decoded
  int capability = 0;
  /// What the image holds: a "cubin" or "ptx" image itself, a "fatbin" what
  /// its `contents` list.
  bool hasCubin = false, hasPtx = false;
};

/// What a module file says, images decoded and checked against their hashes.
struct Manifest {
  std::string specFile, specHash;
  /// `targets` (empty when a loaded file has none: see ManifestCheck::Whole).
  std::vector<std::string> targets;
  std::vector<CollectiveInfo> collectives;
  std::vector<KernelInfo> kernels;
  std::vector<Image> images;
  /// The module's policy table (`policy_table`, from `collc
  /// --policy-table`): when present, every program's band is what it can
  /// serve (bands of a collective's variants may overlap) and the table
  /// chooses among them.
  bool hasPolicyTable = false;
  std::vector<PolicyEntry> policy;
  /// The kernels record device timelines (`device_trace`: collc
  /// --device-trace; trace.cuh).
  bool deviceTrace = false;
  const CollectiveInfo *findCollective(const std::string &name) const;
  /// The table's entry for these, or null.
  const PolicyEntry *policyFor(const std::string &target, int ranks,
                               const std::string &collective,
                               bool registered) const;
  /// The image a device of compute capability `cc` (major * 10 + minor)
  /// runs: one with a cubin built for exactly that capability; else one
  /// with a cubin of the same major built for a lower minor (binary
  /// compatible; an 'a' or 'f' target's cubin runs on its own architecture
  /// alone); else one with the PTX of the highest target not above `cc`
  /// (the driver JIT-compiles it); else null.
  const Image *imageFor(int cc) const;
};

/// How much of a module file to check.
enum class ManifestCheck {
  /// What running it needs (the runtime): the format and ABI versions, every
  /// field that is read with its type, the receive-buffer facts of programs
  /// against abi.h's formulas, every image's encoding and hash.
  Load,
  /// Load, and that the file is whole (`collc --validate-module`): the
  /// `compiler` and `targets` fields, an image for every target, every
  /// kernel an entry of its target's PTX where that is stored as text (a
  /// fatbin's is compressed), a program variant this collc knows.
  Whole,
};

/// Why a module file was refused.
struct ManifestProblem {
  /// What is wrong and where ("kernels[0].program: slots is 1, ..."); empty
  /// when the file passed.
  std::string message;
  /// Whether a field of the manifest is wrong (the caller says how to check
  /// the file) rather than the file as a whole: empty, not JSON, not a
  /// module or of another version (the message says what to do).
  bool corrupt = false;
  explicit operator bool() const { return !message.empty(); }
};

/// Reads the module file `data[0, bytes)` into `out`. `reader` names who
/// reads it in version messages ("collc", "runtime").
ManifestProblem readManifest(const char *data, size_t bytes, Manifest &out,
                             ManifestCheck check, const char *reader);

/// Reads a policy table (the JSON document `collc-bench --calibrate`
/// writes; docs/module-format.md, "Policy tables") from `data[0, bytes)`:
/// its format and version, the calibration's facts (machine, GPU, driver,
/// date, method), and every entry: target, ranks, collective, buffers,
/// fits, and a selection of increasing bounds whose last is unbounded. An
/// empty string when valid, else what is wrong, after `where` (the file:
/// "FILE: entries[2].select[0]: ...").
std::string readPolicyTable(const char *data, size_t bytes,
                            std::vector<PolicyEntry> &out,
                            const std::string &where);

/// Lower-case hex SHA-256 (FIPS 180-4) of `data` (sha256.cpp): images are
/// hashed with it when written and checked with it when read.
std::string sha256Hex(const std::string &data);

/// Standard base64 with padding, as cubin images are stored.
std::string encodeBase64(const std::string &in);
/// Decodes standard base64 with its padding; false on anything else.
bool decodeBase64(const std::string &in, std::string &out);

} // namespace collc

#endif // COLLC_RUNTIME_SRC_MANIFEST_H
