//===- ReplayMain.cpp - the fuzz target over a corpus, for CI ------------===//
//
// collc-fuzz-replay [options] <corpus file or directory>...
//
// Runs checkSpec (FrontEndFuzz.h) on every corpus input, then on a bounded
// number of seeded mutants and grammar-generated specs (Mutator.h), so CI
// exercises the fuzz target's properties on every run without libFuzzer.
// Exits 1 on any finding; each is printed with its input, and written to
// --findings-dir if given.
//
//===----------------------------------------------------------------------===//

#include "FrontEndFuzz.h"
#include "Mutator.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <csignal>
#include <unistd.h>

using namespace llvm;
using namespace collc::fuzz;

static cl::list<std::string> inputs(cl::Positional, cl::OneOrMore,
                                    cl::desc("<corpus file or directory>..."));
static cl::opt<unsigned> mutations("mutations",
                                   cl::desc("Mutants to run after the corpus"),
                                   cl::init(2000));
static cl::opt<uint64_t> seed("seed", cl::desc("Mutator seed"), cl::init(1));
static cl::opt<unsigned>
    slowMs("slow-ms",
           cl::desc("An input taking longer than this is a finding (ms)"),
           cl::init(5000));
static cl::opt<std::string>
    findingsDir("findings-dir",
                cl::desc("Write each finding's input here"), cl::init(""));
static cl::opt<std::string> injectFault(
    "inject-fault",
    cl::desc("Test only: break every derived schedule with this "
             "snac-test-inject-fault fault"),
    cl::init(""));

/// The input being checked, for the watchdog.
static std::string current;

/// A hang must end the run with the input that hung, not stall CI.
static void onAlarm(int) {
  static const char msg[] = "collc-fuzz-replay: FINDING hang: an input ran "
                            "past the watchdog; input follows\n";
  (void)!write(2, msg, sizeof(msg) - 1);
  (void)!write(2, current.data(), current.size());
  _exit(2);
}

static void collect(StringRef path, std::vector<std::string> &names) {
  std::error_code ec;
  if (sys::fs::is_directory(path)) {
    for (sys::fs::recursive_directory_iterator it(path, ec), end;
         it != end && !ec; it.increment(ec))
      if (sys::fs::is_regular_file(it->path()))
        names.push_back(it->path());
    return;
  }
  names.push_back(path.str());
}

/// The input as a C string literal, so invisible bytes can be seen.
static std::string quoted(StringRef text) {
  std::string s;
  raw_string_ostream os(s);
  os << '"';
  os.write_escaped(text);
  os << '"';
  return s;
}

int main(int argc, char **argv) {
  InitLLVM y(argc, argv);
  cl::ParseCommandLineOptions(argc, argv,
                              "collc fuzz target replay (corpus + mutants)\n");
  std::vector<std::string> names;
  for (const std::string &in : inputs)
    collect(in, names);
  llvm::sort(names);
  std::vector<std::string> corpus;
  for (const std::string &name : names) {
    auto buffer = MemoryBuffer::getFile(name, /*IsText=*/false);
    if (!buffer) {
      errs() << "collc-fuzz-replay: cannot read " << name << ": "
             << buffer.getError().message() << "\n";
      return 1;
    }
    corpus.push_back((*buffer)->getBuffer().str());
  }
  if (corpus.empty()) {
    errs() << "collc-fuzz-replay: the corpus is empty\n";
    return 1;
  }
  if (!findingsDir.empty())
    (void)sys::fs::create_directories(findingsDir);
  std::signal(SIGALRM, onAlarm);

  unsigned counts[3] = {0, 0, 0}, findings = 0;
  double slowest = 0;
  std::string slowestName;
  Options options;
  options.injectFault = injectFault;
  auto run = [&](const std::string &text, const std::string &name) {
    current = text;
    // The watchdog: ten times the slow limit, at least ten seconds.
    alarm(std::max(10u, slowMs / 100));
    auto start = std::chrono::steady_clock::now();
    Result r = checkSpec(text, options);
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    alarm(0);
    if (ms > slowest)
      slowest = ms, slowestName = name;
    if (r.outcome != Outcome::Finding && ms > slowMs) {
      r.outcome = Outcome::Finding;
      r.finding = formatv("took {0:F0} ms (limit {1} ms)", ms,
                          slowMs.getValue());
    }
    ++counts[static_cast<int>(r.outcome)];
    if (r.outcome != Outcome::Finding)
      return;
    ++findings;
    outs() << "FINDING " << (findings) << " ["
           << (r.kind == FindingKind::None ? StringRef("slow")
                                           : findingKindName(r.kind))
           << "] " << name << "\n  input: " << quoted(text) << "\n  "
           << StringRef(r.finding).rtrim().str() << "\n";
    if (!findingsDir.empty()) {
      SmallString<128> path(findingsDir);
      sys::path::append(path, formatv("finding-{0}.coll", findings).str());
      std::error_code ec;
      raw_fd_ostream os(path, ec);
      if (!ec)
        os << text;
    }
  };

  for (size_t i = 0; i < corpus.size(); ++i)
    run(corpus[i], names[i]);
  Mutator mutator(seed);
  for (unsigned m = 0; m < mutations; ++m) {
    // Alternate edits of corpus inputs with grammar-generated specs.
    if (m % 2 == 0) {
      size_t from = (m / 2) % corpus.size();
      run(mutator.mutate(corpus, from),
          formatv("mutant {0} (seed {1}) of {2}", m, seed.getValue(),
                  names[from]));
    } else {
      run(mutator.generate(),
          formatv("generated {0} (seed {1})", m, seed.getValue()));
    }
  }

  outs() << formatv("collc-fuzz-replay: {0} inputs ({1} corpus, {2} "
                    "mutants): {3} accepted, {4} rejected, {5} findings",
                    corpus.size() + mutations, corpus.size(),
                    mutations.getValue(), counts[0], counts[1], findings);
  outs() << formatv("; slowest {0:F1} ms ({1})\n", slowest, slowestName);
  return findings ? 1 : 0;
}
