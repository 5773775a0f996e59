//===- rows.h - the rows file of the benchmarks' ablations ------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// One row per line, tab-separated: label, module file, the
// COLLC_FORCE_VARIANT value ('-': none), and optionally the buffers
// ("registered": the bench registers its buffers with collcCommRegister, so
// that calls can run the zero-copy programs; absent or "ordinary": not, and
// the ranks' one process reads them in place where the module's policy
// table chooses a zero-copy program for registered buffers (direct
// buffers) unless COLLC_CLIQUE_DIRECT=0; "staged": not, and
// COLLC_CLIQUE_DIRECT=0 for the row, as one process per rank runs them);
// empty lines and lines starting with '#' are skipped. Written by scripts/gpu-ablation.sh and
// scripts/gpu-bandwidth.sh, read by bench/ablation and bench/bandwidth.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_BENCH_ROWS_H
#define COLLC_BENCH_ROWS_H

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace collc::bench {

struct Row {
  std::string label, module, force, buffers;
  bool registered() const { return buffers == "registered"; }
};

/// The rows of `path`; false when it cannot be read.
inline bool readRows(const char *path, std::vector<Row> &rows) {
  std::ifstream f(path);
  if (!f)
    return false;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#')
      continue;
    Row row;
    std::stringstream ss(line);
    std::getline(ss, row.label, '\t');
    std::getline(ss, row.module, '\t');
    std::getline(ss, row.force, '\t');
    std::getline(ss, row.buffers, '\t');
    rows.push_back(row);
  }
  return true;
}

} // namespace collc::bench

#endif // COLLC_BENCH_ROWS_H
