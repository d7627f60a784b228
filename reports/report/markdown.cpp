#include "reports/report/markdown.hpp"

#include <fmt/format.h>

#include <sstream>

namespace fedverify::reports {
namespace {

// A table cell: | escaped, a line break folded to a space (a pipe table row is one line).
std::string cell(const Text& text) {
  std::string out;
  for (char ch : render_markdown(text)) {
    if (ch == '|') {
      out += "\\|";
    } else if (ch == '\n') {
      out += ' ';
    } else {
      out += ch;
    }
  }
  return out;
}

void write_table(std::ostream& md, const Table& t) {
  md << "|";
  for (const auto& h : t.header) md << " " << cell(h) << " |";
  md << "\n|";
  for (std::size_t i = 0; i < t.header.size(); ++i) md << "---|";
  md << "\n";
  for (const auto& row : t.rows) {
    md << "|";
    for (const auto& c : row) md << " " << cell(c) << " |";
    md << "\n";
  }
}

}  // namespace

std::string render_markdown(const Text& text) {
  std::string out;
  for (const auto& s : text.spans()) {
    switch (s.kind) {
      case Span::Kind::plain:
        out += s.text;
        break;
      case Span::Kind::strong:
        out += "**" + s.text + "**";
        break;
      case Span::Kind::emphasis:
        out += "*" + s.text + "*";
        break;
      case Span::Kind::code:
        out += "`" + s.text + "`";
        break;
      case Span::Kind::link:
        out += "[" + s.text + "](" + s.target + ")";
        break;
    }
  }
  return out;
}

std::string render_markdown(const Document& d) {
  std::ostringstream md;
  bool first = true;
  for (const auto& b : d.blocks) {
    if (!first) md << "\n";
    first = false;
    switch (b.kind) {
      case Block::Kind::heading:
        md << std::string(static_cast<std::size_t>(b.level), '#') << " " << render_markdown(b.text)
           << "\n";
        if (!b.anchor.empty()) md << fmt::format("<a id=\"{}\"></a>\n", b.anchor);
        break;
      case Block::Kind::paragraph:
        md << render_markdown(b.text) << "\n";
        break;
      case Block::Kind::list:
        for (const auto& item : b.items) md << "- " << render_markdown(item) << "\n";
        break;
      case Block::Kind::table:
        write_table(md, b.table);
        break;
      case Block::Kind::figure:
        md << fmt::format("![{}]({})\n\n*{}*\n", b.figure.caption, b.figure.file, b.figure.caption);
        break;
    }
  }
  return md.str();
}

}  // namespace fedverify::reports
