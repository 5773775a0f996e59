//===- SnacAttrs.td - snac attributes ----------------------*- tablegen -*-===//

#ifndef COLLC_DIALECT_SNAC_IR_SNACATTRS_TD
#define COLLC_DIALECT_SNAC_IR_SNACATTRS_TD

include "collc/Dialect/Snac/IR/SnacDialect.td"
include "collc/Dialect/Snac/IR/SnacEnums.td"
include "collc/Dialect/Common/IR/CommonEnums.td"
include "mlir/IR/AttrTypeBase.td"

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
def Snac_ReductionAttr : EnumAttr<Snac_Dialect, Common_Reduction, "reduction"> {
  // The enum is shared (CommonEnums.td); the attribute is this dialect\'s.
  let cppNamespace = "::collc::snac";
  let assemblyFormat = "`<` $value `>`";
}

def Snac_LayoutAttr : EnumAttr<Snac_Dialect, Common_Layout, "layout"> {
  // The enum is shared (CommonEnums.td); the attribute is this dialect\'s.
  let cppNamespace = "::collc::snac";
  let assemblyFormat = "`<` $value `>`";
}
def Snac_RootAttr : EnumAttr<Snac_Dialect, Common_Root, "root"> {
  // The enum is shared (CommonEnums.td); the attribute is this dialect\'s.
  let cppNamespace = "::collc::snac";
  let assemblyFormat = "`<` $value `>`";
}
def Snac_SizeSideAttr : EnumAttr<Snac_Dialect, Snac_SizeSide, "sizes"> {
  let assemblyFormat = "`<` $value `>`";
}
def Snac_VariantAttr : EnumAttr<Snac_Dialect, Snac_Variant, "variant"> {
  let assemblyFormat = "`<` $value `>`";
}

// Typed, so that a policy key nothing reads cannot exist.
def Snac_PolicyAttr : AttrDef<Snac_Dialect, "Policy"> {
  let mnemonic = "policy";
  let summary = "The policy of a program: encoding, slots, band, work split";
  let description = [{
    - `encoding`: how readiness travels with the data (flag, ll16, sentinel);
    - `slots`: receive-buffer slots, rotated by the call counter (slot =
      epoch mod slots); at least 2, which is enough (docs/snac.md, "why two
      slots are enough");
    - `band`: inclusive bounds on the bytes of this rank's input that the
      program serves; the runtime picks the first program whose band holds a
      call's input bytes. `hi` also bounds the payload of a receive region;
    - `ctas`, `threads`: the fixed grid; `grain`: payload bytes one thread
      moves per step (8 for ll16, 16 for flag and sentinel); 0 in all three
      until `snac-assign-work` decides them;
    - `pdl`: programmatic dependent launch (sm_90 and later);
    - `speculate` (printed only when true): takes and reduce_takes load every
      unit of a step and compute before validating them all in one check,
      waiting only for the units that fail (docs/snac.md, "speculative
      reduction"). Only with ll16 or sentinel, where each unit validates
      itself; a flag does not validate a payload read before it;
    - `chunk` (printed only when nonzero): payload bytes one CTA moves per
      partition per step. A chunked program runs its body once per step,
      CTA h taking chunk `s * ctas + h` of every partition in step `s`
      (chunk-major channels, each with its own sub-region of every receive
      region); the band's `hi` then bounds nothing, the regions hold one
      step (docs/snac.md, "Chunked programs"). A multiple of 16;
    - `agree` (printed only when true): a chunked flag program whose ranks
      cannot count the call's steps from their own size vector (a
      transposing `_v` copy: a rank sees only its row and column of the
      size matrix) agrees on them on the device first: every CTA sends
      every peer the steps its rank counts and runs the most of all (docs/snac.md, "Agreed steps"). Without it two ranks could count
      different steps and wait for each other's missing ones.
    - `pairs` (printed only when true): the other answer to the same
      question, without a round trip: every pair of ranks runs its own
      steps, those of the larger of its two counts (each rank of a pair
      knows both: one in its row, the other in its column), with its own
      epochs (a per-peer counter per CTA), so no rank needs another's sizes
      (docs/snac.md, "Pair steps"). Only for bodies of per-peer ops
      (`snac.put_each`, `snac.take_each`, `snac.retire`); not with `agree`.
    - `pair_ll16` (bytes, printed only when not 0; needs `pairs`): a pair
      whose larger count is at most this many bytes exchanges its parts in
      one step as LL16 packets (the data carries its readiness: no fence,
      no ready word) in an area of the receive buffer of its own, after
      the regions (docs/snac.md, "Small pairs by LL16"); the larger pairs
      take the chunked flag steps. A staged program's only (the zero-copy
      twin's regions hold words).

    ```mlir
    #snac.policy<encoding = ll16, slots = 2, band = [0, 65536], ctas = 16,
                 threads = 512, grain = 8, pdl = true>
    ```
  }];
  let parameters = (ins EnumParameter<Snac_Encoding>:$encoding,
                        "int64_t":$slots,
                        "int64_t":$band_lo,
                        "int64_t":$band_hi,
                        "int64_t":$ctas,
                        "int64_t":$threads,
                        "int64_t":$grain,
                        "bool":$pdl,
                        DefaultValuedParameter<"bool", "false">:$speculate,
                        DefaultValuedParameter<"int64_t", "0">:$chunk,
                        DefaultValuedParameter<"bool", "false">:$agree,
                        DefaultValuedParameter<"bool", "false">:$pairs,
                        DefaultValuedParameter<"int64_t", "0">:$pair_ll16);
  let assemblyFormat = [{
    `<` `encoding` `=` $encoding `,` `slots` `=` $slots `,`
    `band` `=` `[` $band_lo `,` $band_hi `]` `,` `ctas` `=` $ctas `,`
    `threads` `=` $threads `,` `grain` `=` $grain `,`
    custom<PolicyTail>($pdl, $speculate, $chunk, $agree, $pairs, $pair_ll16) `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// True once `snac-assign-work` has decided the grid and the grain.
    bool isWorkAssigned() const {
      return getCtas() > 0 && getThreads() > 0 && getGrain() > 0;
    }
    /// True when the body runs once per step on chunks (policy `chunk`).
    bool isChunked() const { return getChunk() > 0; }
  }];
}

#endif // COLLC_DIALECT_SNAC_IR_SNACATTRS_TD
