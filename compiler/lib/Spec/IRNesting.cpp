//===- IRNesting.cpp - bound the nesting of textual IR input --------------===//

#include "collc/Spec/IRNesting.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace collc::spec {

LogicalResult checkIRNesting(llvm::SourceMgr &sourceMgr,
                             MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  llvm::StringRef text = buffer->getBuffer();
  unsigned depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      i = text.find('\n', i); // A comment runs to the end of the line.
      if (i == llvm::StringRef::npos)
        break;
      continue;
    }
    if (c == '"') { // A string, with backslash escapes.
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      continue;
    }
    if (c == '-' && i + 1 < text.size() && text[i + 1] == '>') {
      ++i; // The arrow of a function type closes nothing.
      continue;
    }
    if (c == '{' || c == '(' || c == '[' || c == '<') {
      if (++depth > kMaxIRNesting) {
        auto [line, col] = sourceMgr.getLineAndColumn(
            llvm::SMLoc::getFromPointer(text.data() + i));
        emitError(FileLineColLoc::get(context, buffer->getBufferIdentifier(),
                                      line, col))
            << "IR nested deeper than " << kMaxIRNesting
            << " levels; coll IR is a few levels deep, and the parser would "
               "overflow its stack on input like this";
        return failure();
      }
    } else if ((c == '}' || c == ')' || c == ']' || c == '>') && depth) {
      --depth;
    }
  }
  return success();
}

} // namespace collc::spec
