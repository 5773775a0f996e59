//===- Elements.cpp - element types and the Atom's reduction --------------===//
//
// Conversions go through APFloat so that every format, the 8-bit ones
// included, rounds exactly as IEEE 754 says without hand-written bit tricks.
// The FP32 accumulation of atomReduce uses native float arithmetic: on the
// hosts we build for (x86-64 SSE, AArch64) float operations are IEEE single
// precision with round-to-nearest-even, which is exactly what the device
// does, and they are far cheaper than APFloat in the interpreter's inner loop.
//
//===----------------------------------------------------------------------===//

#include "collc/Sim/Model.h"
#include "ModelInternal.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"
#include "llvm/Support/ErrorHandling.h"

#include <cassert>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace collc::sim;

// The FP32 accumulator must really be FP32: no x87 excess precision.
static_assert(std::numeric_limits<float>::is_iec559, "need IEEE floats");
static_assert(FLT_EVAL_METHOD == 0, "float expressions must round to float");

static const llvm::fltSemantics &semantics(ElemType type) {
  switch (type) {
  case ElemType::BF16:
    return llvm::APFloat::BFloat();
  case ElemType::F16:
    return llvm::APFloat::IEEEhalf();
  case ElemType::F32:
    return llvm::APFloat::IEEEsingle();
  case ElemType::F8E4M3:
    return llvm::APFloat::Float8E4M3FN();
  case ElemType::F8E5M2:
    return llvm::APFloat::Float8E5M2();
  }
  llvm_unreachable("unknown element type");
}

unsigned collc::sim::elemBits(ElemType type) {
  switch (type) {
  case ElemType::BF16:
  case ElemType::F16:
    return 16;
  case ElemType::F32:
    return 32;
  case ElemType::F8E4M3:
  case ElemType::F8E5M2:
    return 8;
  }
  llvm_unreachable("unknown element type");
}

const char *collc::sim::elemName(ElemType type) {
  switch (type) {
  case ElemType::BF16:
    return "bf16";
  case ElemType::F16:
    return "f16";
  case ElemType::F32:
    return "f32";
  case ElemType::F8E4M3:
    return "f8e4m3";
  case ElemType::F8E5M2:
    return "f8e5m2";
  }
  llvm_unreachable("unknown element type");
}

static uint32_t elemMask(ElemType type) {
  unsigned bits = elemBits(type);
  return bits == 32 ? ~0u : (1u << bits) - 1;
}

static llvm::APFloat toAPFloat(ElemType type, uint32_t bits) {
  assert((bits & ~elemMask(type)) == 0 && "bits wider than the element type");
  return llvm::APFloat(semantics(type), llvm::APInt(elemBits(type), bits));
}

/// Converts between formats with round-to-nearest-even. Every supported
/// element type widens exactly into FP32 and double.
static llvm::APFloat convert(llvm::APFloat value,
                             const llvm::fltSemantics &to) {
  bool losesInfo = false;
  value.convert(to, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return value;
}

double collc::sim::toDouble(ElemType type, uint32_t bits) {
  return convert(toAPFloat(type, bits), llvm::APFloat::IEEEdouble())
      .convertToDouble();
}

uint32_t collc::sim::fromDouble(ElemType type, double value) {
  return static_cast<uint32_t>(convert(llvm::APFloat(value), semantics(type))
                                   .bitcastToAPInt()
                                   .getZExtValue());
}

uint32_t collc::sim::poisonBits(ElemType type) {
  // All ones is a NaN in all five formats (e4m3fn's only NaN mantissa is
  // all ones), and it differs from the default NaNs that arithmetic produces
  // (CUDA's 0x7FFFFFFF-like, x86's 0xFFC00000, APFloat's 0x7FC00000), so a
  // computed NaN is never taken for an unwritten slot.
  return elemMask(type);
}

uint32_t collc::sim::canonicalNaN(ElemType type) {
  switch (type) {
  case ElemType::BF16:
    return 0x7FC0;
  case ElemType::F16:
    return 0x7E00;
  case ElemType::F32:
    return 0x7FC00000;
  case ElemType::F8E4M3:
    return 0x7F;
  case ElemType::F8E5M2:
    return 0x7E;
  }
  llvm_unreachable("unknown element type");
}

bool collc::sim::isNaN(ElemType type, uint32_t bits) {
  return toAPFloat(type, bits).isNaN();
}

/// FP32 values of every bit pattern of a 16- or 8-bit type, built once with
/// APFloat: the interpreter decodes each contribution of every reduced
/// element, and a table load is far cheaper than an APFloat conversion.
static const std::vector<float> &decodeTable(ElemType type) {
  auto build = [](ElemType type) {
    std::vector<float> table(size_t(1) << elemBits(type));
    for (uint32_t bits = 0; bits < table.size(); ++bits)
      table[bits] = convert(toAPFloat(type, bits), llvm::APFloat::IEEEsingle())
                        .convertToFloat();
    return table;
  };
  // Function-local statics: built on first use, thread-safe.
  switch (type) {
  case ElemType::F16: {
    static const std::vector<float> table = build(ElemType::F16);
    return table;
  }
  case ElemType::F8E4M3: {
    static const std::vector<float> table = build(ElemType::F8E4M3);
    return table;
  }
  case ElemType::F8E5M2: {
    static const std::vector<float> table = build(ElemType::F8E5M2);
    return table;
  }
  default:
    llvm_unreachable("BF16 and F32 decode by shifting");
  }
}

/// Decodes an element to FP32 exactly (every supported type embeds in FP32).
static float toFloat(ElemType type, uint32_t bits) {
  switch (type) {
  case ElemType::F32:
  case ElemType::BF16: {
    // BF16 is the upper half of an FP32.
    uint32_t wide = type == ElemType::BF16 ? bits << 16 : bits;
    float f;
    static_assert(sizeof(f) == sizeof(wide));
    std::memcpy(&f, &wide, sizeof(f));
    return f;
  }
  default:
    assert((bits & ~elemMask(type)) == 0 && "bits wider than the element type");
    return decodeTable(type)[bits];
  }
}

static uint32_t fromFloat(ElemType type, float value) {
  return static_cast<uint32_t>(convert(llvm::APFloat(value), semantics(type))
                                   .bitcastToAPInt()
                                   .getZExtValue());
}

uint32_t collc::sim::atomReduce(ElemType type, RedOp op,
                                llvm::ArrayRef<uint32_t> contributions) {
  assert(!contributions.empty() && "a reduction needs a contribution");
  float acc = toFloat(type, contributions.front());
  for (uint32_t bits : contributions.drop_front()) {
    float x = toFloat(type, bits);
    switch (op) {
    case RedOp::Sum:
    case RedOp::Avg:
      acc = acc + x;
      break;
    case RedOp::Max:
    case RedOp::Min:
      if (detail::beats(op, x, acc))
        acc = x;
      break;
    }
  }
  if (op == RedOp::Avg)
    acc = acc / static_cast<float>(contributions.size());
  return fromFloat(type, acc);
}
