//===- module.cpp - loading a collc module file -----------------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Reads the JSON module file (docs/module-format.md) with nlohmann/json's
/// non-throwing API (the runtime is built without exceptions): every field
/// is type-checked before it is read, so a corrupt file is an error message,
/// never an abort.
///
//===----------------------------------------------------------------------===//

#include "runtime.h"
#include "sha256.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

using json = nlohmann::json;
using namespace collc;

namespace {

/// Decodes standard base64; false on a character outside the alphabet.
bool decodeBase64(const std::string &in, std::string &out) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z')
      return c - 'A';
    if (c >= 'a' && c <= 'z')
      return c - 'a' + 26;
    if (c >= '0' && c <= '9')
      return c - '0' + 52;
    if (c == '+')
      return 62;
    if (c == '/')
      return 63;
    return -1;
  };
  out.clear();
  unsigned buffer = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=')
      break;
    int v = value(c);
    if (v < 0)
      return false;
    buffer = (buffer << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  return true;
}

/// Typed field access that reports what is missing or mistyped.
struct Reader {
  std::string error;
  const json *field(const json &obj, const char *key, json::value_t type,
                    const std::string &where) {
    if (!error.empty())
      return nullptr;
    if (!obj.is_object()) {
      error = where + " is not a JSON object";
      return nullptr;
    }
    auto it = obj.find(key);
    bool integer = type == json::value_t::number_integer;
    if (it == obj.end() ||
        !(it->type() == type ||
          (integer && it->type() == json::value_t::number_unsigned))) {
      error = where + ": field '" + key + "' is " +
              (it == obj.end() ? std::string("missing")
                               : std::string("a ") + it->type_name());
      return nullptr;
    }
    return &*it;
  }
  std::string str(const json &obj, const char *key, const std::string &where) {
    const json *f = field(obj, key, json::value_t::string, where);
    return f ? f->get<std::string>() : std::string();
  }
  long long num(const json &obj, const char *key, const std::string &where) {
    const json *f = field(obj, key, json::value_t::number_integer, where);
    return f ? f->get<long long>() : 0;
  }
  bool flag(const json &obj, const char *key, const std::string &where) {
    const json *f = field(obj, key, json::value_t::boolean, where);
    return f ? f->get<bool>() : false;
  }
  std::vector<std::string> strings(const json &obj, const char *key,
                                   const std::string &where) {
    std::vector<std::string> out;
    const json *f = field(obj, key, json::value_t::array, where);
    if (!f)
      return out;
    for (const json &v : *f) {
      if (!v.is_string()) {
        error = where + ": field '" + key + "' holds a non-string";
        return out;
      }
      out.push_back(v.get<std::string>());
    }
    return out;
  }
};

Layout parseLayout(const std::string &s, bool &variable, bool &ok) {
  Layout l = Layout::Packed;
  ok = vocab::parseLayout(s.data(), s.size(), l, variable);
  return l;
}

/// An enum's manifest spelling (collc/vocab.h); `fallback` if none.
template <class E> E parseEnum(const std::string &s, E fallback) {
  E value = fallback;
  return vocab::parse(s.data(), s.size(), value) ? value : fallback;
}

/// Reads a kernel's `program` object; false once r.error is set.
bool parseProgram(Reader &r, const json &k, const std::string &kernel,
                  KernelInfo &info) {
  const json *p = r.field(k, "program", json::value_t::object, kernel);
  if (!p)
    return false;
  const std::string where = kernel + ".program";
  ProgramInfo &g = info.program;
  g.variant = r.str(*p, "variant", where);
  std::string encoding = r.str(*p, "encoding", where);
  g.slots = (int)r.num(*p, "slots", where);
  g.regionBytes = (unsigned long long)r.num(*p, "region_bytes", where);
  g.rxBytes = (unsigned long long)r.num(*p, "rx_bytes", where);
  g.rxFill = (int)r.num(*p, "rx_fill", where);
  g.counterWords = (int)r.num(*p, "counter_words", where);
  g.inputPacked = r.flag(*p, "input_packed", where);
  const json *band = r.field(*p, "band", json::value_t::array, where);
  if (!r.error.empty())
    return false;
  g.encoding = -1;
  for (int e : {COLLC_ENCODING_FLAG, COLLC_ENCODING_LL16,
                COLLC_ENCODING_SENTINEL})
    if (encoding == encodingName(e))
      g.encoding = e;
  if (g.encoding < 0) {
    r.error = where + ": unknown encoding '" + encoding +
              "' (flag, ll16 or sentinel)";
    return false;
  }
  if (band->size() != 2 || !(*band)[0].is_number_integer() ||
      !(*band)[1].is_number_integer() || (*band)[0].get<long long>() < 0 ||
      (*band)[0].get<long long>() > (*band)[1].get<long long>()) {
    r.error = where + ": 'band' must be [lo, hi], 0 <= lo <= hi (bytes)";
    return false;
  }
  g.bandLo = (*band)[0].get<unsigned long long>();
  g.bandHi = (*band)[1].get<unsigned long long>();
  return true;
}

/// The receive-buffer facts of a program must be the ABI's formulas (abi.h):
/// a module that disagrees with them would overrun or misread its buffers.
void checkProgram(Reader &r, const std::string &kernel, const KernelInfo &k) {
  const ProgramInfo &g = k.program;
  const std::string where = kernel + ".program ('" + k.name + "')";
  auto bad = [&](const std::string &what) { r.error = where + ": " + what; };
  // Two slots at least: reuse is proven by the next call's readiness.
  if (g.slots < 2)
    return bad("slots is " + std::to_string(g.slots) +
               "; a program needs at least 2 (dual buffering)");
  const int segments = (int)((long long)k.grid * k.threads / 32);
  const unsigned long long need =
      collcRxRegionBytes(g.encoding, g.bandHi, segments);
  if (g.regionBytes % 16 != 0 || g.regionBytes < need)
    return bad("region_bytes is " + std::to_string(g.regionBytes) +
               ", but its band's top (" + std::to_string(g.bandHi) +
               " bytes) needs " + std::to_string(need) +
               " (a multiple of 16)");
  if (g.rxBytes != collcRxBytes(g.slots, k.worldSize, g.regionBytes))
    return bad("rx_bytes is " + std::to_string(g.rxBytes) + ", expected " +
               std::to_string(collcRxBytes(g.slots, k.worldSize,
                                           g.regionBytes)) +
               " (slots x world_size x region_bytes)");
  if (g.rxFill != collcRxFillByte(g.encoding))
    return bad("rx_fill is " + std::to_string(g.rxFill) + ", expected " +
               std::to_string(collcRxFillByte(g.encoding)) + " for " +
               encodingName(g.encoding));
  if (g.counterWords != k.grid)
    return bad("counter_words is " + std::to_string(g.counterWords) +
               ", expected the grid (" + std::to_string(k.grid) + ")");
}

collcResult_t parseModule(const char *data, size_t bytes, collcModule &m) {
  if (bytes == 0)
    return COLLC_FAIL(collcInvalidArgument,
                      "the module file is empty; build one with collc "
                      "--emit=module");
  json doc = json::parse(data, data + bytes, nullptr, false);
  if (doc.is_discarded())
    return COLLC_FAIL(collcInvalidArgument,
                      "the module file is not valid JSON (truncated or "
                      "corrupt?); check it with collc --validate-module");
  Reader r;
  if (!doc.is_object() || r.str(doc, "format", "manifest") != "collc-module")
    return COLLC_FAIL(collcInvalidArgument,
                      "not a collc module file (no \"format\": "
                      "\"collc-module\")");
  long long version = r.num(doc, "format_version", "manifest");
  if (r.error.empty() && version != 1)
    return COLLC_FAIL(collcInvalidArgument,
                      "module format version %lld is not supported by this "
                      "runtime (it reads version 1); rebuild the module with "
                      "a matching collc",
                      version);
  long long abi = r.num(doc, "kernel_abi_version", "manifest");
  if (r.error.empty() && abi != COLLC_KERNEL_ABI_VERSION)
    return COLLC_FAIL(collcInvalidArgument,
                      "the module's kernel ABI version is %lld, this runtime "
                      "speaks %d; rebuild the module with a matching collc",
                      abi, COLLC_KERNEL_ABI_VERSION);
  // Programs (SNAC v2) have their own ABI; a module without programs need
  // not say which it would speak.
  long long programAbi = -1;
  if (doc.contains("program_abi_version")) {
    programAbi = r.num(doc, "program_abi_version", "manifest");
    if (r.error.empty() && programAbi != COLLC_PROGRAM_ABI_VERSION)
      return COLLC_FAIL(collcInvalidArgument,
                        "the module's program ABI version is %lld, this "
                        "runtime speaks %d; rebuild the module with a "
                        "matching collc",
                        programAbi, COLLC_PROGRAM_ABI_VERSION);
  }
  if (const json *spec = r.field(doc, "spec", json::value_t::object, "manifest")) {
    m.specHash = r.str(*spec, "sha256", "spec");
    if (spec->contains("file") && (*spec)["file"].is_string())
      m.specFile = (*spec)["file"].get<std::string>();
  }

  const json *collectives =
      r.field(doc, "collectives", json::value_t::array, "manifest");
  for (size_t i = 0; collectives && i < collectives->size(); ++i) {
    const json &c = (*collectives)[i];
    std::string where = "collectives[" + std::to_string(i) + "]";
    CollectiveInfo info;
    info.name = r.str(c, "name", where);
    const json *parts = r.field(c, "transforms", json::value_t::array, where);
    for (size_t t = 0; parts && t < parts->size(); ++t) {
      const json &p = (*parts)[t];
      std::string pw = where + ".transforms[" + std::to_string(t) + "]";
      TransformInfo ti;
      ti.reduce = parseEnum(r.str(p, "consume", pw), vocab::Consume::Copy) ==
                  vocab::Consume::Reduce;
      bool okIn = true, okOut = true, varOut = false;
      ti.in = parseLayout(r.str(p, "input", pw), ti.variable, okIn);
      ti.out = parseLayout(r.str(p, "output", pw), varOut, okOut);
      ti.root = parseEnum(r.str(p, "root", pw), Root::None);
      if (ti.reduce)
        ti.op = (collcRedOp_t)parseEnum(r.str(p, "reduction", pw),
                                        vocab::RedOp::Sum);
      if (r.error.empty() && (!okIn || !okOut))
        r.error = pw + ": unknown layout";
      info.parts.push_back(ti);
    }
    if (const json *s = r.field(c, "schedule", json::value_t::object, where)) {
      info.readyEvents = r.strings(*s, "ready_events", where + ".schedule");
      info.freeEvents = r.strings(*s, "free_events", where + ".schedule");
      if (const json *roles =
              r.field(*s, "roles", json::value_t::array, where + ".schedule"))
        for (const json &role : *roles)
          info.roles.push_back(r.str(role, "name", where + ".schedule.roles"));
    }
    m.collectives.push_back(std::move(info));
  }

  const json *kernels = r.field(doc, "kernels", json::value_t::array, "manifest");
  for (size_t i = 0; kernels && i < kernels->size(); ++i) {
    const json &k = (*kernels)[i];
    std::string where = "kernels[" + std::to_string(i) + "]";
    KernelInfo info;
    info.name = r.str(k, "name", where);
    info.target = r.str(k, "target", where);
    info.collective = r.str(k, "collective", where);
    info.elementType = r.str(k, "element_type", where);
    info.elementBytes = (int)r.num(k, "element_bytes", where);
    info.worldSize = (int)r.num(k, "world_size", where);
    info.grid = (int)r.num(k, "grid", where);
    info.threads = (int)r.num(k, "threads", where);
    info.pdl = r.flag(k, "pdl", where);
    if (k.is_object() && k.contains("program")) {
      info.isProgram = true;
      if (!parseProgram(r, k, where, info))
        break;
    } else if (const json *w =
                   r.field(k, "workspace", json::value_t::object, where)) {
      std::string ww = where + ".workspace";
      info.chunkBytes = r.num(*w, "chunk_bytes", ww);
      info.slots = (int)r.num(*w, "slots", ww);
      info.readyEvents = (int)r.num(*w, "ready_events", ww);
      info.freeEvents = (int)r.num(*w, "free_events", ww);
      info.stagingBytes = r.num(*w, "staging_bytes", ww);
      info.intermediateBytes = r.num(*w, "intermediate_bytes", ww);
      info.eventWords = r.num(*w, "event_words", ww);
      info.stateWords = r.num(*w, "state_words", ww);
    }
    if (r.error.empty() && (info.worldSize < 1 || info.grid < 1 ||
                            info.threads < 1 || info.elementBytes < 1))
      r.error = where + ": non-positive launch or type sizes";
    if (r.error.empty() && info.isProgram)
      checkProgram(r, where, info);
    if (r.error.empty() && info.isProgram && programAbi < 0)
      r.error = where + " ('" + info.name +
                "') is a program, but the manifest has no "
                "'program_abi_version'";
    m.kernels.push_back(std::move(info));
  }

  const json *images = r.field(doc, "images", json::value_t::array, "manifest");
  for (size_t i = 0; images && i < images->size(); ++i) {
    const json &im = (*images)[i];
    std::string where = "images[" + std::to_string(i) + "]";
    Image image;
    image.target = r.str(im, "target", where);
    image.kind = r.str(im, "kind", where);
    std::string encoding = r.str(im, "encoding", where);
    std::string sha = r.str(im, "sha256", where);
    std::string data = r.str(im, "data", where);
    if (!r.error.empty())
      break;
    if (encoding == "base64") {
      if (!decodeBase64(data, image.data))
        return COLLC_FAIL(collcInvalidArgument,
                          "%s (%s %s): the base64 data is corrupt",
                          where.c_str(), image.target.c_str(),
                          image.kind.c_str());
    } else {
      image.data = std::move(data);
    }
    // A flipped byte in PTX may still load and run wrong: check the hash.
    if (sha256Hex(image.data) != sha)
      return COLLC_FAIL(collcInvalidArgument,
                        "%s (%s %s): SHA-256 mismatch, the image is corrupt; "
                        "rebuild the module",
                        where.c_str(), image.target.c_str(),
                        image.kind.c_str());
    // "sm_90a" -> 90; the suffix only narrows where a cubin runs.
    image.capability = std::atoi(image.target.c_str() + 3);
    m.images.push_back(std::move(image));
  }
  if (!r.error.empty())
    return COLLC_FAIL(collcInvalidArgument,
                      "the module file is corrupt: %s; check it with collc "
                      "--validate-module",
                      r.error.c_str());
  return collcSuccess;
}

} // namespace

const char *collc::encodingName(int encoding) {
  switch (encoding) {
  case COLLC_ENCODING_FLAG:
    return "flag";
  case COLLC_ENCODING_LL16:
    return "ll16";
  case COLLC_ENCODING_SENTINEL:
    return "sentinel";
  default:
    return "?";
  }
}

const CollectiveInfo *collcModule::findCollective(const std::string &name) const {
  for (const CollectiveInfo &c : collectives)
    if (c.name == name)
      return &c;
  return nullptr;
}

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
