//===- LibraryPolicyTest.cpp - the runtime's choice is the table's --------===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// A shipped module's policy table (issue 12): at every size around every
// bound of every entry, and at every power of two, the program the runtime
// picks is the variant the table names, read here from the module's JSON
// on its own. The module is COLLC_TEST_POLICY_MODULE
// (test/Target/Module/module-library.test sets it); unset, the test is
// skipped.
//
//===----------------------------------------------------------------------===//

#include "runtime.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

namespace {

using json = nlohmann::json;

/// A communicator of `nranks` on `target` holding the module's kernels for
/// that target and rank count, as collcCommInitAll leaves it minus the
/// device.
void commOf(collcComm &comm, collcModule_t module, const std::string &target,
            int nranks, std::vector<unsigned long long> &errors) {
  errors.assign(module->kernels.size() * COLLC_ERROR_WORDS, 0);
  comm.module = module;
  comm.nranks = nranks;
  comm.rank = 0;
  comm.imageTarget = target;
  comm.errorHost = errors.data();
  for (size_t i = 0; i < module->kernels.size(); ++i) {
    const collc::KernelInfo &k = module->kernels[i];
    if (k.target != target || k.worldSize != nranks)
      continue;
    collc::Workspace w;
    w.kernel = &k;
    w.error = errors.data() + i * COLLC_ERROR_WORDS;
    comm.workspaces.push_back(w);
  }
}

/// The variant an entry's `select` names for `key` (JSON, not the reader).
std::string tableChoice(const json &select, long long key) {
  for (const json &s : select)
    if (!s.contains("upto") || key <= s["upto"].get<long long>())
      return s["variant"].get<std::string>();
  return "?";
}

} // namespace

TEST(LibraryPolicyTest, TheRuntimeChoosesWhatTheTableSays) {
  const char *path = std::getenv("COLLC_TEST_POLICY_MODULE");
  if (!path || !*path)
    GTEST_SKIP() << "COLLC_TEST_POLICY_MODULE is not set";
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "cannot open " << path;
  std::stringstream text;
  text << in.rdbuf();
  const json doc = json::parse(text.str(), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  ASSERT_TRUE(doc.contains("policy_table")) << path << " has no policy table";
  collcModule_t module = nullptr;
  ASSERT_EQ(collcModuleLoad(&module, path), collcSuccess)
      << collcGetLastError();
  std::set<std::string> targets;
  for (const json &t : doc["targets"])
    targets.insert(t.get<std::string>());

  const unsigned both = collc::ProgramInfo::kRegisteredInput |
                        collc::ProgramInfo::kRegisteredOutput;
  long long checked = 0;
  for (const json &e : doc["policy_table"]["entries"]) {
    const std::string target = e["target"], name = e["collective"];
    if (!targets.count(target))
      continue;
    collcComm comm;
    std::vector<unsigned long long> errors;
    commOf(comm, module, target, e["ranks"].get<int>(), errors);
    collc::buildRoutes(&comm, collc::ForceVariant());
    const collc::CollectiveInfo *c = module->findCollective(name);
    ASSERT_NE(c, nullptr) << name;
    const size_t ci = (size_t)(c - module->collectives.data());
    // Around every bound, and every power of two up to 1 TiB.
    std::set<long long> keys = {0};
    for (int k = 0; k <= 40; ++k)
      keys.insert(1ll << k);
    for (const json &s : e["select"])
      if (s.contains("upto"))
        for (long long d : {-1ll, 0ll, 1ll})
          if (s["upto"].get<long long>() + d >= 0)
            keys.insert(s["upto"].get<long long>() + d);
    const unsigned registered = e["buffers"] == "registered" ? both : 0u;
    for (int t = 0; t < collcNumTypes; ++t) {
      const collc::Route &route = comm.routes[ci * collcNumTypes + t];
      if (!route.v1 && route.programs.empty())
        continue;
      for (long long key : keys) {
        const collc::Workspace *w =
            collc::pickProgram(route, key, registered);
        // "<variant>:<encoding>:staged" names the staged program only.
        std::string want = tableChoice(e["select"], key);
        const std::string staged = ":staged";
        const bool wantStaged =
            want.size() > staged.size() &&
            want.compare(want.size() - staged.size(), staged.size(),
                         staged) == 0;
        if (wantStaged) {
          want.resize(want.size() - staged.size());
          if (w)
            EXPECT_EQ(w->kernel->program.registered, 0u)
                << w->kernel->name << " runs for " << name << " at " << key
                << ", the table names the staged program";
        }
        const std::string runs =
            w ? w->kernel->program.variant + ":" +
                    collc::encodingName(w->kernel->program.encoding)
              : "v1";
        EXPECT_EQ(runs, want)
            << name << " at " << e["ranks"] << " ranks on " << target
            << ", " << e["buffers"] << " buffers, type " << t << ", " << key
            << " bytes";
        if (w)
          EXPECT_TRUE(w->kernel->program.bandLo <= (unsigned long long)key &&
                      (unsigned long long)key <= w->kernel->program.bandHi)
              << w->kernel->name << " at " << key;
        else
          EXPECT_NE(route.v1, nullptr) << name << " at " << key;
        ++checked;
      }
    }
  }
  // A table with no entry for the module's targets proves nothing.
  EXPECT_GT(checked, 0) << path << ": no entry of the table was checked";
  std::printf("checked %lld choices of %s\n", checked, path);
  collcModuleDestroy(module);
}
