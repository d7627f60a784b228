#include "reports/report/document.hpp"

namespace fedverify::reports {

Text& Text::add(Span::Kind kind, std::string s) {
  if (s.empty()) return *this;
  // Neighbouring plain runs merge, so writers see one run per change of markup.
  if (kind == Span::Kind::plain && !spans_.empty() && spans_.back().kind == Span::Kind::plain) {
    spans_.back().text += s;
    return *this;
  }
  spans_.push_back({kind, std::move(s), ""});
  return *this;
}

Text& Text::link(std::string s, std::string target) {
  spans_.push_back({Span::Kind::link, std::move(s), std::move(target)});
  return *this;
}

Text& Text::append(const Text& other) {
  for (const auto& s : other.spans_) {
    if (s.kind == Span::Kind::link) {
      link(s.text, s.target);
    } else {
      add(s.kind, s.text);
    }
  }
  return *this;
}

std::string Text::plain_text() const {
  std::string out;
  for (const auto& s : spans_) out += s.text;
  return out;
}

void Document::heading(int level, Text text, std::string anchor) {
  Block b;
  b.kind = Block::Kind::heading;
  b.level = level;
  b.text = std::move(text);
  b.anchor = std::move(anchor);
  blocks.push_back(std::move(b));
}

void Document::paragraph(Text text) {
  Block b;
  b.kind = Block::Kind::paragraph;
  b.text = std::move(text);
  blocks.push_back(std::move(b));
}

void Document::list(std::vector<Text> items) {
  Block b;
  b.kind = Block::Kind::list;
  b.items = std::move(items);
  blocks.push_back(std::move(b));
}

void Document::table(Table table) {
  Block b;
  b.kind = Block::Kind::table;
  b.table = std::move(table);
  blocks.push_back(std::move(b));
}

void Document::figure(FigureRef figure) {
  Block b;
  b.kind = Block::Kind::figure;
  b.figure = std::move(figure);
  blocks.push_back(std::move(b));
}

void Document::append(const Document& other) {
  blocks.insert(blocks.end(), other.blocks.begin(), other.blocks.end());
}

}  // namespace fedverify::reports
