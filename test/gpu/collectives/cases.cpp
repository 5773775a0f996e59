//===- cases.cpp - one collective call under test ---------------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//

#include "cases.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace ct {

namespace {
/// Guard band before and after every buffer: a kernel writing outside its
/// buffer changes it (memcheck cannot see that inside one allocation).
constexpr size_t kGuard = 256;
constexpr uint8_t kPoison = 0xFF;

std::vector<size_t> prefix(const std::vector<size_t> &v) {
  std::vector<size_t> out(v.size() + 1, 0);
  for (size_t i = 0; i < v.size(); ++i)
    out[i + 1] = out[i] + v[i];
  return out;
}

/// Index p with off[p] <= j < off[p + 1] (off is a prefix sum).
int owner(const std::vector<size_t> &off, size_t j) {
  auto it = std::upper_bound(off.begin(), off.end(), j);
  return int(it - off.begin()) - 1;
}
} // namespace

const std::vector<CollInfo> &collectiveTable() {
  static const std::vector<CollInfo> table = {
      // name, kind, module, rooted, reduce, in place, count per partition
      {"all_reduce", Kind::AllReduce, "collectives", false, true, true, true},
      {"one_shot_all_reduce", Kind::AllReduce, "collectives", false, true,
       true, false},
      {"all_gather", Kind::AllGather, "collectives", false, false, true,
       false},
      {"reduce_scatter", Kind::ReduceScatter, "collectives", false, true,
       true, false},
      {"all_to_all", Kind::AllToAll, "collectives", false, false, false,
       false},
      {"scatter", Kind::Scatter, "collectives", true, false, false, false},
      {"gather", Kind::Gather, "collectives", true, false, false, false},
      // NCCL's ncclBroadcast is also defined in place; the correctness
      // suite checks that form on its own (one case per root).
      {"broadcast", Kind::Broadcast, "collectives", true, false, false,
       true},
      {"reduce", Kind::Reduce, "collectives", true, true, true, true},
      {"all_gather_v", Kind::AllGatherV, "variable", false, false, false,
       false},
      {"reduce_scatter_v", Kind::ReduceScatterV, "variable", false, true,
       false, false},
      {"all_to_all_v", Kind::AllToAllV, "variable", false, false, false,
       false},
  };
  return table;
}

const CollInfo *findCollective(const std::string &name) {
  for (const CollInfo &c : collectiveTable())
    if (name == c.name)
      return &c;
  return nullptr;
}

std::string CaseSpec::label() const {
  std::string l = std::string(coll->name) + " " + typeName(type);
  bool v = coll->kind == Kind::AllGatherV ||
           coll->kind == Kind::ReduceScatterV || coll->kind == Kind::AllToAllV;
  if (v) {
    l += " counts=[";
    for (size_t i = 0; i < matrix.size(); ++i) {
      if (i)
        l += "; ";
      for (size_t j = 0; j < matrix[i].size(); ++j)
        l += (j ? "," : "") + std::to_string(matrix[i][j]);
    }
    l += "]";
  } else {
    l += " count=" + std::to_string(count);
  }
  if (coll->rooted)
    l += " root=" + std::to_string(root);
  l += inplace ? " in-place" : " out-of-place";
  if (elemOffset)
    l += " offset=" + std::to_string(elemOffset);
  if (api == Api::Typed)
    l += displs ? " typed-api+displs" : " typed-api";
  l += values == Values::Integers ? " ints"
       : values == Values::Reals  ? " reals"
                                  : " bits";
  l += " seed=" + std::to_string(seed);
  return l;
}

//===----------------------------------------------------------------------===//
// Geometry
//===----------------------------------------------------------------------===//

Case::Case(World &w, CaseSpec spec) : w_(w), s_(std::move(spec)) {
  n_ = w.nranks;
  eb_ = typeBytes(s_.type);
  bufs_.resize(w.local.size());
  hash_.assign(w.local.size(), 0);
  for (const std::vector<size_t> &row : s_.matrix)
    rowPrefix_.push_back(prefix(row));
  if (s_.coll->kind == Kind::AllToAllV)
    for (int r = 0; r < n_; ++r) {
      std::vector<size_t> col(n_);
      for (int p = 0; p < n_; ++p)
        col[p] = s_.matrix[p][r];
      colPrefix_.push_back(prefix(col));
    }
}

Case::~Case() {
  for (size_t l = 0; l < bufs_.size(); ++l) {
    cudaSetDevice(w_.local[l].device);
    if (bufs_[l].send.base)
      cudaFree(bufs_[l].send.base);
    if (bufs_[l].recv.base)
      cudaFree(bufs_[l].recv.base);
  }
}

size_t Case::wholeCount() const {
  if (s_.api == Api::Typed || !s_.coll->perPartition)
    return s_.count;
  return size_t(n_) * s_.count;
}

size_t Case::sendCount(int r) const {
  size_t c = s_.count, n = size_t(n_);
  switch (s_.coll->kind) {
  case Kind::AllReduce:
  case Kind::Broadcast:
  case Kind::Reduce:
    return wholeCount();
  case Kind::AllGather:
  case Kind::Gather:
    return c;
  case Kind::ReduceScatter:
  case Kind::AllToAll:
  case Kind::Scatter:
    return n * c;
  case Kind::AllGatherV:
    return s_.matrix[0][r];
  case Kind::ReduceScatterV:
    return std::accumulate(s_.matrix[0].begin(), s_.matrix[0].end(),
                           size_t(0));
  case Kind::AllToAllV:
    return std::accumulate(s_.matrix[r].begin(), s_.matrix[r].end(),
                           size_t(0));
  }
  return 0;
}

size_t Case::recvCount(int r) const {
  size_t c = s_.count, n = size_t(n_);
  switch (s_.coll->kind) {
  case Kind::AllReduce:
  case Kind::Broadcast:
  case Kind::Reduce:
    return wholeCount();
  case Kind::ReduceScatter:
  case Kind::Scatter:
    return c;
  case Kind::AllGather:
  case Kind::AllToAll:
  case Kind::Gather:
    return n * c;
  case Kind::AllGatherV:
    return std::accumulate(s_.matrix[0].begin(), s_.matrix[0].end(),
                           size_t(0));
  case Kind::ReduceScatterV:
    return s_.matrix[0][r];
  case Kind::AllToAllV: {
    size_t t = 0;
    for (int p = 0; p < n_; ++p)
      t += s_.matrix[p][r];
    return t;
  }
  }
  return 0;
}

// NCCL's in-place forms: AllGather sendbuff == recvbuff + rank*sendcount,
// ReduceScatter recvbuff == sendbuff + rank*recvcount, the others
// sendbuff == recvbuff.
size_t Case::sendOffsetInPlace(int r) const {
  return s_.coll->kind == Kind::AllGather ? size_t(r) * s_.count : 0;
}
size_t Case::recvOffsetInPlace(int r) const {
  return s_.coll->kind == Kind::ReduceScatter ? size_t(r) * s_.count : 0;
}

std::vector<size_t> Case::countsArg(int r) const {
  switch (s_.coll->kind) {
  case Kind::AllGatherV:
  case Kind::ReduceScatterV:
    return s_.matrix[0];
  case Kind::AllToAllV: {
    std::vector<size_t> v(s_.matrix[r].begin(), s_.matrix[r].end());
    for (int p = 0; p < n_; ++p)
      v.push_back(s_.matrix[p][r]);
    return v;
  }
  default:
    return {};
  }
}

size_t Case::bytesPerRank(int r) const {
  size_t e = s_.inplace ? std::max(sendOffsetInPlace(r) + sendCount(r),
                                   recvOffsetInPlace(r) + recvCount(r))
                        : sendCount(r) + recvCount(r);
  return e * eb_ + 4 * kGuard;
}

//===----------------------------------------------------------------------===//
// Reference
//===----------------------------------------------------------------------===//

uint32_t Case::sum(size_t i) const {
  // Accumulate in FP32 in ascending rank order, round once (DESIGN.md,
  // "Determinism"). Exact for the integer inputs at any rank count, and for
  // any input at two ranks (one addition).
  float acc = bitsToFloat(s_.type, in(0, i));
  for (int p = 1; p < n_; ++p)
    acc += bitsToFloat(s_.type, in(p, i));
  return floatToBits(s_.type, acc);
}

bool Case::expectAt(int r, size_t j, uint32_t *bits) const {
  size_t c = s_.count;
  switch (s_.coll->kind) {
  case Kind::AllReduce:
    *bits = sum(j);
    return true;
  case Kind::AllGather:
    *bits = in(int(j / c), j % c);
    return true;
  case Kind::ReduceScatter:
    *bits = sum(size_t(r) * c + j);
    return true;
  case Kind::AllToAll:
    *bits = in(int(j / c), size_t(r) * c + j % c);
    return true;
  case Kind::Scatter:
    *bits = in(s_.root, size_t(r) * c + j);
    return true;
  case Kind::Gather:
    if (r != s_.root)
      return false;
    *bits = in(int(j / c), j % c);
    return true;
  case Kind::Broadcast:
    *bits = in(s_.root, j);
    return true;
  case Kind::Reduce:
    if (r != s_.root)
      return false;
    *bits = sum(j);
    return true;
  case Kind::AllGatherV: {
    const std::vector<size_t> &off = rowPrefix_[0];
    int p = owner(off, j);
    *bits = in(p, j - off[p]);
    return true;
  }
  case Kind::ReduceScatterV:
    *bits = sum(rowPrefix_[0][r] + j);
    return true;
  case Kind::AllToAllV: {
    const std::vector<size_t> &roff = colPrefix_[r];
    int p = owner(roff, j);
    *bits = in(p, rowPrefix_[p][r] + (j - roff[p]));
    return true;
  }
  }
  return false;
}

void Case::buildSendImage(int r, uint8_t *dst) const {
  size_t e = sendCount(r);
  int eb = eb_;
  parallelFor(e, [&](size_t b, size_t end) {
    for (size_t i = b; i < end; ++i)
      storeBits(dst, eb, i, in(r, i));
  });
}

void Case::buildRecvInitial(int r, std::vector<uint8_t> &img) const {
  size_t l = 0;
  for (; l < w_.local.size(); ++l)
    if (w_.local[l].rank == r)
      break;
  const Buffer &rb = bufs_[l].recv;
  img.assign(rb.allocBytes, kPoison);
  if (s_.inplace)
    buildSendImage(r, img.data() + rb.dataOffset + sendOffsetInPlace(r) * eb_);
}

void Case::buildRecvExpected(int r, std::vector<uint8_t> &img) const {
  buildRecvInitial(r, img);
  size_t l = 0;
  for (; l < w_.local.size(); ++l)
    if (w_.local[l].rank == r)
      break;
  uint8_t *out = img.data() + bufs_[l].recv.dataOffset +
                 (s_.inplace ? recvOffsetInPlace(r) * eb_ : 0);
  int eb = eb_;
  // The V references look up their partition per element; precompute
  // nothing and let the threads share the cost.
  parallelFor(recvCount(r), [&](size_t b, size_t end) {
    for (size_t j = b; j < end; ++j) {
      uint32_t bits;
      if (expectAt(r, j, &bits))
        storeBits(out, eb, j, bits);
    }
  });
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

void Case::allocBuffer(Buffer &b, size_t elems, int device) {
  CT_CUDA(cudaSetDevice(device));
  b.elems = elems;
  b.dataOffset = kGuard + size_t(s_.elemOffset) * eb_;
  b.allocBytes = b.dataOffset + elems * eb_ + kGuard;
  CT_CUDA(cudaMalloc(&b.base, b.allocBytes));
}

void Case::allocate() {
  for (size_t l = 0; l < w_.local.size(); ++l) {
    int r = w_.local[l].rank, dev = w_.local[l].device;
    RankBuffers &rb = bufs_[l];
    if (rb.recv.base)
      continue;
    if (s_.inplace) {
      allocBuffer(rb.recv,
                  std::max(sendOffsetInPlace(r) + sendCount(r),
                           recvOffsetInPlace(r) + recvCount(r)),
                  dev);
    } else {
      allocBuffer(rb.send, sendCount(r), dev);
      allocBuffer(rb.recv, recvCount(r), dev);
    }
  }
}

void Case::upload(uint64_t seed, bool async) {
  s_.seed = seed;
  for (size_t l = 0; l < w_.local.size(); ++l) {
    int r = w_.local[l].rank;
    RankBuffers &rb = bufs_[l];
    cudaStream_t st = w_.local[l].stream;
    CT_CUDA(cudaSetDevice(w_.local[l].device));
    auto put = [&](const Buffer &b, const std::vector<uint8_t> &img) {
      if (async)
        CT_CUDA(cudaMemcpyAsync(b.base, img.data(), b.allocBytes,
                                cudaMemcpyHostToDevice, st));
      else
        CT_CUDA(cudaMemcpy(b.base, img.data(), b.allocBytes,
                           cudaMemcpyHostToDevice));
    };
    if (!s_.inplace) {
      rb.hostImage.assign(rb.send.allocBytes, kPoison);
      buildSendImage(r, rb.hostImage.data() + rb.send.dataOffset);
      put(rb.send, rb.hostImage);
      // Pageable async copies have consumed the host buffer on return.
    }
    buildRecvInitial(r, rb.hostImage);
    put(rb.recv, rb.hostImage);
  }
}

collcResult_t Case::launch(size_t l, collcComm_t comm) {
  int r = w_.local[l].rank;
  RankBuffers &rb = bufs_[l];
  const void *send;
  void *recv;
  if (s_.inplace) {
    send = rb.recv.data() + sendOffsetInPlace(r) * eb_;
    recv = rb.recv.data() + recvOffsetInPlace(r) * eb_;
  } else {
    send = rb.send.data();
    recv = rb.recv.data();
  }
  collcStream_t st = reinterpret_cast<collcStream_t>(w_.local[l].stream);
  std::vector<size_t> counts = countsArg(r);
  if (s_.api == Api::Typed) {
    size_t nc = wholeCount();
    switch (s_.coll->kind) {
    case Kind::AllReduce:
      return collcAllReduce(send, recv, nc, s_.type, collcSum, comm, st);
    case Kind::AllGather:
      return collcAllGather(send, recv, s_.count, s_.type, comm, st);
    case Kind::ReduceScatter:
      return collcReduceScatter(send, recv, s_.count, s_.type, collcSum, comm,
                                st);
    case Kind::AllToAll:
      return collcAllToAll(send, recv, s_.count, s_.type, comm, st);
    // NCCL's ncclBroadcast and ncclReduce take the whole buffer's count.
    case Kind::Broadcast:
      return collcBroadcast(send, recv, nc, s_.type, s_.root, comm, st);
    case Kind::Reduce:
      return collcReduce(send, recv, nc, s_.type, collcSum, s_.root, comm, st);
    case Kind::Scatter:
      return collcScatter(send, recv, s_.count, s_.type, s_.root, comm, st);
    case Kind::Gather:
      return collcGather(send, recv, s_.count, s_.type, s_.root, comm, st);
    case Kind::AllGatherV: {
      const std::vector<size_t> &c = s_.matrix[0];
      return collcAllGatherV(send, c[r], recv, c.data(),
                             s_.displs ? rowPrefix_[0].data() : nullptr,
                             s_.type, comm, st);
    }
    case Kind::ReduceScatterV:
      return collcReduceScatterV(send, recv, s_.matrix[0].data(), s_.type,
                                 collcSum, comm, st);
    case Kind::AllToAllV: {
      std::vector<size_t> recvcounts(n_);
      for (int p = 0; p < n_; ++p)
        recvcounts[p] = s_.matrix[p][r];
      return collcAllToAllV(send, s_.matrix[r].data(),
                            s_.displs ? rowPrefix_[r].data() : nullptr, recv,
                            recvcounts.data(),
                            s_.displs ? colPrefix_[r].data() : nullptr,
                            s_.type, comm, st);
    }
    }
  }
  return collcLaunch(comm, s_.coll->name, send, recv, s_.count,
                     counts.empty() ? nullptr : counts.data(), s_.type,
                     s_.root, st);
}

bool Case::verify(std::string *why) {
  bool ok = true;
  std::vector<uint8_t> expect, actual;
  auto compare = [&](const char *what, int r, const std::vector<uint8_t> &e,
                     const std::vector<uint8_t> &a, size_t dataOffset) {
    if (e.size() == a.size() && std::memcmp(e.data(), a.data(), e.size()) == 0)
      return;
    size_t first = SIZE_MAX, bad = 0;
    for (size_t i = 0; i < e.size(); ++i)
      if (e[i] != a[i]) {
        if (first == SIZE_MAX)
          first = i;
        ++bad;
      }
    char msg[512];
    long long elem = (long long)first - (long long)dataOffset;
    if (elem < 0)
      std::snprintf(msg, sizeof msg,
                    "rank %d %s: %zu bytes differ; first in the guard band "
                    "%lld bytes before the buffer (0x%02x, expected 0x%02x)",
                    r, what, bad, -elem, a[first], e[first]);
    else if (size_t(elem) >= e.size() - dataOffset - kGuard)
      std::snprintf(msg, sizeof msg,
                    "rank %d %s: %zu bytes differ; first in the guard band "
                    "after the buffer (0x%02x, expected 0x%02x)",
                    r, what, bad, a[first], e[first]);
    else {
      size_t el = size_t(elem) / eb_;
      std::snprintf(msg, sizeof msg,
                    "rank %d %s: %zu bytes differ; first at element %zu: got "
                    "0x%0*x, expected 0x%0*x",
                    r, what, bad, el, eb_ * 2,
                    loadBits(a.data() + dataOffset, eb_, el), eb_ * 2,
                    loadBits(e.data() + dataOffset, eb_, el));
    }
    if (ok && why)
      *why = msg;
    ok = false;
  };
  for (size_t l = 0; l < w_.local.size(); ++l) {
    int r = w_.local[l].rank;
    RankBuffers &rb = bufs_[l];
    CT_CUDA(cudaSetDevice(w_.local[l].device));
    if (!s_.inplace) {
      actual.resize(rb.send.allocBytes);
      CT_CUDA(cudaMemcpy(actual.data(), rb.send.base, actual.size(),
                         cudaMemcpyDeviceToHost));
      expect.assign(rb.send.allocBytes, kPoison);
      buildSendImage(r, expect.data() + rb.send.dataOffset);
      compare("input (must not change)", r, expect, actual,
              rb.send.dataOffset);
    }
    actual.resize(rb.recv.allocBytes);
    CT_CUDA(cudaMemcpy(actual.data(), rb.recv.base, actual.size(),
                       cudaMemcpyDeviceToHost));
    buildRecvExpected(r, expect);
    compare(s_.inplace ? "buffer" : "output", r, expect, actual,
            rb.recv.dataOffset);
    // FNV-1a over the output region, for the cross-rank identity check.
    size_t off = rb.recv.dataOffset + (s_.inplace ? recvOffsetInPlace(r) * eb_ : 0);
    uint64_t h = 0xcbf29ce484222325ull;
    size_t nbytes = recvCount(r) * eb_;
    size_t words = nbytes / 8;
    const uint8_t *p = actual.data() + off;
    for (size_t i = 0; i < words; ++i) {
      uint64_t v;
      std::memcpy(&v, p + 8 * i, 8);
      h = (h ^ v) * 0x100000001b3ull;
    }
    for (size_t i = words * 8; i < nbytes; ++i)
      h = (h ^ p[i]) * 0x100000001b3ull;
    hash_[l] = h;
  }
  return ok;
}

//===----------------------------------------------------------------------===//
// Running a case on every rank
//===----------------------------------------------------------------------===//

int runCase(World &w, const std::vector<collcComm_t> &comms, Case &c,
            std::string *why) {
  int status = 0;
  std::string local;
  c.allocate();
  c.upload(c.spec().seed, false);
  std::vector<collcResult_t> res(w.local.size(), collcSuccess);
  for (size_t l = 0; l < w.local.size(); ++l) {
    CT_CUDA(cudaSetDevice(w.local[l].device));
    res[l] = c.launch(l, comms[l]);
    if (res[l] != collcSuccess && local.empty()) {
      local = "rank " + std::to_string(w.local[l].rank) + ": launch returned " +
              resultName(res[l]) + ": " + collcGetLastError();
      status = 1;
    }
  }
  if (!waitStreams(w.streams(), w.devices(), syncBoundSeconds()))
    fatal("%s: the stream did not finish within %.0f s: a wait is not "
          "bounded (runtime hang)",
          c.spec().label().c_str(), syncBoundSeconds());
  for (size_t l = 0; l < w.local.size(); ++l) {
    collcResult_t async = collcSuccess;
    collcResult_t r = collcCommGetAsyncError(comms[l], &async);
    if (r != collcSuccess || async != collcSuccess) {
      if (status < 2)
        local = "rank " + std::to_string(w.local[l].rank) +
                ": asynchronous error " + resultName(async) + ": " +
                collcGetLastError();
      status = 2;
    }
  }
  if (status == 0 && !c.verify(&local))
    status = 1;
  // Every rank of an all-reduce holds the same bits.
  if (c.spec().coll->kind == Kind::AllReduce) {
    std::vector<uint64_t> mine(w.local.size(), 0), all(w.nranks, 0);
    for (size_t l = 0; l < w.local.size(); ++l)
      mine[l] = status == 0 ? c.outputHash(l) : 0;
    if (w.procs)
      w.allgatherHost(mine.data(), all.data(), sizeof(uint64_t));
    else
      all = mine;
    int agreeing = w.agree(status);
    if (agreeing == 0)
      for (int r = 1; r < w.nranks; ++r)
        if (all[r] != all[0]) {
          local = "outputs differ between rank 0 and rank " +
                  std::to_string(r) + " (hashes)";
          status = 1;
          break;
        }
  }
  if (status)
    log("FAIL %s: %s", c.spec().label().c_str(), local.c_str());
  int agreed = w.agree(status);
  if (why)
    *why = local;
  return agreed;
}

//===----------------------------------------------------------------------===//
// Partitions
//===----------------------------------------------------------------------===//

std::vector<std::vector<size_t>> makePartitions(Kind kind, int n,
                                                size_t scale,
                                                const std::string &pattern,
                                                uint64_t seed) {
  int rows = kind == Kind::AllToAllV ? n : 1;
  std::vector<std::vector<size_t>> m(rows, std::vector<size_t>(n, 0));
  uint64_t h = mix64(seed ^ 0x5eed);
  if (pattern == "one") {
    m[h % rows][(h >> 8) % n] = scale;
  } else if (pattern == "random") {
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < n; ++j) {
        h = mix64(h);
        m[i][j] = (h % 3 == 0) ? 0 : size_t((h >> 8) % (scale + 1));
      }
    // At least one empty and one non-empty partition when there is room.
    if (rows * n >= 2 && scale > 0) {
      m[0][0] = 0;
      m[rows - 1][n - 1] = scale;
    }
  } else if (pattern == "aligned") {
    // Random multiples of 64 elements (zeros among them): every partition
    // starts 16-byte aligned and is whole 16-byte units, so the chunked
    // programs read a rank's own part where it lies (program.cuh
    // recordSelf) rather than staging it.
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < n; ++j) {
        h = mix64(h);
        m[i][j] = (h % 4 == 0) ? 0 : size_t((h >> 8) % (scale / 64 + 1)) * 64;
      }
    if (rows * n >= 2 && scale >= 64)
      m[rows - 1][n - 1] = scale / 64 * 64;
  }
  return m;
}

} // namespace ct
