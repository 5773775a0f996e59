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

  bool is(Kind k) const { return kind == k; }
  bool isKeyword(StringRef kw) const {
    return kind == Identifier && text == kw;
  }
};

static StringRef describe(const Token &tok) {
  switch (tok.kind) {
  case Token::Eof:
    return "end of file";
  case Token::Newline:
    return "end of line";
  default:
    return tok.text;
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

  /// Integers may carry a binary size suffix: 64KiB, 1MiB, 2GiB.
  Token lexInteger(const char *start) {
    while (cur < buffer.end() && isalnum(static_cast<unsigned char>(*cur)))
      ++cur;
    Token tok = make(Token::Integer, start);
    StringRef digits = tok.text.take_while(
        [](char ch) { return isdigit(static_cast<unsigned char>(ch)); });
    StringRef suffix = tok.text.drop_front(digits.size());
    unsigned shift = llvm::StringSwitch<unsigned>(suffix)
                         .Case("", 0)
                         .Case("KiB", 10)
                         .Case("MiB", 20)
                         .Case("GiB", 30)
                         .Default(~0u);
    uint64_t v;
    if (shift == ~0u || digits.getAsInteger(10, v) || v > (uint64_t(INT64_MAX) >> shift)) {
      tok.kind = Token::Error;
      return tok;
    }
    tok.value = static_cast<int64_t>(v << shift);
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
  SpecParser(llvm::SourceMgr &sourceMgr, MLIRContext *ctx)
      : sourceMgr(sourceMgr), ctx(ctx),
        buffer(sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())),
        lexer(buffer->getBuffer()) {}

  OwningOpRef<ModuleOp> parse();

private:
  // Locations and diagnostics.
  Location locOf(const char *ptr);
  Location locOf(const Token &tok) { return locOf(tok.text.data()); }
  InFlightDiagnostic error(const Token &tok) {
    ++numErrors;
    return emitError(locOf(tok));
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

  LogicalResult resolve(StringRef name, SmallVectorImpl<StringRef> &stack,
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
  error(tok) << "expected " << what << ", got '" << describe(tok) << "'";
  return failure();
}

LogicalResult SpecParser::expectEndOfLine(StringRef after) {
  if (tok.is(Token::Newline) || tok.is(Token::Eof))
    return success();
  error(tok) << "unexpected '" << describe(tok) << "' after " << after
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
      if (numErrors >= 20) {
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
      error(tok) << "unexpected character '" << tok.text << "'";
    else
      error(tok) << "expected a statement (collective, target, types, ranks "
                    "or policy), got '"
                 << describe(tok) << "'";
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
      error(tok) << "expected a target such as sm_90, got '" << describe(tok)
                 << "'";
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
                 << "), got '" << describe(tok) << "'";
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
      error(tok) << "expected a world size (an integer), got '"
                 << describe(tok) << "'";
      return failure();
    }
    if (tok.value < 1 || tok.value > kMaxWorldSize) {
      error(tok) << "world size must be in [1, " << kMaxWorldSize << "], got "
                 << tok.text;
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
      error(tok) << "expected a policy key, got '" << describe(tok) << "'";
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
      error(tok) << "expected a policy value (an integer or a name), got '"
                 << describe(tok) << "'";
      return failure();
    }
    if (auto problem = checkPolicyEntry(key.text, value)) {
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
    error(tok) << "expected a collective name after 'collective', got '"
               << describe(tok) << "'";
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
                  "a collective name, got '"
               << describe(tok) << "'";
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
      error(tok) << "expected a reduction operator (sum, max, min, avg), got '"
                 << describe(tok) << "'";
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
      error(tok) << "expected a root role (producer or consumer), got '"
                 << describe(tok) << "'";
      return failure();
    }
    spec.root = root;
    consume();
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
      error(tok) << "expected a layout, got '" << describe(tok) << "'";
    return failure();
  }
  layout = *parsed;
  consume();
  return success();
}

/// Flattens collective `name` to its transforms. `stack` holds the names
/// being resolved, to report a cycle with its path.
LogicalResult SpecParser::resolve(StringRef name,
                                  SmallVectorImpl<StringRef> &stack,
                                  SmallVectorImpl<ResolvedTransform> &out) {
  auto done = resolved.find(name);
  if (done != resolved.end()) {
    out.append(done->second.begin(), done->second.end());
    return success();
  }
  // Already reported: one error per mistake, not one per reference.
  if (failedNames.contains(name))
    return failure();
  const CollectiveDecl &decl = decls[declIndex.lookup(name)];
  stack.push_back(name);
  SmallVector<ResolvedTransform, 2> mine;
  for (const Term &term : decl.terms) {
    if (term.transform) {
      mine.push_back({*term.transform, term.loc, StringRef()});
      continue;
    }
    auto target = declIndex.find(term.name);
    if (target == declIndex.end()) {
      auto diag = emitError(term.loc)
                  << "undefined collective '" << term.name << "'";
      // Suggest a near miss: typos in names are the common case.
      StringRef best;
      unsigned bestDistance = 3;
      for (const CollectiveDecl &d : decls) {
        unsigned dist = term.name.edit_distance(d.name, true, bestDistance);
        if (dist < bestDistance)
          bestDistance = dist, best = d.name;
      }
      if (!best.empty())
        diag << "; did you mean '" << best << "'?";
      failedNames.insert(name);
      return failure();
    }
    if (llvm::is_contained(stack, term.name)) {
      std::string path;
      auto from = llvm::find(stack, term.name);
      for (auto it = from; it != stack.end(); ++it)
        path += (*it + " -> ").str();
      path += term.name.str();
      emitError(term.loc) << "collective '" << decl.name
                          << "' is defined in terms of itself: " << path;
      failedNames.insert(name);
      return failure();
    }
    SmallVector<ResolvedTransform, 2> sub;
    if (failed(resolve(term.name, stack, sub))) {
      failedNames.insert(name);
      return failure();
    }
    // The transforms take this reference's location, so composition errors
    // point at the line that composes them.
    for (ResolvedTransform &t : sub) {
      t.loc = term.loc;
      if (t.origin.empty())
        t.origin = term.name;
      mine.push_back(t);
    }
  }
  stack.pop_back();
  if (mine.size() > 2) {
    failedNames.insert(name);
    emitError(decl.terms.back().loc)
        << "collective '" << decl.name << "' composes " << mine.size()
        << " transforms; a collective is one transform or a composition of "
           "two";
    return failure();
  }
  resolved[name] = mine;
  out.append(mine.begin(), mine.end());
  return success();
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
    SmallVector<StringRef> stack;
    SmallVector<ResolvedTransform, 2> transforms;
    if (failed(resolve(decl.name, stack, transforms))) {
      ok = false;
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
