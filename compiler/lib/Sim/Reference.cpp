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

using namespace collc::sim;
using namespace collc::sim::detail;

std::vector<uint32_t> collc::sim::randomInput(const Collective &coll,
                                              ElemType type, int64_t elements,
                                              uint64_t seed, int rank) {
  checkCollective(coll);
  assert(elements >= 0 && "negative element count");
  bool reduces = false, averages = false;
  for (const Transform &part : coll.parts) {
    reduces |= part.consume == Consume::Reduce;
    averages |= part.consume == Consume::Reduce && part.op == RedOp::Avg;
  }

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
