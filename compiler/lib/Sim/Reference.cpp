//===- Reference.cpp - input data and the collective's definition ---------===//
//
// reference() is the executable form of Purlin 3.1 and A.1: it reads the
// layouts and nothing else. Reductions are computed in double and rounded
// once, which is a different computation from the Atom's FP32 accumulation;
// randomInput() picks data on which both are exact before the final
// rounding, so any mismatch the interpreter reports is a schedule bug, not
// an arithmetic artefact.
//
//===----------------------------------------------------------------------===//

#include "ModelInternal.h"

#include <cassert>
#include <cmath>
#include <utility>

using namespace collc::sim;
using namespace collc::sim::detail;

namespace {
/// What decides an input's data, after checking the arguments: whether any
/// part of `coll` reduces, and whether one averages.
std::pair<bool, bool> inputKind(const Collective &coll, int64_t elements) {
  checkCollective(coll);
  assert(elements >= 0 && "negative element count");
  bool reduces = false, averages = false;
  for (const Transform &part : coll.parts) {
    reduces |= part.consume == Consume::Reduce;
    averages |= part.consume == Consume::Reduce && part.op == RedOp::Avg;
  }
  return {reduces, averages};
}
} // namespace

std::vector<uint32_t> collc::sim::randomInput(const Collective &coll,
                                              ElemType type, int64_t elements,
                                              uint64_t seed, int rank) {
  auto [reduces, averages] = inputKind(coll, elements);

  std::vector<uint32_t> data(elements);
  if (!reduces) {
    // Any bit pattern but the poison one: copies must carry NaN payloads,
    // infinities, subnormals and -0.0 unchanged.
    SplitMix64 rng(mixSeed(seed, 2 * uint64_t(uint32_t(rank)) + 1));
    uint32_t mask = poisonBits(type);
    for (uint32_t &bits : data) {
      bits = static_cast<uint32_t>(rng.next()) & mask;
      if (bits == mask)
        bits ^= 1;
    }
    return data;
  }

  // Integers in [-8, 8]: exact in every element type (three significant bits
  // at most, which e5m2 has), and their sums over up to 2^20 ranks are exact
  // in FP32 and in double, so the Atom and the reference round the same
  // value. For avg the stream ignores the rank: all producers contribute the
  // same value at an element, so the mean is that value whatever the number
  // of producers, and the division is exact in FP32 and in double too.
  uint64_t stream = averages ? 0 : 2 * uint64_t(uint32_t(rank)) + 2;
  SplitMix64 rng(mixSeed(seed, stream));
  for (uint32_t &bits : data) {
    uint64_t draw = rng.next();
    int value = static_cast<int>(draw % 17) - 8;
    // Some zeros are -0.0: a sum of -0.0s must stay -0.0.
    double x = value == 0 && (draw >> 32) % 2 ? -0.0 : double(value);
    bits = fromDouble(type, x);
  }
  return data;
}

std::vector<uint32_t> collc::sim::specialInput(const Collective &coll,
                                               ElemType type, int64_t elements,
                                               uint64_t seed, int rank) {
  auto [reduces, averages] = inputKind(coll, elements);
  unsigned bits = elemBits(type);
  uint32_t ones = poisonBits(type);
  unsigned mantissa = type == ElemType::F32    ? 23
                      : type == ElemType::BF16 ? 7
                      : type == ElemType::F16  ? 10
                      : type == ElemType::F8E4M3 ? 3
                                                 : 2;
  uint32_t sign = 1u << (bits - 1);
  uint32_t exponent = (ones & ~sign) & ~((1u << mantissa) - 1);
  bool hasInf = type != ElemType::F8E4M3;
  uint32_t inf = exponent; // e5m2, f16, bf16, f32: exponent all ones, mantissa 0
  auto subnormal = [&](uint64_t draw) {
    uint32_t m = static_cast<uint32_t>(draw) & ((1u << mantissa) - 1);
    return (m ? m : 1u) | ((draw >> 40) & 1 ? sign : 0);
  };
  auto nan = [&](uint64_t draw) {
    // A NaN payload other than all ones (that one is drawn on its own).
    uint32_t m = static_cast<uint32_t>(draw) & ((1u << mantissa) - 1);
    if (type == ElemType::F8E4M3)
      return 0x7Fu | ((draw >> 40) & 1 ? sign : 0);
    uint32_t b = exponent | (m ? m : 1u) | ((draw >> 40) & 1 ? sign : 0);
    return b == ones ? b ^ 1u : b;
  };
  auto small = [&](uint64_t draw) {
    int value = static_cast<int>(draw % 17) - 8;
    return fromDouble(type, value == 0 && (draw >> 32) % 2 ? -0.0
                                                           : double(value));
  };

  std::vector<uint32_t> data(elements);
  if (!reduces) {
    SplitMix64 rng(mixSeed(seed, 2 * uint64_t(uint32_t(rank)) + 101));
    for (uint32_t &out : data) {
      uint64_t draw = rng.next();
      switch (draw % 9) {
      case 0:
        out = ones;
        break;
      case 1:
        out = sign; // -0.0
        break;
      case 2:
        out = nan(draw >> 8);
        break;
      case 3:
        out = hasInf ? inf | ((draw >> 40) & 1 ? sign : 0) : ones;
        break;
      case 4:
        out = subnormal(draw >> 8);
        break;
      case 5: // The largest finite value (e4m3fn: 0x7E, below its NaN).
        out = type == ElemType::F8E4M3 ? 0x7E : (exponent - (1u << mantissa)) |
                                                    ((1u << mantissa) - 1);
        break;
      default:
        out = static_cast<uint32_t>(draw >> 16) & ones;
      }
    }
    return data;
  }

  // The class of element i comes from (seed, i) alone; the value within it
  // from the rank too (not for avg: every rank the same value).
  for (int64_t i = 0; i < elements; ++i) {
    SplitMix64 classRng(mixSeed(seed, 0x5eed0000ull + uint64_t(i)));
    uint64_t kind = classRng.next() % 5;
    SplitMix64 rng(mixSeed(seed, (uint64_t(i) << 20) +
                                     (averages ? 0 : uint64_t(rank) + 1)));
    uint64_t draw = rng.next();
    uint32_t &out = data[i];
    switch (kind) {
    case 0: // Subnormals and signed zeros only: exact sums. An f32 one
            // keeps 16 mantissa bits, so that even 2^20 of them add up below
            // the normal range, where FP32 is still exact.
      out = draw % 3 == 0 ? ((draw >> 8) & 1 ? sign : 0)
                          : subnormal(draw >> 8) &
                                (type == ElemType::F32 ? sign | 0xFFFFu : ~0u);
      if ((out & ~sign) == 0)
        out |= 1;
      break;
    case 1: // Integers and infinities (NaN where they cancel).
      out = hasInf && draw % 3 == 0 ? inf | ((draw >> 8) & 1 ? sign : 0)
                                    : small(draw >> 8);
      break;
    case 2: // Integers and NaNs, the all-ones pattern among them.
      out = draw % 4 == 0   ? ones
            : draw % 4 == 1 ? nan(draw >> 8)
                            : small(draw >> 8);
      break;
    default:
      out = small(draw >> 8);
    }
  }
  return data;
}

/// The exact combination of `values` (rank order), rounded once to `type`.
static uint32_t reduceInDouble(ElemType type, RedOp op,
                               const std::vector<double> &values) {
  assert(!values.empty() && "a reduction needs a contribution");
  // Start from the first value (not +0.0), like atomReduce, so that -0.0
  // sums keep their sign.
  double acc = values.front();
  for (size_t i = 1; i < values.size(); ++i) {
    double x = values[i];
    switch (op) {
    case RedOp::Sum:
    case RedOp::Avg:
      acc += x;
      break;
    case RedOp::Max:
    case RedOp::Min:
      if (beats(op, x, acc))
        acc = x;
      break;
    }
  }
  if (op == RedOp::Avg)
    acc /= double(values.size());
  return fromDouble(type, acc);
}

using RankBuffers = std::vector<std::optional<std::vector<uint32_t>>>;

/// Applies part t to `in` (per rank, nullopt where the previous part left a
/// rank without data) and returns each rank's output, nullopt for ranks that
/// do not consume.
static RankBuffers applyPart(const Collective &coll, const CallArgs &args,
                             int t, ElemType type, const RankBuffers &in) {
  const Transform &part = coll.parts[t];
  int n = args.n;

  // Where each producer's input partitions lie.
  std::vector<BufferGeometry> inGeom(n);
  for (int p = 0; p < n; ++p) {
    inGeom[p] = inputGeometry(coll, args, t, p);
    if (!isProducer(coll, args, t, p))
      continue;
    assert(in[p] && "a producer has no input (previous part skipped it)");
    assert(in[p]->size() == static_cast<size_t>(inGeom[p].total) &&
           "input does not match its geometry");
  }
  // Bits of partition `k` of producer p's input.
  auto source = [&](int p, int k) {
    const Partition &partition = inGeom[p].parts[k];
    return llvm::ArrayRef<uint32_t>(*in[p]).slice(partition.offset,
                                                  partition.size);
  };

  RankBuffers out(n);
  for (int r = 0; r < n; ++r) {
    if (!isConsumer(coll, args, t, r))
      continue;
    BufferGeometry outGeom = outputGeometry(coll, args, t, r);
    int q = part.in == Layout::Packed ? 0 : r;
    std::vector<uint32_t> result;
    result.reserve(outGeom.total);

    if (part.out != Layout::Packed) {
      // Region p holds source p's partition q(r), bit for bit.
      for (int p = 0; p < n; ++p) {
        llvm::ArrayRef<uint32_t> bits = source(p, q);
        result.insert(result.end(), bits.begin(), bits.end());
      }
    } else if (part.consume == Consume::Copy) {
      llvm::ArrayRef<uint32_t> bits = source(args.root, q);
      result.assign(bits.begin(), bits.end());
    } else {
      std::vector<int> producers;
      for (int p = 0; p < n; ++p)
        if (isProducer(coll, args, t, p))
          producers.push_back(p);
      std::vector<double> values(producers.size());
      for (int64_t i = 0; i < outGeom.total; ++i) {
        for (size_t j = 0; j < producers.size(); ++j)
          values[j] = toDouble(type, source(producers[j], q)[i]);
        result.push_back(reduceInDouble(type, part.op, values));
      }
    }
    assert(result.size() == static_cast<size_t>(outGeom.total) &&
           "result does not match the output geometry");
    out[r] = std::move(result);
  }
  return out;
}

std::vector<std::optional<std::vector<uint32_t>>>
collc::sim::reference(const Collective &coll, const CallArgs &args,
                      ElemType type,
                      const std::vector<std::vector<uint32_t>> &inputs) {
  checkArgs(coll, args);
  assert(inputs.size() == static_cast<size_t>(args.n) && "one input per rank");
  RankBuffers buffers(inputs.begin(), inputs.end());
  for (int t = 0; t < static_cast<int>(coll.parts.size()); ++t)
    buffers = applyPart(coll, args, t, type, buffers);
  return buffers;
}
