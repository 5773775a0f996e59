//===- registration.cpp - registered buffers on real GPUs -------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The registration suite: collcCommRegister / collcCommDeregister and the
/// launch path's window lookup (collc::findWindow, collc::noteWindowUse,
/// runtime.h) on real communicators. Every rank registers windows, finds
/// pointers in them (slot and offset), reads every peer's window through
/// its row of the device table, and deregisters them; overlapping ranges,
/// host, pageable, cuMemCreate and other-GPU memory and a 65th window are
/// refused with a message; a second window of one allocation shares the
/// peers' mappings (procs mode: one cuIpcOpenMemHandle per peer); a
/// deregistration waits for eager work noted on a stream (a spinner kernel
/// holds it: past the communicator's timeout it is refused with
/// collcTimeout, after the release it succeeds), and is refused while a
/// captured graph that noted a use exists (graph or execution), then
/// succeeds once both are destroyed (the user object's destructor may run
/// late: polled, bounded). In single mode it runs on the world's devices
/// and again with 2 and 4 ranks sharing GPU 0.
///
//===----------------------------------------------------------------------===//

#include "harness.h"
#include "runtime.h"
#include "spinner.h"

#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <unistd.h>

namespace ct {

namespace {

constexpr size_t kAlloc = 1 << 20;  ///< each rank's main allocation
constexpr size_t kWin = 64 << 10;   ///< a window's bytes
constexpr int kTimeoutMs = 1000;    ///< the communicators' bound

/// The ranks this process drives for one run of the suite.
struct Ranks : LayoutRanks {
  std::string label;
  World *world = nullptr; ///< procs mode: agreement between processes
  bool procs = false;
  std::vector<collcComm_t> comm;
  std::vector<uint8_t *> alloc; ///< kAlloc bytes, filled with rank + 1
  size_t size() const { return comm.size(); }
  int agree(int status) { return procs ? world->agree(status) : status; }
};

uint8_t *at(uint8_t *base, size_t offset) { return base + offset; }

/// One case: `fn` runs on every local rank's behalf and says what went
/// wrong; the ranks agree on the verdict.
void check(Ranks &r, Group &g, const std::string &what,
           const std::function<bool(std::string *)> &fn) {
  std::string why;
  bool ok = fn(&why);
  if (!ok)
    log("FAIL registration %s: %s: %s", r.label.c_str(), what.c_str(),
        why.c_str());
  ok = r.agree(ok ? 0 : 1) == 0;
  g.result(ok);
  if (ok)
    report("  ok   %s: %s", r.label.c_str(), what.c_str());
}

/// Registers [buffs[l], + bytes) on every local rank; the first failure's
/// code and message (each rank's message is logged when `verbose`).
collcResult_t registerAll(Ranks &r, const std::vector<void *> &buffs,
                          size_t bytes, std::vector<collcWindow_t> &wins,
                          std::string *msg) {
  wins.assign(r.size(), nullptr);
  collcResult_t first = collcSuccess;
  for (size_t l = 0; l < r.size(); ++l) {
    CT_CUDA(cudaSetDevice(r.device[l]));
    collcResult_t e = collcCommRegister(r.comm[l], buffs[l], bytes, &wins[l]);
    if (e != collcSuccess && first == collcSuccess) {
      first = e;
      if (msg)
        *msg = collcGetLastError();
    }
  }
  return first;
}

collcResult_t deregisterAll(Ranks &r, std::vector<collcWindow_t> &wins,
                            std::string *msg) {
  collcResult_t first = collcSuccess;
  for (size_t l = 0; l < r.size(); ++l) {
    CT_CUDA(cudaSetDevice(r.device[l]));
    collcResult_t e = collcCommDeregister(r.comm[l], wins[l]);
    if (e != collcSuccess && first == collcSuccess) {
      first = e;
      if (msg)
        *msg = collcGetLastError();
    }
  }
  return first;
}

std::vector<void *> offsets(Ranks &r, size_t offset) {
  std::vector<void *> v;
  for (uint8_t *a : r.alloc)
    v.push_back(at(a, offset));
  return v;
}

/// Slot `slot`'s row of local rank l's device table.
std::vector<unsigned long long> tableRow(Ranks &r, size_t l, int slot) {
  std::vector<unsigned long long> row(r.nranks);
  CT_CUDA(cudaSetDevice(r.device[l]));
  CT_CUDA(cudaMemcpy(row.data(),
                     reinterpret_cast<void *>(r.comm[l]->windowTable +
                                              slot * r.nranks * 8ull),
                     r.nranks * 8ull, cudaMemcpyDeviceToHost));
  return row;
}

/// Peer mappings local rank l holds open: (count, refs of each).
std::vector<int> openMappings(Ranks &r, size_t l) {
  std::vector<int> refs;
  for (const collc::PeerMapping &m : r.comm[l]->mappings)
    if (m.refs > 0)
      refs.push_back(m.refs);
  return refs;
}

/// Every open mapping of every local rank has `refs` references, one per
/// peer (procs mode); none at all in one process (plain pointers).
bool mappingsAre(Ranks &r, int refs, std::string *why) {
  for (size_t l = 0; l < r.size(); ++l) {
    std::vector<int> m = openMappings(r, l);
    const size_t want = r.procs && refs > 0 ? r.nranks - 1 : 0;
    bool ok = m.size() == want;
    for (int x : m)
      ok &= x == refs;
    if (!ok) {
      *why = "rank " + std::to_string(r.rank[l]) + " holds " +
             std::to_string(m.size()) + " open peer mappings (want " +
             std::to_string(want) + " with " + std::to_string(refs) +
             " references each):";
      for (int x : m)
        *why += " " + std::to_string(x);
      return false;
    }
  }
  return true;
}

bool expectRefusal(collcResult_t got, collcResult_t want,
                   const std::string &msg, const std::vector<std::string> &words,
                   std::string *why) {
  if (got != want) {
    *why = std::string("returned ") + resultName(got) + ", expected " +
           resultName(want) + " (" + msg + ")";
    return false;
  }
  if (msg.rfind("collcCommRegister : ", 0) != 0 &&
      msg.rfind("collcCommDeregister : ", 0) != 0) {
    *why = "the message does not name the function: " + msg;
    return false;
  }
  for (const std::string &w : words)
    if (msg.find(w) == std::string::npos) {
      *why = "the message does not say '" + w + "': " + msg;
      return false;
    }
  report("         %s", msg.c_str());
  return true;
}

/// Host-mapped release flag and start counter of the spinners.
struct Spin {
  int *host = nullptr, *dev = nullptr;
  Spin() {
    CT_CUDA(cudaHostAlloc(&host, 2 * sizeof(int),
                          cudaHostAllocMapped | cudaHostAllocPortable));
    host[0] = host[1] = 0;
    CT_CUDA(cudaHostGetDevicePointer(&dev, host, 0));
  }
  ~Spin() { cudaFreeHost(host); }
  void release() { __atomic_store_n(&host[0], 1, __ATOMIC_SEQ_CST); }
  int started() const { return __atomic_load_n(&host[1], __ATOMIC_SEQ_CST); }
};

/// Launches one spinner CTA on every local rank's stream and notes a use of
/// window `wins[l]` (at offset 0) behind it.
bool spinAndNote(Ranks &r, Spin &s, const std::vector<void *> &buffs,
                 std::string *why) {
  for (size_t l = 0; l < r.size(); ++l) {
    CT_CUDA(cudaSetDevice(r.device[l]));
    if (!launchSpinner(r.device[l], 1, r.stream[l], s.dev, s.dev + 1, why))
      return false;
    unsigned long long where = 0;
    if (!collc::findWindow(r.comm[l], buffs[l], 16, &where)) {
      *why = "findWindow misses the window's first bytes";
      return false;
    }
    if (collc::noteWindowUse(r.comm[l], where, r.stream[l]) != collcSuccess) {
      *why = std::string("noteWindowUse: ") + collcGetLastError();
      return false;
    }
  }
  const double t0 = nowSeconds();
  while (s.started() < (int)r.size() && nowSeconds() < t0 + 10)
    usleep(100);
  if (s.started() < (int)r.size()) {
    *why = "the spinners did not start";
    return false;
  }
  return true;
}

void runOn(Ranks &r, Group &g) {
  for (size_t l = 0; l < r.size(); ++l) {
    CT_CUDA(cudaSetDevice(r.device[l]));
    uint8_t *a = nullptr;
    CT_CUDA(cudaMalloc(&a, kAlloc));
    CT_CUDA(cudaMemset(a, r.rank[l] + 1, kAlloc));
    r.alloc.push_back(a);
  }
  for (size_t l = 0; l < r.size(); ++l) {
    CT_CUDA(cudaSetDevice(r.device[l]));
    CT_CUDA(cudaDeviceSynchronize());
  }
  r.agree(0); // every rank's memory is written before a peer reads it
  std::string msg;

  // Window 0: [alloc + 4096, + 64 KiB) on every rank, slot 0.
  std::vector<collcWindow_t> w0;
  const std::vector<void *> b0 = offsets(r, 4096);
  check(r, g, "register a window on every rank; find pointers in it",
        [&](std::string *why) {
          w0.assign(r.size(), nullptr);
          for (size_t l = 0; l < r.size(); ++l) {
            CT_CUDA(cudaSetDevice(r.device[l]));
            if (collcCommRegister(r.comm[l], b0[l], kWin, &w0[l]) !=
                collcSuccess) {
              *why = collcGetLastError();
              return false;
            }
            // One process: complete only once the last rank registered.
            unsigned long long where = 0;
            if (!r.procs && l + 1 < r.size() &&
                collc::findWindow(r.comm[0], b0[0], 16, &where)) {
              *why = "findWindow finds a window not every rank registered";
              return false;
            }
          }
          for (size_t l = 0; l < r.size(); ++l) {
            unsigned long long where = 1;
            collcComm_t c = r.comm[l];
            uint8_t *b = static_cast<uint8_t *>(b0[l]);
            if (!collc::findWindow(c, b + 100, 16, &where) || where != 100) {
              *why = "findWindow(buff + 100, 16): where " +
                     std::to_string(where) + ", expected slot 0, offset 100";
              return false;
            }
            if (!collc::findWindow(c, b + kWin - 16, 16, &where) ||
                where != kWin - 16) {
              *why = "findWindow misses the window's last 16 bytes";
              return false;
            }
            const std::pair<uint8_t *, size_t> outside[] = {
                {b - 1, 1}, {b - 8, 16}, {b + kWin - 8, 16},
                {b + kWin, 1}, {r.alloc[l], 16}, {r.alloc[l] + 512 * 1024, 8}};
            for (auto [p, n] : outside)
              if (collc::findWindow(c, p, n, &where)) {
                *why = "findWindow finds a range outside the window (offset " +
                       std::to_string((long long)(p - b)) + ", " +
                       std::to_string(n) + " bytes)";
                return false;
              }
          }
          return true;
        });

  check(r, g, "the table row holds every rank's window, readable",
        [&](std::string *why) {
          for (size_t l = 0; l < r.size(); ++l) {
            std::vector<unsigned long long> row = tableRow(r, l, 0);
            for (int p = 0; p < r.nranks; ++p) {
              unsigned long long want =
                  p == r.rank[l] || !r.procs
                      ? reinterpret_cast<unsigned long long>(
                            b0[r.procs ? 0 : p])
                      : row[p];
              if (row[p] == 0 || row[p] != want) {
                *why = "rank " + std::to_string(r.rank[l]) + ": row[" +
                       std::to_string(p) + "] = " + std::to_string(row[p]);
                return false;
              }
              uint8_t got[16];
              CT_CUDA(cudaSetDevice(r.device[l]));
              CT_CUDA(cudaMemcpy(got, reinterpret_cast<void *>(row[p] + 100),
                                 16, cudaMemcpyDeviceToHost));
              for (uint8_t x : got)
                if (x != p + 1) {
                  *why = "rank " + std::to_string(r.rank[l]) +
                         " reads " + std::to_string(x) + " in rank " +
                         std::to_string(p) + "'s window, expected " +
                         std::to_string(p + 1);
                  return false;
                }
            }
            for (int s = 1; s < collc::kMaxWindows; ++s)
              for (unsigned long long x : tableRow(r, l, s))
                if (x != 0) {
                  *why = "slot " + std::to_string(s) + " is not zero";
                  return false;
                }
          }
          return mappingsAre(r, 1, why);
        });

  check(r, g, "a second window of one allocation shares the mappings",
        [&](std::string *why) {
          std::vector<collcWindow_t> w1;
          const std::vector<void *> b1 = offsets(r, 256 << 10);
          if (registerAll(r, b1, kWin, w1, &msg) != collcSuccess) {
            *why = msg;
            return false;
          }
          for (size_t l = 0; l < r.size(); ++l) {
            unsigned long long where = 0;
            if (!collc::findWindow(r.comm[l], at((uint8_t *)b1[l], 8), 8,
                                   &where) ||
                where != (1ull << collc::kWindowShift | 8)) {
              *why = "findWindow in the second window: where " +
                     std::to_string(where) + ", expected slot 1, offset 8";
              return false;
            }
            std::vector<unsigned long long> r0 = tableRow(r, l, 0),
                                            r1 = tableRow(r, l, 1);
            for (int p = 0; p < r.nranks; ++p)
              if (r1[p] - r0[p] != (256 << 10) - 4096) {
                *why = "rows 0 and 1 of rank " + std::to_string(p) +
                       " are not one allocation apart";
                return false;
              }
          }
          if (!mappingsAre(r, 2, why))
            return false;
          if (deregisterAll(r, w1, &msg) != collcSuccess) {
            *why = "deregister: " + msg;
            return false;
          }
          for (size_t l = 0; l < r.size(); ++l) {
            unsigned long long where = 0;
            if (collc::findWindow(r.comm[l], b1[l], 8, &where)) {
              *why = "findWindow still finds a deregistered window";
              return false;
            }
            for (unsigned long long x : tableRow(r, l, 1))
              if (x != 0) {
                *why = "slot 1 is not zeroed by the deregistration";
                return false;
              }
            if (!collc::findWindow(r.comm[l], b0[l], 8, &where)) {
              *why = "the first window is gone too";
              return false;
            }
          }
          return mappingsAre(r, 1, why);
        });

  check(r, g, "an overlapping range is refused", [&](std::string *why) {
    std::vector<collcWindow_t> w;
    collcResult_t e =
        registerAll(r, offsets(r, 4096 + kWin - 16), 32, w, &msg);
    if (!expectRefusal(e, collcInvalidArgument, msg, {"overlaps window 0"},
                       why))
      return false;
    for (size_t l = 0; l < r.size(); ++l)
      if (r.comm[l]->windows.size() != 1) {
        *why = "the refused range was registered anyway";
        return false;
      }
    return true;
  });

  check(r, g, "a range past the end of its allocation is refused",
        [&](std::string *why) {
          std::vector<collcWindow_t> w;
          collcResult_t e = registerAll(r, offsets(r, kAlloc - 16), 32, w, &msg);
          return expectRefusal(e, collcInvalidArgument, msg,
                               {"runs past the end of its allocation"}, why);
        });

  check(r, g, "host memory is refused", [&](std::string *why) {
    std::vector<void *> pinned(r.size()), pageable(r.size());
    for (size_t l = 0; l < r.size(); ++l) {
      CT_CUDA(cudaMallocHost(&pinned[l], kWin));
      pageable[l] = std::malloc(kWin);
    }
    std::vector<collcWindow_t> w;
    collcResult_t e = registerAll(r, pinned, kWin, w, &msg);
    bool ok = expectRefusal(e, collcInvalidArgument, msg,
                            {"is not device memory", "cudaMalloc"}, why);
    if (ok) {
      e = registerAll(r, pageable, kWin, w, &msg);
      ok = expectRefusal(e, collcInvalidArgument, msg,
                         {"is not device memory", "cudaMalloc"}, why);
    }
    for (size_t l = 0; l < r.size(); ++l) {
      cudaFreeHost(pinned[l]);
      std::free(pageable[l]);
    }
    return ok;
  });

  check(r, g, "cuMemCreate memory is refused (CUDA IPC cannot export it)",
        [&](std::string *why) {
          struct Vmm {
            CUdeviceptr ptr = 0;
            size_t bytes = 0;
            CUmemGenericAllocationHandle handle = 0;
          };
          std::vector<Vmm> vmm(r.size());
          std::vector<void *> buffs(r.size());
          for (size_t l = 0; l < r.size(); ++l) {
            CT_CUDA(cudaSetDevice(r.device[l]));
            CUmemAllocationProp prop = {};
            prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
            prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
            prop.location.id = r.device[l];
            size_t gran = 0;
            if (cuMemGetAllocationGranularity(
                    &gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) !=
                    CUDA_SUCCESS ||
                cuMemCreate(&vmm[l].handle, gran, &prop, 0) != CUDA_SUCCESS ||
                cuMemAddressReserve(&vmm[l].ptr, gran, 0, 0, 0) !=
                    CUDA_SUCCESS ||
                cuMemMap(vmm[l].ptr, gran, 0, vmm[l].handle, 0) !=
                    CUDA_SUCCESS)
              fatal("cuMemCreate/cuMemMap failed on device %d", r.device[l]);
            CUmemAccessDesc access = {};
            access.location = prop.location;
            access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
            if (cuMemSetAccess(vmm[l].ptr, gran, &access, 1) != CUDA_SUCCESS)
              fatal("cuMemSetAccess failed on device %d", r.device[l]);
            vmm[l].bytes = gran;
            buffs[l] = reinterpret_cast<void *>(vmm[l].ptr);
          }
          std::vector<collcWindow_t> w;
          collcResult_t e = registerAll(r, buffs, 4096, w, &msg);
          bool ok = expectRefusal(e, collcInvalidArgument, msg,
                                  {"cannot be exported", "cudaMalloc"}, why);
          for (size_t l = 0; l < r.size(); ++l) {
            cudaSetDevice(r.device[l]);
            cuMemUnmap(vmm[l].ptr, vmm[l].bytes);
            cuMemAddressFree(vmm[l].ptr, vmm[l].bytes);
            cuMemRelease(vmm[l].handle);
          }
          return ok;
        });

  int visible = 0;
  CT_CUDA(cudaGetDeviceCount(&visible));
  if (visible > 1)
    check(r, g, "memory of another GPU is refused", [&](std::string *why) {
      std::vector<void *> buffs(r.size());
      std::vector<int> other(r.size());
      for (size_t l = 0; l < r.size(); ++l) {
        other[l] = (r.device[l] + 1) % visible;
        CT_CUDA(cudaSetDevice(other[l]));
        CT_CUDA(cudaMalloc(&buffs[l], kWin));
      }
      std::vector<collcWindow_t> w;
      collcResult_t e = registerAll(r, buffs, kWin, w, &msg);
      bool ok = expectRefusal(e, collcInvalidArgument, msg,
                              {"is memory of device"}, why);
      for (size_t l = 0; l < r.size(); ++l) {
        cudaSetDevice(other[l]);
        cudaFree(buffs[l]);
      }
      return ok;
    });

  check(r, g, "refused registrations do not count", [&](std::string *why) {
    for (size_t l = 0; l < r.size(); ++l)
      if (r.comm[l]->registrations != 2 || r.comm[l]->windows.size() != 1) {
        *why = "rank " + std::to_string(r.rank[l]) + " counts " +
               std::to_string(r.comm[l]->registrations) +
               " registrations and " +
               std::to_string(r.comm[l]->windows.size()) + " windows";
        return false;
      }
    return true;
  });

  check(r, g, "64 windows at once; a 65th is refused", [&](std::string *why) {
    // Window 0 holds slot 0; 63 more fill the table, in a second allocation.
    std::vector<uint8_t *> big(r.size());
    for (size_t l = 0; l < r.size(); ++l) {
      CT_CUDA(cudaSetDevice(r.device[l]));
      CT_CUDA(cudaMalloc(&big[l], 64 * 4096));
    }
    std::vector<std::vector<collcWindow_t>> ws;
    bool ok = true;
    for (int i = 0; i < collc::kMaxWindows - 1 && ok; ++i) {
      std::vector<void *> b;
      for (uint8_t *p : big)
        b.push_back(p + i * 4096);
      ws.emplace_back();
      if (registerAll(r, b, 4096, ws.back(), &msg) != collcSuccess) {
        *why = "window " + std::to_string(i + 1) + ": " + msg;
        ws.pop_back();
        ok = false;
      }
    }
    if (ok) {
      std::vector<void *> b;
      for (uint8_t *p : big)
        b.push_back(p + 63 * 4096);
      std::vector<collcWindow_t> w;
      collcResult_t e = registerAll(r, b, 4096, w, &msg);
      ok = expectRefusal(e, collcInvalidUsage, msg,
                         {"64 windows are registered"}, why);
    }
    for (size_t l = 0; ok && l < r.size(); ++l) {
      unsigned long long where = 0;
      ok = collc::findWindow(r.comm[l], big[l] + 62 * 4096 + 5, 1, &where) &&
           where == (63ull << collc::kWindowShift | 5);
      if (!ok)
        *why = "findWindow in the 64th window: where " + std::to_string(where);
    }
    if (ok && r.procs)
      for (size_t l = 0; ok && l < r.size(); ++l) {
        std::vector<int> m = openMappings(r, l);
        std::sort(m.begin(), m.end());
        // Per peer: the first allocation (1 window), the second (63).
        std::vector<int> want;
        for (int p = 1; p < r.nranks; ++p)
          want.push_back(1);
        for (int p = 1; p < r.nranks; ++p)
          want.push_back(63);
        ok = m == want;
        if (!ok)
          *why = "the 63 windows of one allocation do not share a mapping "
                 "per peer";
      }
    for (auto &w : ws)
      if (deregisterAll(r, w, &msg) != collcSuccess && ok) {
        *why = "deregister: " + msg;
        ok = false;
      }
    for (size_t l = 0; ok && l < r.size(); ++l)
      for (int s = 1; ok && s < collc::kMaxWindows; ++s)
        for (unsigned long long x : tableRow(r, l, s))
          if (x != 0) {
            *why = "slot " + std::to_string(s) + " not zeroed";
            ok = false;
          }
    for (size_t l = 0; l < r.size(); ++l) {
      cudaSetDevice(r.device[l]);
      cudaFree(big[l]);
    }
    return ok && mappingsAre(r, 1, why);
  });

  check(r, g, "deregistration waits for eager work (refused past the timeout)",
        [&](std::string *why) {
          std::vector<collcWindow_t> w;
          const std::vector<void *> b = offsets(r, 512 << 10);
          if (registerAll(r, b, kWin, w, &msg) != collcSuccess) {
            *why = msg;
            return false;
          }
          Spin spin;
          bool ok = spinAndNote(r, spin, b, why);
          if (ok) {
            // Held past the bound: refused, the window stays.
            double t0 = nowSeconds();
            collcResult_t e = deregisterAll(r, w, &msg);
            double t = nowSeconds() - t0;
            ok = expectRefusal(e, collcTimeout, msg,
                               {"did not finish within"}, why);
            if (ok && t < 0.8 * kTimeoutMs / 1000.0) {
              *why = "refused after " + std::to_string(t) + " s, before the "
                     "timeout";
              ok = false;
            }
            unsigned long long where = 0;
            if (ok && !collc::findWindow(r.comm[0], b[0], 16, &where)) {
              *why = "the window is gone after the refusal";
              ok = false;
            }
          }
          // Released while waiting: succeeds once the spinner ends.
          std::thread releaser([&] {
            usleep(300000);
            spin.release();
          });
          double t0 = nowSeconds();
          collcResult_t e = deregisterAll(r, w, &msg);
          double t = nowSeconds() - t0;
          releaser.join();
          if (ok && e != collcSuccess) {
            *why = "deregister after the release: " + msg;
            ok = false;
          }
          if (ok && t < 0.2) {
            *why = "deregistered after " + std::to_string(t) +
                   " s, before the spinner ended";
            ok = false;
          }
          if (!waitStreams(r.stream, r.device, syncBoundSeconds()))
            fatal("the spinners never ended");
          return ok;
        });

  check(r, g, "deregistration is refused while a captured graph holds it",
        [&](std::string *why) {
          std::vector<collcWindow_t> w;
          const std::vector<void *> b = offsets(r, 640 << 10);
          if (registerAll(r, b, kWin, w, &msg) != collcSuccess) {
            *why = msg;
            return false;
          }
          std::vector<cudaGraph_t> graphs(r.size(), nullptr);
          std::vector<cudaGraphExec_t> execs(r.size(), nullptr);
          bool ok = true;
          for (size_t l = 0; l < r.size(); ++l) {
            CT_CUDA(cudaSetDevice(r.device[l]));
            CT_CUDA(cudaStreamBeginCapture(r.stream[l],
                                           cudaStreamCaptureModeRelaxed));
            CT_CUDA(cudaMemsetAsync(b[l], 0, 16, r.stream[l]));
            unsigned long long where = 0;
            collc::findWindow(r.comm[l], b[l], 16, &where);
            // Twice in one capture: the graph holds the window once.
            for (int k = 0; k < 2; ++k)
              if (collc::noteWindowUse(r.comm[l], where, r.stream[l]) !=
                      collcSuccess &&
                  ok) {
                *why = std::string("noteWindowUse: ") + collcGetLastError();
                ok = false;
              }
            CT_CUDA(cudaStreamEndCapture(r.stream[l], &graphs[l]));
            CT_CUDA(cudaGraphInstantiate(&execs[l], graphs[l], 0));
            CT_CUDA(cudaGraphLaunch(execs[l], r.stream[l]));
          }
          if (!waitStreams(r.stream, r.device, syncBoundSeconds()))
            fatal("the captured memset never ended");
          // One process: every rank's graph holds the shared window.
          const std::string held =
              r.procs ? "is used by 1 captured CUDA graph;"
                      : "is used by " + std::to_string(r.size()) +
                            " captured CUDA graphs;";
          if (ok)
            ok = expectRefusal(deregisterAll(r, w, &msg), collcInvalidUsage,
                               msg,
                               {held, "destroy their graphs and graph "
                                      "executions first"},
                               why);
          for (size_t l = 0; l < r.size(); ++l) {
            CT_CUDA(cudaSetDevice(r.device[l]));
            CT_CUDA(cudaGraphDestroy(graphs[l]));
          }
          if (ok)
            ok = expectRefusal(deregisterAll(r, w, &msg), collcInvalidUsage,
                               msg, {"captured CUDA graph"}, why);
          for (size_t l = 0; l < r.size(); ++l) {
            CT_CUDA(cudaSetDevice(r.device[l]));
            CT_CUDA(cudaGraphExecDestroy(execs[l]));
          }
          // The user objects' destructors may run a little later.
          collcResult_t e = collcInvalidUsage;
          const double t0 = nowSeconds();
          for (size_t l = 0; l < r.size(); ++l) {
            CT_CUDA(cudaSetDevice(r.device[l]));
            do {
              e = collcCommDeregister(r.comm[l], w[l]);
              if (e == collcInvalidUsage)
                usleep(10000);
            } while (e == collcInvalidUsage && nowSeconds() < t0 + 5);
            if (e != collcSuccess)
              break;
          }
          if (ok && e != collcSuccess) {
            *why = std::string("still refused 5 s after the graphs were "
                               "destroyed: ") +
                   collcGetLastError();
            ok = false;
          }
          return ok;
        });

  check(r, g, "destroy with a window still registered", [&](std::string *why) {
    bool ok = true;
    for (size_t l = 0; l < r.size(); ++l) {
      CT_CUDA(cudaSetDevice(r.device[l]));
      if (collcCommDestroy(r.comm[l]) != collcSuccess && ok) {
        *why = collcGetLastError();
        ok = false;
      }
    }
    r.comm.clear();
    return ok;
  });

  for (size_t l = 0; l < r.alloc.size(); ++l) {
    cudaSetDevice(r.device[l]);
    cudaFree(r.alloc[l]);
  }
  r.alloc.clear();
}

} // namespace

void runRegistration(World &w) {
  Group g("registration");
  collcModule_t module = loadModule("collectives.collcmod");
  collcConfig_t config = makeConfig(kTimeoutMs);
  // The world's ranks, and in one process also 2 and 4 ranks on GPU 0.
  const std::vector<std::vector<int>> layouts = sharedGpuLayouts(w);
  for (size_t k = 0; k < layouts.size(); ++k) {
    Ranks r;
    r.world = &w;
    r.procs = w.procs;
    static_cast<LayoutRanks &>(r) = layoutRanks(w, layouts, k);
    const std::vector<cudaStream_t> own = r.own;
    r.label = "registration/" + std::to_string(r.nranks) + " ranks";
    if (!w.procs) {
      r.label += " on devices";
      for (int d : r.device)
        r.label += " " + std::to_string(d);
    }
    std::string msg;
    collcResult_t e;
    if (k == 0) {
      e = w.initComms(module, &config, r.comm, &msg);
    } else {
      r.comm.assign(r.device.size(), nullptr);
      e = collcCommInitAll(r.comm.data(), module, (int)r.device.size(),
                           r.device.data(), &config);
      if (e != collcSuccess)
        msg = collcGetLastError();
    }
    if (e != collcSuccess) {
      log("FAIL %s: setup: %s: %s", r.label.c_str(), resultName(e),
          msg.c_str());
      g.fail();
    } else {
      runOn(r, g);
    }
    for (size_t l = 0; l < r.comm.size(); ++l)
      if (r.comm[l]) {
        cudaSetDevice(r.device[l]);
        collcCommDestroy(r.comm[l]);
      }
    for (size_t i = 0; i < own.size(); ++i) {
      cudaSetDevice(r.device[i]);
      cudaStreamDestroy(own[i]);
    }
  }
  collcModuleDestroy(module);
}

} // namespace ct
