//===- CollAttrs.td - coll attributes ----------------------*- tablegen -*-===//

#ifndef COLLC_DIALECT_COLL_IR_COLLATTRS_TD
#define COLLC_DIALECT_COLL_IR_COLLATTRS_TD

include "collc/Dialect/Coll/IR/CollDialect.td"
include "collc/Dialect/Common/IR/CommonEnums.td"

// Stand-alone they print as `#coll.layout<packed>`; coll.transform prints
// them as bare keywords through its own directive.
def Coll_LayoutAttr : EnumAttr<Coll_Dialect, Common_Layout, "layout"> {
  // The enum is shared (CommonEnums.td); the attribute is this dialect\'s.
  let cppNamespace = "::collc::coll";
  let assemblyFormat = "`<` $value `>`";
}
def Coll_ConsumeOpAttr : EnumAttr<Coll_Dialect, Common_ConsumeOp, "consume"> {
  // The enum is shared (CommonEnums.td); the attribute is this dialect\'s.
  let cppNamespace = "::collc::coll";
  let assemblyFormat = "`<` $value `>`";
}
def Coll_ReductionAttr : EnumAttr<Coll_Dialect, Common_Reduction, "reduction"> {
  // The enum is shared (CommonEnums.td); the attribute is this dialect\'s.
  let cppNamespace = "::collc::coll";
  let assemblyFormat = "`<` $value `>`";
}
def Coll_RootAttr : EnumAttr<Coll_Dialect, Common_Root, "root"> {
  // The enum is shared (CommonEnums.td); the attribute is this dialect\'s.
  let cppNamespace = "::collc::coll";
  let assemblyFormat = "`<` $value `>`";
}

#endif // COLLC_DIALECT_COLL_IR_COLLATTRS_TD
