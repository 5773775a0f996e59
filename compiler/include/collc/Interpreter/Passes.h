//===- Passes.h - interpreter passes ----------------------------*- C++ -*-===//

#ifndef COLLC_INTERPRETER_PASSES_H
#define COLLC_INTERPRETER_PASSES_H

#include "mlir/Pass/Pass.h"

namespace collc::interp {

#define GEN_PASS_DECL
#include "collc/Interpreter/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "collc/Interpreter/Passes.h.inc"

} // namespace collc::interp

#endif // COLLC_INTERPRETER_PASSES_H
