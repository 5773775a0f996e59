//===- LayoutAlgebraTest.cpp - the legal-transform table --------*- C++ -*-===//

#include "collc/Dialect/Coll/IR/CollEnums.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace collc::coll;

namespace {

TEST(LayoutAlgebra, VariableLayoutsMapToTheirFixedForm) {
  EXPECT_TRUE(isVariable(Layout::packed_v));
  EXPECT_TRUE(isVariable(Layout::transposed_v));
  EXPECT_FALSE(isVariable(Layout::scattered));
  EXPECT_EQ(fixedLayout(Layout::scattered_v), Layout::scattered);
  EXPECT_EQ(fixedLayout(Layout::packed), Layout::packed);
}

TEST(LayoutAlgebra, NonRootedCollectivesAreLegal) {
  auto hasNone = [](ConsumeOp c, Layout in, Layout out) {
    auto roots = legalRoots(c, in, out);
    return std::find(roots.begin(), roots.end(), Root::none) != roots.end();
  };
  EXPECT_TRUE(hasNone(ConsumeOp::copy, Layout::packed, Layout::scattered));
  EXPECT_TRUE(hasNone(ConsumeOp::reduce, Layout::scattered, Layout::packed));
  EXPECT_TRUE(hasNone(ConsumeOp::copy, Layout::scattered, Layout::transposed));
  EXPECT_TRUE(hasNone(ConsumeOp::reduce, Layout::packed, Layout::packed));
  EXPECT_TRUE(
      hasNone(ConsumeOp::copy, Layout::scattered_v, Layout::transposed_v));
  // Scatter needs a single producer; without a root it is not a collective.
  EXPECT_FALSE(hasNone(ConsumeOp::copy, Layout::scattered, Layout::packed));
}

TEST(LayoutAlgebra, IllegalPairsHaveNoRoots) {
  EXPECT_TRUE(
      legalRoots(ConsumeOp::reduce, Layout::scattered, Layout::transposed)
          .empty());
  EXPECT_TRUE(
      legalRoots(ConsumeOp::copy, Layout::transposed, Layout::packed).empty());
  EXPECT_TRUE(
      legalRoots(ConsumeOp::reduce, Layout::packed, Layout::scattered).empty());
}

TEST(LayoutAlgebra, TargetsAndTypes) {
  EXPECT_TRUE(isSupportedTarget("sm_90"));
  EXPECT_TRUE(isSupportedTarget("sm_90a"));
  EXPECT_FALSE(isSupportedTarget("sm_91"));
  EXPECT_FALSE(isSupportedTarget("sm_80a"));
  mlir::MLIRContext ctx;
  for (const char *name : {"bf16", "f16", "f32", "f8e4m3", "f8e5m2"}) {
    mlir::Type t = parseElementTypeSpelling(&ctx, name);
    ASSERT_TRUE(t) << name;
    EXPECT_TRUE(isSupportedElementType(t));
    EXPECT_EQ(elementTypeSpelling(t), name);
  }
  EXPECT_FALSE(parseElementTypeSpelling(&ctx, "f64"));
}

TEST(LayoutAlgebra, PolicyEntries) {
  mlir::MLIRContext ctx;
  auto i64 = [&](int64_t v) {
    return mlir::IntegerAttr::get(mlir::IntegerType::get(&ctx, 64), v);
  };
  EXPECT_FALSE(checkPolicyEntry("ctas", i64(16)));
  EXPECT_TRUE(checkPolicyEntry("ctas", i64(0)));
  EXPECT_TRUE(checkPolicyEntry("chunk_bytes", i64(1000)));
  EXPECT_FALSE(checkPolicyEntry("chunk_bytes", i64(1024)));
  EXPECT_TRUE(checkPolicyEntry("ctsa", i64(1)));
  EXPECT_FALSE(
      checkPolicyEntry("protocol", mlir::StringAttr::get(&ctx, "flag")));
  EXPECT_FALSE(
      checkPolicyEntry("protocol", mlir::StringAttr::get(&ctx, "ll16")));
  EXPECT_FALSE(
      checkPolicyEntry("protocol", mlir::StringAttr::get(&ctx, "ll")));
  EXPECT_FALSE(checkPolicyEntry("one_hop_max_bytes", i64(0)));
  EXPECT_TRUE(checkPolicyEntry("one_hop_max_bytes", i64(-1)));
  EXPECT_TRUE(
      checkPolicyEntry("protocol", mlir::StringAttr::get(&ctx, "smoke")));
  EXPECT_TRUE(checkPolicyEntry("protocol", i64(1)));
}

} // namespace
