#include "theory/closed_forms/formula_parse.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <cstdlib>
#include <string_view>
#include <utility>

#include "theory/base/input_error.hpp"
#include "theory/base/spelling.hpp"
#include "theory/problems/limits.hpp"

namespace fedverify::theory {
namespace {

// A formula is one line of a claim: kilobytes are a mistake, and the parser recurses per
// parenthesis.
constexpr std::size_t kMaxFormulaBytes = 4096;
constexpr int kMaxDepth = 100;

// The Unicode spellings read as ASCII ones (UTF-8 bytes → token text).
constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
    {"\xCE\xB3", "gamma"},  // γ
    {"\xCE\xBC", "mu"},     // μ
    {"\xC2\xB5", "mu"},     // µ (the micro sign)
    {"\xC2\xB7", "*"},      // ·
    {"\xC3\x97", "*"},      // ×
    {"\xE1\xB5\x80", "'"},  // ᵀ
};

enum class TokenKind { number, name, symbol, end };

struct Token {
  TokenKind kind = TokenKind::end;
  std::string text;  // the name, the symbol ("+"), the number as written
  double number = 0;
  int position = 1;  // characters from 1
};

bool continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

class Lexer {
 public:
  Lexer(const std::string& text, const std::string& field) : text_(text), field_(field) {}

  std::vector<Token> tokens() {
    std::vector<Token> out;
    while (true) {
      while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) advance(1);
      Token t;
      t.position = position_;
      if (at_ == text_.size()) {
        out.push_back(t);
        return out;
      }
      const char c = text_[at_];
      if (std::isdigit(static_cast<unsigned char>(c)) ||
          (c == '.' && at_ + 1 < text_.size() &&
           std::isdigit(static_cast<unsigned char>(text_[at_ + 1])))) {
        t = number();
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        std::size_t end = at_;
        while (end < text_.size() &&
               (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_')) {
          ++end;
        }
        t.kind = TokenKind::name;
        t.text = text_.substr(at_, end - at_);
        advance(end - at_);
      } else if (std::string_view("+-*/^(),'").find(c) != std::string_view::npos) {
        t.kind = TokenKind::symbol;
        t.text = std::string(1, c);
        advance(1);
      } else {
        t = alias_or_fail();
      }
      out.push_back(std::move(t));
    }
  }

 private:
  void advance(std::size_t bytes) {
    for (std::size_t i = 0; i < bytes; ++i, ++at_) {
      if (!continuation(text_[at_])) ++position_;
    }
  }

  // digits [. digits] [(e|E) [+|-] digits], or . digits ...
  Token number() {
    Token t;
    t.kind = TokenKind::number;
    t.position = position_;
    std::size_t end = at_;
    const auto digits = [&] {
      const std::size_t from = end;
      while (end < text_.size() && std::isdigit(static_cast<unsigned char>(text_[end]))) ++end;
      return end > from;
    };
    digits();
    if (end < text_.size() && text_[end] == '.') {
      ++end;
      digits();
    }
    if (end < text_.size() && (text_[end] == 'e' || text_[end] == 'E')) {
      ++end;
      if (end < text_.size() && (text_[end] == '+' || text_[end] == '-')) ++end;
      if (!digits()) {
        formula_error(field_, text_, position_, "malformed number",
                      " (an exponent needs digits: 1e-3)");
      }
    }
    t.text = text_.substr(at_, end - at_);
    t.number = std::strtod(t.text.c_str(), nullptr);
    advance(end - at_);
    return t;
  }

  Token alias_or_fail() {
    Token t;
    t.position = position_;
    for (const auto& [spelling, ascii] : kAliases) {
      if (std::string_view(text_).substr(at_).starts_with(spelling)) {
        t.text = std::string(ascii);
        t.kind = std::isalpha(static_cast<unsigned char>(ascii[0])) != 0 ? TokenKind::name
                                                                         : TokenKind::symbol;
        advance(spelling.size());
        return t;
      }
    }
    std::size_t end = at_ + 1;
    while (end < text_.size() && continuation(text_[end])) ++end;
    formula_error(field_, text_, position_,
                  fmt::format("unexpected character '{}'", text_.substr(at_, end - at_)));
  }

  const std::string& text_;
  const std::string& field_;
  std::size_t at_ = 0;
  int position_ = 1;
};

class Parser {
 public:
  Parser(std::vector<Token> tokens, const std::string& text, const std::string& field,
         const FormulaNames& names)
      : tokens_(std::move(tokens)), text_(text), field_(field), names_(names) {}

  std::unique_ptr<FormulaNode> parse() {
    if (peek().kind == TokenKind::end) formula_error(field_, text_, 1, "empty formula");
    auto root = expr();
    const Token& t = peek();
    if (t.kind == TokenKind::symbol && t.text == ")") {
      formula_error(field_, text_, t.position, "unmatched ')'");
    }
    if (t.kind != TokenKind::end) unexpected_after_value(t);
    return root;
  }

 private:
  const Token& peek() const { return tokens_[next_]; }
  bool is(const char* symbol) const {
    return peek().kind == TokenKind::symbol && peek().text == symbol;
  }
  Token take() { return tokens_[next_++]; }

  static std::unique_ptr<FormulaNode> node(FormulaOp op, int position) {
    auto n = std::make_unique<FormulaNode>();
    n->op = op;
    n->position = position;
    return n;
  }
  static std::unique_ptr<FormulaNode> binary(FormulaOp op, const Token& t,
                                             std::unique_ptr<FormulaNode> a,
                                             std::unique_ptr<FormulaNode> b) {
    auto n = node(op, t.position);
    n->args.push_back(std::move(a));
    n->args.push_back(std::move(b));
    return n;
  }

  [[noreturn]] void unexpected_after_value(const Token& t) const {
    if (t.kind == TokenKind::symbol && t.text != "(") {
      formula_error(field_, text_, t.position, fmt::format("unexpected '{}'", t.text));
    }
    formula_error(field_, text_, t.position,
                  fmt::format("expected an operator before '{}'", t.text),
                  " (write * for a product)");
  }

  std::unique_ptr<FormulaNode> expr() {
    if (++depth_ > kMaxDepth) {
      formula_error(field_, text_, peek().position,
                    fmt::format("nested more than {} deep", kMaxDepth));
    }
    auto left = term();
    while (is("+") || is("-")) {
      const Token t = take();
      left =
          binary(t.text == "+" ? FormulaOp::add : FormulaOp::subtract, t, std::move(left), term());
    }
    --depth_;
    return left;
  }

  std::unique_ptr<FormulaNode> term() {
    auto left = unary();
    while (is("*") || is("/")) {
      const Token t = take();
      left = binary(t.text == "*" ? FormulaOp::multiply : FormulaOp::divide, t, std::move(left),
                    unary());
    }
    return left;
  }

  std::unique_ptr<FormulaNode> unary() {
    if (is("-")) {
      if (++depth_ > kMaxDepth) {
        formula_error(field_, text_, peek().position,
                      fmt::format("nested more than {} deep", kMaxDepth));
      }
      const Token t = take();
      auto n = node(FormulaOp::negate, t.position);
      n->args.push_back(unary());
      --depth_;
      return n;
    }
    return power();
  }

  std::unique_ptr<FormulaNode> power() {
    auto base = postfix();
    if (is("^")) {
      const Token t = take();
      return binary(FormulaOp::power, t, std::move(base), unary());  // right-associative
    }
    return base;
  }

  std::unique_ptr<FormulaNode> postfix() {
    auto value = primary();
    while (is("'")) {
      const Token t = take();
      auto n = node(FormulaOp::transpose, t.position);
      n->args.push_back(std::move(value));
      value = std::move(n);
    }
    return value;
  }

  std::unique_ptr<FormulaNode> primary() {
    const Token t = take();
    if (t.kind == TokenKind::number) {
      auto n = node(FormulaOp::number, t.position);
      n->number = t.number;
      return n;
    }
    if (t.kind == TokenKind::name) return is("(") ? call(t) : name(t);
    if (t.kind == TokenKind::symbol && t.text == "(") {
      auto inner = expr();
      if (!is(")")) {
        if (peek().kind == TokenKind::end) {
          formula_error(field_, text_, t.position, "unclosed '('", " (missing ')')");
        }
        unexpected_after_value(peek());
      }
      take();
      return inner;
    }
    if (t.kind == TokenKind::end) {
      formula_error(field_, text_, t.position, "unexpected end of the formula",
                    " (expected a number, a name or '(')");
    }
    formula_error(field_, text_, t.position, fmt::format("unexpected '{}'", t.text),
                  " (expected a number, a name or '(')");
  }

  std::unique_ptr<FormulaNode> name(const Token& t) {
    for (const auto& [function, arity] : formula_functions()) {
      if (function == t.text) {
        formula_error(field_, text_, t.position,
                      fmt::format("{} is a function, not a value", t.text),
                      fmt::format(" (write {}({}))", t.text, arity == 1 ? "x" : "u, v"));
      }
    }
    if (names_.find(t.text) == names_.end()) {
      std::vector<std::string> known;
      for (const auto& [n, kind] : names_) known.push_back(n);
      const auto guess = closest_name(t.text, known);
      formula_error(field_, text_, t.position, fmt::format("unknown name '{}'", t.text),
                    guess ? fmt::format(" (did you mean {}?)", *guess) : std::string());
    }
    auto n = node(FormulaOp::name, t.position);
    n->name = t.text;
    return n;
  }

  std::unique_ptr<FormulaNode> call(const Token& t) {
    int arity = -1;
    std::vector<std::string> known;
    for (const auto& [function, count] : formula_functions()) {
      known.push_back(function);
      if (function == t.text) arity = count;
    }
    if (arity < 0 && names_.find(t.text) != names_.end()) {
      unexpected_after_value(peek());  // "gamma(1 + H)": a product without its '*'
    }
    if (arity < 0) {
      const auto guess = closest_name(t.text, known);
      formula_error(field_, text_, t.position, fmt::format("unknown function '{}'", t.text),
                    guess ? fmt::format(" (did you mean {}?)", *guess)
                          : fmt::format(" (the functions: {})", fmt::join(known, ", ")));
    }
    take();  // (
    auto n = node(FormulaOp::call, t.position);
    n->name = t.text;
    n->args.push_back(expr());
    while (is(",")) {
      take();
      n->args.push_back(expr());
    }
    if (!is(")")) {
      if (peek().kind == TokenKind::end) {
        formula_error(field_, text_, t.position, fmt::format("unclosed '{}('", t.text),
                      " (missing ')')");
      }
      unexpected_after_value(peek());
    }
    take();
    if (static_cast<int>(n->args.size()) != arity) {
      formula_error(field_, text_, t.position,
                    fmt::format("{} takes {} argument{}, got {}", t.text, arity,
                                arity == 1 ? "" : "s", n->args.size()));
    }
    return n;
  }

  std::vector<Token> tokens_;
  std::size_t next_ = 0;
  int depth_ = 0;
  const std::string& text_;
  const std::string& field_;
  const FormulaNames& names_;
};

}  // namespace

const std::vector<std::pair<std::string, int>>& formula_functions() {
  static const std::vector<std::pair<std::string, int>> functions = {
      {"sqrt", 1}, {"exp", 1}, {"log", 1},   {"abs", 1},   {"trace", 1},
      {"inv", 1},  {"dot", 2}, {"outer", 2}, {"norm2", 1},
  };
  return functions;
}

void formula_error(const std::string& field, const std::string& text, int position,
                   const std::string& what, const std::string& after) {
  std::string shown;  // one line, no control character: the caret stays under its character
  for (const char c : text.substr(0, kMaxFormulaBytes)) {
    const auto u = static_cast<unsigned char>(c);
    shown += u < 0x20 || u == 0x7F ? ' ' : c;
  }
  throw FormulaError(
      fmt::format("{}: {} at {}{}", field, limits::escape_control(what), position, after),
      fmt::format("  {}\n  {}^", shown, std::string(static_cast<std::size_t>(position - 1), ' ')));
}

std::unique_ptr<FormulaNode> parse_formula(const std::string& text, const std::string& field,
                                           const FormulaNames& names) {
  if (text.size() > kMaxFormulaBytes) {
    throw InputError(
        fmt::format("{}: at most {} bytes, got {}", field, kMaxFormulaBytes, text.size()));
  }
  return Parser(Lexer(text, field).tokens(), text, field, names).parse();
}

}  // namespace fedverify::theory
