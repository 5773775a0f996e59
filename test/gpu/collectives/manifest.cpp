//===- manifest.cpp - reading and rewriting module manifests ----*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The tests read the module file (docs/module-format.md) themselves: the
/// collectives and types it has (so every one is tested), the event names a
/// timeout message must mention, and rewritten copies (another target label,
/// corrupt fields) for the misuse suite.
///
//===----------------------------------------------------------------------===//

#include "harness.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>

namespace ct {

using json = nlohmann::json;

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fatal("cannot read %s", path.c_str());
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<ManifestCollective> readManifest(const std::string &path) {
  json doc = json::parse(readFile(path), nullptr, false);
  if (doc.is_discarded() || !doc.contains("collectives"))
    fatal("%s: not a module file the tests can read", path.c_str());
  std::vector<ManifestCollective> out;
  for (const json &c : doc["collectives"]) {
    ManifestCollective mc;
    mc.name = c.value("name", "");
    for (const json &t : c.value("element_types", json::array())) {
      bool ok;
      collcDataType_t ty = parseType(t.get<std::string>(), &ok);
      if (!ok)
        fatal("%s: collective %s has element type %s the tests do not know",
              path.c_str(), mc.name.c_str(), t.get<std::string>().c_str());
      mc.types.push_back(ty);
    }
    for (const json &w : c.value("world_sizes", json::array()))
      mc.worldSizes.push_back(w.get<int>());
    if (c.contains("schedule")) {
      const json &s = c["schedule"];
      for (const json &e : s.value("ready_events", json::array()))
        mc.readyEvents.push_back(e.get<std::string>());
      for (const json &e : s.value("free_events", json::array()))
        mc.freeEvents.push_back(e.get<std::string>());
    }
    out.push_back(std::move(mc));
  }
  return out;
}

std::string relabelModule(const std::string &text, const std::string &target) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded())
    fatal("relabelModule: the module is not JSON");
  // Keep one target's kernels and images (the first listed), relabelled.
  std::string from = doc["targets"].at(0).get<std::string>();
  doc["targets"] = json::array({target});
  for (const char *list : {"kernels", "images"}) {
    json kept = json::array();
    for (json &e : doc[list])
      if (e.value("target", "") == from) {
        e["target"] = target;
        kept.push_back(e);
      }
    doc[list] = kept;
  }
  return doc.dump();
}

} // namespace ct
