//===- SnacAttrs.td - snac attributes ----------------------*- tablegen -*-===//

#ifndef COLLC_DIALECT_SNAC_IR_SNACATTRS_TD
#define COLLC_DIALECT_SNAC_IR_SNACATTRS_TD

include "collc/Dialect/Snac/IR/SnacDialect.td"
include "collc/Dialect/Snac/IR/SnacEnums.td"

def Snac_BufferKindAttr : EnumAttr<Snac_Dialect, Snac_BufferKind, "buffer_kind"> {
  let assemblyFormat = "`<` $value `>`";
}
def Snac_GeometrySideAttr : EnumAttr<Snac_Dialect, Snac_GeometrySide, "side"> {
  let assemblyFormat = "`<` $value `>`";
}
def Snac_EventKindAttr : EnumAttr<Snac_Dialect, Snac_EventKind, "event_kind"> {
  let assemblyFormat = "`<` $value `>`";
}
def Snac_EncodingAttr : EnumAttr<Snac_Dialect, Snac_Encoding, "encoding"> {
  let assemblyFormat = "`<` $value `>`";
}
def Snac_ParticipantsAttr : EnumAttr<Snac_Dialect, Snac_Participants, "participants"> {
  let assemblyFormat = "`<` $value `>`";
}
def Snac_ReductionAttr : EnumAttr<Snac_Dialect, Snac_Reduction, "reduction"> {
  let assemblyFormat = "`<` $value `>`";
}

#endif // COLLC_DIALECT_SNAC_IR_SNACATTRS_TD
