//===- Geometry.cpp - per-rank buffer geometry of a call ------------------===//
//
// Turns the layout algebra (Purlin 3.1, A.1) into offsets and sizes. Only the
// input sizes of part 0 are given per call; everything else (the output of
// each part, the input of a composition's second part) follows from them, so
// a schedule and the reference cannot disagree about where data lives.
//
//===----------------------------------------------------------------------===//

#include "ModelInternal.h"

#include <cassert>

using namespace collc::sim;
using namespace collc::sim::detail;

void detail::checkCollective(const Collective &coll) {
  assert((coll.parts.size() == 1 || coll.parts.size() == 2) &&
         "a collective is one transform or a composition of two");
  for (const Transform &part : coll.parts) {
    (void)part;
    // A reduction combines corresponding elements into one region.
    assert((part.consume != Consume::Reduce || part.out == Layout::Packed) &&
           "reduce writes a packed output");
    // Several producers copying into one packed region would overwrite each
    // other; only a single (root) producer can fill it.
    assert((part.consume != Consume::Copy || part.out != Layout::Packed ||
            part.root == Root::Producer) &&
           "copy to packed needs a root producer");
    // A rank-indexed output has one region per source; with a single
    // producer all but one would stay empty.
    assert((part.out == Layout::Packed || part.root != Root::Producer) &&
           "a scattered/transposed output needs every rank to produce");
  }
  assert((coll.parts.size() == 1 || coll.parts[0].out == coll.parts[1].in) &&
         "composition needs out(F) == in(G)");
}

void detail::checkArgs(const Collective &coll, const CallArgs &args) {
  checkCollective(coll);
  assert(args.n >= 1 && "need at least one rank");
  assert(args.sizes.size() == static_cast<size_t>(args.n) &&
         "one sizes row per rank");
  bool rooted = false;
  for (const Transform &part : coll.parts)
    rooted |= part.root != Root::None;
  assert((!rooted || (args.root >= 0 && args.root < args.n)) &&
         "root is not a rank");
  (void)rooted;
#ifndef NDEBUG
  size_t width = numPartitions(coll.parts[0].in, args.n);
  for (const std::vector<int64_t> &row : args.sizes) {
    assert(row.size() == width && "sizes row does not match the input layout");
    for (int64_t size : row)
      assert(size >= 0 && "negative partition size");
  }
#endif
}

/// Asserts 0 <= t < parts and 0 <= r < n and returns part t.
static const Transform &partAt(const Collective &coll, const CallArgs &args,
                               int t, int r) {
  checkArgs(coll, args);
  assert(t >= 0 && static_cast<size_t>(t) < coll.parts.size() &&
         "no such part");
  assert(r >= 0 && r < args.n && "no such rank");
  (void)r;
  return coll.parts[t];
}

bool collc::sim::isProducer(const Collective &coll, const CallArgs &args, int t,
                            int r) {
  const Transform &part = partAt(coll, args, t, r);
  return part.root != Root::Producer || r == args.root;
}

bool collc::sim::isConsumer(const Collective &coll, const CallArgs &args, int t,
                            int r) {
  const Transform &part = partAt(coll, args, t, r);
  return part.root != Root::Consumer || r == args.root;
}

/// Lays out `sizes` back to back.
static BufferGeometry contiguous(const std::vector<int64_t> &sizes) {
  BufferGeometry geometry;
  for (int64_t size : sizes) {
    geometry.parts.push_back({geometry.total, size});
    geometry.total += size;
  }
  return geometry;
}

std::vector<std::vector<int64_t>>
collc::sim::partSizes(const Collective &coll, const CallArgs &args, int t) {
  partAt(coll, args, t, 0);
  if (t == 0)
    return args.sizes;
  // Part 1 consumes part 0's output in place, so its input partitions are
  // exactly part 0's output partitions, rank by rank.
  std::vector<std::vector<int64_t>> sizes(args.n);
  for (int p = 0; p < args.n; ++p)
    for (const Partition &partition :
         outputGeometry(coll, args, t - 1, p).parts)
      sizes[p].push_back(partition.size);
  return sizes;
}

BufferGeometry collc::sim::inputGeometry(const Collective &coll,
                                         const CallArgs &args, int t, int r) {
  partAt(coll, args, t, r);
  return contiguous(partSizes(coll, args, t)[r]);
}

BufferGeometry collc::sim::outputGeometry(const Collective &coll,
                                          const CallArgs &args, int t, int r) {
  const Transform &part = partAt(coll, args, t, r);
  std::vector<std::vector<int64_t>> sizes = partSizes(coll, args, t);
  // The input partition that rank r receives from every producer.
  int q = part.in == Layout::Packed ? 0 : r;

  if (part.out != Layout::Packed) {
    // One region per source rank, in rank order.
    std::vector<int64_t> out(args.n);
    for (int p = 0; p < args.n; ++p)
      out[p] = sizes[p][q];
    return contiguous(out);
  }

  if (part.consume == Consume::Copy) // Root producer (checkCollective).
    return contiguous({sizes[args.root][q]});

  // A reduction needs the same number of elements from every producer.
  int64_t size = -1;
  for (int p = 0; p < args.n; ++p) {
    if (!isProducer(coll, args, t, p))
      continue;
    assert((size < 0 || size == sizes[p][q]) &&
           "reduced partition sizes differ across producers");
    size = sizes[p][q];
  }
  assert(size >= 0 && "a reduction without producers");
  return contiguous({size});
}
