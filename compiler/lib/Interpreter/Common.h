//===- Common.h - what the schedule and program simulators share -*- C++ -*-===//

#ifndef COLLC_LIB_INTERPRETER_COMMON_H
#define COLLC_LIB_INTERPRETER_COMMON_H

#include "collc/Dialect/Coll/IR/CollOps.h"
#include "collc/Dialect/Snac/IR/SnacOps.h"
#include "collc/Sim/Model.h"

namespace collc::interp {

/// The oracle's reduction operator for a snac one.
sim::RedOp redOpOf(snac::Reduction r);
/// The oracle's model of a collective: its transforms, from the coll
/// dialect, never from a schedule or program.
sim::Collective modelOf(coll::CollectiveOp op);

} // namespace collc::interp

#endif // COLLC_LIB_INTERPRETER_COMMON_H
