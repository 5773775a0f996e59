//===- Mutator.h - deterministic spec mutations for the replay ---*- C++ -*-===//
//
// The replay driver's own mutator: seeded, portable (std::mt19937_64 and no
// distribution objects, whose output differs between standard libraries), so
// CI runs the same mutants every time and a finding reproduces from its seed.
// Half the mutants edit a corpus input (delete, insert a token of the
// language or a troublesome one, replace a word, duplicate, swap or splice
// lines, flip a byte); half are generated from the grammar, which reaches
// every consume op, layout pair, root role and composition of two.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_FUZZ_MUTATOR_H
#define COLLC_FUZZ_MUTATOR_H

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace collc::fuzz {

class Mutator {
public:
  explicit Mutator(uint64_t seed) : rng(seed) {}

  /// A mutant of corpus[index], possibly spliced with other corpus inputs.
  std::string mutate(const std::vector<std::string> &corpus, size_t index);
  /// A spec generated from the grammar, mostly legal.
  std::string generate();

private:
  uint64_t below(uint64_t n) { return n ? rng() % n : 0; }
  bool coin(unsigned percent) { return below(100) < percent; }
  const char *pick(const std::vector<const char *> &words) {
    return words[below(words.size())];
  }
  std::string transform();
  /// A legal transform whose input is `input` (any if null), `_v` layouts
  /// if `variable`; sets lastOutput.
  std::string legal(const char *input, bool variable);
  const char *lastOutput = nullptr;
  void editOnce(std::string &text, const std::vector<std::string> &corpus);

  std::mt19937_64 rng;
};

} // namespace collc::fuzz

#endif // COLLC_FUZZ_MUTATOR_H
