//===- module.cpp - loading a collc module file -----------------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Loads a module file: manifest.cpp reads and checks it (the same reader
/// `collc --validate-module` uses), so a corrupt file is an error message,
/// never an abort.
///
//===----------------------------------------------------------------------===//

#include "runtime.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

using namespace collc;

namespace {

collcResult_t parseModule(const char *data, size_t bytes, collcModule &m) {
  ManifestProblem problem =
      readManifest(data, bytes, m, ManifestCheck::Load, "runtime");
  if (!problem)
    return collcSuccess;
  if (problem.corrupt)
    return COLLC_FAIL(collcInvalidArgument,
                      "the module file is corrupt: %s; check it with collc "
                      "--validate-module",
                      problem.message.c_str());
  return COLLC_FAIL(collcInvalidArgument, "%s", problem.message.c_str());
}

} // namespace

extern "C" collcResult_t collcModuleLoadData(collcModule_t *module,
                                             const void *data, size_t bytes) {
  COLLC_API_ENTRY();
  COLLC_ARG_NOT_NULL(module);
  COLLC_ARG_NOT_NULL(data);
  *module = nullptr;
  std::unique_ptr<collcModule> m(new collcModule());
  COLLC_CHECK(parseModule(static_cast<const char *>(data), bytes, *m));
  *module = m.release();
  return collcSuccess;
}

extern "C" collcResult_t collcModuleLoad(collcModule_t *module,
                                         const char *path) {
  COLLC_API_ENTRY();
  COLLC_ARG_NOT_NULL(module);
  COLLC_ARG_NOT_NULL(path);
  *module = nullptr;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return COLLC_FAIL(collcInvalidArgument,
                      "cannot open module file '%s': %s", path,
                      std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  std::unique_ptr<collcModule> m(new collcModule());
  collcResult_t res = parseModule(bytes.data(), bytes.size(), *m);
  if (res != collcSuccess)
    return COLLC_FAIL(res, "%s: %s", path, lastErrorMessage());
  *module = m.release();
  return collcSuccess;
}

extern "C" collcResult_t collcModuleDestroy(collcModule_t module) {
  COLLC_API_ENTRY();
  COLLC_ARG_NOT_NULL(module);
  delete module;
  return collcSuccess;
}
