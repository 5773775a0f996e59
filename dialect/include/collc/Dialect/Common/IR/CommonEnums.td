//===- CommonEnums.td - enums coll and snac share -----------*- tablegen -*-===//
//
// The IR's half of the vocabulary (collc/vocab.h): the enums of layouts,
// consume operations, reductions and root roles, defined once. coll uses all
// of them; snac shares Layout and Reduction without a copy of coll's (and
// without reading coll). Each dialect wraps them in its own attributes
// (CollAttrs.td, SnacAttrs.td). The values are tied to collc/vocab.h in
// CommonEnums.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_DIALECT_COMMON_IR_COMMONENUMS_TD
#define COLLC_DIALECT_COMMON_IR_COMMONENUMS_TD

include "mlir/IR/EnumAttr.td"

// Layouts (Purlin 3.1). The `_v` variants take partition sizes at run time,
// any of them zero.
def Common_Layout : I32EnumAttr<"Layout", "buffer layout", [
    I32EnumAttrCase<"packed", 0>,
    I32EnumAttrCase<"scattered", 1>,
    I32EnumAttrCase<"transposed", 2>,
    I32EnumAttrCase<"packed_v", 3>,
    I32EnumAttrCase<"scattered_v", 4>,
    I32EnumAttrCase<"transposed_v", 5>]> {
  let cppNamespace = "::collc::common";
  let genSpecializedAttr = 0;
}

// How a consumer combines what it receives.
def Common_ConsumeOp : I32EnumAttr<"ConsumeOp", "consume operation", [
    I32EnumAttrCase<"copy", 0>,
    I32EnumAttrCase<"reduce", 1>]> {
  let cppNamespace = "::collc::common";
  let genSpecializedAttr = 0;
}

// The elementwise combiner of a reduction.
def Common_Reduction : I32EnumAttr<"Reduction", "reduction operator", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>,
    I32EnumAttrCase<"avg", 3>]> {
  let cppNamespace = "::collc::common";
  let genSpecializedAttr = 0;
}

// Which ranks produce or consume (Purlin appendix A.1). The root rank itself
// is a run-time argument.
def Common_Root : I32EnumAttr<"Root", "root role", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"producer", 1>,
    I32EnumAttrCase<"consumer", 2>]> {
  let cppNamespace = "::collc::common";
  let genSpecializedAttr = 0;
}

#endif // COLLC_DIALECT_COMMON_IR_COMMONENUMS_TD
