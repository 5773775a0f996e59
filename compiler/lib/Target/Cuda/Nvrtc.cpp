//===- Nvrtc.cpp - compile generated CUDA in process ------------*- C++ -*-===//

#include "collc/Target/Cuda/Nvrtc.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Regex.h"

#include <nvJitLink.h>
#include <nvrtc.h>

using namespace collc;
using namespace collc::cuda;

namespace {
#include "collc/Target/Cuda/DeviceHeaders.inc"
} // namespace

llvm::ArrayRef<std::pair<const char *, const char *>> cuda::embeddedHeaders() {
  return kDeviceHeaders;
}

std::string cuda::nvrtcVersion() {
  int major = 0, minor = 0;
  ::nvrtcVersion(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

bool cuda::compileToPtx(llvm::StringRef source, llvm::StringRef programName,
                        const Target &target, std::string &ptx,
                        std::string &log,
                        llvm::ArrayRef<std::string> defines,
                        FastCompile fast) {
  llvm::SmallVector<const char *> headerNames, headerSources;
  for (const auto &[name, text] : embeddedHeaders()) {
    headerNames.push_back(name);
    headerSources.push_back(text);
  }
  nvrtcProgram program;
  std::string src = source.str(), name = programName.str();
  nvrtcResult rc = nvrtcCreateProgram(&program, src.c_str(), name.c_str(),
                                      headerNames.size(), headerSources.data(),
                                      headerNames.data());
  if (rc != NVRTC_SUCCESS) {
    log = std::string("nvrtcCreateProgram failed: ") + nvrtcGetErrorString(rc);
    return false;
  }
  // compute_XX: PTX only, which the driver JIT-compiles for the device (and
  // which this compiler then assembles itself for the resource report).
  std::string arch = "--gpu-architecture=compute_" + target.name.substr(3);
  llvm::SmallVector<std::string> options = {
      arch, "--std=c++17", "--include-path=" COLLC_CUDA_INCLUDE_DIR,
      "--device-int128", "-default-device"};
  for (const std::string &d : defines)
    options.push_back("-D" + d);
  // NVVM's optimizer is most of NVRTC's time (the chunked programs' and
  // v1 kernels' unrolled loops); the front end is a tenth of it.
  if (fast != FastCompile::Full)
    options.push_back(std::string("--Ofast-compile=") +
                      (fast == FastCompile::Min   ? "min"
                       : fast == FastCompile::Mid ? "mid"
                                                  : "max"));
  llvm::SmallVector<const char *> argv;
  for (const std::string &o : options)
    argv.push_back(o.c_str());
  rc = nvrtcCompileProgram(program, argv.size(), argv.data());
  size_t logSize = 0;
  nvrtcGetProgramLogSize(program, &logSize);
  log.assign(logSize, '\0');
  if (logSize)
    nvrtcGetProgramLog(program, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  if (rc != NVRTC_SUCCESS) {
    nvrtcDestroyProgram(&program);
    return false;
  }
  size_t ptxSize = 0;
  nvrtcGetPTXSize(program, &ptxSize);
  ptx.assign(ptxSize, '\0');
  nvrtcGetPTX(program, ptx.data());
  while (!ptx.empty() && ptx.back() == '\0')
    ptx.pop_back();
  nvrtcDestroyProgram(&program);
  return true;
}

/// Parses ptxas' verbose report (one "Compiling entry function" line per
/// kernel, followed by its stack/spill and register lines).
static void parseResources(llvm::StringRef info,
                           std::vector<ResourceUsage> &usage) {
  llvm::Regex entry("Compiling entry function '([A-Za-z0-9_]+)'");
  llvm::Regex spill("([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, "
                    "([0-9]+) bytes spill loads");
  llvm::Regex regs("Used ([0-9]+) registers");
  llvm::Regex smem("([0-9]+) bytes smem");
  llvm::SmallVector<llvm::StringRef> lines;
  info.split(lines, '\n');
  ResourceUsage *current = nullptr;
  for (llvm::StringRef line : lines) {
    llvm::SmallVector<llvm::StringRef> m;
    if (entry.match(line, &m)) {
      usage.push_back(ResourceUsage{m[1].str()});
      current = &usage.back();
      continue;
    }
    if (!current)
      continue;
    if (spill.match(line, &m)) {
      m[1].getAsInteger(10, current->stackBytes);
      m[2].getAsInteger(10, current->spillStoreBytes);
      m[3].getAsInteger(10, current->spillLoadBytes);
    }
    if (regs.match(line, &m))
      m[1].getAsInteger(10, current->registers);
    if (smem.match(line, &m))
      m[1].getAsInteger(10, current->sharedBytes);
  }
}

bool cuda::assemble(llvm::StringRef ptx, const Target &target,
                    std::string &cubin, std::vector<ResourceUsage> &usage,
                    std::string &log) {
  std::string arch = "-arch=" + target.name;
  const char *options[] = {arch.c_str(), "-Xptxas=-v"};
  nvJitLinkHandle handle;
  nvJitLinkResult rc = nvJitLinkCreate(&handle, 2, options);
  if (rc != NVJITLINK_SUCCESS) {
    log = "nvJitLinkCreate failed for " + target.name + " (error " +
          std::to_string(rc) + ")";
    return false;
  }
  std::string text = ptx.str();
  rc = nvJitLinkAddData(handle, NVJITLINK_INPUT_PTX, text.data(), text.size(),
                        "collc.ptx");
  if (rc == NVJITLINK_SUCCESS)
    rc = nvJitLinkComplete(handle);
  size_t size = 0;
  std::string info, errors;
  if (nvJitLinkGetInfoLogSize(handle, &size) == NVJITLINK_SUCCESS && size) {
    info.assign(size, '\0');
    nvJitLinkGetInfoLog(handle, info.data());
  }
  if (nvJitLinkGetErrorLogSize(handle, &size) == NVJITLINK_SUCCESS && size) {
    errors.assign(size, '\0');
    nvJitLinkGetErrorLog(handle, errors.data());
  }
  if (rc != NVJITLINK_SUCCESS) {
    log = errors.empty() ? info : errors;
    nvJitLinkDestroy(&handle);
    return false;
  }
  nvJitLinkGetLinkedCubinSize(handle, &size);
  cubin.assign(size, '\0');
  nvJitLinkGetLinkedCubin(handle, cubin.data());
  nvJitLinkDestroy(&handle);
  parseResources(info, usage);
  log = info;
  return true;
}
