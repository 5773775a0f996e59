//===- misuse.cpp - every misuse gives a clear error ------------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The misuse suite: each call returns the expected code and leaves a new,
/// non-empty collcGetLastError() ("<function> : <what is wrong>") that names
/// what is wrong (one of a few words must appear). Every message is printed,
/// so the log shows what a user would read. Every rank makes the same
/// mistake, so no rank is left waiting for a peer; afterwards the
/// communicator must still work.
///
//===----------------------------------------------------------------------===//

#include "cases.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <unistd.h>

namespace ct {

namespace {

using json = nlohmann::json;

struct Expect {
  std::vector<collcResult_t> codes;
  /// At least one must appear in the message (case-insensitive).
  std::vector<std::string> words;
};

const Expect kArg = {{collcInvalidArgument}, {}};

std::string lower(std::string s) {
  for (char &c : s)
    c = char(std::tolower((unsigned char)c));
  return s;
}

/// Sets the thread's last error to a known string, so a call that fails
/// without setting its own message is caught.
std::string sentinel() {
  collcConfigValidate(nullptr);
  return collcGetLastError();
}

/// Checks one misuse on every local rank; the case counts once (agreed).
void misuse(World &w, Group &g, const std::string &what, Expect e,
            const std::function<collcResult_t(size_t)> &call) {
  int status = 0;
  for (size_t l = 0; l < w.local.size(); ++l) {
    CT_CUDA(cudaSetDevice(w.local[l].device));
    std::string before = sentinel();
    collcResult_t r = call(l);
    std::string msg = collcGetLastError();
    std::string problem;
    if (std::find(e.codes.begin(), e.codes.end(), r) == e.codes.end()) {
      problem = std::string("returned ") + resultName(r) + ", expected " +
                resultName(e.codes[0]);
      for (size_t i = 1; i < e.codes.size(); ++i)
        problem += std::string(" or ") + resultName(e.codes[i]);
    } else if (r != collcSuccess && (msg.empty() || msg == before)) {
      problem = "no message in collcGetLastError()";
    } else if (r != collcSuccess && msg.rfind("collc", 0) != 0) {
      problem = "message does not start with the function name";
    } else if (r != collcSuccess && !e.words.empty()) {
      bool found = false;
      for (const std::string &wd : e.words)
        found |= lower(msg).find(lower(wd)) != std::string::npos;
      if (!found) {
        problem = "message names none of:";
        for (const std::string &wd : e.words)
          problem += " '" + wd + "'";
      }
    }
    if (!problem.empty()) {
      log("FAIL misuse '%s': %s; message: \"%s\"", what.c_str(),
          problem.c_str(), msg.c_str());
      status = 1;
    } else if (l == 0) {
      report("  ok   %-52s %s: %s", what.c_str(), resultName(r),
             r == collcSuccess ? "" : msg.c_str());
    }
  }
  g.result(w.agree(status) == 0);
}

int failingAllGather(const void *, void *, size_t, void *) { return 1; }

/// Per local rank: small device buffers and a host buffer.
struct Bufs {
  std::vector<uint8_t *> dev, dev2, pinned;
  std::vector<std::vector<uint8_t>> host;
  static constexpr size_t kBytes = 1 << 16;
  explicit Bufs(World &w) {
    for (const LocalRank &lr : w.local) {
      CT_CUDA(cudaSetDevice(lr.device));
      uint8_t *a, *b, *p;
      CT_CUDA(cudaMalloc(&a, kBytes));
      CT_CUDA(cudaMalloc(&b, kBytes));
      CT_CUDA(cudaMallocHost(&p, kBytes));
      dev.push_back(a);
      dev2.push_back(b);
      pinned.push_back(p);
      host.emplace_back(kBytes);
    }
  }
  void release(World &w) {
    for (size_t l = 0; l < dev.size(); ++l) {
      cudaSetDevice(w.local[l].device);
      cudaFree(dev[l]);
      cudaFree(dev2[l]);
      cudaFreeHost(pinned[l]);
    }
  }
};

collcStream_t streamOf(World &w, size_t l) {
  return reinterpret_cast<collcStream_t>(w.local[l].stream);
}

/// Module text variants that must be refused.
std::vector<std::pair<std::string, std::pair<std::string, Expect>>>
corruptModules(const std::string &text) {
  std::vector<std::pair<std::string, std::pair<std::string, Expect>>> out;
  auto add = [&](const std::string &what, std::string data,
                 std::vector<std::string> words) {
    out.push_back({what, {std::move(data), Expect{{collcInvalidArgument},
                                                  std::move(words)}}});
  };
  add("corrupt module: empty", "", {"empty", "json", "pars", "format"});
  add("corrupt module: not JSON", "this is not a module\n",
      {"json", "pars", "format"});
  add("corrupt module: truncated to half", text.substr(0, text.size() / 2),
      {"truncat", "end", "pars", "json"});
  size_t last = text.find_last_of('}');
  add("corrupt module: last '}' cut", text.substr(0, last),
      {"truncat", "end", "pars", "json"});
  add("corrupt module: truncated to 1 byte", text.substr(0, 1),
      {"truncat", "end", "pars", "json"});

  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded())
    fatal("the module under test is not JSON");
  auto variant = [&](const std::string &what, std::vector<std::string> words,
                     const std::function<void(json &)> &edit) {
    json d = doc;
    edit(d);
    add(what, d.dump(), std::move(words));
  };
  variant("corrupt module: format name", {"format"},
          [](json &d) { d["format"] = "collc-modulx"; });
  variant("corrupt module: format_version 2", {"format_version", "version"},
          [](json &d) { d["format_version"] = 2; });
  variant("corrupt module: kernel_abi_version 999",
          {"kernel_abi_version", "abi"},
          [](json &d) { d["kernel_abi_version"] = 999; });
  variant("corrupt module: 'kernels' missing", {"kernels"},
          [](json &d) { d.erase("kernels"); });
  variant("corrupt module: 'kernels' mistyped", {"kernels"},
          [](json &d) { d["kernels"] = "none"; });
  variant("corrupt module: no images", {"image", "ptx", "target"},
          [](json &d) { d["images"] = json::array(); });
  variant("corrupt module: kernel grid mistyped", {"grid"}, [](json &d) {
    d["kernels"][0]["grid"] = "sixteen";
  });
  // Every kind of image the module holds (collc writes fatbins; a module
  // of the first layout, ptx and cubin).
  std::vector<std::string> kinds;
  for (const json &img : doc["images"])
    if (std::find(kinds.begin(), kinds.end(), img.value("kind", "")) ==
        kinds.end())
      kinds.push_back(img.value("kind", ""));
  for (const std::string &k : kinds) {
    variant("corrupt module: one byte of the " + k + " changed",
            {"sha256", "hash", "checksum", "corrupt", "base64"},
            [k](json &d) {
              for (json &img : d["images"])
                if (img.value("kind", "") == k) {
                  std::string data = img["data"].get<std::string>();
                  size_t i = data.size() / 2;
                  // Another character of the same class: still valid text
                  // or base64, different bytes.
                  data[i] = data[i] == 'A' ? 'B' : 'A';
                  img["data"] = data;
                  break;
                }
            });
    variant("corrupt module: " + k + " sha256 changed",
            {"sha256", "hash", "checksum", "corrupt"}, [k](json &d) {
              for (json &img : d["images"])
                if (img.value("kind", "") == k) {
                  std::string h = img["sha256"].get<std::string>();
                  h[0] = h[0] == '0' ? '1' : '0';
                  img["sha256"] = h;
                  break;
                }
            });
  }
  variant("corrupt module: base64 image with a bad character",
          {"base64", "sha256", "corrupt"}, [](json &d) {
            for (json &img : d["images"])
              if (img.value("encoding", "") == "base64") {
                std::string data = img["data"].get<std::string>();
                data[data.size() / 3] = '*';
                img["data"] = data;
                break;
              }
          });
  // The first kernel of every target renamed: whichever image the GPU
  // runs lacks one.
  variant("corrupt module: kernel missing from the code",
          {"collc_", "kernel", "missing", "ptx"}, [](json &d) {
            std::vector<std::string> seen;
            for (json &k : d["kernels"]) {
              const std::string t = k.value("target", "");
              if (std::find(seen.begin(), seen.end(), t) != seen.end())
                continue;
              seen.push_back(t);
              k["name"] = "collc_no_such_kernel_bf16_n2";
            }
          });
  return out;
}

/// Communicator setup with `module` must fail (every rank) naming the
/// architecture; if it unexpectedly succeeds the comms are destroyed.
void expectInitRefused(World &w, Group &g, const std::string &what,
                       collcModule_t module) {
  collcConfig_t config = makeConfig(gOpt.timeoutMs);
  std::vector<collcComm_t> comms;
  std::string msg;
  std::string before = sentinel();
  collcResult_t r = w.initComms(module, &config, comms, &msg);
  int status = 0;
  std::string problem;
  if (r == collcSuccess) {
    problem = "communicator setup succeeded";
    w.destroyComms(comms);
  } else if (r != collcInvalidArgument && r != collcInvalidUsage) {
    problem = std::string("returned ") + resultName(r) +
              ", expected collcInvalidArgument or collcInvalidUsage";
  } else if (msg.empty() || msg == before) {
    problem = "no message";
  } else {
    std::string m = lower(msg);
    bool named = false;
    for (const char *wd : {"sm_100", "sm_90", "9.0", "capabilit", "arch"})
      named |= m.find(wd) != std::string::npos;
    if (!named)
      problem = "message does not name the architecture";
  }
  if (!problem.empty()) {
    log("FAIL misuse '%s': %s; message: \"%s\"", what.c_str(),
        problem.c_str(), msg.c_str());
    status = 1;
  } else {
    report("  ok   %-52s %s: %s", what.c_str(), resultName(r), msg.c_str());
  }
  g.result(w.agree(status) == 0);
}

/// A corrupt module must be refused by collcModuleLoadData (code and words
/// as `e` says) or, if the damage is only visible to the driver or to the
/// kernel lookup, by communicator setup (any error with a message). Setup
/// that succeeds is a failure: the runtime would run damaged code.
void expectCorruptRefused(World &w, Group &g, const std::string &what,
                          const std::string &data, const Expect &e) {
  std::string before = sentinel();
  collcModule_t m = nullptr;
  collcResult_t r = collcModuleLoadData(&m, data.data(), data.size());
  std::string msg = collcGetLastError();
  std::string problem, how;
  int loaded = w.agree(r == collcSuccess ? 1 : 0);
  if (r == collcSuccess && loaded) {
    collcConfig_t config = makeConfig(gOpt.timeoutMs);
    std::vector<collcComm_t> comms;
    collcResult_t s = w.initComms(m, &config, comms, &msg);
    if (s == collcSuccess) {
      problem = "accepted by collcModuleLoadData and communicator setup";
      w.destroyComms(comms);
    } else if (msg.empty()) {
      problem = "setup refused it without a message";
    } else {
      how = std::string("refused at setup: ") + resultName(s);
    }
  } else if (r == collcSuccess) {
    problem = "loaded here but not on a peer";
  } else if (std::find(e.codes.begin(), e.codes.end(), r) == e.codes.end()) {
    problem = std::string("collcModuleLoadData returned ") + resultName(r);
  } else if (msg.empty() || msg == before) {
    problem = "no message";
  } else {
    bool found = e.words.empty();
    for (const std::string &wd : e.words)
      found |= lower(msg).find(lower(wd)) != std::string::npos;
    if (!found)
      problem = "message names none of the expected words";
    how = std::string("refused at load: ") + resultName(r);
  }
  if (m)
    collcModuleDestroy(m);
  if (!problem.empty())
    log("FAIL misuse '%s': %s; message: \"%s\"", what.c_str(),
        problem.c_str(), msg.c_str());
  else
    report("  ok   %-52s %s: %s", what.c_str(), how.c_str(), msg.c_str());
  g.result(w.agree(problem.empty() ? 0 : 1) == 0);
}

/// The in-switch opt-in on this machine (docs/runtime.md, "In-switch
/// reduction"): COLLC_MULTIMEM=1 must refuse communicator setup on every
/// rank with the reason (this GPU without multicast support, or no multimem
/// program yet), and a malformed value must be refused too. libcollc cannot
/// create a multicast object (test/Runtime/no-multicast.test), so this
/// touches no multicast hardware.
void expectMultimemRefused(World &w, Group &g, collcModule_t module) {
  struct Try {
    const char *value;
    collcResult_t code;
    std::vector<std::string> words;
  };
  const Try tries[] = {
      {"1", collcInvalidUsage,
       {"does not support NVLink multicast", "derives no multimem program"}},
      {"2", collcInvalidArgument, {"COLLC_MULTIMEM is '2'"}}};
  for (const Try &t : tries) {
    setenv("COLLC_MULTIMEM", t.value, 1);
    collcConfig_t config = makeConfig(gOpt.timeoutMs);
    std::vector<collcComm_t> comms;
    std::string msg, problem;
    collcResult_t r = w.initComms(module, &config, comms, &msg);
    unsetenv("COLLC_MULTIMEM");
    if (r == collcSuccess) {
      problem = "communicator setup succeeded";
      w.destroyComms(comms);
    } else if (r != t.code) {
      problem = std::string("returned ") + resultName(r) + ", expected " +
                resultName(t.code);
    } else if (std::none_of(t.words.begin(), t.words.end(),
                            [&](const std::string &wd) {
                              return msg.find(wd) != std::string::npos;
                            })) {
      problem = "the message gives none of the expected reasons";
    }
    const std::string what = std::string("COLLC_MULTIMEM=") + t.value;
    if (!problem.empty())
      log("FAIL misuse '%s': %s; message: \"%s\"", what.c_str(),
          problem.c_str(), msg.c_str());
    else
      report("  ok   %-52s %s: %s", what.c_str(), resultName(r), msg.c_str());
    g.result(w.agree(problem.empty() ? 0 : 1) == 0);
  }
}

/// One all_reduce f32 case on `comms`: the communicator still works.
void stillWorks(World &w, Group &g, const std::vector<collcComm_t> &comms,
                const char *what, const char *collective = "all_reduce") {
  CaseSpec s;
  s.coll = findCollective(collective);
  s.type = collcFloat32;
  s.count = 1000;
  s.values = s.coll->reduce ? Values::Integers : Values::RandomBits;
  if (s.coll->module == std::string("variable"))
    s.matrix = makePartitions(s.coll->kind, w.nranks, 1000, "random", 7);
  s.seed = mix64(gOpt.seed ^ 0x3155);
  Case c(w, s);
  std::string why;
  int st = runCase(w, comms, c, &why);
  if (st)
    log("FAIL %s: %s", what, why.c_str());
  else
    report("  ok   %s", what);
  g.result(st == 0);
}

} // namespace

void runMisuse(World &w) {
  collcConfig_t config = makeConfig(gOpt.timeoutMs);
  int n = w.nranks;
  Group g("misuse");

  // Before any communicator exists: NULL handles.
  misuse(w, g, "collcLaunch with a NULL communicator",
         {{collcInvalidArgument}, {"comm"}}, [&](size_t) {
           return collcLaunch(nullptr, "all_reduce", nullptr, nullptr, 0,
                              nullptr, collcFloat32, 0, nullptr);
         });
  misuse(w, g, "collcAllReduce with a NULL communicator",
         {{collcInvalidArgument}, {"comm"}}, [&](size_t) {
           return collcAllReduce(nullptr, nullptr, 0, collcFloat32, collcSum,
                                 nullptr, nullptr);
         });
  misuse(w, g, "collcCommCount with a NULL communicator",
         {{collcInvalidArgument}, {"comm"}}, [&](size_t) {
           int c;
           return collcCommCount(nullptr, &c);
         });
  misuse(w, g, "collcCommUserRank with a NULL communicator",
         {{collcInvalidArgument}, {"comm"}}, [&](size_t) {
           int c;
           return collcCommUserRank(nullptr, &c);
         });
  misuse(w, g, "collcCommGetAsyncError with a NULL communicator",
         {{collcInvalidArgument}, {"comm"}}, [&](size_t) {
           collcResult_t e;
           return collcCommGetAsyncError(nullptr, &e);
         });
  misuse(w, g, "collcModuleLoad with a NULL path",
         {{collcInvalidArgument}, {"path", "null"}}, [&](size_t) {
           collcModule_t m = nullptr;
           return collcModuleLoad(&m, nullptr);
         });
  misuse(w, g, "collcModuleLoad of a missing file",
         {{collcSystemError, collcInvalidArgument}, {"no_such_module"}},
         [&](size_t) {
           collcModule_t m = nullptr;
           return collcModuleLoad(&m, "/nonexistent/no_such_module.collcmod");
         });

  // Communicator setup arguments (the allgather would fail: it must not be
  // reached).
  collcModule_t module = loadModule("collectives.collcmod");
  for (auto &c : std::vector<std::pair<std::string, std::function<collcResult_t(size_t)>>>{
           {"collcCommInitRank with a NULL module",
            [&](size_t l) {
              collcComm_t c = nullptr;
              return collcCommInitRank(&c, nullptr, n, w.local[l].rank,
                                       w.local[l].device, failingAllGather,
                                       nullptr, &config);
            }},
           {"collcCommInitRank with nranks 0",
            [&](size_t l) {
              collcComm_t c = nullptr;
              return collcCommInitRank(&c, module, 0, 0, w.local[l].device,
                                       failingAllGather, nullptr, &config);
            }},
           {"collcCommInitRank with rank == nranks",
            [&](size_t l) {
              collcComm_t c = nullptr;
              return collcCommInitRank(&c, module, n, n, w.local[l].device,
                                       failingAllGather, nullptr, &config);
            }},
           {"collcCommInitRank with a NULL allgather",
            [&](size_t l) {
              collcComm_t c = nullptr;
              return collcCommInitRank(&c, module, n, w.local[l].rank,
                                       w.local[l].device, nullptr, nullptr,
                                       &config);
            }},
       }) {
    std::vector<std::string> words = {"module", "nranks", "rank", "allgather"};
    misuse(w, g, c.first, {{collcInvalidArgument}, words}, c.second);
  }
  misuse(w, g, "collcCommInitRank with an uninitialized config",
         {{collcInvalidArgument}, {"magic", "config"}}, [&](size_t l) {
           collcConfig_t bad = config;
           bad.magic = 0;
           collcComm_t c = nullptr;
           return collcCommInitRank(&c, module, n, w.local[l].rank,
                                    w.local[l].device, failingAllGather,
                                    nullptr, &bad);
         });
  misuse(w, g, "collcCommInitRank with timeoutMs 0",
         {{collcInvalidArgument}, {"timeout"}}, [&](size_t l) {
           collcConfig_t bad = config;
           bad.timeoutMs = 0;
           collcComm_t c = nullptr;
           return collcCommInitRank(&c, module, n, w.local[l].rank,
                                    w.local[l].device, failingAllGather,
                                    nullptr, &bad);
         });
  misuse(w, g, "collcCommInitAll with ndev 0",
         {{collcInvalidArgument}, {"ndev", "device", "rank"}}, [&](size_t l) {
           collcComm_t c = nullptr;
           int dev = w.local[l].device;
           return collcCommInitAll(&c, module, 0, &dev, &config);
         });
  misuse(w, g, "collcCommInitAll with COLLC_CLIQUE_DIRECT=yes",
         {{collcInvalidArgument}, {"COLLC_CLIQUE_DIRECT is 'yes'; expected 1"}},
         [&](size_t l) {
           collcComm_t c = nullptr;
           int dev = w.local[l].device;
           setenv("COLLC_CLIQUE_DIRECT", "yes", 1);
           const collcResult_t r = collcCommInitAll(&c, module, 1, &dev, &config);
           unsetenv("COLLC_CLIQUE_DIRECT");
           return r;
         });
  misuse(w, g, "collcCommInitAll on an invalid device",
         {{collcInvalidArgument, collcUnhandledCudaError}, {"device"}},
         [&](size_t l) {
           collcComm_t c[2] = {nullptr, nullptr};
           int devs[2] = {w.local[l].device, 4096};
           return collcCommInitAll(c, module, 2, devs, &config);
         });
  // A world size the module has no kernels for: refused at setup or at the
  // first call, either way with a message naming the rank count.
  {
    int status = 0;
    for (size_t l = 0; l < w.local.size(); ++l) {
      collcComm_t c = nullptr;
      int dev = w.local[l].device;
      std::string before = sentinel();
      collcResult_t r = collcCommInitAll(&c, module, 1, &dev, &config);
      std::string msg = collcGetLastError();
      if (r == collcSuccess) {
        CT_CUDA(cudaSetDevice(dev));
        Bufs b(w);
        before = sentinel();
        r = collcLaunch(c, "all_reduce", b.dev[l], b.dev2[l], 16, nullptr,
                        collcFloat32, 0, streamOf(w, l));
        msg = collcGetLastError();
        waitStreams({w.local[l].stream}, {dev}, syncBoundSeconds());
        collcCommDestroy(c);
        b.release(w);
      }
      if (r != collcInvalidArgument || msg == before ||
          (msg.find('1') == std::string::npos &&
           lower(msg).find("rank") == std::string::npos)) {
        log("FAIL misuse 'one-rank communicator (no kernels for 1 rank)': "
            "%s: \"%s\"",
            resultName(r), msg.c_str());
        status = 1;
      } else if (l == 0) {
        report("  ok   %-52s %s: %s", "one-rank communicator (no kernels)",
               resultName(r), msg.c_str());
      }
    }
    g.result(w.agree(status) == 0);
  }

  std::string msg;
  // Ranks that load different modules (one process per GPU only).
  if (w.procs) {
    collcModule_t vmod = loadModule("variable.collcmod");
    collcModule_t mine = w.local[0].rank == 0 ? module : vmod;
    std::vector<collcComm_t> mixed;
    std::string before = sentinel();
    collcResult_t r = w.initComms(mine, &config, mixed, &msg);
    int status = 0;
    if (r == collcSuccess) {
      log("FAIL misuse 'ranks load different modules': setup succeeded");
      w.destroyComms(mixed);
      status = 1;
    } else if (msg.empty() || msg == before ||
               lower(msg).find("module") == std::string::npos) {
      log("FAIL misuse 'ranks load different modules': %s: \"%s\"",
          resultName(r), msg.c_str());
      status = 1;
    } else {
      report("  ok   %-52s %s: %s", "ranks load different modules",
             resultName(r), msg.c_str());
    }
    g.result(w.agree(status) == 0);
    collcModuleDestroy(vmod);
  }

  // Calls on a live communicator.
  std::vector<collcComm_t> comms;
  if (w.initComms(module, &config, comms, &msg) != collcSuccess) {
    log("FAIL misuse: communicator setup: %s", msg.c_str());
    g.fail();
    collcModuleDestroy(module);
    return;
  }
  Bufs b(w);
  auto launch = [&](size_t l, const char *name, const void *s, void *r,
                    size_t count, collcDataType_t t, int root = 0) {
    return collcLaunch(comms[l], name, s, r, count, nullptr, t, root,
                       streamOf(w, l));
  };
  misuse(w, g, "all_reduce with f8e4m3 (type the collective lacks)",
         {{collcInvalidArgument}, {"f8e4m3", "type"}}, [&](size_t l) {
           return launch(l, "all_reduce", b.dev[l], b.dev2[l], 64,
                         collcFloat8e4m3);
         });
  misuse(w, g, "collcAllReduce with f8e5m2",
         {{collcInvalidArgument}, {"f8e5m2", "type"}}, [&](size_t l) {
           return collcAllReduce(b.dev[l], b.dev2[l], 64, collcFloat8e5m2,
                                 collcSum, comms[l], streamOf(w, l));
         });
  misuse(w, g, "datatype 99 (out of range)",
         {{collcInvalidArgument}, {"type", "99"}}, [&](size_t l) {
           return launch(l, "all_gather", b.dev[l], b.dev2[l], 64,
                         collcDataType_t(99));
         });
  misuse(w, g, "collcAllReduce with collcMax (module reduces with sum)",
         {{collcInvalidArgument}, {"max", "op", "sum"}}, [&](size_t l) {
           return collcAllReduce(b.dev[l], b.dev2[l], 64, collcFloat32,
                                 collcMax, comms[l], streamOf(w, l));
         });
  misuse(w, g, "misaligned send (f32 at byte offset 1)",
         {{collcInvalidArgument}, {"align"}}, [&](size_t l) {
           return launch(l, "all_reduce", b.dev[l] + 1, b.dev2[l], 64,
                         collcFloat32);
         });
  misuse(w, g, "misaligned recv (bf16 at byte offset 1)",
         {{collcInvalidArgument}, {"align"}}, [&](size_t l) {
           return launch(l, "all_gather", b.dev[l], b.dev2[l] + 1, 64,
                         collcBfloat16);
         });
  misuse(w, g, "misaligned in-place all_gather (f32, offset 2 bytes)",
         {{collcInvalidArgument}, {"align"}}, [&](size_t l) {
           return launch(l, "all_gather", b.dev[l] + 2, b.dev[l] + 2, 64,
                         collcFloat32);
         });
  misuse(w, g, "send buffer in pageable host memory",
         {{collcInvalidArgument}, {"device", "host", "memory"}},
         [&](size_t l) {
           return launch(l, "all_reduce", b.host[l].data(), b.dev2[l], 64,
                         collcFloat32);
         });
  misuse(w, g, "recv buffer in pinned host memory",
         {{collcInvalidArgument}, {"device", "host", "memory"}},
         [&](size_t l) {
           return launch(l, "all_reduce", b.dev[l], b.pinned[l], 64,
                         collcFloat32);
         });
  misuse(w, g, "NULL send buffer with count 64",
         {{collcInvalidArgument}, {"null", "buffer", "pointer", "send"}},
         [&](size_t l) {
           return launch(l, "all_reduce", nullptr, b.dev2[l], 64,
                         collcFloat32);
         });
  {
    // Device memory of another GPU.
    int ndev = 0;
    CT_CUDA(cudaGetDeviceCount(&ndev));
    if (ndev > 1) {
      std::vector<void *> other(w.local.size(), nullptr);
      for (size_t l = 0; l < w.local.size(); ++l) {
        CT_CUDA(cudaSetDevice((w.local[l].device + 1) % ndev));
        CT_CUDA(cudaMalloc(&other[l], 4096));
      }
      misuse(w, g, "buffer on another GPU",
             {{collcInvalidArgument}, {"device"}}, [&](size_t l) {
               return launch(l, "all_reduce", other[l], b.dev2[l], 64,
                             collcFloat32);
             });
      for (size_t l = 0; l < w.local.size(); ++l) {
        cudaSetDevice((w.local[l].device + 1) % ndev);
        cudaFree(other[l]);
      }
    }
  }
  misuse(w, g, "unknown collective name",
         {{collcInvalidArgument}, {"no_such_collective"}}, [&](size_t l) {
           return launch(l, "no_such_collective", b.dev[l], b.dev2[l], 64,
                         collcFloat32);
         });
  misuse(w, g, "collective of another module (all_gather_v)",
         {{collcInvalidArgument}, {"all_gather_v"}}, [&](size_t l) {
           size_t counts[16] = {};
           return collcLaunch(comms[l], "all_gather_v", b.dev[l], b.dev2[l], 0,
                              counts, collcFloat32, 0, streamOf(w, l));
         });
  misuse(w, g, "NULL collective name",
         {{collcInvalidArgument}, {"name", "null", "collective"}},
         [&](size_t l) {
           return launch(l, nullptr, b.dev[l], b.dev2[l], 64, collcFloat32);
         });
  misuse(w, g, "count SIZE_MAX/2 (bytes overflow)",
         {{collcInvalidArgument}, {"count", "size", "overflow", "large"}},
         [&](size_t l) {
           return launch(l, "all_reduce", b.dev[l], b.dev2[l], SIZE_MAX / 2,
                         collcFloat32);
         });
  misuse(w, g, "all_gather count whose n*count overflows",
         {{collcInvalidArgument}, {"count", "size", "overflow", "large"}},
         [&](size_t l) {
           return launch(l, "all_gather", b.dev[l], b.dev2[l],
                         SIZE_MAX / 4 + 1, collcBfloat16);
         });
  misuse(w, g, "root == nranks", {{collcInvalidArgument}, {"root"}},
         [&](size_t l) {
           return launch(l, "broadcast", b.dev[l], b.dev2[l], 64,
                         collcFloat32, n);
         });
  misuse(w, g, "root == -1", {{collcInvalidArgument}, {"root"}},
         [&](size_t l) {
           return launch(l, "reduce", b.dev[l], b.dev2[l], 64, collcFloat32,
                         -1);
         });
  misuse(w, g, "collcBroadcast root == nranks",
         {{collcInvalidArgument}, {"root"}}, [&](size_t l) {
           return collcBroadcast(b.dev[l], b.dev2[l], 64, collcFloat32, n,
                                 comms[l], streamOf(w, l));
         });
  // Successful calls after all that: the refusals left nothing behind.
  stillWorks(w, g, comms, "communicator works after the refused calls");

  // A call after collcCommDestroy: the handle variable is reset to NULL (a
  // freed handle cannot be detected safely in C).
  {
    std::vector<collcComm_t> extra;
    if (w.initComms(module, &config, extra, &msg) != collcSuccess) {
      log("FAIL second communicator: %s", msg.c_str());
      g.fail();
    } else {
      w.destroyComms(extra);
      extra.assign(w.local.size(), nullptr);
      misuse(w, g, "collcLaunch after collcCommDestroy (handle NULL)",
             {{collcInvalidArgument}, {"comm"}}, [&](size_t l) {
               return collcLaunch(extra[l], "all_reduce", b.dev[l], b.dev2[l],
                                  64, nullptr, collcFloat32, 0,
                                  streamOf(w, l));
             });
    }
  }
  b.release(w);
  w.destroyComms(comms);

  // The V collectives need their counts.
  {
    collcModule_t vmod = loadModule("variable.collcmod");
    std::vector<collcComm_t> vcomms;
    if (w.initComms(vmod, &config, vcomms, &msg) != collcSuccess) {
      log("FAIL variable communicator: %s", msg.c_str());
      g.fail();
    } else {
      Bufs vb(w);
      misuse(w, g, "all_gather_v with counts NULL",
             {{collcInvalidArgument}, {"counts"}}, [&](size_t l) {
               return collcLaunch(vcomms[l], "all_gather_v", vb.dev[l],
                                  vb.dev2[l], 16, nullptr, collcFloat32, 0,
                                  streamOf(w, l));
             });
      misuse(w, g, "all_to_all_v with a count that overflows",
             {{collcInvalidArgument}, {"count", "size", "overflow", "large"}},
             [&](size_t l) {
               std::vector<size_t> counts(2 * n, 1);
               counts[0] = SIZE_MAX / 2;
               return collcLaunch(vcomms[l], "all_to_all_v", vb.dev[l],
                                  vb.dev2[l], 0, counts.data(), collcFloat32,
                                  0, streamOf(w, l));
             });
      misuse(w, g, "collcAllGatherV with displs not the prefix sums",
             {{collcInvalidArgument}, {"displs"}}, [&](size_t l) {
               std::vector<size_t> counts(n, 4), displs(n, 0);
               for (int p = 0; p < n; ++p)
                 displs[p] = 8 * size_t(p); // gaps: not packed
               return collcAllGatherV(vb.dev[l], 4, vb.dev2[l], counts.data(),
                                      displs.data(), collcFloat32, vcomms[l],
                                      streamOf(w, l));
             });
      misuse(w, g, "collcAllGatherV with sendcount != recvcounts[rank]",
             {{collcInvalidArgument}, {"sendcount"}}, [&](size_t l) {
               std::vector<size_t> counts(n, 4);
               return collcAllGatherV(vb.dev[l], 5, vb.dev2[l], counts.data(),
                                      nullptr, collcFloat32, vcomms[l],
                                      streamOf(w, l));
             });
      misuse(w, g, "collcAllToAllV with sdispls not the prefix sums",
             {{collcInvalidArgument}, {"sdispls"}}, [&](size_t l) {
               std::vector<size_t> counts(n, 4), displs(n, 0);
               for (int p = 0; p < n; ++p)
                 displs[p] = 4 * size_t(n - 1 - p); // reversed order
               return collcAllToAllV(vb.dev[l], counts.data(), displs.data(),
                                     vb.dev2[l], counts.data(), nullptr,
                                     collcFloat32, vcomms[l], streamOf(w, l));
             });
      misuse(w, g, "collcReduceScatterV with collcMin",
             {{collcInvalidArgument}, {"min", "op", "sum"}}, [&](size_t l) {
               std::vector<size_t> counts(n, 4);
               return collcReduceScatterV(vb.dev[l], vb.dev2[l], counts.data(),
                                          collcFloat32, collcMin, vcomms[l],
                                          streamOf(w, l));
             });
      stillWorks(w, g, vcomms, "variable communicator works afterwards",
                 "all_gather_v");
      vb.release(w);
      w.destroyComms(vcomms);
    }
    collcModuleDestroy(vmod);
  }

  // Corrupt modules, from memory and from a file.
  std::string text = readFile(modulePath("collectives.collcmod"));
  for (auto &c : corruptModules(text))
    expectCorruptRefused(w, g, c.first, c.second.first, c.second.second);
  {
    char dir[] = "/tmp/collc-misuse-XXXXXX";
    if (!mkdtemp(dir))
      fatal("mkdtemp failed");
    std::string path = std::string(dir) + "/truncated.collcmod";
    {
      std::ofstream out(path, std::ios::binary);
      out << text.substr(0, text.size() / 3);
    }
    misuse(w, g, "corrupt module file: truncated to a third",
           {{collcInvalidArgument}, {"truncat", "end", "pars", "json"}},
           [&](size_t) {
             collcModule_t m = nullptr;
             collcResult_t r = collcModuleLoad(&m, path.c_str());
             if (r == collcSuccess)
               collcModuleDestroy(m);
             return r;
           });
    unlink(path.c_str());
    rmdir(dir);
  }

  // A module for another architecture: its only image is for sm_100.
  {
    std::vector<std::pair<std::string, std::string>> mods;
    mods.push_back({"module relabelled sm_100 only, on this GPU",
                    relabelModule(text, "sm_100")});
    if (!gOpt.sm100Module.empty())
      mods.push_back({"module compiled for sm_100 only, on this GPU",
                      readFile(gOpt.sm100Module)});
    int major = 0, minor = 0;
    collcDeviceGetComputeCapability(w.local[0].device, &major, &minor);
    if (major >= 10)
      report("note: this GPU is sm_%d%d: the sm_100 module may be valid here",
             major, minor);
    for (auto &m : mods) {
      collcModule_t other = nullptr;
      std::string before = sentinel();
      collcResult_t r =
          collcModuleLoadData(&other, m.second.data(), m.second.size());
      if (r != collcSuccess) {
        // Refusing at load is as good, if it says why.
        std::string lm = collcGetLastError();
        bool ok = lm != before && !lm.empty();
        if (ok)
          report("  ok   %-52s refused at load: %s", m.first.c_str(),
                 lm.c_str());
        else
          log("FAIL %s: load failed without a message", m.first.c_str());
        g.result(w.agree(ok ? 0 : 1) == 0);
        continue;
      }
      expectInitRefused(w, g, m.first, other);
      collcModuleDestroy(other);
    }
    if (!gOpt.sm80Module.empty()) {
      // sm_80 PTX may be JIT-compiled for sm_90: either it runs correctly
      // or it is refused with a message.
      collcModule_t m80 = nullptr;
      std::string t80 = readFile(gOpt.sm80Module);
      collcResult_t r = collcModuleLoadData(&m80, t80.data(), t80.size());
      std::vector<collcComm_t> c80;
      if (r == collcSuccess)
        r = w.initComms(m80, &config, c80, &msg);
      else
        msg = collcGetLastError();
      if (r == collcSuccess) {
        report("  info sm_80-only module accepted on this GPU (PTX JIT); "
               "checking a call");
        stillWorks(w, g, c80, "sm_80-only module runs correctly");
        w.destroyComms(c80);
      } else {
        report("  ok   sm_80-only module refused: %s: %s", resultName(r),
               msg.c_str());
        g.result(w.agree(msg.empty() ? 1 : 0) == 0);
      }
      if (m80)
        collcModuleDestroy(m80);
    }
  }
  expectMultimemRefused(w, g, module);
  collcModuleDestroy(module);
}

} // namespace ct
