//===- Vocabulary.h - coll -> snac names of shared concepts -----*- C++ -*-===//
//
// snac keeps its own copy of the coll vocabulary (it never reads coll); the
// one mapping between the two, for the derivations of this library.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_CONVERSION_COLLTOSNAC_VOCABULARY_H
#define COLLC_CONVERSION_COLLTOSNAC_VOCABULARY_H

#include "collc/Dialect/Coll/IR/CollOps.h"
#include "collc/Dialect/Snac/IR/SnacOps.h"

#include "llvm/Support/ErrorHandling.h"

namespace collc {

inline snac::Reduction toSnac(coll::Reduction r) {
  switch (r) {
  case coll::Reduction::sum:
    return snac::Reduction::sum;
  case coll::Reduction::max:
    return snac::Reduction::max;
  case coll::Reduction::min:
    return snac::Reduction::min;
  case coll::Reduction::avg:
    return snac::Reduction::avg;
  }
  llvm_unreachable("unknown reduction");
}

inline snac::Layout toSnac(coll::Layout layout) {
  switch (layout) {
  case coll::Layout::packed:
    return snac::Layout::packed;
  case coll::Layout::scattered:
    return snac::Layout::scattered;
  case coll::Layout::transposed:
    return snac::Layout::transposed;
  case coll::Layout::packed_v:
    return snac::Layout::packed_v;
  case coll::Layout::scattered_v:
    return snac::Layout::scattered_v;
  case coll::Layout::transposed_v:
    return snac::Layout::transposed_v;
  }
  llvm_unreachable("unknown layout");
}

} // namespace collc

#endif // COLLC_CONVERSION_COLLTOSNAC_VOCABULARY_H
