//===- FakeComm.h - a communicator without a device, for unit tests -------===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_TEST_UNIT_RUNTIME_FAKECOMM_H
#define COLLC_TEST_UNIT_RUNTIME_FAKECOMM_H

#include "runtime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace collc::test {

/// Makes `comm` a communicator as collcCommInitAll leaves it, minus the
/// device: rank `rank` of `nranks` on `module`, one workspace per kernel
/// with its error record in `errors` (ordinary host memory: the runtime only
/// reads it). Routes are built apart (buildRoutes).
inline void fakeComm(collcComm &comm, collcModule_t module, int nranks,
                     int rank, std::vector<unsigned long long> &errors) {
  errors.assign(module->kernels.size() * COLLC_ERROR_WORDS, 0);
  comm.module = module;
  comm.nranks = nranks;
  comm.rank = rank;
  comm.timeoutNs = 2000000000ull;
  comm.errorHost = errors.data();
  for (size_t i = 0; i < module->kernels.size(); ++i) {
    collc::Workspace w;
    w.kernel = &module->kernels[i];
    w.error = errors.data() + i * COLLC_ERROR_WORDS;
    comm.workspaces.push_back(w);
  }
}

/// Adds to `comm` a window as collcCommRegister leaves it, in `slot` (the
/// caller deletes comm.windows).
inline collcWindow *fakeWindow(collcComm &comm, int slot,
                               unsigned long long buff,
                               unsigned long long bytes, bool complete) {
  auto *w = new collcWindow();
  w->comm = &comm;
  w->number = comm.registrations++;
  w->slot = slot;
  w->buff = buff;
  w->bytes = bytes;
  w->shared = std::make_shared<collc::WindowShared>();
  w->shared->slot = slot;
  w->shared->complete = complete;
  comm.windows.push_back(w);
  comm.windowSlots[slot] = w;
  return w;
}

/// The kernel an f32 call with selection key `key` (collc::selectionBytes:
/// the input bytes, or -1 for no size every rank knows) to the module's
/// first collective runs under `force` ("" = unset) with the buffers
/// `registered` (ProgramInfo::kRegistered*): its program, else the v1
/// kernel ("none" without one).
inline std::string routeOf(collcComm &comm, const char *force, long long key,
                           unsigned registered = 0) {
  collc::ForceVariant f;
  EXPECT_EQ(collc::parseForceVariant(force, f), collcSuccess)
      << collcGetLastError();
  collc::buildRoutes(&comm, f);
  const collc::Route &r = comm.routes[0 * collcNumTypes + collcFloat32];
  collc::Workspace *w = collc::pickProgram(r, key, registered);
  if (!w)
    return r.v1 ? r.v1->kernel->name : "none";
  return w->kernel->name;
}

/// Sets (or, for NULL, unsets) environment variable `name` for a scope;
/// unset after it.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() { unsetenv(name_); }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
  const char *name_;
};

} // namespace collc::test

#endif // COLLC_TEST_UNIT_RUNTIME_FAKECOMM_H
