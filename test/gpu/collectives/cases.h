//===- cases.h - one collective call under test -----------------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A Case is one call of one collective on every rank: its geometry (what
/// each rank sends and receives, NCCL's conventions), device buffers with
/// guard bands, inputs from the deterministic generator, poisoned outputs,
/// and the host reference it is compared with bit for bit. Every process
/// can compute every rank's input, so each checks its own output alone.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_TEST_GPU_COLLECTIVES_CASES_H
#define COLLC_TEST_GPU_COLLECTIVES_CASES_H

#include "harness.h"

#include <memory>
#include <string>
#include <vector>

namespace ct {

enum class Kind {
  AllReduce,
  AllGather,
  ReduceScatter,
  AllToAll,
  Scatter,
  Gather,
  Broadcast,
  Reduce,
  AllGatherV,
  ReduceScatterV,
  AllToAllV,
};

/// What the harness knows about a collective of the shipped specs.
struct CollInfo {
  const char *name;
  Kind kind;
  const char *module; ///< "collectives" or "variable" (<name>.collcmod)
  bool rooted;
  bool reduce;
  bool inplace; ///< NCCL defines an in-place form the runtime admits
  /// collcLaunch's `count` is one partition of a scattered input, so the
  /// buffers hold n * count (all_reduce = reduce_scatter then all_gather).
  bool perPartition;
};

/// Every collective of specs/*.coll. The correctness suite fails if a
/// module has a collective that is not listed here.
const std::vector<CollInfo> &collectiveTable();
const CollInfo *findCollective(const std::string &name);

/// The typed NCCL-style entry points instead of collcLaunch.
enum class Api { Launch, Typed };

struct CaseSpec {
  const CollInfo *coll = nullptr;
  collcDataType_t type = collcBfloat16;
  /// Api::Launch: collcLaunch's `count`, the elements of one partition of
  /// the first transform's input (fixed-size collectives). Api::Typed: the
  /// NCCL entry point's count (the whole buffer for collcAllReduce,
  /// collcBroadcast and collcReduce).
  size_t count = 0;
  /// V collectives: the partition matrix. all_gather_v / reduce_scatter_v:
  /// one row of n sizes (partition of rank p). all_to_all_v: n x n, [p][q]
  /// = elements rank p sends to rank q.
  std::vector<std::vector<size_t>> matrix;
  int root = 0;
  bool inplace = false;
  uint64_t seed = 1;
  Values values = Values::Integers;
  /// Buffers start this many elements past a 256-byte boundary.
  int elemOffset = 0;
  Api api = Api::Launch;
  /// Api::Typed V calls: pass the displacement arrays (the prefix sums)
  /// instead of NULL.
  bool displs = false;

  std::string label() const;
};

/// One call of one collective, on the ranks this process drives.
class Case {
public:
  Case(World &w, CaseSpec spec);
  ~Case();
  Case(const Case &) = delete;
  Case &operator=(const Case &) = delete;

  const CaseSpec &spec() const { return s_; }

  /// Device memory needed on one rank (for the memory check of big cases).
  size_t bytesPerRank(int rank) const;

  /// Allocates the buffers of every local rank (once).
  void allocate();
  /// Writes inputs for `seed` and poisons outputs; stream-ordered on each
  /// local rank's stream when `async`, else synchronous.
  void upload(uint64_t seed, bool async);
  /// Launches on local rank `l` (its stream) through `comm`.
  collcResult_t launch(size_t l, collcComm_t comm);
  /// Downloads and compares every local rank's buffers with the reference.
  /// Returns false and a description of the first difference.
  bool verify(std::string *why);
  /// Hash of local rank `l`'s output region (after verify downloaded it).
  uint64_t outputHash(size_t l) const { return hash_[l]; }

private:
  struct Buffer {
    uint8_t *base = nullptr; ///< cudaMalloc'd
    size_t allocBytes = 0;
    size_t dataOffset = 0; ///< bytes from base to element 0
    size_t elems = 0;
    uint8_t *data() const { return base + dataOffset; }
  };
  struct RankBuffers {
    Buffer send, recv; ///< in place: only `recv` (the shared buffer)
    std::vector<uint8_t> hostImage; ///< scratch for uploads
  };

  World &w_;
  CaseSpec s_;
  int n_ = 0, eb_ = 0;
  std::vector<RankBuffers> bufs_;
  std::vector<uint64_t> hash_;
  /// Prefix sums of the partition matrix's rows and (all_to_all_v) columns.
  std::vector<std::vector<size_t>> rowPrefix_, colPrefix_;

  /// Elements of the whole buffer of an all-reduce, broadcast or reduce.
  size_t wholeCount() const;
  size_t sendCount(int r) const;
  size_t recvCount(int r) const;
  size_t sendOffsetInPlace(int r) const;
  size_t recvOffsetInPlace(int r) const;
  std::vector<size_t> countsArg(int r) const;

  void buildSendImage(int r, uint8_t *dst) const; ///< data only
  /// The expected bytes of the whole allocation holding rank r's output.
  void buildRecvExpected(int r, std::vector<uint8_t> &img) const;
  void buildRecvInitial(int r, std::vector<uint8_t> &img) const;
  /// Element j of rank r's output: false if the collective does not write it.
  bool expectAt(int r, size_t j, uint32_t *bits) const;
  uint32_t in(int p, size_t i) const {
    return inputBits(s_.values, s_.type, s_.seed, p, i);
  }
  uint32_t sum(size_t i) const; ///< over ranks of in(p, i), fp32, rank order
  void allocBuffer(Buffer &b, size_t elems, int device);
};

/// Everything a run of cases on one communicator set needs: launches on
/// every local rank, bounded sync, async errors, verify, agreement.
/// Returns 0 (pass), 1 (fail) or 2 (communicator broken: re-create it).
int runCase(World &w, const std::vector<collcComm_t> &comms, Case &c,
            std::string *why);

/// Random partition matrix for a V collective of n ranks: `pattern` is
/// "random" (entries in [0, scale], about a third zero), "zeros", or "one"
/// (one entry `scale`, the rest zero).
std::vector<std::vector<size_t>> makePartitions(Kind kind, int n,
                                                size_t scale,
                                                const std::string &pattern,
                                                uint64_t seed);

} // namespace ct

#endif // COLLC_TEST_GPU_COLLECTIVES_CASES_H
