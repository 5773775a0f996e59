//===- Mutator.cpp - deterministic spec mutations for the replay ---------===//

#include "Mutator.h"

#include <algorithm>

namespace collc::fuzz {

static const std::vector<const char *> kLayouts = {
    "packed", "scattered", "transposed", "packed_v", "scattered_v",
    "transposed_v"};
static const std::vector<const char *> kReductions = {"sum", "max", "min",
                                                      "avg"};
static const std::vector<const char *> kTypes = {"bf16", "f16", "f32",
                                                 "f8e4m3", "f8e5m2"};
static const std::vector<const char *> kTargets = {"sm_80", "sm_90", "sm_90a",
                                                   "sm_100", "sm_120f"};
// Policy entries, legal and not (refused keys, out-of-range values).
static const std::vector<const char *> kPolicy = {
    "ctas = 1",          "ctas = 16",           "ctas = 1024",
    "ctas = 0",          "chunk_bytes = 64",    "chunk_bytes = 4KiB",
    "chunk_bytes = 1GiB", "chunk_bytes = 3000", "staging_slots = 1",
    "staging_slots = 2", "staging_slots = 0",   "protocol = flag",
    "protocol = auto",   "protocol = ll",       "path = one_hop",
    "pipeline_stages = 2"};
// Tokens of the language plus the ones that have broken parsers before.
static const std::vector<const char *> kTokens = {
    "collective", "target", "types", "ranks", "policy", "then", "root",
    "producer", "consumer", "none", "copy", "reduce", "reduce<sum>", "<", ">",
    "(", ")", "->", "-", "=", ",", "#", "\n", " ", "\t", "\r", "packed",
    "scattered", "transposed", "packed_v", "scattered_v", "transposed_v",
    "0", "1", "2", "576", "577", "-1", "64KiB", "64KB", "1k", "2GiB",
    "99999999999999999999", "9223372036854775807", "\xC2\xA0",
    "\xEF\xBB\xBF", "\xE2\x80\x8B", "\xE2\x86\x92", "\xC3\xA9", "\x01",
    "\x7F", "a", "b", "x", "all_reduce"};

namespace {
/// A legal transform (docs/spec-language.md, "Semantics"); root is "" for
/// none.
struct Legal {
  bool copy;
  const char *input, *output, *root;
};
} // namespace
static const Legal kLegal[] = {
    {true, "packed", "scattered", ""},
    {true, "packed", "scattered", "consumer"},
    {true, "scattered", "packed", "producer"},
    {true, "scattered", "transposed", ""},
    {true, "packed", "packed", "producer"},
    {false, "scattered", "packed", ""},
    {false, "packed", "packed", ""},
    {false, "packed", "packed", "consumer"},
};

std::string Mutator::legal(const char *input, bool variable) {
  std::vector<const Legal *> fits;
  for (const Legal &l : kLegal)
    if (!input || std::string(l.input) == input)
      fits.push_back(&l);
  if (fits.empty())
    return transform();
  const Legal &l = *fits[below(fits.size())];
  lastOutput = l.output;
  std::string v = variable ? "_v" : "";
  std::string t = l.copy ? "copy"
                         : std::string("reduce<") + pick(kReductions) + ">";
  t += std::string("(") + l.input + v + " -> " + l.output + v + ")";
  if (*l.root)
    t += std::string(" root ") + l.root;
  return t;
}

std::string Mutator::transform() {
  std::string t;
  if (coin(50))
    t = "copy";
  else
    t = std::string("reduce<") + pick(kReductions) + ">";
  t += std::string("(") + pick(kLayouts) + " -> " + pick(kLayouts) + ")";
  if (coin(30))
    t += coin(50) ? " root producer" : " root consumer";
  return t;
}

std::string Mutator::generate() {
  std::string s;
  if (coin(30))
    s += std::string("target ") + pick(kTargets) + "\n";
  if (coin(40)) {
    s += std::string("types ") + pick(kTypes);
    if (coin(50))
      s += std::string(", ") + pick(kTypes);
    s += "\n";
  }
  if (coin(30))
    s += "ranks " + std::to_string(1 + below(9)) + "\n";
  if (coin(30))
    s += std::string("policy ") + pick(kPolicy) + "\n";
  unsigned n = 1 + below(4);
  for (unsigned i = 0; i < n; ++i) {
    s += "collective c" + std::to_string(i) + " = ";
    // Mostly legal transforms and compositions of two (every consume op,
    // layout pair, root role and composition), sometimes anything; a term
    // may also name another collective.
    bool variable = coin(30);
    auto term = [&](const char *input) {
      if (i > 0 && coin(20))
        return "c" + std::to_string(below(n));
      return coin(85) ? legal(input, variable) : transform();
    };
    lastOutput = nullptr;
    s += term(nullptr);
    if (coin(60))
      s += " then " + term(lastOutput);
    if (coin(20))
      s += std::string(" policy ") + pick(kPolicy);
    if (coin(15))
      s += std::string(" types ") + pick(kTypes);
    s += "\n";
  }
  return s;
}

void Mutator::editOnce(std::string &text,
                       const std::vector<std::string> &corpus) {
  size_t size = text.size();
  switch (below(8)) {
  case 0: { // Delete a span.
    if (!size)
      return;
    size_t at = below(size);
    text.erase(at, 1 + below(std::min<size_t>(16, size - at)));
    return;
  }
  case 1: // Insert a token.
    text.insert(below(size + 1), pick(kTokens));
    return;
  case 2: { // Replace a word with a token.
    size_t at = below(size + 1);
    size_t begin = text.find_last_of(" \t\n(),=<>", at == 0 ? 0 : at - 1);
    begin = begin == std::string::npos ? 0 : begin + 1;
    size_t end = text.find_first_of(" \t\n(),=<>", begin);
    if (end == std::string::npos)
      end = size;
    text.replace(begin, end - begin, pick(kTokens));
    return;
  }
  case 3: { // Duplicate a line.
    size_t at = below(size + 1);
    size_t begin = text.rfind('\n', at == 0 ? 0 : at - 1);
    begin = begin == std::string::npos ? 0 : begin + 1;
    size_t end = text.find('\n', begin);
    end = end == std::string::npos ? size : end + 1;
    text.insert(begin, text.substr(begin, end - begin));
    return;
  }
  case 4: { // Swap the halves around a newline.
    size_t nl = text.find('\n', below(size + 1));
    if (nl != std::string::npos)
      text = text.substr(nl + 1) + "\n" + text.substr(0, nl);
    return;
  }
  case 5: { // Splice: a line of another corpus input.
    const std::string &other = corpus[below(corpus.size())];
    if (other.empty())
      return;
    size_t at = below(other.size());
    size_t begin = other.rfind('\n', at);
    begin = begin == std::string::npos ? 0 : begin + 1;
    size_t end = other.find('\n', begin);
    end = end == std::string::npos ? other.size() : end + 1;
    text.insert(below(size + 1), other.substr(begin, end - begin));
    return;
  }
  case 6: // Flip a byte.
    if (size)
      text[below(size)] ^= static_cast<char>(1u << below(8));
    return;
  default: // Append a generated collective line.
    text += "\ncollective g" + std::to_string(below(100)) + " = " +
            transform() + "\n";
    return;
  }
}

std::string Mutator::mutate(const std::vector<std::string> &corpus,
                            size_t index) {
  std::string text = corpus[index];
  unsigned edits = 1 + below(4);
  for (unsigned i = 0; i < edits; ++i)
    editOnce(text, corpus);
  return text;
}

} // namespace collc::fuzz
