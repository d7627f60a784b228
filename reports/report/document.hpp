// The report as a document in memory: headings, paragraphs, lists, tables and figures, their text
// as runs of plain, strong, emphasised, code and linked text. The report's content is built once
// into a Document (report_document.hpp); each output format has one writer of it
// (markdown.hpp: REPORT.md, html.hpp: REPORT.html), so the formats say the same thing and no
// writer parses another's output. Text is held unescaped: each writer escapes for its format.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace fedverify::reports {

struct Span {
  enum class Kind { plain, strong, emphasis, code, link };
  Kind kind = Kind::plain;
  std::string text;
  std::string target;  // link: "#anchor" or a relative file name
};

// A run of spans, built by chaining: Text().strong("Verdict.").plain(" holds").
class Text {
 public:
  Text() = default;
  explicit Text(std::string plain_text) { plain(std::move(plain_text)); }
  Text& plain(std::string s) { return add(Span::Kind::plain, std::move(s)); }
  Text& strong(std::string s) { return add(Span::Kind::strong, std::move(s)); }
  Text& emphasis(std::string s) { return add(Span::Kind::emphasis, std::move(s)); }
  Text& code(std::string s) { return add(Span::Kind::code, std::move(s)); }
  Text& link(std::string s, std::string target);
  Text& append(const Text& other);
  const std::vector<Span>& spans() const { return spans_; }
  bool empty() const { return spans_.empty(); }
  std::string plain_text() const;  // the text without its markup

 private:
  Text& add(Span::Kind kind, std::string s);
  std::vector<Span> spans_;
};

struct Table {
  std::vector<Text> header;
  std::vector<std::vector<Text>> rows;  // each as many cells as the header
  bool sortable = false;                // HTML: rows sort by a click on a header
};

struct FigureRef {
  std::string file;  // SVG file in the report directory
  std::string caption;
};

struct Block {
  enum class Kind { heading, paragraph, list, table, figure };
  Kind kind = Kind::paragraph;
  int level = 0;            // heading: 1, 2, 3
  std::string anchor;       // heading: the id links point to ("" for none)
  Text text;                // heading, paragraph
  std::vector<Text> items;  // list
  Table table;
  FigureRef figure;
};

struct Document {
  std::vector<Block> blocks;
  void heading(int level, Text text, std::string anchor = "");
  void paragraph(Text text);
  void list(std::vector<Text> items);
  void table(Table table);
  void figure(FigureRef figure);
  void append(const Document& other);
};

}  // namespace fedverify::reports
