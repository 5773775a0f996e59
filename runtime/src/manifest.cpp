//===- manifest.cpp - reading and checking a collc module file --*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Reads the JSON module file (docs/module-format.md) with nlohmann/json's
/// non-throwing API: every field is type-checked before it is read, and the
/// first problem found is the one reported.
///
//===----------------------------------------------------------------------===//

#include "manifest.h"
#include "json_reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

using json = nlohmann::json;
using namespace collc;
using namespace collc::detail;

size_t collc::detail::whereParsingStops(const char *data, size_t bytes) {
  struct Sax : nlohmann::json_sax<json> {
    size_t where = 0;
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t &) override {
      return true;
    }
    bool string(string_t &) override { return true; }
    bool binary(binary_t &) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t &) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t position, const std::string &,
                     const nlohmann::detail::exception &) override {
      where = position;
      return false;
    }
  } sax;
  sax.where = bytes;
  json::sax_parse(data, data + bytes, &sax);
  return sax.where;
}

namespace {

/// The most world sizes a kernel's parameters can hold: 16 bytes a rank of
/// size vector within the 4 KiB a launch takes (docs/module-format.md).
constexpr int kMaxCapacity = 250;

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

void readCollective(Reader &r, const json &c, const std::string &where,
                    CollectiveInfo &info) {
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
      r.fail(pw + ": unknown layout");
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
}

/// Reads kernel `k`'s `program` object and checks that its receive-buffer
/// facts are abi.h's formulas: a module that disagrees with them would
/// overrun or misread its buffers. False once r.error is set.
bool readProgram(Reader &r, const json &k, const std::string &kernel,
                 KernelInfo &info) {
  using T = json::value_t;
  const json *p = r.field(k, "program", T::object, kernel);
  if (!p)
    return false;
  const std::string where = kernel + ".program";
  ProgramInfo &g = info.program;
  g.variant = r.str(*p, "variant", where);
  const std::string encoding = r.str(*p, "encoding", where);
  const json *band = r.field(*p, "band", T::array, where);
  const long long slots = r.num(*p, "slots", where);
  const long long region = r.num(*p, "region_bytes", where);
  const long long rx = r.num(*p, "rx_bytes", where);
  g.rxFill = (int)r.num(*p, "rx_fill", where);
  g.counterWords = (int)r.num(*p, "counter_words", where);
  g.inputPacked = r.flag(*p, "input_packed", where);
  // Optional (format_version 1 kept): absent means an unrooted program.
  if (p->contains("root")) {
    const std::string root = r.str(*p, "root", where);
    if (r.error.empty() &&
        !vocab::parse(root.data(), root.size(), g.root))
      return r.fail(where + ": unknown root " + quote(root) +
                    ", expected \"none\", \"producer\" or \"consumer\"");
  }
  // Optional (added with format_version 1 kept): absent means false.
  if (p->contains("speculate")) {
    if (!(*p)["speculate"].is_boolean())
      return r.fail(where + ": speculate is " + (*p)["speculate"].dump() +
                    ", expected true or false");
    g.speculate = (*p)["speculate"].get<bool>();
  }
  // Optional (added with format_version 1 kept): absent means not chunked.
  if (p->contains("chunk")) {
    const json &chunk = (*p)["chunk"];
    if (!chunk.is_number_integer() || chunk.get<long long>() < 0 ||
        chunk.get<long long>() % 16)
      return r.fail(where + ": chunk is " + chunk.dump() +
                    ", expected a non-negative multiple of 16 (bytes; 0: "
                    "not chunked)");
    g.chunk = chunk.get<unsigned long long>();
  }
  // Optional (added with format_version 1 kept): absent means false.
  if (p->contains("agree")) {
    if (!(*p)["agree"].is_boolean())
      return r.fail(where + ": agree is " + (*p)["agree"].dump() +
                    ", expected true or false");
    g.agree = (*p)["agree"].get<bool>();
  }
  // Optional (added with format_version 1 kept): absent means false.
  if (p->contains("pairs")) {
    if (!(*p)["pairs"].is_boolean())
      return r.fail(where + ": pairs is " + (*p)["pairs"].dump() +
                    ", expected true or false");
    g.pairs = (*p)["pairs"].get<bool>();
  }
  // Optional (added with format_version 1 kept): absent means 0.
  if (p->contains("pair_ll16")) {
    if (!(*p)["pair_ll16"].is_number_integer())
      return r.fail(where + ": pair_ll16 is " + (*p)["pair_ll16"].dump() +
                    ", expected an integer");
    g.pairLL16 = (*p)["pair_ll16"].get<long long>();
  }
  // Optional (added with format_version 1 kept): absent means not
  // zero-copy.
  if (p->contains("registered")) {
    const json &reg = (*p)["registered"];
    bool ok = reg.is_array() && !reg.empty();
    for (const json &b : ok ? reg : json::array()) {
      const unsigned bit =
          !b.is_string()         ? 0
          : b == "input"  ? ProgramInfo::kRegisteredInput
          : b == "output" ? ProgramInfo::kRegisteredOutput
                          : 0;
      ok &= bit != 0 && !(g.registered & bit);
      g.registered |= bit;
    }
    if (!ok)
      return r.fail(where + ": registered is " + reg.dump() +
                    ", expected a non-empty list of distinct \"input\" and "
                    "\"output\"");
  }
  // Optional (added with format_version 1 kept): absent means false.
  if (p->contains("multicast")) {
    if (!(*p)["multicast"].is_boolean())
      return r.fail(where + ": multicast is " + (*p)["multicast"].dump() +
                    ", expected true or false");
    g.multicast = (*p)["multicast"].get<bool>();
  }
  if (!r.error.empty())
    return false;
  auto bad = [&](const std::string &what) {
    return r.fail(where + ": " + what);
  };
  const int variant = g.variant == "two_shot"   ? COLLC_VARIANT_TWO_SHOT
                      : g.variant == "one_shot" ? COLLC_VARIANT_ONE_SHOT
                      : g.variant == "multimem" ||
                              g.variant == "multimem_pull"
                          ? COLLC_VARIANT_MULTIMEM
                          : -1;
  if (variant < 0)
    return bad("unknown variant " + quote(g.variant) +
               ", expected \"one_shot\", \"two_shot\", \"multimem\" or "
               "\"multimem_pull\"");
  // An in-switch program: its registered buffers bound to multicast
  // objects, readiness its barriers' counters, nothing received.
  if ((variant == COLLC_VARIANT_MULTIMEM) != g.multicast)
    return bad(g.multicast ? "multicast is true, which only an in-switch "
                             "(\"multimem\", \"multimem_pull\") program is"
                           : "an in-switch program needs multicast: true");
  g.encoding = -1;
  for (int e :
       {COLLC_ENCODING_FLAG, COLLC_ENCODING_LL16, COLLC_ENCODING_SENTINEL})
    if (encoding == encodingName(e))
      g.encoding = e;
  if (g.encoding < 0)
    return bad("unknown encoding " + quote(encoding) +
               ", expected \"flag\", \"ll16\" or \"sentinel\"");
  // Zero-copy readiness is a flag word per CTA and step.
  if (g.registered && !g.multicast &&
      (g.encoding != COLLC_ENCODING_FLAG || !g.chunk || g.speculate))
    return bad("registered (a zero-copy program) needs encoding \"flag\", "
               "a chunk and no speculation");
  // The agreement's words sit beside the chunked flag ready words.
  if (g.agree && (g.encoding != COLLC_ENCODING_FLAG || !g.chunk))
    return bad("agree (steps agreed on the device) needs encoding \"flag\" "
               "and a chunk");
  if (g.pairs && (g.encoding != COLLC_ENCODING_FLAG || !g.chunk || g.agree))
    return bad("pairs (each pair of ranks at its own steps) needs encoding "
               "\"flag\", a chunk and no agree");
  if (g.pairLL16 != 0 &&
      (!g.pairs || g.registered || g.pairLL16 < 0 || g.pairLL16 % 16 != 0 ||
       g.pairLL16 > (long long)g.chunk))
    return bad("pair_ll16 is " + std::to_string(g.pairLL16) +
               ", expected a multiple of 16 of at most the chunk, with "
               "pairs true, in a staged program (small pairs by LL16)");
  // A flag validates no payload loaded before it.
  if (g.speculate && g.encoding == COLLC_ENCODING_FLAG)
    return bad("speculate is true with encoding \"flag\", which validates "
               "no payload loaded before it");
  if (band->size() != 2 || !(*band)[0].is_number_integer() ||
      !(*band)[1].is_number_integer() || (*band)[0].get<long long>() < 0 ||
      (*band)[0].get<long long>() > (*band)[1].get<long long>())
    return bad("band " + band->dump() +
               " is not [lo, hi] with 0 <= lo <= hi (bytes of the input)");
  g.bandLo = (*band)[0].get<unsigned long long>();
  g.bandHi = (*band)[1].get<unsigned long long>();
  // Reuse without a free event is proven by the next call's readiness,
  // which needs two slots at least (dual buffering).
  if (slots < 2)
    return bad("slots is " + std::to_string(slots) + ", expected at least 2");
  g.slots = (int)slots;
  if (g.multicast) {
    if (!g.registered || g.encoding != COLLC_ENCODING_FLAG || g.chunk ||
        g.speculate || g.agree || g.pairs || region != 0 || rx != 0 ||
        g.counterWords != info.grid ||
        g.rxFill != collcRxFillByte(COLLC_ENCODING_FLAG))
      return bad("an in-switch program needs registered buffers, encoding "
                 "\"flag\", no chunk, speculation or agreement, region_bytes "
                 "and rx_bytes 0, and a counter word per CTA");
    return true;
  }
  if (region <= 0 || region % 16)
    return bad("region_bytes is " + std::to_string(region) +
               ", expected a positive multiple of 16");
  g.regionBytes = (unsigned long long)region;
  // The band's top must fit a region (whole, or the partition of it that
  // the variant's regions carry), with the flag words of every warp; a
  // chunked region one step: a chunk and a flag word per CTA.
  const int warps = (int)((long long)info.grid * info.threads / 32);
  const unsigned long long need =
      g.registered
          ? collcRxRegionBytes(g.encoding,
                               collcRxInPlacePayloadBytes(info.grid),
                               collcRxChunkedWords(info.grid, g.agree))
      : g.chunk ? collcRxRegionBytes(
                    g.encoding,
                    collcRxChunkedPayloadBytes(info.grid, g.chunk),
                    collcRxChunkedWords(info.grid, g.agree))
              : collcRxRegionBytes(
                    g.encoding,
                    collcRxPayloadBytes(variant, g.bandHi, info.worldSize),
                    warps);
  if (g.regionBytes < need)
    return bad("region_bytes is " + std::to_string(region) + ", but " +
               (g.registered ? "the words of " + std::to_string(info.grid) +
                                   " CTAs (zero-copy)"
                : g.chunk ? "a step of " + std::to_string(info.grid) +
                              " chunks of " + std::to_string(g.chunk) +
                              " bytes"
                        : "the band's top (" + std::to_string(g.bandHi) +
                              " bytes)") +
               " needs " + std::to_string(need));
  g.rxBytes = (unsigned long long)rx;
  const unsigned long long rxWant =
      collcRxBuffers(variant) *
          collcRxBytes(g.slots, info.worldSize, g.regionBytes) +
      collcRxPairLL16Bytes(g.slots, info.worldSize, info.grid, g.pairLL16);
  if (rx < 0 || g.rxBytes != rxWant)
    return bad("rx_bytes is " + std::to_string(rx) + ", expected " +
               std::to_string(rxWant) +
               " (receive buffers x slots x world_size x region_bytes" +
               (g.pairLL16 ? std::string(", then the LL16 area of pair_ll16") : std::string()) + ")");
  if (g.rxFill != collcRxFillByte(g.encoding))
    return bad("rx_fill is " + std::to_string(g.rxFill) + ", expected " +
               std::to_string(collcRxFillByte(g.encoding)) + " for encoding " +
               quote(encoding));
  const long long counters =
      collcProgramCounterWords(info.grid, info.worldSize, g.pairs);
  if (g.counterWords != counters)
    return bad("counter_words is " + std::to_string(g.counterWords) +
               ", expected " + std::to_string(counters) +
               (g.pairs ? " (the grid x (1 + world_size): pairs)"
                        : " (the grid)"));
  return true;
}

void readKernel(Reader &r, const json &k, const std::string &where,
                bool programAbi, KernelInfo &info) {
  info.name = r.str(k, "name", where);
  info.target = r.str(k, "target", where);
  info.collective = r.str(k, "collective", where);
  info.elementType = r.str(k, "element_type", where);
  info.elementBytes = (int)r.num(k, "element_bytes", where);
  // Optional (added with format_version 1 kept): absent means none.
  if (k.contains("serves"))
    info.serves = r.strings(k, "serves", where);
  info.worldSize = (int)r.num(k, "world_size", where);
  // Optional: absent means the world size.
  info.capacity =
      k.contains("capacity") ? (int)r.num(k, "capacity", where) : info.worldSize;
  info.grid = (int)r.num(k, "grid", where);
  info.threads = (int)r.num(k, "threads", where);
  info.pdl = r.flag(k, "pdl", where);
  if (!r.error.empty())
    return;
  if (info.worldSize < 1 || info.grid < 1 || info.threads < 1 ||
      info.elementBytes < 1) {
    r.fail(where + ": non-positive launch or type sizes");
    return;
  }
  // A kernel's parameters hold `capacity` ranks' entries, 4 KiB at most.
  if (info.capacity < info.worldSize || info.capacity > kMaxCapacity) {
    r.fail(where + ": capacity " + std::to_string(info.capacity) +
           " is not between the world size (" +
           std::to_string(info.worldSize) + ") and " +
           std::to_string(kMaxCapacity));
    return;
  }
  // A served type's counts become the kernel's by a whole factor.
  for (const std::string &t : info.serves) {
    vocab::ElemType type;
    if (!vocab::parse(t.data(), t.size(), type)) {
      r.fail(where + ": 'serves' names " + quote(t) +
             ", which is not an element type");
      return;
    }
    if (vocab::elemBytes(type) % info.elementBytes != 0) {
      r.fail(where + ": serves " + quote(t) + " (" +
             std::to_string(vocab::elemBytes(type)) +
             " bytes) with elements of " + std::to_string(info.elementBytes) +
             " bytes, which do not divide it");
      return;
    }
  }
  if (k.contains("program")) {
    info.isProgram = true;
    if (!programAbi) {
      r.fail(where + ": a program kernel, but the manifest has no "
                     "'program_abi_version'");
      return;
    }
    readProgram(r, k, where, info);
    return;
  }
  if (const json *w = r.field(k, "workspace", json::value_t::object, where)) {
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
}

/// Reads and decodes image `im`; a problem with its data is corrupt.
void readImage(Reader &r, const json &im, const std::string &where,
               Image &image) {
  image.target = r.str(im, "target", where);
  image.kind = r.str(im, "kind", where);
  std::string encoding = r.str(im, "encoding", where);
  std::string sha = r.str(im, "sha256", where);
  std::string data = r.str(im, "data", where);
  if (!r.error.empty())
    return;
  const std::string what = where + " (" + image.target + " " + image.kind + ")";
  if (encoding == "base64") {
    if (!decodeBase64(data, image.data)) {
      r.fail(what + ": the base64 data is corrupt");
      return;
    }
  } else if (encoding == "text") {
    image.data = std::move(data);
  } else {
    r.fail(where + ": unknown encoding " + quote(encoding) +
           ", expected \"text\" or \"base64\"");
    return;
  }
  // A flipped byte in PTX may still load and run wrong: check the hash.
  if (sha256Hex(image.data) != sha) {
    r.fail(what + ": SHA-256 mismatch, the image is corrupt; rebuild the "
                  "module");
    return;
  }
  // "sm_90a" -> 90; the suffix only narrows where a cubin runs.
  image.capability = std::atoi(image.target.c_str() + 3);
  if (image.kind == "cubin" || image.kind == "ptx") {
    image.hasCubin = image.kind == "cubin";
    image.hasPtx = image.kind == "ptx";
  } else if (image.kind == "fatbin") {
    // A CUDA fat binary (magic 0xBA55ED50, little-endian), compressed or
    // not; the driver reads the rest.
    const std::string &d = image.data;
    if (d.size() < 16 || static_cast<unsigned char>(d[0]) != 0x50 ||
        static_cast<unsigned char>(d[1]) != 0xED ||
        static_cast<unsigned char>(d[2]) != 0x55 ||
        static_cast<unsigned char>(d[3]) != 0xBA) {
      r.fail(what + ": not a CUDA fat binary (bad magic number)");
      return;
    }
    for (const std::string &c : r.strings(im, "contents", where)) {
      if (c == "cubin")
        image.hasCubin = true;
      else if (c == "ptx")
        image.hasPtx = true;
      else
        r.fail(what + ": unknown contents " + quote(c) +
               ", expected \"cubin\" or \"ptx\"");
    }
    if (r.error.empty() && !image.hasCubin && !image.hasPtx)
      r.fail(what + ": 'contents' is empty");
  } else {
    r.fail(what + ": unknown kind " + quote(image.kind) +
           ", expected \"fatbin\", \"cubin\" or \"ptx\"");
  }
}

/// The checks of ManifestCheck::Whole beyond reading: an image for every
/// target, every kernel's target has one, and every kernel is an entry of
/// its target's PTX where that is text (a fatbin's is compressed: the
/// runtime checks its kernels when it loads it).
void checkWhole(Reader &r, const Manifest &m) {
  std::map<std::string, const std::string *> ptx;
  std::set<std::string> coded;
  for (const Image &image : m.images) {
    coded.insert(image.target);
    if (image.kind == "ptx")
      ptx[image.target] = &image.data;
  }
  for (const std::string &t : m.targets)
    if (!coded.count(t))
      r.fail("target " + quote(t) + " has no image");
  for (size_t i = 0; i < m.kernels.size() && r.error.empty(); ++i) {
    const KernelInfo &k = m.kernels[i];
    const std::string where = "kernels[" + std::to_string(i) + "]";
    auto it = ptx.find(k.target);
    if (!coded.count(k.target))
      r.fail(where + ": no image for target " + quote(k.target));
    else if (it != ptx.end() &&
             it->second->find(".entry " + k.name + "(") == std::string::npos)
      r.fail(where + ": kernel " + quote(k.name) + " is not in the PTX of " +
             quote(k.target));
  }
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

const Image *Manifest::imageFor(int cc) const {
  auto plain = [](const Image &im) {
    return im.target.find_first_of("af", 5) == std::string::npos;
  };
  const Image *best = nullptr;
  for (const Image &im : images)
    if (im.hasCubin && im.capability == cc && plain(im))
      return &im;
  for (const Image &im : images)
    if (im.hasCubin && plain(im) && im.capability / 10 == cc / 10 &&
        im.capability < cc && (!best || im.capability > best->capability))
      best = &im;
  if (best)
    return best;
  for (const Image &im : images)
    if (im.hasPtx && im.capability <= cc &&
        (!best || im.capability > best->capability))
      best = &im;
  return best;
}

const CollectiveInfo *Manifest::findCollective(const std::string &name) const {
  for (const CollectiveInfo &c : collectives)
    if (c.name == name)
      return &c;
  return nullptr;
}

ManifestProblem collc::readManifest(const char *data, size_t bytes, Manifest &m,
                                    ManifestCheck check, const char *reader) {
  auto foreign = [](std::string message) {
    return ManifestProblem{std::move(message), false};
  };
  auto corrupt = [](std::string message) {
    return ManifestProblem{std::move(message), true};
  };
  if (bytes == 0)
    return foreign("the module file is empty; build one with collc "
                   "--emit=module");
  json doc = json::parse(data, data + bytes, nullptr,
                         /*allow_exceptions=*/false);
  if (doc.is_discarded())
    return foreign("the module file is not valid JSON: it is truncated or "
                   "corrupt (parse error at byte " +
                   std::to_string(whereParsingStops(data, bytes)) + " of " +
                   std::to_string(bytes) + ")");
  if (!doc.is_object())
    return foreign("not a collc module: the document is not a JSON object");
  auto format = doc.find("format");
  if (format == doc.end() || *format != kModuleFormatName)
    return foreign(
        "not a collc module: format is " +
        (format == doc.end() ? std::string("missing") : format->dump()) +
        ", expected " + quote(kModuleFormatName));
  Reader r;
  const std::string rebuild = "; rebuild the module with a matching collc";
  const long long version = r.num(doc, "format_version", "manifest");
  if (r.error.empty() && version != kModuleFormatVersion)
    return foreign("module format version " + std::to_string(version) +
                   " is not supported by this " + reader +
                   " (it reads version " +
                   std::to_string(kModuleFormatVersion) + ")" + rebuild);
  const long long abi = r.num(doc, "kernel_abi_version", "manifest");
  if (r.error.empty() && abi != COLLC_KERNEL_ABI_VERSION)
    return foreign("the module's kernel ABI version is " + std::to_string(abi) +
                   ", this " + reader + " speaks " +
                   std::to_string(COLLC_KERNEL_ABI_VERSION) + rebuild);
  // Programs (SNAC v2) have their own ABI; a module without programs need
  // not say which it would speak (format version 1 predates programs).
  const bool programAbi = doc.contains("program_abi_version");
  if (programAbi) {
    const long long v = r.num(doc, "program_abi_version", "manifest");
    if (r.error.empty() && v != COLLC_PROGRAM_ABI_VERSION)
      return foreign("the module's program ABI version is " +
                     std::to_string(v) + ", this " + reader + " speaks " +
                     std::to_string(COLLC_PROGRAM_ABI_VERSION) + rebuild);
  }
  if (check == ManifestCheck::Whole) {
    r.field(doc, "compiler", json::value_t::object, "manifest");
    m.targets = r.strings(doc, "targets", "manifest");
  } else if (doc.contains("targets")) {
    m.targets = r.strings(doc, "targets", "manifest");
  }
  if (const json *spec =
          r.field(doc, "spec", json::value_t::object, "manifest")) {
    m.specHash = r.str(*spec, "sha256", "spec");
    if (spec->contains("file") && (*spec)["file"].is_string())
      m.specFile = (*spec)["file"].get<std::string>();
  }

  // Optional: absent means the kernels have no timeline hooks.
  if (auto trace = doc.find("device_trace"); trace != doc.end()) {
    if (!trace->is_boolean())
      r.fail("manifest: device_trace is " + trace->dump() +
             ", expected true or false");
    else
      m.deviceTrace = trace->get<bool>();
  }
  // A policy table makes bands capacities (they may overlap) and chooses
  // among them; it is checked against the kernels once they are read.
  if (auto table = doc.find("policy_table"); table != doc.end()) {
    m.hasPolicyTable = true;
    r.fail(readPolicyJson(*table, m.policy, "policy_table", "."));
  }
  const json *collectives =
      r.field(doc, "collectives", json::value_t::array, "manifest");
  for (size_t i = 0; collectives && r.error.empty() && i < collectives->size();
       ++i) {
    CollectiveInfo info;
    readCollective(r, (*collectives)[i],
                   "collectives[" + std::to_string(i) + "]", info);
    m.collectives.push_back(std::move(info));
  }
  const json *kernels =
      r.field(doc, "kernels", json::value_t::array, "manifest");
  for (size_t i = 0; kernels && r.error.empty() && i < kernels->size(); ++i) {
    KernelInfo info;
    const std::string where = "kernels[" + std::to_string(i) + "]";
    readKernel(r, (*kernels)[i], where, programAbi, info);
    // A rooted call's sizes must be shaped, an unrooted call's must not
    // (the runtime would hand the program the wrong sizes).
    const CollectiveInfo *c = m.findCollective(info.collective);
    if (r.error.empty() && info.isProgram && c &&
        c->rooted() != (info.program.root != vocab::Root::None))
      r.fail(where + ": program " + quote(info.name) + " has root " +
             quote(vocab::spelling(info.program.root)) + " but collective " +
             quote(info.collective) +
             (c->rooted() ? " is rooted" : " is not rooted"));
    // Without a policy table the variants of a collective split its sizes
    // (one-shot up to a bound, two-shot above it); the runtime takes the
    // first program whose band holds a call, so overlapping variants would
    // leave one unreachable for some sizes. Encodings of one variant may
    // overlap: alternatives that COLLC_FORCE_VARIANT picks between. An
    // in-switch program serves every size beside them, first where its
    // buffers are bound to multicast objects, the others elsewhere.
    for (size_t j = 0; r.error.empty() && info.isProgram &&
                       !info.program.multicast && !m.hasPolicyTable &&
                       j < m.kernels.size();
         ++j) {
      const KernelInfo &o = m.kernels[j];
      if (o.isProgram && !o.program.multicast &&
          o.collective == info.collective &&
          o.program.variant != info.program.variant &&
          o.elementType == info.elementType &&
          o.worldSize == info.worldSize && o.target == info.target &&
          info.program.bandLo <= o.program.bandHi &&
          o.program.bandLo <= info.program.bandHi)
        r.fail(where + " ('" + info.name + "'): band [" +
               std::to_string(info.program.bandLo) + ", " +
               std::to_string(info.program.bandHi) + "] overlaps that of '" +
               o.name + "', a program of another variant; the variants of "
               "a collective need disjoint bands");
    }
    m.kernels.push_back(std::move(info));
  }
  const json *images = r.field(doc, "images", json::value_t::array, "manifest");
  for (size_t i = 0; images && r.error.empty() && i < images->size(); ++i) {
    Image image;
    readImage(r, (*images)[i], "images[" + std::to_string(i) + "]", image);
    m.images.push_back(std::move(image));
  }
  if (m.hasPolicyTable && r.error.empty())
    checkPolicyTable(r, m);
  if (check == ManifestCheck::Whole && r.error.empty())
    checkWhole(r, m);
  return r.error.empty() ? ManifestProblem() : corrupt(r.error);
}

//===----------------------------------------------------------------------===//
// Base64 (RFC 4648, standard alphabet, padded)
//===----------------------------------------------------------------------===//

static const char kBase64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string collc::encodeBase64(const std::string &in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  for (size_t i = 0; i < in.size(); i += 3) {
    const size_t n = std::min<size_t>(3, in.size() - i);
    unsigned v = 0;
    for (size_t j = 0; j < 3; ++j)
      v = v << 8 | (j < n ? (unsigned char)in[i + j] : 0u);
    for (size_t j = 0; j < 4; ++j)
      out.push_back(j <= n ? kBase64[(v >> (18 - 6 * j)) & 63] : '=');
  }
  return out;
}

bool collc::decodeBase64(const std::string &in, std::string &out) {
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
  // Whole groups of four, at most two '=' and only at the end.
  if (in.size() % 4)
    return false;
  size_t pad = 0;
  while (pad < 2 && pad < in.size() && in[in.size() - 1 - pad] == '=')
    ++pad;
  out.reserve(in.size() / 4 * 3);
  unsigned buffer = 0;
  int bits = 0;
  for (size_t i = 0; i + pad < in.size(); ++i) {
    int v = value(in[i]);
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
