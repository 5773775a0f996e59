//===- SnacProgramTest.cpp - program buffer geometry -------------*- C++ -*-===//
//
// Each program buffer's partition sizes, read from the size matrix by the
// derived geometry, against the sizes the layout algebra gives directly
// (Purlin 3.1): what an interpreter or an emitter reading the geometry gets.
//
//===----------------------------------------------------------------------===//

#include "collc/Conversion/CollToSnac/Passes.h"
#include "collc/Dialect/Coll/IR/CollOps.h"
#include "collc/Dialect/Snac/IR/SnacOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace collc;

namespace {

/// The programs `coll-derive-programs` derives for `source`.
OwningOpRef<ModuleOp> derive(MLIRContext &ctx, const char *source) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
  EXPECT_TRUE(module);
  PassManager pm(&ctx);
  pm.addPass(createCollDerivePrograms());
  EXPECT_TRUE(succeeded(pm.run(*module)));
  return module;
}

snac::ProgramOp programFor(ModuleOp module, StringRef name) {
  for (auto p : module.getOps<snac::ProgramOp>())
    if (p.getCollective() == name)
      return p;
  return {};
}

/// Partition `part`'s size of `buffer` at rank `r`, from the row-major
/// matrix m ([n][parts]).
int64_t sizeOf(snac::ProgramBufferOp buffer, const std::vector<int64_t> &m,
               int64_t parts, int64_t r, int64_t part) {
  auto [p, k] = buffer.getSizeEntry<int64_t>(r, part, 0);
  return m[p * parts + k];
}

} // namespace

TEST(SnacProgram, GeometryMatchesTheLayoutAlgebra) {
  MLIRContext ctx;
  ctx.loadDialect<coll::CollDialect, snac::SnacDialect>();
  OwningOpRef<ModuleOp> module = derive(ctx, R"(
    coll.collective @ag types [f32] ranks [3] {
      coll.transform copy packed_v -> scattered_v
    }
    coll.collective @rs types [f32] ranks [3] {
      coll.transform reduce<sum> scattered_v -> packed_v
    }
    coll.collective @a2a types [f32] ranks [3] {
      coll.transform copy scattered_v -> transposed_v
    }
    coll.collective @ar types [f32] ranks [3] {
      coll.transform reduce<sum> packed -> packed
    }
  )");
  const int64_t n = 3;

  // AllGather_v: rank p contributes g[p]; output partition p and receive
  // region p hold g[p] at every rank.
  std::vector<int64_t> g = {5, 0, 7};
  snac::ProgramOp ag = programFor(*module, "ag");
  ASSERT_TRUE(ag && ag.isInputPacked());
  for (int64_t r = 0; r < n; ++r) {
    EXPECT_EQ(sizeOf(ag.getBufferOfKind(snac::BufferKind::input), g, 1, r, 0),
              g[r]);
    for (int64_t p = 0; p < n; ++p) {
      EXPECT_EQ(
          sizeOf(ag.getBufferOfKind(snac::BufferKind::output), g, 1, r, p),
          g[p]);
      EXPECT_EQ(
          sizeOf(ag.getBufferOfKind(snac::BufferKind::receive), g, 1, r, p),
          g[p]);
    }
  }

  // AllToAll_v: m[p][k] elements from p to k. Rank r sends m[r][k] in
  // partition k and receives m[p][r] in partition p (and region p).
  std::vector<int64_t> m = {1, 2, 3, 4, 0, 6, 7, 8, 9};
  snac::ProgramOp a2a = programFor(*module, "a2a");
  ASSERT_TRUE(a2a && !a2a.isInputPacked());
  for (int64_t r = 0; r < n; ++r)
    for (int64_t j = 0; j < n; ++j) {
      EXPECT_EQ(sizeOf(a2a.getBufferOfKind(snac::BufferKind::input), m, n, r,
                       j),
                m[r * n + j]);
      EXPECT_EQ(sizeOf(a2a.getBufferOfKind(snac::BufferKind::output), m, n,
                       r, j),
                m[j * n + r]);
      EXPECT_EQ(sizeOf(a2a.getBufferOfKind(snac::BufferKind::receive), m, n,
                       r, j),
                m[j * n + r]);
    }

  // ReduceScatter_v: every rank's row is the same; rank r's output is
  // partition r's size.
  std::vector<int64_t> rs = {2, 0, 4, 2, 0, 4, 2, 0, 4};
  snac::ProgramOp rsp = programFor(*module, "rs");
  ASSERT_TRUE(rsp);
  for (int64_t r = 0; r < n; ++r)
    EXPECT_EQ(
        sizeOf(rsp.getBufferOfKind(snac::BufferKind::output), rs, n, r, 0),
        rs[r]);

  // One-shot AllReduce: the output is as long as the input.
  std::vector<int64_t> ar = {9, 9, 9};
  snac::ProgramOp arp = programFor(*module, "ar");
  ASSERT_TRUE(arp);
  for (int64_t r = 0; r < n; ++r)
    EXPECT_EQ(
        sizeOf(arp.getBufferOfKind(snac::BufferKind::output), ar, 1, r, 0),
        ar[r]);
}
