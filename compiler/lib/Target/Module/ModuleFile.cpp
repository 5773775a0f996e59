//===- ModuleFile.cpp - the collc module file -------------------*- C++ -*-===//

#include "collc/Target/Module/ModuleFile.h"

#include "collc/Dialect/Coll/IR/CollDialect.h"
#include "collc/Dialect/Coll/IR/CollOps.h"
#include "collc/Dialect/Snac/IR/SnacOps.h"

#include "llvm/ADT/StringSwitch.h"

#include <nlohmann/json.hpp>

// The kernel ABI version and workspace formulas the runtime shares.
#include "collc/device/snac/abi.h"
// The runtime's module reader: validation, image hashes and base64.
#include "manifest.h"

using namespace mlir;
using namespace collc;
using json = nlohmann::ordered_json;

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
                   llvm::raw_ostream &os, llvm::StringRef policyTable,
                   bool deviceTrace) {
  json m;
  m["format"] = kModuleFormatName;
  m["format_version"] = kModuleFormatVersion;
  m["compiler"] = {{"name", "collc"},
                   {"version", COLLC_VERSION_STRING},
                   {"nvrtc", cuda::nvrtcVersion()}};
  m["kernel_abi_version"] = COLLC_KERNEL_ABI_VERSION;
  m["program_abi_version"] = COLLC_PROGRAM_ABI_VERSION;
  m["spec"] = {{"file", specName.str()}, {"sha256", sha256Hex(specText.str())}};
  json targets = json::array();
  for (const TargetImage &image : images)
    targets.push_back(image.target.name);
  m["targets"] = targets;
  if (deviceTrace)
    m["device_trace"] = true;
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
      if (!k.serves.empty())
        j["serves"] = k.serves;
      j["world_size"] = k.worldSize;
      // Only a kernel of several world sizes says how many its parameters
      // hold (absent: the world size).
      if (k.capacity > k.worldSize)
        j["capacity"] = k.capacity;
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
            {"rx_bytes",
             collcRxBuffers(p.variant == "two_shot" ? COLLC_VARIANT_TWO_SHOT
                                                    : COLLC_VARIANT_ONE_SHOT) *
                     collcRxBytes(p.slots, k.worldSize, p.regionBytes) +
                 collcRxPairLL16Bytes(p.slots, k.worldSize, k.grid,
                                      p.pairLL16)},
            {"rx_fill", collcRxFillByte(enc)},
            {"counter_words",
             collcProgramCounterWords(k.grid, k.worldSize, p.pairs)},
            {"input_packed", p.inputPacked},
            {"root", p.root},
            {"speculate", p.speculate}};
        // Only a chunked program says its chunk (absent: not chunked).
        if (p.chunk)
          j["program"]["chunk"] = p.chunk;
        // Only a program whose ranks agree on its steps says so.
        if (p.agree)
          j["program"]["agree"] = true;
        // Only a program whose pairs run their own steps says so.
        if (p.pairs)
          j["program"]["pairs"] = true;
        if (p.pairLL16)
          j["program"]["pair_ll16"] = p.pairLL16;
        // Only a zero-copy program names the buffers it reads in place.
        if (!p.registered.empty())
          j["program"]["registered"] = p.registered;
        // Only an in-switch program says it needs multicast bindings.
        if (p.multicast)
          j["program"]["multicast"] = true;
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
    json contents = json::array({"cubin"});
    if (image.withPtx)
      contents.push_back("ptx");
    imagesJson.push_back({{"target", image.target.name},
                          {"kind", "fatbin"},
                          {"contents", contents},
                          {"encoding", "base64"},
                          {"size", image.fatbin.size()},
                          {"sha256", sha256Hex(image.fatbin)},
                          {"data", encodeBase64(image.fatbin)}});
  }
  m["kernels"] = kernels;
  // Verbatim (readPolicyTable parsed it): the calibration it came from.
  if (!policyTable.empty())
    m["policy_table"] = json::parse(policyTable.begin(), policyTable.end());
  m["images"] = imagesJson;
  os << m.dump(1) << "\n";
}

std::string module::validate(llvm::StringRef bytes, std::string *summary) {
  collc::Manifest m;
  collc::ManifestProblem problem = collc::readManifest(
      bytes.data(), bytes.size(), m, collc::ManifestCheck::Whole, "collc");
  if (problem)
    return problem.message;
  if (summary) {
    json targets = m.targets;
    *summary = std::to_string(m.collectives.size()) + " collectives, " +
               std::to_string(m.kernels.size()) + " kernels, targets " +
               targets.dump();
  }
  return "";
}
