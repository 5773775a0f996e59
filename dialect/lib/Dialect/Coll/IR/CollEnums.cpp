//===- CollEnums.cpp - layout algebra, types, targets, policy ---*- C++ -*-===//
//
// The tables every layer agrees on: which transforms are collectives, which
// element types and targets collc supports, which policy keys exist.
//
//===----------------------------------------------------------------------===//

#include "collc/Dialect/Coll/IR/CollEnums.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace collc::coll {

bool isVariable(Layout layout) {
  return layout == Layout::packed_v || layout == Layout::scattered_v ||
         layout == Layout::transposed_v;
}

Layout fixedLayout(Layout layout) {
  switch (layout) {
  case Layout::packed_v:
    return Layout::packed;
  case Layout::scattered_v:
    return Layout::scattered;
  case Layout::transposed_v:
    return Layout::transposed;
  default:
    return layout;
  }
}

namespace {
struct LegalTransform {
  ConsumeOp consume;
  Layout input, output;
  llvm::ArrayRef<Root> roots;
};
} // namespace

static const Root kNoneOrConsumer[] = {Root::none, Root::consumer};
static const Root kProducer[] = {Root::producer};
static const Root kNone[] = {Root::none};

// Purlin 3.1 and appendix A.1, plus the one-shot forms (every rank reads
// every peer's whole buffer) that the latency regime wants.
static const LegalTransform kLegalTransforms[] = {
    // AllGather / Gather.
    {ConsumeOp::copy, Layout::packed, Layout::scattered, kNoneOrConsumer},
    // Scatter.
    {ConsumeOp::copy, Layout::scattered, Layout::packed, kProducer},
    // AllToAll.
    {ConsumeOp::copy, Layout::scattered, Layout::transposed, kNone},
    // One-shot Broadcast.
    {ConsumeOp::copy, Layout::packed, Layout::packed, kProducer},
    // ReduceScatter.
    {ConsumeOp::reduce, Layout::scattered, Layout::packed, kNone},
    // One-shot AllReduce / one-shot Reduce.
    {ConsumeOp::reduce, Layout::packed, Layout::packed, kNoneOrConsumer},
};

ArrayRef<Root> legalRoots(ConsumeOp consume, Layout input, Layout output) {
  input = fixedLayout(input);
  output = fixedLayout(output);
  for (const LegalTransform &t : kLegalTransforms)
    if (t.consume == consume && t.input == input && t.output == output)
      return t.roots;
  return {};
}

std::string legalPairsText(ConsumeOp consume) {
  std::string text;
  for (const LegalTransform &t : kLegalTransforms) {
    if (t.consume != consume)
      continue;
    if (!text.empty())
      text += ", ";
    text += (stringifyLayout(t.input) + " -> " + stringifyLayout(t.output)).str();
  }
  return text;
}

bool isSupportedElementType(Type type) {
  return type.isBF16() || type.isF16() || type.isF32() ||
         isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

std::string elementTypeSpelling(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return "f8e4m3";
  if (isa<Float8E5M2Type>(type))
    return "f8e5m2";
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

Type parseElementTypeSpelling(MLIRContext *ctx, StringRef name) {
  return llvm::StringSwitch<Type>(name)
      .Case("bf16", BFloat16Type::get(ctx))
      .Case("f16", Float16Type::get(ctx))
      .Case("f32", Float32Type::get(ctx))
      .Case("f8e4m3", Float8E4M3FNType::get(ctx))
      .Case("f8e5m2", Float8E5M2Type::get(ctx))
      .Default(Type());
}

StringRef supportedElementTypesText() {
  return "bf16, f16, f32, f8e4m3, f8e5m2";
}

// What NVRTC 13 can target and collc has a datapath for. The `a` variants
// (arch-specific features such as wgmma/setmaxnreg) exist from sm_90; the
// `f` (family) variants from sm_100.
static const char *const kTargets[] = {
    "sm_75",  "sm_80",   "sm_86",   "sm_87",   "sm_89",   "sm_90",
    "sm_90a", "sm_100",  "sm_100a", "sm_100f", "sm_103",  "sm_103a",
    "sm_103f", "sm_120", "sm_120a", "sm_120f"};

bool isSupportedTarget(StringRef target) {
  return llvm::is_contained(kTargets, target);
}

StringRef supportedTargetsText() {
  static const std::string text = [] {
    std::string s;
    for (const char *t : kTargets) {
      if (!s.empty())
        s += ", ";
      s += t;
    }
    return s;
  }();
  return text;
}

namespace {
enum class PolicyKind { Integer, PowerOfTwo, Choice, NotImplemented };
struct PolicyKey {
  const char *name;
  PolicyKind kind;
  int64_t min, max;             // For integers: the inclusive range.
  const char *const *choices;   // For choices: null-terminated list.
  const char *doc;              // NotImplemented: why it is refused.
};
} // namespace

// Only what changes the generated code is accepted: a key that did nothing
// would let a user tune a knob that is not connected. Keys the performance
// work will bring back are refused with the reason until each has an effect.
// `protocol` is the readiness encoding of the programs (SNAC v2; the
// schedules keep flag readiness): `auto` lets the derivation pick per band.
// `ll` is the older spelling of `ll16`.
static const char *const kProtocolChoices[] = {"auto", "flag", "ll16",
                                               "sentinel", "ll", nullptr};
// `multimem`: the in-switch program of an AllReduce, ReduceScatter or
// AllGather (collc --enable-multimem derives it for every one that does not
// say `off`; `on` insists, and is an error where it cannot be derived).
static const char *const kOnOffChoices[] = {"on", "off", nullptr};

static const PolicyKey kPolicyKeys[] = {
    {"ctas", PolicyKind::Integer, 1, 1024, nullptr,
     "CTA budget per kernel"},
    {"chunk_bytes", PolicyKind::PowerOfTwo, 1, int64_t(1) << 30, nullptr,
     "bytes per SNAC chunk"},
    {"staging_slots", PolicyKind::Integer, 1, 1 << 20, nullptr,
     "chunk slots per staging partition"},
    {"protocol", PolicyKind::Choice, 0, 0, kProtocolChoices,
     "readiness encoding of the programs"},
    // The `hi` of the one-shot programs' band (0: no program).
    {"one_hop_max_bytes", PolicyKind::Integer, 0, int64_t(1) << 30, nullptr,
     "largest input, in bytes, of a one-shot program"},
    // The `hi` of the two-shot AllReduce band (0: no two-shot program).
    {"two_shot_max_bytes", PolicyKind::Integer, 0, int64_t(1) << 30, nullptr,
     "largest input, in bytes, of a two-shot program"},
    // The chunk of the chunked programs (0: none), docs/snac.md.
    {"stream_chunk_bytes", PolicyKind::Integer, 0, int64_t(1) << 24, nullptr,
     "payload bytes per CTA, partition and step of a chunked program"},
    {"multimem", PolicyKind::Choice, 0, 0, kOnOffChoices,
     "the in-switch (NVLink SHARP) program, with collc --enable-multimem"},
    {"pipeline_stages", PolicyKind::NotImplemented, 0, 0, nullptr,
     "the device code picks its pipeline depth from shared memory"},
    {"ll_max_bytes", PolicyKind::NotImplemented, 0, 0, nullptr,
     "the encoding is chosen per program by 'protocol', the program's band "
     "by 'one_hop_max_bytes'"},
    {"path", PolicyKind::NotImplemented, 0, 0, nullptr,
     "the path follows from the call's size: one-shot programs up to "
     "'one_hop_max_bytes', the schedule above"},
    {"direction", PolicyKind::NotImplemented, 0, 0, nullptr,
     "collc derives one direction of data movement"},
};

static const PolicyKey *findPolicyKey(StringRef key) {
  for (const PolicyKey &k : kPolicyKeys)
    if (key == k.name)
      return &k;
  return nullptr;
}

bool isKnownPolicyKey(StringRef key) {
  const PolicyKey *k = findPolicyKey(key);
  return k && k->kind != PolicyKind::NotImplemented;
}

StringRef knownPolicyKeysText() {
  static const std::string text = [] {
    std::string s;
    for (const PolicyKey &k : kPolicyKeys) {
      if (k.kind == PolicyKind::NotImplemented)
        continue;
      if (!s.empty())
        s += ", ";
      s += k.name;
    }
    return s;
  }();
  return text;
}

static std::string choicesText(const char *const *choices) {
  std::string s;
  for (; *choices; ++choices) {
    if (!s.empty())
      s += ", ";
    s += *choices;
  }
  return s;
}

std::optional<std::string> checkPolicyEntry(StringRef key, Attribute value,
                                            StringRef spelling) {
  const PolicyKey *found = findPolicyKey(key);
  if (!found)
    return ("unknown policy key '" + key + "'; known keys: " +
            knownPolicyKeysText())
        .str();
  const PolicyKey &k = *found;
  if (k.kind == PolicyKind::NotImplemented)
    return ("policy key '" + key + "' is not implemented yet: " + k.doc +
            "; remove the key")
        .str();
  if (k.kind == PolicyKind::Choice) {
    auto str = dyn_cast<StringAttr>(value);
    if (str) {
      for (const char *const *c = k.choices; *c; ++c)
        if (str.getValue() == *c)
          return std::nullopt;
    }
    return ("policy '" + key + "' expects one of " + choicesText(k.choices))
        .str();
  }
  auto integer = dyn_cast<IntegerAttr>(value);
  if (!integer)
    return ("policy '" + key + "' expects an integer").str();
  // IR may carry a wider integer (an i128): out of range, never a crash in
  // getInt(). The spec parser passes the spelling of a literal too large
  // for 64 bits.
  SmallString<24> wide;
  int64_t v = INT64_MAX;
  if (integer.getValue().getSignificantBits() <= 64)
    v = integer.getValue().getSExtValue();
  else if (spelling.empty())
    integer.getValue().toStringSigned(wide), spelling = wide;
  if (key == "staging_slots" && v == 0 && spelling.empty())
    return std::string("policy 'staging_slots = 0' (one slot per chunk) is "
                       "not implemented yet: the CUDA backend needs a "
                       "bounded staging ring; use a value in [1, ") +
           std::to_string(k.max) + "]";
  if (!spelling.empty())
    return ("policy '" + key + "' value " + spelling +
            " is out of range; it must be in [" + Twine(k.min) + ", " +
            Twine(k.max) + "]")
        .str();
  if (v < k.min || v > k.max)
    return ("policy '" + key + "' must be in [" + Twine(k.min) + ", " +
            Twine(k.max) + "], got " + Twine(v))
        .str();
  if (k.kind == PolicyKind::PowerOfTwo && !llvm::isPowerOf2_64(v))
    return ("policy '" + key + "' must be a power of two, got " + Twine(v))
        .str();
  return std::nullopt;
}

} // namespace collc::coll
