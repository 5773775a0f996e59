//===- policy.cpp - reading and checking a policy table ---------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A policy table (docs/module-format.md, "Policy tables") is what a
/// calibration run measured: per target, rank count, collective and kind of
/// buffers, the variant that serves each range of a call's selection bytes.
/// `collc --policy-table` reads the file with readPolicyTable and bakes it
/// into the module; the runtime's reader reads it back from there and
/// checks it against the module's kernels (checkPolicyTable), so a table
/// that names a variant the module lacks, or a size a program cannot hold,
/// is refused when the module loads, not discovered by a call.
///
//===----------------------------------------------------------------------===//

#include "json_reader.h"
#include "manifest.h"

using namespace collc;
using namespace collc::detail;

std::string VariantName::spelling() const {
  return v1 ? "v1"
            : variant + ":" + encodingName(encoding) + (staged ? ":staged" : "");
}

bool collc::parseVariantName(const std::string &text, VariantName &out) {
  out = VariantName();
  if (text == "v1") {
    out.v1 = true;
    return true;
  }
  const size_t colon = text.find(':');
  if (colon == std::string::npos || colon == 0)
    return false;
  std::string encoding = text.substr(colon + 1);
  static const std::string kStaged = ":staged";
  if (encoding.size() > kStaged.size() &&
      encoding.compare(encoding.size() - kStaged.size(), kStaged.size(),
                       kStaged) == 0) {
    encoding.resize(encoding.size() - kStaged.size());
    out.staged = true;
  }
  for (int e :
       {COLLC_ENCODING_FLAG, COLLC_ENCODING_LL16, COLLC_ENCODING_SENTINEL})
    if (encoding == encodingName(e)) {
      out.variant = text.substr(0, colon);
      out.encoding = e;
      return true;
    }
  out = VariantName();
  return false;
}

const PolicyEntry *Manifest::policyFor(const std::string &target, int ranks,
                                       const std::string &collective,
                                       bool registered) const {
  for (const PolicyEntry &e : policy)
    if (e.ranks == ranks && e.registered == registered &&
        e.collective == collective && e.target == target)
      return &e;
  return nullptr;
}

namespace {

/// A number field (integer or not) of `obj`.
double number(Reader &r, const json &obj, const char *key,
              const std::string &where) {
  if (!r.error.empty())
    return 0;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) {
    r.fail(where + (it == obj.end() ? ": missing field '"
                                    : ": field '") +
           key + (it == obj.end() ? "'" : "' is not a number"));
    return 0;
  }
  return it->get<double>();
}

VariantName variantField(Reader &r, const json &obj,
                         const std::string &where) {
  VariantName v;
  const std::string text = r.str(obj, "variant", where);
  if (r.error.empty() && !parseVariantName(text, v))
    r.fail(where + ": variant " + quote(text) +
           " is not 'v1' or '<variant>:<encoding>[:staged]' with an "
           "encoding of flag, ll16 or sentinel");
  return v;
}

void readEntry(Reader &r, const json &e, const std::string &where,
               PolicyEntry &out) {
  out.target = r.str(e, "target", where);
  if (r.error.empty() && out.target.rfind("sm_", 0) != 0)
    r.fail(where + ": target " + quote(out.target) +
           " is not sm_<version>, e.g. sm_90");
  const long long ranks = r.num(e, "ranks", where);
  if (r.error.empty() && (ranks < 1 || ranks > 1 << 20))
    r.fail(where + ": ranks is " + std::to_string(ranks) +
           ", expected a rank count");
  out.ranks = (int)ranks;
  out.collective = r.str(e, "collective", where);
  if (r.error.empty() && out.collective.empty())
    r.fail(where + ": collective is empty");
  const std::string buffers = r.str(e, "buffers", where);
  if (r.error.empty() && buffers != "ordinary" && buffers != "registered")
    r.fail(where + ": buffers is " + quote(buffers) +
           ", expected \"ordinary\" or \"registered\"");
  out.registered = buffers == "registered";
  // The fits are the evidence (T = a + b * S per variant): read, kept in
  // the module, not used to select.
  if (const json *fits = r.field(e, "fits", json::value_t::array, where))
    for (size_t i = 0; r.error.empty() && i < fits->size(); ++i) {
      const std::string fw = where + ".fits[" + std::to_string(i) + "]";
      const json &f = (*fits)[i];
      variantField(r, f, fw);
      for (const char *key : {"a_us", "b_us_per_byte", "residual"})
        number(r, f, key, fw);
      const long long lo = r.num(f, "key_lo", fw), hi = r.num(f, "key_hi", fw);
      const long long points = r.num(f, "points", fw);
      if (r.error.empty() && (lo < 0 || hi < lo || points < 1))
        r.fail(fw + ": key_lo " + std::to_string(lo) + ", key_hi " +
               std::to_string(hi) + " and points " + std::to_string(points) +
               " do not describe a fit (0 <= key_lo <= key_hi, points >= 1)");
    }
  const json *select = r.field(e, "select", json::value_t::array, where);
  if (select && select->empty())
    r.fail(where + ": select is empty; it needs at least the interval that "
                   "serves every size (no 'upto')");
  long long last = -1;
  for (size_t i = 0; select && r.error.empty() && i < select->size(); ++i) {
    const std::string sw = where + ".select[" + std::to_string(i) + "]";
    const json &s = (*select)[i];
    PolicyChoice choice;
    choice.variant = variantField(r, s, sw);
    const bool final = i + 1 == select->size();
    if (final) {
      if (r.error.empty() && s.is_object() && s.contains("upto"))
        r.fail(sw + ": the last interval has an 'upto'; it must serve "
                    "every larger size (remove it)");
      choice.upto = PolicyChoice::kUnbounded;
    } else {
      choice.upto = r.num(s, "upto", sw);
      if (r.error.empty() && choice.upto <= last)
        r.fail(sw + ": upto " + std::to_string(choice.upto) +
               " does not exceed the interval before it (" +
               std::to_string(last) + "); bounds must increase");
      last = choice.upto;
    }
    out.select.push_back(choice);
  }
}

} // namespace

std::string collc::detail::readPolicyJson(const json &doc,
                                          std::vector<PolicyEntry> &out,
                                          const std::string &where,
                                          const char *sep) {
  Reader r;
  out.clear();
  if (!doc.is_object())
    return where + ": not a JSON object";
  const std::string format = r.str(doc, "format", where);
  if (r.error.empty() && format != "collc-policy-table")
    return where + ": format is " + quote(format) +
           ", expected \"collc-policy-table\"";
  const long long version = r.num(doc, "version", where);
  if (r.error.empty() && version != 1)
    return where + ": version " + std::to_string(version) +
           " is not supported (this collc reads version 1)";
  for (const char *key : {"machine", "gpu", "date", "method"})
    r.str(doc, key, where);
  r.num(doc, "driver", where);
  const json *entries = r.field(doc, "entries", json::value_t::array, where);
  for (size_t i = 0; entries && r.error.empty() && i < entries->size(); ++i) {
    const std::string ew = where + sep + "entries[" + std::to_string(i) + "]";
    PolicyEntry e;
    readEntry(r, (*entries)[i], ew, e);
    for (size_t j = 0; r.error.empty() && j < out.size(); ++j)
      if (out[j].target == e.target && out[j].ranks == e.ranks &&
          out[j].collective == e.collective &&
          out[j].registered == e.registered)
        r.fail(ew + ": a second entry for " + quote(e.collective) + " at " +
               std::to_string(e.ranks) + " ranks on " + e.target + " with " +
               (e.registered ? "registered" : "ordinary") +
               " buffers (the first is entries[" + std::to_string(j) + "])");
    out.push_back(std::move(e));
  }
  return r.error;
}

std::string collc::readPolicyTable(const char *data, size_t bytes,
                                   std::vector<PolicyEntry> &out,
                                   const std::string &where) {
  json doc = json::parse(data, data + bytes, nullptr,
                         /*allow_exceptions=*/false);
  if (doc.is_discarded())
    return where + ": not valid JSON (parse error at byte " +
           std::to_string(whereParsingStops(data, bytes)) + " of " +
           std::to_string(bytes) + ")";
  return readPolicyJson(doc, out, where, ": ");
}

void collc::detail::checkPolicyTable(Reader &r, const Manifest &m) {
  for (size_t i = 0; r.error.empty() && i < m.policy.size(); ++i) {
    const PolicyEntry &e = m.policy[i];
    const std::string where = "policy_table.entries[" + std::to_string(i) + "]";
    if (!m.findCollective(e.collective)) {
      r.fail(where + ": collective " + quote(e.collective) +
             " is not in the module; the table was made for another spec");
      return;
    }
    // A table may hold targets the module was not built for (it is one
    // machine's calibration); those entries are never consulted.
    bool target = false, ranks = false;
    for (const KernelInfo &k : m.kernels) {
      target |= k.target == e.target;
      ranks |= k.target == e.target && k.collective == e.collective &&
               k.worldSize == e.ranks;
    }
    if (!target)
      continue;
    if (!ranks) {
      r.fail(where + ": the module has no kernel of " + quote(e.collective) +
             " at " + std::to_string(e.ranks) + " ranks on " + e.target);
      return;
    }
    long long lo = 0;
    for (size_t j = 0; j < e.select.size(); ++j) {
      const PolicyChoice &c = e.select[j];
      const std::string sw = where + ".select[" + std::to_string(j) + "]";
      const std::string range =
          "[" + std::to_string(lo) + ", " +
          (c.upto == PolicyChoice::kUnbounded ? std::string("any")
                                              : std::to_string(c.upto)) +
          "]";
      bool found = false;
      for (const KernelInfo &k : m.kernels) {
        if (k.target != e.target || k.collective != e.collective ||
            k.worldSize != e.ranks)
          continue;
        if (c.variant.v1) {
          found |= !k.isProgram;
          continue;
        }
        // A zero-copy twin serves registered buffers only.
        if (!k.isProgram || !c.variant.names(k.program) ||
            (k.program.registered && !e.registered))
          continue;
        found = true;
        if (k.program.bandLo > (unsigned long long)lo ||
            k.program.bandHi < (unsigned long long)c.upto) {
          r.fail(sw + ": selects " + c.variant.spelling() + " for " +
                 range + " bytes, but the band of " + quote(k.name) + " is [" +
                 std::to_string(k.program.bandLo) + ", " +
                 std::to_string(k.program.bandHi) +
                 "]; a program serves only the sizes its band holds");
          return;
        }
      }
      if (!found) {
        r.fail(sw + ": selects " + c.variant.spelling() + " for " + range +
               " bytes, which the module does not have for " +
               quote(e.collective) + " at " + std::to_string(e.ranks) +
               " ranks on " + e.target);
        return;
      }
      lo = c.upto == PolicyChoice::kUnbounded ? lo : c.upto + 1;
    }
  }
}
