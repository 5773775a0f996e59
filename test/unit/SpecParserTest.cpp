//===- SpecParserTest.cpp - spec parser to coll IR --------------*- C++ -*-===//

#include "collc/Dialect/Coll/IR/CollOps.h"
#include "collc/Spec/SpecParser.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace collc;
using namespace collc::coll;

namespace {

struct Parsed {
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  std::vector<std::string> errors;
};

std::unique_ptr<Parsed> parse(llvm::StringRef text) {
  auto p = std::make_unique<Parsed>();
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "t.coll"),
                        llvm::SMLoc());
  ScopedDiagnosticHandler handler(&p->ctx, [&](Diagnostic &d) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << d.getLocation() << ": " << d.str();
    p->errors.push_back(s);
    return success();
  });
  p->module = spec::parseSpec(sm, &p->ctx);
  return p;
}

TEST(SpecParser, CompositionByNameFlattensInOrder) {
  auto p = parse("collective ar = rs then ag\n"
                 "collective rs = reduce<sum>(scattered -> packed)\n"
                 "collective ag = copy(packed -> scattered)\n");
  ASSERT_TRUE(p->module) << (p->errors.empty() ? "" : p->errors.front());
  auto ar = p->module->lookupSymbol<CollectiveOp>("ar");
  ASSERT_TRUE(ar);
  auto ts = ar.getTransforms();
  ASSERT_EQ(ts.size(), 2u);
  EXPECT_EQ(ts[0].getConsume(), ConsumeOp::reduce);
  EXPECT_EQ(ts[0].getReduction(), Reduction::sum);
  EXPECT_EQ(ts[0].getOriginAttr().getValue(), "rs");
  EXPECT_EQ(ts[1].getConsume(), ConsumeOp::copy);
  EXPECT_EQ(ar.getInputLayout(), Layout::scattered);
  EXPECT_EQ(ar.getOutputLayout(), Layout::scattered);
  // Defaults apply when the file sets none.
  EXPECT_EQ(ar.getWorldSizes().size(), 3u);
  EXPECT_EQ(CollDialect::getTargets(*p->module).size(), 3u);
}

TEST(SpecParser, LocationsPointIntoTheSpec) {
  auto p = parse("# comment\n"
                 "collective  g = copy(packed -> scattered) root consumer\n");
  ASSERT_TRUE(p->module);
  auto g = p->module->lookupSymbol<CollectiveOp>("g");
  auto loc = dyn_cast<FileLineColLoc>(g.getLoc());
  ASSERT_TRUE(loc);
  EXPECT_EQ(loc.getLine(), 2u);
  EXPECT_EQ(loc.getColumn(), 13u);
  auto tloc = dyn_cast<FileLineColLoc>(g.getTransforms()[0].getLoc());
  ASSERT_TRUE(tloc);
  EXPECT_EQ(tloc.getColumn(), 17u);
  EXPECT_EQ(g.getRootRole(), Root::consumer);
}

TEST(SpecParser, FileDefaultsAndClauses) {
  auto p = parse("target sm_90\ntypes f32\nranks 2, 8\npolicy ctas = 8\n"
                 "collective a = copy(packed -> scattered) types f8e4m3, bf16 "
                 "policy chunk_bytes = 64KiB\n");
  ASSERT_TRUE(p->module);
  auto a = p->module->lookupSymbol<CollectiveOp>("a");
  EXPECT_EQ(a.getElementTypes().size(), 2u);
  EXPECT_EQ(a.getWorldSizes()[1], 8);
  auto chunk = a.getPolicyAttr().getAs<IntegerAttr>("chunk_bytes");
  ASSERT_TRUE(chunk);
  EXPECT_EQ(chunk.getInt(), 65536);
  EXPECT_EQ(CollDialect::getTargets(*p->module).front(), "sm_90");
}

TEST(SpecParser, ErrorsCarryLineAndColumn) {
  auto p = parse("collective a = copy(packed -> scatered)\n");
  EXPECT_FALSE(p->module);
  ASSERT_EQ(p->errors.size(), 1u);
  EXPECT_NE(p->errors[0].find("\"t.coll\":1:31"), std::string::npos)
      << p->errors[0];
  EXPECT_NE(p->errors[0].find("unknown layout 'scatered'"), std::string::npos);
}

TEST(SpecParser, EveryBadLineIsReported) {
  auto p = parse("collective a = copy(packed -> nope)\n"
                 "collective b = move(packed -> scattered)\n");
  EXPECT_FALSE(p->module);
  EXPECT_EQ(p->errors.size(), 2u);
}

// Resolution through aliases (iterative since a long chain overflowed the
// stack): a transform keeps the collective that wrote it inline as its
// origin, and takes the location of the reference in the composing line.
TEST(SpecParser, AliasesKeepOriginAndTakeTheReferenceLocation) {
  auto p = parse("collective ar = b then ag\n"
                 "collective b = rs\n"
                 "collective rs = reduce<sum>(scattered -> packed)\n"
                 "collective ag = copy(packed -> scattered)\n");
  ASSERT_TRUE(p->module) << (p->errors.empty() ? "" : p->errors.front());
  auto ts = p->module->lookupSymbol<CollectiveOp>("ar").getTransforms();
  ASSERT_EQ(ts.size(), 2u);
  EXPECT_EQ(ts[0].getOriginAttr().getValue(), "rs");
  EXPECT_EQ(ts[1].getOriginAttr().getValue(), "ag");
  auto loc = llvm::cast<FileLineColLoc>(ts[0].getLoc());
  EXPECT_EQ(loc.getLine(), 1u);
  EXPECT_EQ(loc.getColumn(), 17u);
  auto b = p->module->lookupSymbol<CollectiveOp>("b").getTransforms();
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].getOriginAttr().getValue(), "rs");
}

// A failed name is reported once, not once per collective that uses it.
TEST(SpecParser, OneErrorPerMistake) {
  auto p = parse("collective a = c\n"
                 "collective b = a\n"
                 "collective d = a then b\n"
                 "collective c = nope\n");
  EXPECT_FALSE(p->module);
  ASSERT_EQ(p->errors.size(), 1u);
  EXPECT_NE(p->errors[0].find("undefined collective 'nope'"),
            std::string::npos);
}

} // namespace
