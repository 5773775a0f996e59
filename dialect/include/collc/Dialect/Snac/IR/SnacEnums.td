//===- SnacEnums.td - snac enumerations --------------------*- tablegen -*-===//

#ifndef COLLC_DIALECT_SNAC_IR_SNACENUMS_TD
#define COLLC_DIALECT_SNAC_IR_SNACENUMS_TD

include "mlir/IR/EnumAttr.td"

// What a buffer is to the collective.
def Snac_BufferKind : I32EnumAttr<"BufferKind", "buffer kind", [
    // The user's input and output (ordinary memory, local to their rank).
    I32EnumAttrCase<"input", 0>,
    I32EnumAttrCase<"output", 1>,
    // Peer-accessible: staged copies of the input, and the result of the
    // first transform of a composition, consumed in place by the second.
    I32EnumAttrCase<"staging", 2>,
    I32EnumAttrCase<"intermediate", 3>]> {
  let cppNamespace = "::collc::snac";
  let genSpecializedAttr = 0;
}

// Whose geometry a buffer has: the input or the output layout of a
// transform (partition sizes follow from it and the run-time counts).
def Snac_GeometrySide : I32EnumAttr<"GeometrySide", "geometry side", [
    I32EnumAttrCase<"input_of", 0>,
    I32EnumAttrCase<"output_of", 1>]> {
  let cppNamespace = "::collc::snac";
  let genSpecializedAttr = 0;
}

// How a notify/await pair matches. `ready`: the u-th await of a key from a
// peer needs the peer's u-th notify (data is ready). `free`: the u-th await
// needs u-1 notifies (a region may be rewritten once every earlier use of it
// was released; the first use needs none).
def Snac_EventKind : I32EnumAttr<"EventKind", "event kind", [
    I32EnumAttrCase<"ready", 0>,
    I32EnumAttrCase<"free", 1>]> {
  let cppNamespace = "::collc::snac";
  let genSpecializedAttr = 0;
}

// How readiness is encoded on the wire (DESIGN.md, readiness menu).
def Snac_Encoding : I32EnumAttr<"Encoding", "readiness encoding", [
    // A flag/epoch counter stored with release order after the data.
    I32EnumAttrCase<"flag", 0>,
    // 16-byte LL packets: 8 bytes of payload + the sequence number.
    I32EnumAttrCase<"ll", 1>,
    // Slots pre-filled with a sentinel bit pattern.
    I32EnumAttrCase<"sentinel", 2>]> {
  let cppNamespace = "::collc::snac";
  let genSpecializedAttr = 0;
}

// Which ranks run a role.
def Snac_Participants : I32EnumAttr<"Participants", "participating ranks", [
    I32EnumAttrCase<"all", 0>,
    I32EnumAttrCase<"root", 1>]> {
  let cppNamespace = "::collc::snac";
  let genSpecializedAttr = 0;
}

def Snac_Reduction : I32EnumAttr<"Reduction", "reduction operator", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>,
    I32EnumAttrCase<"avg", 3>]> {
  let cppNamespace = "::collc::snac";
  let genSpecializedAttr = 0;
}

#endif // COLLC_DIALECT_SNAC_IR_SNACENUMS_TD
