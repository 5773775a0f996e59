//===- CommonEnums.cpp - enums coll and snac share --------------*- C++ -*-===//
//
// The one place where the IR's enums are tied to collc/vocab.h: a value
// changed on either side fails to compile here.
//
//===----------------------------------------------------------------------===//

#include "collc/Dialect/Common/IR/CommonEnums.h"

#include "llvm/ADT/StringSwitch.h"

#include "collc/Dialect/Common/IR/CommonEnums.cpp.inc"

using namespace collc;
using namespace collc::common;

namespace {
template <class E> constexpr int v(E e) { return static_cast<int>(e); }
} // namespace

// A fixed layout has the vocabulary's value; its V form follows the three
// fixed ones in the same order.
static_assert(v(Layout::packed) == v(vocab::Layout::Packed) &&
                  v(Layout::scattered) == v(vocab::Layout::Scattered) &&
                  v(Layout::transposed) == v(vocab::Layout::Transposed),
              "common::Layout must match vocab::Layout");
constexpr int kFixedLayouts = vocab::EnumCount<vocab::Layout>::value;
static_assert(v(Layout::packed_v) == v(Layout::packed) + kFixedLayouts &&
                  v(Layout::scattered_v) == v(Layout::scattered) + kFixedLayouts &&
                  v(Layout::transposed_v) ==
                      v(Layout::transposed) + kFixedLayouts,
              "a V layout is its fixed layout + the number of fixed layouts");
static_assert(v(ConsumeOp::copy) == v(vocab::Consume::Copy) &&
                  v(ConsumeOp::reduce) == v(vocab::Consume::Reduce) &&
                  getMaxEnumValForConsumeOp() + 1 ==
                      vocab::EnumCount<vocab::Consume>::value,
              "common::ConsumeOp must match vocab::Consume");
static_assert(v(Root::none) == v(vocab::Root::None) &&
                  v(Root::producer) == v(vocab::Root::Producer) &&
                  v(Root::consumer) == v(vocab::Root::Consumer) &&
                  getMaxEnumValForRoot() + 1 ==
                      vocab::EnumCount<vocab::Root>::value,
              "common::Root must match vocab::Root");
static_assert(v(Reduction::sum) == v(vocab::RedOp::Sum) &&
                  v(Reduction::max) == v(vocab::RedOp::Max) &&
                  v(Reduction::min) == v(vocab::RedOp::Min) &&
                  v(Reduction::avg) == v(vocab::RedOp::Avg) &&
                  getMaxEnumValForReduction() + 1 ==
                      vocab::EnumCount<vocab::RedOp>::value,
              "common::Reduction must match vocab::RedOp");

vocab::Layout common::toVocab(Layout layout) {
  return static_cast<vocab::Layout>(v(layout) % kFixedLayouts);
}

vocab::RedOp common::toVocab(Reduction r) {
  return static_cast<vocab::RedOp>(v(r));
}

vocab::Consume common::toVocab(ConsumeOp c) {
  return static_cast<vocab::Consume>(v(c));
}

vocab::Root common::toVocab(Root r) { return static_cast<vocab::Root>(v(r)); }
