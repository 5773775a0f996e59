//===- Fatbin.cpp - pack a target's code into a compressed fatbin ---------===//

#include "collc/Target/Cuda/Fatbin.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <optional>

using namespace collc;

namespace {
/// A temporary file removed when it goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  std::optional<llvm::FileRemover> remover;
  bool create(llvm::StringRef suffix, std::string &log) {
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("collc", suffix, path)) {
      log = "cannot create a temporary file: " + ec.message();
      return false;
    }
    remover.emplace(path);
    return true;
  }
  bool write(llvm::StringRef bytes, std::string &log) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (!ec) {
      os << bytes;
      os.close();
      ec = os.error();
    }
    if (ec)
      log = "cannot write " + path.str().str() + ": " + ec.message();
    return !ec;
  }
};
} // namespace

bool cuda::makeFatbin(const Target &target, llvm::StringRef cubin,
                      llvm::StringRef ptx, std::string &fatbin,
                      std::string &log) {
  TempFile elf, text, out, errors;
  if (!elf.create("cubin", log) || !elf.write(cubin, log) ||
      !out.create("fatbin", log) || !errors.create("log", log))
    return false;
  if (!ptx.empty() && (!text.create("ptx", log) || !text.write(ptx, log)))
    return false;
  // The toolkit's, found at configure time; COLLC_FATBINARY names another
  // (a toolkit installed elsewhere than where collc was built).
  const char *env = std::getenv("COLLC_FATBINARY");
  const std::string tool = env && *env ? env : COLLC_FATBINARY;
  // "sm_90a" -> "90a": fatbinary's spelling of the architecture.
  const std::string arch = target.name.substr(3);
  llvm::SmallVector<std::string> args = {
      tool, "--create=" + out.path.str().str(), "--compress-all",
      "--image3=kind=elf,sm=" + arch + ",file=" + elf.path.str().str()};
  if (!ptx.empty())
    args.push_back("--image3=kind=ptx,sm=" + arch + ",file=" +
                   text.path.str().str());
  llvm::SmallVector<llvm::StringRef> argv(args.begin(), args.end());
  const std::optional<llvm::StringRef> redirects[] = {
      std::nullopt, errors.path.str(), errors.path.str()};
  std::string why;
  const int rc = llvm::sys::ExecuteAndWait(tool, argv, std::nullopt,
                                           redirects, 0, 0, &why);
  if (rc != 0) {
    log = "fatbinary (" + tool + ") failed for " + target.name;
    if (!why.empty())
      log += ": " + why;
    if (auto said = llvm::MemoryBuffer::getFile(errors.path))
      if (llvm::StringRef text = (*said)->getBuffer().trim(); !text.empty())
        log += "\n" + text.str();
    return false;
  }
  auto packed = llvm::MemoryBuffer::getFile(out.path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!packed) {
    log = "cannot read fatbinary's output: " + packed.getError().message();
    return false;
  }
  fatbin = (*packed)->getBuffer().str();
  return true;
}
