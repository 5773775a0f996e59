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
    I32EnumAttrCase<"intermediate", 3>,
    // A program's receive buffer (SNAC v2): owned by its consumer, written
    // by every producer into the region of (slot, source), one slot per
    // call modulo the program's slot count.
    I32EnumAttrCase<"receive", 4>]> {
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

// How readiness is encoded on the wire (DESIGN.md, readiness menu). The
// values are COLLC_ENCODING_* of collc/device/snac/abi.h.
def Snac_Encoding : I32EnumAttr<"Encoding", "readiness encoding", [
    // A flag/epoch counter stored with release order after the data.
    I32EnumAttrCase<"flag", 0>,
    // 16-byte LL packets (Purlin LL16): 8 bytes of payload + the sequence.
    I32EnumAttrCase<"ll16", 1>,
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

//===----------------------------------------------------------------------===//
// Programs (SNAC v2)
//===----------------------------------------------------------------------===//

// The layout of a program buffer and the reduction operator are the enums
// snac shares with coll (Common/IR/CommonEnums.td): one definition, and snac
// still never reaches back into coll.

// Which side of the size matrix m ([rank][partition] of the program's input,
// one column when the input is packed) gives a program buffer's partition
// sizes at rank r: `row`, partition j holds m[r][j] elements (what r
// contributes); `column`, partition j holds m[j][r] (what j contributes to
// r). A packed input's matrix has one column: its index is then 0.
def Snac_SizeSide : I32EnumAttr<"SizeSide", "size vector side", [
    I32EnumAttrCase<"row", 0>,
    I32EnumAttrCase<"column", 1>]> {
  let cppNamespace = "::collc::snac";
  let genSpecializedAttr = 0;
}

// The shape of a program. `one_shot`: every rank pushes its input to every
// consumer, every consumer takes (or reduces) what it received (the latency
// regime).
// one_shot: every rank pushes its input to every consumer, which reduces or
// copies all of it; two_shot: each rank reduces one partition (reduce-
// scatter), then forwards it to every rank (all-gather), each phase through
// its own receive buffer.
// multimem: the in-switch program (NVLink SHARP, sm_90 and newer): the
// user's buffers bound to multicast objects, the switch reduces and
// replicates (flash-comm's one hop); multimem_pull: every rank has the
// switch reduce the whole buffer for itself (SiFAR's redundant pull, the
// small AllReduce). Never run on this project's machines.
def Snac_Variant : I32EnumAttr<"Variant", "program variant", [
    I32EnumAttrCase<"one_shot", 0>, I32EnumAttrCase<"two_shot", 1>,
    I32EnumAttrCase<"multimem", 2>, I32EnumAttrCase<"multimem_pull", 3>]> {
  let cppNamespace = "::collc::snac";
  let genSpecializedAttr = 0;
}

#endif // COLLC_DIALECT_SNAC_IR_SNACENUMS_TD
