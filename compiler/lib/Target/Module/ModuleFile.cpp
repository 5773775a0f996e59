//===- ModuleFile.cpp - the collc module file -------------------*- C++ -*-===//

#include "collc/Target/Module/ModuleFile.h"

#include "collc/Dialect/Coll/IR/CollDialect.h"
#include "collc/Dialect/Coll/IR/CollOps.h"
#include "collc/Dialect/Snac/IR/SnacOps.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Base64.h"
#include "llvm/Support/SHA256.h"

#include <nlohmann/json.hpp>

// The kernel ABI version and workspace formulas the runtime shares.
#include "collc/device/snac/abi.h"

using namespace mlir;
using namespace collc;
using json = nlohmann::ordered_json;

static std::string sha256Hex(llvm::StringRef bytes) {
  auto digest = llvm::SHA256::hash(llvm::arrayRefFromStringRef(bytes));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

static json transformJson(coll::TransformOp t) {
  json j;
  j["consume"] = coll::stringifyConsumeOp(t.getConsume()).str();
  if (auto r = t.getReduction())
    j["reduction"] = coll::stringifyReduction(*r).str();
  j["input"] = coll::stringifyLayout(t.getInput()).str();
  j["output"] = coll::stringifyLayout(t.getOutput()).str();
  j["root"] = coll::stringifyRoot(t.getRootRole()).str();
  return j;
}

static json policyJson(DictionaryAttr dict) {
  json j = json::object();
  if (!dict)
    return j;
  for (NamedAttribute entry : dict) {
    if (auto i = dyn_cast<IntegerAttr>(entry.getValue()))
      j[entry.getName().str()] = i.getInt();
    else if (auto s = dyn_cast<StringAttr>(entry.getValue()))
      j[entry.getName().str()] = s.getValue().str();
  }
  return j;
}

/// COLLC_ENCODING_* of a manifest encoding name; -1 for an unknown one.
static int programEncoding(llvm::StringRef name) {
  return llvm::StringSwitch<int>(name)
      .Case("flag", COLLC_ENCODING_FLAG)
      .Case("ll16", COLLC_ENCODING_LL16)
      .Case("sentinel", COLLC_ENCODING_SENTINEL)
      .Default(-1);
}

static void addResources(json &j, const module::TargetImage &image,
                         const cuda::KernelInfo &k) {
  for (const cuda::ResourceUsage &r : image.resources)
    if (r.kernel == k.name)
      j["resources"] = {{"registers", r.registers},
                        {"spill_store_bytes", r.spillStoreBytes},
                        {"spill_load_bytes", r.spillLoadBytes},
                        {"stack_bytes", r.stackBytes},
                        {"shared_bytes", r.sharedBytes}};
}

void module::write(ModuleOp module, llvm::StringRef specName,
                   llvm::StringRef specText,
                   const std::vector<TargetImage> &images,
                   llvm::raw_ostream &os) {
  json m;
  m["format"] = kFormatName;
  m["format_version"] = kFormatVersion;
  m["compiler"] = {{"name", "collc"},
                   {"version", COLLC_VERSION_STRING},
                   {"nvrtc", cuda::nvrtcVersion()}};
  m["kernel_abi_version"] = COLLC_KERNEL_ABI_VERSION;
  m["program_abi_version"] = COLLC_PROGRAM_ABI_VERSION;
  m["spec"] = {{"file", specName.str()}, {"sha256", sha256Hex(specText)}};
  json targets = json::array();
  for (const TargetImage &image : images)
    targets.push_back(image.target.name);
  m["targets"] = targets;
  m["policy"] = policyJson(module->getAttrOfType<DictionaryAttr>(
      coll::CollDialect::kPolicyAttrName));

  json collectives = json::array();
  for (auto schedule : module.getOps<snac::ScheduleOp>()) {
    auto c = module.lookupSymbol<coll::CollectiveOp>(schedule.getCollective());
    json j;
    j["name"] = c.getSymName().str();
    json transforms = json::array();
    for (coll::TransformOp t : c.getTransforms())
      transforms.push_back(transformJson(t));
    j["transforms"] = transforms;
    j["input_layout"] = coll::stringifyLayout(c.getInputLayout()).str();
    j["output_layout"] = coll::stringifyLayout(c.getOutputLayout()).str();
    j["root"] = coll::stringifyRoot(c.getRootRole()).str();
    json types = json::array();
    for (Attribute t : c.getElementTypes())
      types.push_back(coll::elementTypeSpelling(cast<TypeAttr>(t).getValue()));
    j["element_types"] = types;
    j["world_sizes"] = c.getWorldSizes().vec();
    j["policy"] = policyJson(c.getPolicyAttr());
    json roles = json::array();
    for (auto role : schedule.getBody().getOps<snac::RoleOp>())
      roles.push_back({{"name", role.getSymName().str()},
                       {"participants",
                        snac::stringifyParticipants(role.getParticipants())},
                       {"ctas", role.getCtas()},
                       {"part", role.getPart()}});
    // Event names in the kernels' numbering (ready events, then free
    // events), for messages about a wait that timed out.
    json ready = json::array(), free = json::array();
    for (auto e : schedule.getBody().getOps<snac::EventOp>())
      (e.getKind() == snac::EventKind::ready ? ready : free)
          .push_back(e.getSymName().str());
    j["schedule"] = {{"chunk_bytes", schedule.getChunkBytes()},
                     {"slots", schedule.getStagingSlots()},
                     {"roles", roles},
                     {"ready_events", ready},
                     {"free_events", free}};
    collectives.push_back(j);
  }
  m["collectives"] = collectives;

  json kernels = json::array();
  json imagesJson = json::array();
  for (const TargetImage &image : images) {
    for (const cuda::KernelInfo &k : image.kernels) {
      json j;
      j["name"] = k.name;
      j["target"] = image.target.name;
      j["collective"] = k.collective;
      j["element_type"] = k.elementType;
      j["element_bytes"] = k.elementBytes;
      j["world_size"] = k.worldSize;
      j["grid"] = k.grid;
      j["threads"] = k.threads;
      j["pdl"] = k.pdl;
      if (k.program) {
        // A program has receive buffers and counters, no workspace.
        const cuda::ProgramInfo &p = *k.program;
        const int enc = programEncoding(p.encoding);
        j["program"] = {
            {"variant", p.variant},
            {"encoding", p.encoding},
            {"band", {p.bandLo, p.bandHi}},
            {"slots", p.slots},
            {"region_bytes", p.regionBytes},
            {"rx_bytes", collcRxBytes(p.slots, k.worldSize, p.regionBytes)},
            {"rx_fill", collcRxFillByte(enc)},
            {"counter_words", k.grid},
            {"input_packed", p.inputPacked},
            {"speculate", p.speculate}};
        addResources(j, image, k);
        kernels.push_back(j);
        continue;
      }
      // Workspace per rank (collc/device/snac/abi.h): staging mirrors the
      // first input's partitions; the intermediate the first output's.
      long long chunkElems =
          std::max<long long>(1, k.chunkBytes / k.elementBytes);
      j["workspace"] = {
          {"chunk_bytes", k.chunkBytes},
          {"slots", k.slots},
          {"ready_events", k.readyEvents},
          {"free_events", k.freeEvents},
          {"staging_bytes",
           collcSlotBufferElems(k.stagingPartitions, k.slots, chunkElems) *
               k.elementBytes},
          {"intermediate_bytes",
           collcSlotBufferElems(k.intermediatePartitions, k.slots,
                                chunkElems) *
               k.elementBytes},
          {"event_words", collcEventWords(k.readyEvents, k.freeEvents,
                                          k.worldSize, k.slots)},
          {"state_words",
           collcStateWords(k.freeEvents, k.worldSize, k.slots)}};
      addResources(j, image, k);
      kernels.push_back(j);
    }
    imagesJson.push_back({{"target", image.target.name},
                          {"kind", "ptx"},
                          {"encoding", "text"},
                          {"size", image.ptx.size()},
                          {"sha256", sha256Hex(image.ptx)},
                          {"data", image.ptx}});
    if (!image.cubin.empty())
      imagesJson.push_back({{"target", image.target.name},
                            {"kind", "cubin"},
                            {"encoding", "base64"},
                            {"size", image.cubin.size()},
                            {"sha256", sha256Hex(image.cubin)},
                            {"data", llvm::encodeBase64(image.cubin)}});
  }
  m["kernels"] = kernels;
  m["images"] = imagesJson;
  os << m.dump(1) << "\n";
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

namespace {
/// Checks one field: present and of the right JSON type.
struct Checker {
  std::string error;
  bool need(const json &obj, const char *key, json::value_t type,
            const std::string &where) {
    if (!error.empty())
      return false;
    auto it = obj.find(key);
    if (it == obj.end()) {
      error = where + ": missing field '" + key + "'";
      return false;
    }
    bool ok = it->type() == type ||
              (type == json::value_t::number_integer &&
               it->type() == json::value_t::number_unsigned);
    if (!ok) {
      error = where + ": field '" + key + "' has type " + it->type_name() +
              ", expected " + json(type).type_name();
      return false;
    }
    return true;
  }
};
} // namespace

/// Checks the `program` object of kernel `k`: its fields, their types, and
/// that the derived sizes agree with the receive-buffer formulas of abi.h
/// (what the runtime allocates from them).
static std::string checkProgram(const json &k, const std::string &kernel) {
  using T = json::value_t;
  Checker c;
  if (!c.need(k, "program", T::object, kernel))
    return c.error;
  const json &p = k["program"];
  const std::string where = kernel + ".program";
  if (!c.need(p, "variant", T::string, where) ||
      !c.need(p, "encoding", T::string, where) ||
      !c.need(p, "band", T::array, where) ||
      !c.need(p, "slots", T::number_integer, where) ||
      !c.need(p, "region_bytes", T::number_integer, where) ||
      !c.need(p, "rx_bytes", T::number_integer, where) ||
      !c.need(p, "rx_fill", T::number_integer, where) ||
      !c.need(p, "counter_words", T::number_integer, where) ||
      !c.need(p, "input_packed", T::boolean, where))
    return c.error;
  if (p["variant"] != "one_shot")
    return where + ": unknown variant " + p["variant"].dump() +
           ", expected \"one_shot\"";
  const int enc = programEncoding(p["encoding"].get<std::string>());
  if (enc < 0)
    return where + ": unknown encoding " + p["encoding"].dump() +
           ", expected \"flag\", \"ll16\" or \"sentinel\"";
  const json &band = p["band"];
  if (band.size() != 2 || !band[0].is_number_integer() ||
      !band[1].is_number_integer() || band[0].get<long long>() < 0 ||
      band[0].get<long long>() > band[1].get<long long>())
    return where + ": band " + band.dump() +
           " is not [lo, hi] with 0 <= lo <= hi (bytes of the input)";
  const long long slots = p["slots"], region = p["region_bytes"];
  // Reuse without a free event is proven for two slots or more.
  if (slots < 2)
    return where + ": slots is " + std::to_string(slots) +
           ", expected at least 2";
  if (region <= 0 || region % 16)
    return where + ": region_bytes is " + std::to_string(region) +
           ", expected a positive multiple of 16";
  // The band's top must fit a region, with the flag words of every warp.
  const long long hi = band[1].get<long long>();
  const int warps = (int)(k["grid"].get<long long>() *
                          k["threads"].get<long long>() / 32);
  const unsigned long long need = collcRxRegionBytes(enc, hi, warps);
  if ((unsigned long long)region < need)
    return where + ": region_bytes is " + std::to_string(region) +
           ", but the band's top (" + std::to_string(hi) + " bytes) needs " +
           std::to_string(need);
  const unsigned long long rx =
      collcRxBytes((int)slots, k["world_size"].get<int>(), region);
  if (p["rx_bytes"].get<long long>() != (long long)rx)
    return where + ": rx_bytes is " + p["rx_bytes"].dump() + ", expected " +
           std::to_string(rx) + " (slots x world_size x region_bytes)";
  if (p["rx_fill"] != collcRxFillByte(enc))
    return where + ": rx_fill is " + p["rx_fill"].dump() + ", expected " +
           std::to_string(collcRxFillByte(enc)) + " for encoding " +
           p["encoding"].dump();
  if (p["counter_words"] != k["grid"])
    return where + ": counter_words is " + p["counter_words"].dump() +
           ", expected the grid (" + k["grid"].dump() + ")";
  // Optional (false when absent); a flag validates no load made before it.
  if (p.contains("speculate")) {
    if (!p["speculate"].is_boolean())
      return where + ": speculate is " + p["speculate"].dump() +
             ", expected true or false";
    if (p["speculate"].get<bool>() && enc == COLLC_ENCODING_FLAG)
      return where + ": speculate is true with encoding \"flag\", which "
                     "validates no payload loaded before it";
  }
  return "";
}

std::string module::validate(llvm::StringRef bytes, std::string *summary) {
  if (bytes.empty())
    return "the module file is empty";
  json m = json::parse(bytes.begin(), bytes.end(), nullptr,
                       /*allow_exceptions=*/false);
  if (m.is_discarded()) {
    // Find where parsing stops, for the message (no exceptions needed).
    struct WhereItStops : nlohmann::json_sax<json> {
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
    sax.where = bytes.size();
    json::sax_parse(bytes.begin(), bytes.end(), &sax);
    size_t where = sax.where;
    return "not a valid collc module: the JSON document is truncated or "
           "corrupt (parse error at byte " +
           std::to_string(where) + " of " + std::to_string(bytes.size()) +
           ")";
  }
  Checker c;
  using T = json::value_t;
  if (!m.is_object())
    return "not a collc module: the document is not a JSON object";
  if (!c.need(m, "format", T::string, "manifest") ||
      m["format"] != kFormatName)
    return c.error.empty() ? "not a collc module: format is " +
                                 m["format"].dump() + ", expected \"" +
                                 kFormatName + "\""
                           : c.error;
  if (!c.need(m, "format_version", T::number_integer, "manifest"))
    return c.error;
  if (m["format_version"] != kFormatVersion)
    return "module format version " + m["format_version"].dump() +
           " is not supported by this collc (it reads version " +
           std::to_string(kFormatVersion) + "); recompile the spec";
  c.need(m, "compiler", T::object, "manifest");
  c.need(m, "kernel_abi_version", T::number_integer, "manifest");
  c.need(m, "spec", T::object, "manifest");
  c.need(m, "targets", T::array, "manifest");
  c.need(m, "collectives", T::array, "manifest");
  c.need(m, "kernels", T::array, "manifest");
  c.need(m, "images", T::array, "manifest");
  if (!c.error.empty())
    return c.error;
  if (m["kernel_abi_version"] != COLLC_KERNEL_ABI_VERSION)
    return "kernel ABI version " + m["kernel_abi_version"].dump() +
           " differs from this collc's (" +
           std::to_string(COLLC_KERNEL_ABI_VERSION) + ")";
  // Optional (format version 1 predates programs), checked when present.
  if (m.contains("program_abi_version")) {
    if (!c.need(m, "program_abi_version", T::number_integer, "manifest"))
      return c.error;
    if (m["program_abi_version"] != COLLC_PROGRAM_ABI_VERSION)
      return "program ABI version " + m["program_abi_version"].dump() +
             " differs from this collc's (" +
             std::to_string(COLLC_PROGRAM_ABI_VERSION) + ")";
  }
  c.need(m["spec"], "sha256", T::string, "spec");

  std::map<std::string, std::string> ptxByTarget;
  for (auto [i, image] : llvm::enumerate(m["images"])) {
    std::string where = "images[" + std::to_string(i) + "]";
    if (!c.need(image, "target", T::string, where) ||
        !c.need(image, "kind", T::string, where) ||
        !c.need(image, "encoding", T::string, where) ||
        !c.need(image, "sha256", T::string, where) ||
        !c.need(image, "data", T::string, where))
      return c.error;
    std::string data = image["data"];
    std::string raw = data;
    if (image["encoding"] == "base64") {
      std::vector<char> decoded;
      if (llvm::Error e = llvm::decodeBase64(data, decoded)) {
        llvm::consumeError(std::move(e));
        return where + " (" + image["target"].get<std::string>() + " " +
               image["kind"].get<std::string>() +
               "): the base64 data is corrupt";
      }
      raw.assign(decoded.begin(), decoded.end());
    } else if (image["encoding"] != "text") {
      return where + ": unknown encoding " + image["encoding"].dump();
    }
    if (sha256Hex(raw) != image["sha256"])
      return where + " (" + image["target"].get<std::string>() + " " +
             image["kind"].get<std::string>() +
             "): SHA-256 mismatch, the image is corrupt";
    if (image["kind"] == "ptx")
      ptxByTarget[image["target"]] = std::move(raw);
  }
  for (const json &t : m["targets"])
    if (!t.is_string() || !ptxByTarget.count(t.get<std::string>()))
      return "target " + t.dump() + " has no PTX image";
  for (auto [i, k] : llvm::enumerate(m["kernels"])) {
    std::string where = "kernels[" + std::to_string(i) + "]";
    if (!c.need(k, "name", T::string, where) ||
        !c.need(k, "target", T::string, where) ||
        !c.need(k, "collective", T::string, where) ||
        !c.need(k, "element_type", T::string, where) ||
        !c.need(k, "world_size", T::number_integer, where) ||
        !c.need(k, "grid", T::number_integer, where) ||
        !c.need(k, "threads", T::number_integer, where))
      return c.error;
    if (k.contains("program")) {
      if (!m.contains("program_abi_version"))
        return where + ": a program kernel, but the manifest has no "
                       "'program_abi_version'";
      std::string problem = checkProgram(k, where);
      if (!problem.empty())
        return problem;
    } else if (!c.need(k, "workspace", T::object, where)) {
      return c.error;
    }
    auto ptx = ptxByTarget.find(k["target"]);
    if (ptx == ptxByTarget.end())
      return where + ": no PTX image for target " + k["target"].dump();
    std::string entry = ".entry " + k["name"].get<std::string>() + "(";
    if (ptx->second.find(entry) == std::string::npos)
      return where + ": kernel " + k["name"].dump() +
             " is not in the PTX of " + k["target"].dump();
  }
  if (summary)
    *summary = std::to_string(m["collectives"].size()) + " collectives, " +
               std::to_string(m["kernels"].size()) + " kernels, targets " +
               m["targets"].dump();
  return "";
}
