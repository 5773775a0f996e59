//===- json_reader.h - typed reads of a JSON document -----------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The reads the module and policy-table readers share (manifest.cpp,
/// policy.cpp): every field type-checked before it is read, the first
/// problem the one reported. Internal to collc_manifest.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_RUNTIME_SRC_JSON_READER_H
#define COLLC_RUNTIME_SRC_JSON_READER_H

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace collc {
struct Manifest;
struct PolicyEntry;
} // namespace collc

namespace collc::detail {

using json = nlohmann::json;

/// `s` as a JSON string, quoted, for messages.
inline std::string quote(const std::string &s) { return json(s).dump(); }

/// Typed field access that reports what is missing or mistyped; once an
/// error is set every later read is a no-op, so the first one is reported.
struct Reader {
  std::string error;
  bool fail(const std::string &message) {
    if (error.empty())
      error = message;
    return false;
  }
  const json *field(const json &obj, const char *key, json::value_t type,
                    const std::string &where) {
    if (!error.empty())
      return nullptr;
    if (!obj.is_object()) {
      fail(where + " is not a JSON object");
      return nullptr;
    }
    auto it = obj.find(key);
    if (it == obj.end()) {
      fail(where + ": missing field '" + key + "'");
      return nullptr;
    }
    if (!(it->type() == type ||
          (type == json::value_t::number_integer &&
           it->type() == json::value_t::number_unsigned))) {
      fail(where + ": field '" + key + "' has type " + it->type_name() +
           ", expected " + json(type).type_name());
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
        fail(where + ": field '" + key + "' holds a non-string");
        return out;
      }
      out.push_back(v.get<std::string>());
    }
    return out;
  }
};


/// The byte where parsing a malformed document `data[0, bytes)` stops.
size_t whereParsingStops(const char *data, size_t bytes);

/// readPolicyTable on a parsed document: a module's `policy_table` (`sep`
/// ".", "policy_table.entries[0]") or a file's (": ", "FILE: entries[0]").
std::string readPolicyJson(const json &doc, std::vector<PolicyEntry> &out,
                           const std::string &where, const char *sep);

/// Checks the module's policy table against its kernels (policy.cpp): every
/// collective in the module, and for an entry of a target the module has,
/// every variant it selects a kernel of the collective at its rank count
/// whose band holds the sizes it is selected for.
void checkPolicyTable(Reader &r, const Manifest &m);

} // namespace collc::detail

#endif // COLLC_RUNTIME_SRC_JSON_READER_H
