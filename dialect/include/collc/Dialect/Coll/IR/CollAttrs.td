//===- CollAttrs.td - coll attributes ----------------------*- tablegen -*-===//

#ifndef COLLC_DIALECT_COLL_IR_COLLATTRS_TD
#define COLLC_DIALECT_COLL_IR_COLLATTRS_TD

include "collc/Dialect/Coll/IR/CollDialect.td"
include "collc/Dialect/Coll/IR/CollEnums.td"

// Stand-alone they print as `#coll.layout<packed>`; coll.transform prints
// them as bare keywords through its own directive.
def Coll_LayoutAttr : EnumAttr<Coll_Dialect, Coll_Layout, "layout"> {
  let assemblyFormat = "`<` $value `>`";
}
def Coll_ConsumeOpAttr : EnumAttr<Coll_Dialect, Coll_ConsumeOp, "consume"> {
  let assemblyFormat = "`<` $value `>`";
}
def Coll_ReductionAttr : EnumAttr<Coll_Dialect, Coll_Reduction, "reduction"> {
  let assemblyFormat = "`<` $value `>`";
}
def Coll_RootAttr : EnumAttr<Coll_Dialect, Coll_Root, "root"> {
  let assemblyFormat = "`<` $value `>`";
}

#endif // COLLC_DIALECT_COLL_IR_COLLATTRS_TD
