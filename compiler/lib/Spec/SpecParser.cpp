//===- SpecParser.cpp - the .coll spec language -----------------*- C++ -*-===//
//
// A hand-written lexer and recursive-descent parser: the language is a handful
// of line-oriented statements, and a table-driven parser would hide the
// diagnostics, which are the point. Names are resolved after the whole file is
// read, so a composition may refer to a collective declared further down, and
// cycles are reported rather than assumed away.
//
//===----------------------------------------------------------------------===//

#include "collc/Spec/SpecParser.h"

#include "collc/Dialect/Coll/IR/CollDialect.h"
#include "collc/Dialect/Coll/IR/CollOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace collc;
using namespace collc::coll;

namespace {

//===----------------------------------------------------------------------===//
// Lexer
//===----------------------------------------------------------------------===//

struct Token {
  enum Kind {
    Eof,
    Newline,
    Identifier,
    Integer,
    Equal,
    Comma,
    LParen,
    RParen,
    Less,
    Greater,
    Arrow,
    Error,
  };
  Kind kind = Eof;
  StringRef text;
  int64_t value = 0; // For integers.
  /// An integer whose value does not fit in 64 bits (`value` is saturated).
  bool outOfRange = false;
  /// An Error token that looks like a size with a decimal or misspelled
  /// unit (64KB): `suggestion` is the binary spelling (64KiB).
  std::string suggestion;

  bool is(Kind k) const { return kind == k; }
  bool isKeyword(StringRef kw) const {
    return kind == Identifier && text == kw;
  }
};

/// The first character of `text` for a message: printable ASCII as itself,
/// anything else (invisible, control, non-ASCII) as U+XXXX with a name where
/// one helps, so a no-break space or a byte order mark can be seen.
static std::string escapeCharacter(StringRef text) {
  unsigned char first = text.empty() ? 0 : text.front();
  if (first > 0x20 && first < 0x7F)
    return ("'" + text.take_front(1) + "'").str();
  llvm::UTF32 cp = first;
  if (first >= 0x80) {
    const auto *src = reinterpret_cast<const llvm::UTF8 *>(text.begin());
    const auto *end = reinterpret_cast<const llvm::UTF8 *>(text.end());
    if (llvm::convertUTF8Sequence(&src, end, &cp, llvm::strictConversion) !=
        llvm::conversionOK)
      cp = first;
  }
  std::string s = "U+" + llvm::utohexstr(cp, false, 4);
  StringRef name = llvm::StringSwitch<StringRef>(s)
                       .Case("U+000B", "vertical tab")
                       .Case("U+000C", "form feed")
                       .Case("U+00A0", "no-break space")
                       .Case("U+00AD", "soft hyphen")
                       .Case("U+200B", "zero-width space")
                       .Case("U+200C", "zero-width non-joiner")
                       .Case("U+200D", "zero-width joiner")
                       .Case("U+2060", "word joiner")
                       .Case("U+202F", "narrow no-break space")
                       .Case("U+3000", "ideographic space")
                       .Case("U+FEFF", "byte order mark")
                       .Case("U+2192", "rightwards arrow")
                       .Case("U+2212", "minus sign")
                       .Default("");
  if (!name.empty())
    s += (" (" + name + ")").str();
  return s;
}

static std::string describe(const Token &tok) {
  switch (tok.kind) {
  case Token::Eof:
    return "'end of file'";
  case Token::Newline:
    return "'end of line'";
  case Token::Error:
    if (llvm::all_of(tok.text, [](char c) { return c > 0x20 && c < 0x7F; }))
      return ("'" + tok.text + "'").str();
    return escapeCharacter(tok.text);
  default:
    return ("'" + tok.text + "'").str();
  }
}

class Lexer {
public:
  Lexer(StringRef buffer) : buffer(buffer), cur(buffer.begin()) {}

  /// The token after the current one, without consuming it.
  Token peek() const { return Lexer(*this).next(); }

  Token next() {
    // Skip blanks and comments; a comment runs to the end of the line.
    while (cur < buffer.end()) {
      if (*cur == ' ' || *cur == '\t' || *cur == '\r') {
        ++cur;
      } else if (*cur == '#') {
        while (cur < buffer.end() && *cur != '\n')
          ++cur;
      } else {
        break;
      }
    }
    const char *start = cur;
    if (cur == buffer.end())
      return make(Token::Eof, start);
    char c = *cur++;
    if (c == '\n')
      return make(Token::Newline, start);
    if (isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (cur < buffer.end() &&
             (isalnum(static_cast<unsigned char>(*cur)) || *cur == '_'))
        ++cur;
      return make(Token::Identifier, start);
    }
    if (isdigit(static_cast<unsigned char>(c)))
      return lexInteger(start);
    // A negative number is lexed as one so a range check can report it.
    if (c == '-' && cur < buffer.end() &&
        isdigit(static_cast<unsigned char>(*cur)))
      return lexInteger(start);
    switch (c) {
    case '=':
      return make(Token::Equal, start);
    case ',':
      return make(Token::Comma, start);
    case '(':
      return make(Token::LParen, start);
    case ')':
      return make(Token::RParen, start);
    case '<':
      return make(Token::Less, start);
    case '>':
      return make(Token::Greater, start);
    case '-':
      if (cur < buffer.end() && *cur == '>') {
        ++cur;
        return make(Token::Arrow, start);
      }
      break;
    default:
      break;
    }
    // Consume a whole UTF-8 sequence so the message shows the character.
    while (cur < buffer.end() && (static_cast<unsigned char>(*cur) & 0xC0) == 0x80)
      ++cur;
    return make(Token::Error, start);
  }

private:
  Token make(Token::Kind kind, const char *start) {
    Token tok;
    tok.kind = kind;
    tok.text = StringRef(start, cur - start);
    return tok;
  }

  /// Integers may carry a binary size suffix: 64KiB, 1MiB, 2GiB. A value
  /// too large for 64 bits is still an integer (out of range, reported by
  /// the parser with the range it needed); a decimal or lower-case unit is
  /// an error that suggests the binary one.
  Token lexInteger(const char *start) {
    while (cur < buffer.end() && isalnum(static_cast<unsigned char>(*cur)))
      ++cur;
    Token tok = make(Token::Integer, start);
    bool negative = tok.text.starts_with("-");
    StringRef number = tok.text.drop_front(negative ? 1 : 0);
    StringRef digits = number.take_while(
        [](char ch) { return isdigit(static_cast<unsigned char>(ch)); });
    StringRef suffix = number.drop_front(digits.size());
    unsigned shift = llvm::StringSwitch<unsigned>(suffix)
                         .Case("", 0)
                         .Case("KiB", 10)
                         .Case("MiB", 20)
                         .Case("GiB", 30)
                         .Default(~0u);
    if (shift == ~0u) {
      StringRef unit = llvm::StringSwitch<StringRef>(suffix.lower())
                           .Cases({"k", "kb", "kib"}, "KiB")
                           .Cases({"m", "mb", "mib"}, "MiB")
                           .Cases({"g", "gb", "gib"}, "GiB")
                           .Default("");
      if (!unit.empty())
        tok.suggestion = (tok.text.drop_back(suffix.size()) + unit).str();
      tok.kind = Token::Error;
      return tok;
    }
    // Digits alone: too long for 64 bits is out of range, not malformed.
    uint64_t v;
    if (digits.getAsInteger(10, v) || v > (uint64_t(INT64_MAX) >> shift)) {
      tok.outOfRange = true;
      tok.value = negative ? INT64_MIN : INT64_MAX;
      return tok;
    }
    tok.value = static_cast<int64_t>(v << shift);
    if (negative)
      tok.value = -tok.value;
    return tok;
  }

  StringRef buffer;
  const char *cur;
};

//===----------------------------------------------------------------------===//
// Parsed form, before name resolution
//===----------------------------------------------------------------------===//

struct TransformSpec {
  ConsumeOp consume;
  std::optional<Reduction> reduction;
  Layout input, output;
  std::optional<Root> root;
};

/// One operand of a collective's expression: an inline transform or a name.
struct Term {
  Location loc;
  std::optional<TransformSpec> transform;
  StringRef name; // Set when the term refers to another collective.
};

struct CollectiveDecl {
  StringRef name;
  Location loc;
  SmallVector<Term, 2> terms;
  std::optional<SmallVector<Attribute>> types;
  std::optional<SmallVector<int64_t>> worldSizes;
  std::optional<NamedAttrList> policy;
};

/// A fully resolved transform, with the collective it came from (if named).
struct ResolvedTransform {
  TransformSpec spec;
  Location loc;
  StringRef origin;
};

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

class SpecParser {
public:
  /// Errors reported before giving up: all of a file's mistakes, not a flood.
  static constexpr unsigned kMaxErrors = 20;

  SpecParser(llvm::SourceMgr &sourceMgr, MLIRContext *ctx)
      : sourceMgr(sourceMgr), ctx(ctx),
        buffer(sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())),
        lexer(buffer->getBuffer()) {}

  OwningOpRef<ModuleOp> parse();

private:
  // Locations and diagnostics.
  Location locOf(const char *ptr);
  Location locOf(const Token &tok) { return locOf(tok.text.data()); }
  /// An error at `tok`. A token the lexer already knows is wrong (a size
  /// with a decimal unit, an invisible or non-ASCII character) gets the
  /// lexer's message instead of the caller's, which is then dropped: "got
  /// U+00A0" says less than why.
  InFlightDiagnostic error(const Token &tok) {
    ++numErrors;
    if (tok.is(Token::Error)) {
      if (!tok.suggestion.empty()) {
        emitError(locOf(tok)) << "'" << tok.text << "' is not a size; write "
                              << tok.suggestion
                              << " (sizes take the binary units KiB, MiB, "
                                 "GiB)";
        return InFlightDiagnostic();
      }
      unsigned char c = tok.text.front();
      if (c <= 0x20 || c >= 0x7F) {
        std::string shown = escapeCharacter(tok.text);
        StringRef hint = "outside comments a spec is ASCII, with spaces and "
                         "tabs between words";
        if (StringRef(shown).starts_with("U+2192"))
          hint = "write the arrow as '->'";
        else if (StringRef(shown).ends_with("space)"))
          hint = "retype it as a plain space";
        emitError(locOf(tok))
            << "unexpected character " << shown << "; " << hint;
        return InFlightDiagnostic();
      }
    }
    return emitError(locOf(tok));
  }
  /// An error found after parsing (name resolution), counted like the others.
  InFlightDiagnostic error(Location loc) {
    ++numErrors;
    return emitError(loc);
  }

  void consume() { tok = lexer.next(); }
  /// Skips to the start of the next line after an error.
  void recover() {
    while (!tok.is(Token::Newline) && !tok.is(Token::Eof))
      consume();
  }
  LogicalResult expect(Token::Kind kind, StringRef what);
  LogicalResult expectEndOfLine(StringRef after);

  bool checkEncoding();
  LogicalResult parseStatement();
  LogicalResult parseTargets();
  LogicalResult parseTypeList(SmallVector<Attribute> &types);
  LogicalResult parseRankList(SmallVector<int64_t> &ranks);
  LogicalResult parsePolicyList(NamedAttrList &policy);
  LogicalResult parseCollective();
  LogicalResult parseTerm(Term &term);
  LogicalResult parseTransform(TransformSpec &spec);
  LogicalResult parseLayout(Layout &layout);

  LogicalResult resolve(StringRef rootName,
                        SmallVectorImpl<ResolvedTransform> &out);
  OwningOpRef<ModuleOp> build();

  llvm::SourceMgr &sourceMgr;
  MLIRContext *ctx;
  const llvm::MemoryBuffer *buffer;
  Lexer lexer;
  Token tok;
  unsigned numErrors = 0;

  // File-level defaults, each with the token that set it (for duplicates).
  std::optional<SmallVector<StringRef>> targets;
  std::optional<SmallVector<Attribute>> fileTypes;
  std::optional<SmallVector<int64_t>> fileWorldSizes;
  std::optional<NamedAttrList> filePolicy;
  llvm::StringMap<Location> fileStatements;

  std::vector<CollectiveDecl> decls;
  llvm::StringMap<size_t> declIndex;
  llvm::StringMap<SmallVector<ResolvedTransform, 2>> resolved;
  llvm::StringSet<> failedNames;
};

} // namespace

Location SpecParser::locOf(const char *ptr) {
  auto [line, col] = sourceMgr.getLineAndColumn(llvm::SMLoc::getFromPointer(ptr));
  return FileLineColLoc::get(ctx, buffer->getBufferIdentifier(), line, col);
}

LogicalResult SpecParser::expect(Token::Kind kind, StringRef what) {
  if (tok.is(kind)) {
    consume();
    return success();
  }
  error(tok) << "expected " << what << ", got " << describe(tok);
  return failure();
}

LogicalResult SpecParser::expectEndOfLine(StringRef after) {
  if (tok.is(Token::Newline) || tok.is(Token::Eof))
    return success();
  error(tok) << "unexpected " << describe(tok) << " after " << after
             << "; expected end of line";
  return failure();
}

/// A spec is UTF-8 text. Rejecting binary input up front gives one clear
/// error instead of a cascade (and keeps raw bytes out of diagnostics).
bool SpecParser::checkEncoding() {
  StringRef text = buffer->getBuffer();
  size_t nul = text.find('\0');
  const auto *begin = reinterpret_cast<const llvm::UTF8 *>(text.begin());
  const auto *end = reinterpret_cast<const llvm::UTF8 *>(text.end());
  const llvm::UTF8 *bad = begin;
  bool legal = llvm::isLegalUTF8String(&bad, end);
  const char *offending = nullptr;
  if (nul != StringRef::npos)
    offending = text.begin() + nul;
  if (!legal && (!offending ||
                 reinterpret_cast<const char *>(bad) < offending))
    offending = reinterpret_cast<const char *>(bad);
  if (!offending)
    return true;
  ++numErrors;
  emitError(locOf(offending))
      << "spec is not UTF-8 text: byte 0x"
      << llvm::utohexstr(static_cast<unsigned char>(*offending), false, 2)
      << " at offset " << (offending - text.begin());
  return false;
}

OwningOpRef<ModuleOp> SpecParser::parse() {
  if (!checkEncoding())
    return nullptr;
  consume();
  while (!tok.is(Token::Eof)) {
    if (tok.is(Token::Newline)) {
      consume();
      continue;
    }
    if (failed(parseStatement())) {
      // Report every bad line, but do not bury the first error.
      if (numErrors >= kMaxErrors) {
        emitError(locOf(tok)) << "too many errors, stopping";
        return nullptr;
      }
      recover();
    }
  }
  if (numErrors)
    return nullptr;
  if (decls.empty()) {
    emitError(locOf(buffer->getBufferStart()))
        << (buffer->getBufferSize() == 0 ? "spec file is empty"
                                         : "spec declares no collective")
        << "; expected at least one 'collective NAME = ...' line";
    return nullptr;
  }
  return build();
}

LogicalResult SpecParser::parseStatement() {
  if (!tok.is(Token::Identifier)) {
    if (tok.is(Token::Error))
      error(tok) << "unexpected character " << describe(tok);
    else
      error(tok) << "expected a statement (collective, target, types, ranks "
                    "or policy), got "
                 << describe(tok);
    return failure();
  }
  StringRef keyword = tok.text;
  if (keyword == "collective")
    return parseCollective();
  if (keyword != "target" && keyword != "types" && keyword != "ranks" &&
      keyword != "policy") {
    error(tok) << "unknown statement '" << keyword
               << "'; expected collective, target, types, ranks or policy";
    return failure();
  }
  // File-level defaults: each may be set once.
  Location here = locOf(tok);
  auto [it, inserted] = fileStatements.try_emplace(keyword, here);
  if (!inserted) {
    auto diag = error(tok) << "'" << keyword << "' is already set for this file";
    diag.attachNote(it->second) << "previous '" << keyword << "' is here";
    return failure();
  }
  consume();
  if (keyword == "target")
    return parseTargets();
  if (keyword == "types") {
    fileTypes.emplace();
    if (failed(parseTypeList(*fileTypes)))
      return failure();
  } else if (keyword == "ranks") {
    fileWorldSizes.emplace();
    if (failed(parseRankList(*fileWorldSizes)))
      return failure();
  } else {
    filePolicy.emplace();
    if (failed(parsePolicyList(*filePolicy)))
      return failure();
  }
  return expectEndOfLine(("'" + keyword + "' list").str());
}

LogicalResult SpecParser::parseTargets() {
  targets.emplace();
  llvm::StringMap<bool> seen;
  do {
    if (!tok.is(Token::Identifier)) {
      error(tok) << "expected a target such as sm_90, got " << describe(tok);
      return failure();
    }
    if (!isSupportedTarget(tok.text)) {
      error(tok) << "unknown target '" << tok.text
                 << "'; supported targets: " << supportedTargetsText();
      return failure();
    }
    if (!seen.insert({tok.text, true}).second) {
      error(tok) << "target '" << tok.text << "' is listed twice";
      return failure();
    }
    targets->push_back(tok.text);
    consume();
  } while (tok.is(Token::Comma) && (consume(), true));
  return expectEndOfLine("'target' list");
}

LogicalResult SpecParser::parseTypeList(SmallVector<Attribute> &types) {
  do {
    if (!tok.is(Token::Identifier)) {
      error(tok) << "expected an element type (" << supportedElementTypesText()
                 << "), got " << describe(tok);
      return failure();
    }
    Type type = parseElementTypeSpelling(ctx, tok.text);
    if (!type) {
      error(tok) << "unknown element type '" << tok.text
                 << "'; supported: " << supportedElementTypesText();
      return failure();
    }
    TypeAttr attr = TypeAttr::get(type);
    if (llvm::is_contained(types, attr)) {
      error(tok) << "element type '" << tok.text << "' is listed twice";
      return failure();
    }
    types.push_back(attr);
    consume();
  } while (tok.is(Token::Comma) && (consume(), true));
  return success();
}

LogicalResult SpecParser::parseRankList(SmallVector<int64_t> &ranks) {
  do {
    if (!tok.is(Token::Integer)) {
      error(tok) << "expected a world size (an integer), got "
                 << describe(tok);
      return failure();
    }
    if (tok.outOfRange || tok.value < 1 || tok.value > kMaxWorldSize) {
      error(tok) << "world size " << tok.text << " is out of range; it must "
                 << "be in [1, " << kMaxWorldSize << "]";
      return failure();
    }
    if (llvm::is_contained(ranks, tok.value)) {
      error(tok) << "world size " << tok.value << " is listed twice";
      return failure();
    }
    ranks.push_back(tok.value);
    consume();
  } while (tok.is(Token::Comma) && (consume(), true));
  return success();
}

LogicalResult SpecParser::parsePolicyList(NamedAttrList &policy) {
  do {
    if (!tok.is(Token::Identifier)) {
      error(tok) << "expected a policy key, got " << describe(tok);
      return failure();
    }
    Token key = tok;
    consume();
    if (failed(expect(Token::Equal, "'=' after policy key")))
      return failure();
    Attribute value;
    if (tok.is(Token::Integer))
      value = IntegerAttr::get(IntegerType::get(ctx, 64), tok.value);
    else if (tok.is(Token::Identifier))
      value = StringAttr::get(ctx, tok.text);
    else {
      error(tok) << "expected a policy value (an integer or a name), got "
                 << describe(tok);
      return failure();
    }
    if (auto problem = checkPolicyEntry(key.text, value,
                                        tok.outOfRange ? tok.text : "")) {
      // Point at the key for unknown keys, at the value for bad values.
      error(isKnownPolicyKey(key.text) ? tok : key) << *problem;
      return failure();
    }
    if (policy.get(key.text)) {
      error(key) << "policy '" << key.text << "' is set twice";
      return failure();
    }
    policy.append(key.text, value);
    consume();
  } while (tok.is(Token::Comma) && (consume(), true));
  return success();
}

/// Words that would make a collective's line ambiguous if they named a
/// collective. `copy` and `reduce` are not among them: a transform is told
/// from a reference by the `(` or `<` that follows, so `reduce` can name the
/// Reduce collective.
static bool isReservedWord(StringRef word) {
  return llvm::is_contained({"then", "root", "types", "ranks", "policy"},
                            word);
}

LogicalResult SpecParser::parseCollective() {
  consume(); // 'collective'
  if (!tok.is(Token::Identifier)) {
    error(tok) << "expected a collective name after 'collective', got "
               << describe(tok);
    return failure();
  }
  if (isReservedWord(tok.text)) {
    error(tok) << "'" << tok.text
               << "' is a keyword and cannot name a collective";
    return failure();
  }
  CollectiveDecl decl{tok.text, locOf(tok), {}, {}, {}, {}};
  Token nameTok = tok;
  consume();
  if (failed(expect(Token::Equal, "'=' after the collective name")))
    return failure();

  decl.terms.push_back(Term{locOf(tok), {}, {}});
  if (failed(parseTerm(decl.terms.back())))
    return failure();
  while (tok.isKeyword("then")) {
    consume();
    decl.terms.push_back(Term{locOf(tok), {}, {}});
    if (failed(parseTerm(decl.terms.back())))
      return failure();
  }

  // Per-collective clauses override the file defaults.
  while (tok.is(Token::Identifier)) {
    Token clause = tok;
    if (clause.text == "types" && !decl.types) {
      consume();
      decl.types.emplace();
      if (failed(parseTypeList(*decl.types)))
        return failure();
    } else if (clause.text == "ranks" && !decl.worldSizes) {
      consume();
      decl.worldSizes.emplace();
      if (failed(parseRankList(*decl.worldSizes)))
        return failure();
    } else if (clause.text == "policy" && !decl.policy) {
      consume();
      decl.policy.emplace();
      if (failed(parsePolicyList(*decl.policy)))
        return failure();
    } else if (clause.text == "types" || clause.text == "ranks" ||
               clause.text == "policy") {
      error(clause) << "'" << clause.text << "' is given twice for collective '"
                    << decl.name << "'";
      return failure();
    } else if (clause.text == "root") {
      error(clause) << "'root' must follow a transform, as in "
                       "copy(scattered -> packed) root producer";
      return failure();
    } else {
      error(clause) << "unexpected '" << clause.text
                    << "'; expected 'then', 'types', 'ranks', 'policy' or "
                       "end of line";
      return failure();
    }
  }
  if (failed(expectEndOfLine("the collective's definition")))
    return failure();

  auto [it, inserted] = declIndex.try_emplace(decl.name, decls.size());
  if (!inserted) {
    auto diag = error(nameTok)
                << "collective '" << decl.name << "' is already defined";
    diag.attachNote(decls[it->second].loc) << "previous definition is here";
    return failure();
  }
  decls.push_back(std::move(decl));
  return success();
}

LogicalResult SpecParser::parseTerm(Term &term) {
  if (!tok.is(Token::Identifier)) {
    error(tok) << "expected a transform such as copy(packed -> scattered) or "
                  "a collective name, got "
               << describe(tok);
    return failure();
  }
  Token after = lexer.peek();
  if ((tok.text == "copy" || tok.text == "reduce") &&
      (after.is(Token::LParen) || after.is(Token::Less))) {
    term.transform.emplace();
    return parseTransform(*term.transform);
  }
  Token name = tok;
  consume();
  if (tok.is(Token::LParen) || tok.is(Token::Less)) {
    error(name) << "unknown consume operation '" << name.text
                << "'; expected copy or reduce<sum|max|min|avg>";
    return failure();
  }
  if (isReservedWord(name.text)) {
    error(name) << "expected a transform or a collective name, got keyword '"
                << name.text << "'";
    return failure();
  }
  term.name = name.text;
  return success();
}

LogicalResult SpecParser::parseTransform(TransformSpec &spec) {
  spec.consume = tok.text == "copy" ? ConsumeOp::copy : ConsumeOp::reduce;
  consume();
  if (tok.is(Token::Less)) {
    consume();
    if (!tok.is(Token::Identifier)) {
      error(tok) << "expected a reduction operator (sum, max, min, avg), got "
                 << describe(tok);
      return failure();
    }
    std::optional<Reduction> red = symbolizeReduction(tok.text);
    if (!red) {
      error(tok) << "unknown reduction operator '" << tok.text
                 << "'; expected sum, max, min or avg";
      return failure();
    }
    // `copy<sum>` is caught by the transform verifier, with the others.
    spec.reduction = red;
    consume();
    if (failed(expect(Token::Greater, "'>' after the reduction operator")))
      return failure();
  }
  if (failed(expect(Token::LParen, "'(' before the layouts")) ||
      failed(parseLayout(spec.input)) ||
      failed(expect(Token::Arrow, "'->' between input and output layouts")) ||
      failed(parseLayout(spec.output)) ||
      failed(expect(Token::RParen, "')' after the layouts")))
    return failure();
  if (tok.isKeyword("root")) {
    consume();
    std::optional<Root> root =
        tok.is(Token::Identifier) ? symbolizeRoot(tok.text) : std::nullopt;
    if (!root || *root == Root::none) {
      error(tok) << "expected a root role (producer or consumer), got "
                 << describe(tok);
      return failure();
    }
    spec.root = root;
    consume();
    if (tok.isKeyword("root")) {
      error(tok) << "'root' is given twice; a transform has one root role";
      return failure();
    }
  }
  return success();
}

LogicalResult SpecParser::parseLayout(Layout &layout) {
  std::optional<Layout> parsed =
      tok.is(Token::Identifier) ? symbolizeLayout(tok.text) : std::nullopt;
  if (!parsed) {
    if (tok.is(Token::Identifier))
      error(tok) << "unknown layout '" << tok.text
                 << "'; expected packed, scattered, transposed, packed_v, "
                    "scattered_v or transposed_v";
    else
      error(tok) << "expected a layout, got " << describe(tok);
    return failure();
  }
  layout = *parsed;
  consume();
  return success();
}

/// Appends the transforms of a referenced collective to `into`. They take
/// the reference's location, so composition errors point at the line that
/// composes them, and remember the collective that wrote them inline.
static void appendReferenced(ArrayRef<ResolvedTransform> sub, const Term &term,
                             SmallVectorImpl<ResolvedTransform> &into) {
  for (ResolvedTransform t : sub) {
    t.loc = term.loc;
    if (t.origin.empty())
      t.origin = term.name;
    into.push_back(t);
  }
}

/// "a -> b -> c -> a", with the middle of a long cycle elided.
static std::string cyclePath(ArrayRef<StringRef> names) {
  constexpr size_t kEnds = 4;
  std::string path;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names.size() > 3 * kEnds && i == kEnds) {
      path += "... (" + std::to_string(names.size() - 2 * kEnds) +
              " more) -> ";
      i = names.size() - kEnds - 1;
      continue;
    }
    path += (names[i] + (i + 1 < names.size() ? " -> " : "")).str();
  }
  return path;
}

/// Flattens collective `rootName` to its transforms. The walk keeps its own
/// stack: a chain of aliases is as deep as the file is long, and recursion
/// on it overflowed the native stack (a spec must never crash collc).
LogicalResult SpecParser::resolve(StringRef rootName,
                                  SmallVectorImpl<ResolvedTransform> &out) {
  auto done = resolved.find(rootName);
  if (done != resolved.end()) {
    out.append(done->second.begin(), done->second.end());
    return success();
  }
  // Already reported: one error per mistake, not one per reference.
  if (failedNames.contains(rootName))
    return failure();

  struct Frame {
    const CollectiveDecl *decl;
    size_t next = 0; // The next term to resolve.
    SmallVector<ResolvedTransform, 2> mine;
  };
  SmallVector<Frame> stack;
  llvm::StringMap<size_t> depthOf; // The names on the stack.
  auto push = [&](StringRef name) {
    depthOf[name] = stack.size();
    stack.push_back(Frame{&decls[declIndex.lookup(name)], 0, {}});
  };
  // Every collective being resolved depends on the one that failed.
  auto fail = [&] {
    for (const Frame &f : stack)
      failedNames.insert(f.decl->name);
    return failure();
  };

  push(rootName);
  while (true) {
    Frame &frame = stack.back();
    const CollectiveDecl &decl = *frame.decl;
    if (frame.next == decl.terms.size()) {
      if (frame.mine.size() > 2) {
        error(decl.terms.back().loc)
            << "collective '" << decl.name << "' composes "
            << frame.mine.size()
            << " transforms; a collective is one transform or a composition "
               "of two";
        return fail();
      }
      SmallVector<ResolvedTransform, 2> mine = std::move(frame.mine);
      resolved[decl.name] = mine;
      depthOf.erase(decl.name);
      stack.pop_back();
      if (stack.empty()) {
        out.append(mine.begin(), mine.end());
        return success();
      }
      Frame &parent = stack.back();
      appendReferenced(mine, parent.decl->terms[parent.next - 1],
                       parent.mine);
      continue;
    }

    const Term &term = decl.terms[frame.next++];
    if (term.transform) {
      frame.mine.push_back({*term.transform, term.loc, StringRef()});
      continue;
    }
    auto known = resolved.find(term.name);
    if (known != resolved.end()) {
      appendReferenced(known->second, term, frame.mine);
      continue;
    }
    if (failedNames.contains(term.name))
      return fail();
    if (!declIndex.count(term.name)) {
      auto diag = error(term.loc)
                  << "undefined collective '" << term.name << "'";
      // Suggest a near miss: typos in names are the common case. Long names
      // are skipped: the edit distance is quadratic in their length.
      StringRef best;
      unsigned bestDistance = 3;
      if (term.name.size() <= 64)
        for (const CollectiveDecl &d : decls) {
          if (d.name.size() > 64)
            continue;
          unsigned dist = term.name.edit_distance(d.name, true, bestDistance);
          if (dist < bestDistance)
            bestDistance = dist, best = d.name;
        }
      if (!best.empty())
        diag << "; did you mean '" << best << "'?";
      return fail();
    }
    auto onStack = depthOf.find(term.name);
    if (onStack != depthOf.end()) {
      SmallVector<StringRef> path;
      for (size_t i = onStack->second; i < stack.size(); ++i)
        path.push_back(stack[i].decl->name);
      path.push_back(term.name);
      error(term.loc) << "collective '" << decl.name
                      << "' is defined in terms of itself: "
                      << cyclePath(path);
      return fail();
    }
    push(term.name); // `frame` and `decl` are not used past this point.
  }
}

OwningOpRef<ModuleOp> SpecParser::build() {
  Location fileLoc = locOf(buffer->getBufferStart());
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  OpBuilder builder(ctx);
  ModuleOp m = *module;

  SmallVector<Attribute> targetAttrs;
  if (targets)
    for (StringRef t : *targets)
      targetAttrs.push_back(builder.getStringAttr(t));
  else
    for (const char *t : spec::kDefaultTargets)
      targetAttrs.push_back(builder.getStringAttr(t));
  m->setAttr(CollDialect::kTargetsAttrName, builder.getArrayAttr(targetAttrs));
  m->setAttr(CollDialect::kSourceAttrName,
             builder.getStringAttr(buffer->getBufferIdentifier()));
  if (filePolicy)
    m->setAttr(CollDialect::kPolicyAttrName,
               filePolicy->getDictionary(ctx));

  SmallVector<Attribute> defaultTypes;
  if (fileTypes)
    defaultTypes = *fileTypes;
  else
    for (const char *t : spec::kDefaultTypes)
      defaultTypes.push_back(TypeAttr::get(parseElementTypeSpelling(ctx, t)));
  SmallVector<int64_t> defaultSizes =
      fileWorldSizes ? *fileWorldSizes
                     : SmallVector<int64_t>(std::begin(spec::kDefaultWorldSizes),
                                            std::end(spec::kDefaultWorldSizes));

  builder.setInsertionPointToEnd(m.getBody());
  bool ok = true;
  for (const CollectiveDecl &decl : decls) {
    SmallVector<ResolvedTransform, 2> transforms;
    if (failed(resolve(decl.name, transforms))) {
      ok = false;
      if (numErrors >= kMaxErrors) {
        emitError(decl.loc) << "too many errors, stopping";
        return nullptr;
      }
      continue;
    }
    ArrayRef<Attribute> types = decl.types ? *decl.types : defaultTypes;
    ArrayRef<int64_t> sizes = decl.worldSizes ? *decl.worldSizes : defaultSizes;
    DictionaryAttr policy =
        decl.policy ? decl.policy->getDictionary(ctx) : DictionaryAttr();
    auto op = CollectiveOp::create(builder, decl.loc, decl.name,
                                   builder.getArrayAttr(types),
                                   builder.getDenseI64ArrayAttr(sizes), policy);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&op.getBody().emplaceBlock());
    for (const ResolvedTransform &t : transforms) {
      auto reduction = t.spec.reduction
                           ? ReductionAttr::get(ctx, *t.spec.reduction)
                           : ReductionAttr();
      auto root = t.spec.root ? RootAttr::get(ctx, *t.spec.root) : RootAttr();
      auto origin = t.origin.empty()
                        ? FlatSymbolRefAttr()
                        : FlatSymbolRefAttr::get(ctx, t.origin);
      TransformOp::create(builder, t.loc,
                          ConsumeOpAttr::get(ctx, t.spec.consume), reduction,
                          LayoutAttr::get(ctx, t.spec.input),
                          LayoutAttr::get(ctx, t.spec.output), root, origin);
    }
  }
  if (!ok || failed(verify(m)))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp> spec::parseSpec(llvm::SourceMgr &sourceMgr,
                                      MLIRContext *context) {
  context->loadDialect<CollDialect>();
  return SpecParser(sourceMgr, context).parse();
}
