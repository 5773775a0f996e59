//===- VocabTest.cpp - collc/vocab.h against independent references -------===//
//
// The vocabulary is the one home of the layout algebra, the v1 workspace
// formulas and the use count; these tests hold it to what does not use it:
// the simulation model (the oracle), abi.h's region sizes, a recount of the
// uses, and the IR's generated enums.
//
//===----------------------------------------------------------------------===//

#include "collc/vocab.h"

#include "collc/Dialect/Coll/IR/CollEnums.h"
#include "collc/Dialect/Snac/IR/SnacOps.h"
#include "collc/Sim/Model.h"
#include "collc/device/snac/abi.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

using namespace collc;

namespace {

vocab::Transform toVocab(const sim::Transform &t) {
  return {static_cast<vocab::Consume>(t.consume),
          static_cast<vocab::Layout>(t.in), static_cast<vocab::Layout>(t.out),
          static_cast<vocab::Root>(t.root)};
}

sim::Transform simT(sim::Consume c, sim::Layout in, sim::Layout out,
                    sim::Root root, bool variable) {
  return {c, sim::RedOp::Sum, in, out, variable, root};
}

/// Every transform and composition of the spec library, fixed and V.
std::vector<sim::Collective> collectives() {
  using C = sim::Consume;
  using L = sim::Layout;
  using R = sim::Root;
  std::vector<sim::Collective> all;
  for (bool v : {false, true}) {
    sim::Transform ag = simT(C::Copy, L::Packed, L::Scattered, R::None, v);
    sim::Transform rs = simT(C::Reduce, L::Scattered, L::Packed, R::None, v);
    sim::Transform a2a =
        simT(C::Copy, L::Scattered, L::Transposed, R::None, v);
    sim::Transform scatter =
        simT(C::Copy, L::Scattered, L::Packed, R::Producer, v);
    sim::Transform gather =
        simT(C::Copy, L::Packed, L::Scattered, R::Consumer, v);
    sim::Transform oneShot =
        simT(C::Reduce, L::Packed, L::Packed, R::None, false);
    sim::Transform bcast = simT(C::Copy, L::Packed, L::Packed, R::Producer, v);
    for (const sim::Transform &t : {ag, rs, a2a, scatter, gather})
      all.push_back({{t}});
    if (!v) {
      all.push_back({{oneShot}});
      all.push_back({{bcast}});
    }
    all.push_back({{rs, ag}});      // all_reduce
    all.push_back({{scatter, ag}}); // broadcast
    all.push_back({{rs, gather}});  // reduce
  }
  return all;
}

/// Elements of partition j of the collective's output at rank r, by the
/// vocabulary: an entry of the first transform's input sizes.
int64_t vocabOutput(const sim::Collective &c, const sim::CallArgs &args, int r,
                    int j) {
  const vocab::Transform t0 = toVocab(c.parts.front());
  vocab::SizeEntry e;
  if (c.parts.size() == 1) {
    e = vocab::outputEntry(t0, args.root, r, j);
  } else {
    const vocab::SizeEntry e1 =
        vocab::outputEntry(toVocab(c.parts.back()), args.root, r, j);
    e = vocab::outputEntry(t0, args.root, e1.producer, e1.part);
  }
  return args.sizes[e.producer][e.part];
}

TEST(VocabLayoutAlgebra, OutputSizesMatchTheSimulationModel) {
  int checked = 0;
  for (const sim::Collective &c : collectives())
    for (int n : {1, 2, 3, 5})
      for (int root = 0; root < n; ++root)
        for (sim::Shape shape :
             {sim::Shape::Uniform, sim::Shape::Zipf, sim::Shape::Skew})
          for (uint64_t seed : {1u, 7u}) {
            sim::CallArgs args =
                sim::makeCallArgs(c, n, root, shape, /*count=*/37, seed);
            const vocab::Transform last = toVocab(c.parts.back());
            const vocab::Transform first = toVocab(c.parts.front());
            const int t = (int)c.parts.size() - 1;
            for (int r = 0; r < n; ++r) {
              EXPECT_EQ(vocab::readsInput(first.root, r, root),
                        sim::isProducer(c, args, 0, r));
              EXPECT_EQ(vocab::writesOutput(last.root, r, root),
                        sim::isConsumer(c, args, t, r));
              if (!sim::isConsumer(c, args, t, r))
                continue;
              sim::BufferGeometry want = sim::outputGeometry(c, args, t, r);
              ASSERT_EQ((int)want.parts.size(),
                        vocab::partitions(last.out, n));
              for (int j = 0; j < (int)want.parts.size(); ++j, ++checked)
                EXPECT_EQ(vocabOutput(c, args, r, j), want.parts[j].size)
                    << "collective " << checked << ", n " << n << ", root "
                    << root << ", rank " << r << ", partition " << j;
            }
          }
  EXPECT_GT(checked, 1000);
}

TEST(VocabWorkspace, EventWordsFillAbiRegionsExactlyOnce) {
  for (int ready = 0; ready <= 2; ++ready)
    for (int free = 0; free <= 2; ++free)
      for (int n = 1; n <= 4; ++n)
        for (int slots = 1; slots <= 3; ++slots) {
          std::set<unsigned long long> words;
          size_t count = 0;
          for (int e = 0; e < ready; ++e)
            for (int s = 0; s < n; ++s)
              for (int k = 0; k < n; ++k)
                for (int slot = 0; slot < slots; ++slot, ++count)
                  words.insert(vocab::readyWord(e, s, k, slot, n, slots));
          EXPECT_EQ(words.size(), vocab::readyWords(ready, n, slots));
          for (int e = 0; e < free; ++e)
            for (int k = 0; k < n; ++k)
              for (int slot = 0; slot < slots; ++slot, ++count)
                words.insert(vocab::freeWord(ready, e, k, slot, n, slots));
          // Distinct, and exactly the words before abi.h's arrival word.
          EXPECT_EQ(words.size(), count);
          EXPECT_EQ(count, collcArrivalWord(ready, free, n, slots));
          if (!words.empty())
            EXPECT_EQ(*words.rbegin() + 1, count);

          std::set<unsigned long long> uses;
          for (int e = 0; e < free; ++e)
            for (int k = 0; k < n; ++k)
              for (int slot = 0; slot < slots; ++slot)
                uses.insert(COLLC_STATE_USES +
                            vocab::useWord(e, k, slot, n, slots));
          EXPECT_EQ(uses.size(), (size_t)free * n * slots);
          EXPECT_EQ(COLLC_STATE_USES + uses.size(),
                    collcStateWords(free, n, slots));
          if (!uses.empty())
            EXPECT_EQ(*uses.rbegin() + 1, collcStateWords(free, n, slots));
        }
}

TEST(VocabWorkspace, SlotsTileTheAbiBuffer) {
  for (int parts : {1, 3})
    for (int slots = 1; slots <= 3; ++slots)
      for (long long chunk : {1ll, 8ll}) {
        std::set<long long> starts;
        for (int j = 0; j < parts; ++j)
          for (long long c = 0; c < 2 * slots; ++c) {
            const long long at = vocab::slotOffset(j, c, slots, chunk);
            EXPECT_EQ(at % chunk, 0);
            EXPECT_LT(at + chunk - 1,
                      (long long)collcSlotBufferElems(parts, slots, chunk));
            starts.insert(at);
          }
        EXPECT_EQ(starts.size(), (size_t)parts * slots);
      }
  EXPECT_EQ(vocab::chunkElems(65536, 2), 32768);
  EXPECT_EQ(vocab::chunkElems(1, 4), 1); // at least one element
}

TEST(VocabUseCount, MatchesARecountOfTheChunks) {
  for (int slots = 1; slots <= 4; ++slots)
    for (long long chunks = 0; chunks <= 11; ++chunks) {
      std::vector<long long> seen(slots, 0);
      for (long long c = 0; c < chunks; ++c) {
        // The uses of c's slot before c, counted one by one.
        EXPECT_EQ(vocab::usesBefore(c, slots), seen[c % slots]);
        ++seen[c % slots];
      }
      for (int s = 0; s < slots; ++s)
        EXPECT_EQ(vocab::slotUses(chunks, slots, s), seen[s])
            << chunks << " chunks, " << slots << " slots, slot " << s;
    }
}

TEST(VocabEnums, SpellingsAreTheIRsAndRoundTrip) {
  for (int i = 0; i < vocab::EnumCount<vocab::Layout>::value; ++i) {
    auto l = static_cast<vocab::Layout>(i);
    EXPECT_EQ(vocab::spelling(l),
              coll::stringifyLayout(static_cast<coll::Layout>(i)).str());
    EXPECT_EQ(common::toVocab(static_cast<coll::Layout>(i)), l);
    // The V form: the same layout, variable.
    auto v = static_cast<coll::Layout>(i + 3);
    std::string text = coll::stringifyLayout(v).str();
    vocab::Layout parsed = vocab::Layout::Packed;
    bool variable = false;
    EXPECT_TRUE(vocab::parseLayout(text.data(), text.size(), parsed, variable));
    EXPECT_EQ(parsed, l);
    EXPECT_TRUE(variable);
    EXPECT_EQ(common::toVocab(v), l);
  }
  for (int i = 0; i < vocab::EnumCount<vocab::RedOp>::value; ++i) {
    auto op = static_cast<vocab::RedOp>(i);
    EXPECT_EQ(vocab::spelling(op),
              snac::stringifyReduction(static_cast<snac::Reduction>(i)).str());
    vocab::RedOp parsed = vocab::RedOp::Sum;
    const std::string text = vocab::spelling(op);
    EXPECT_TRUE(vocab::parse(text.data(), text.size(), parsed));
    EXPECT_EQ(parsed, op);
  }
  for (int i = 0; i < vocab::EnumCount<vocab::Consume>::value; ++i)
    EXPECT_EQ(vocab::spelling(static_cast<vocab::Consume>(i)),
              coll::stringifyConsumeOp(static_cast<coll::ConsumeOp>(i)).str());
  for (int i = 0; i < vocab::EnumCount<vocab::Root>::value; ++i)
    EXPECT_EQ(vocab::spelling(static_cast<vocab::Root>(i)),
              coll::stringifyRoot(static_cast<coll::Root>(i)).str());

  mlir::MLIRContext ctx;
  for (int i = 0; i < vocab::EnumCount<vocab::ElemType>::value; ++i) {
    auto t = static_cast<vocab::ElemType>(i);
    mlir::Type type = coll::parseElementTypeSpelling(&ctx, vocab::spelling(t));
    ASSERT_TRUE(type) << vocab::spelling(t);
    EXPECT_EQ(coll::elementTypeSpelling(type), vocab::spelling(t));
    EXPECT_EQ(vocab::elemBytes(t) * 8, (int)type.getIntOrFloatBitWidth());
  }
  // Out of range and unknown.
  EXPECT_STREQ(vocab::spelling(static_cast<vocab::RedOp>(4)), "?");
  vocab::Layout l = vocab::Layout::Packed;
  bool variable = false;
  EXPECT_FALSE(vocab::parseLayout("packedx", 7, l, variable));
  EXPECT_FALSE(vocab::parseLayout("pack", 4, l, variable));
}

} // namespace
