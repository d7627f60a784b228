#include "reports/report/html.hpp"

#include <fmt/format.h>

#include <sstream>
#include <string_view>
#include <utility>

namespace fedverify::reports {
namespace {

// No request of any kind (fonts, images, scripts, frames) leaves the file; inline style and
// script only.
constexpr const char* kPolicy =
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:";

constexpr const char* kStyle = R"(
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1b1b1b;
       margin: 0 auto; max-width: 1100px; padding: 1em 2em 4em; }
h1, h2, h3 { line-height: 1.25; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }
h3 { margin-top: 1.8em; }
code { font: 13px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; background: #f3f3f3;
       padding: 0 .2em; }
table { border-collapse: collapse; margin: 1em 0; font-size: 13px; display: block;
        overflow-x: auto; }
th, td { border: 1px solid #d0d0d0; padding: .25em .5em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th[aria-sort=ascending]::after { content: " \25B2"; }
table.sortable th[aria-sort=descending]::after { content: " \25BC"; }
tr:nth-child(even) td { background: #fafafa; }
figure { margin: 1.5em 0; } figure svg { width: 100%; max-width: 840px; height: auto; }
figcaption { font-style: italic; max-width: 840px; }
.missing { color: #a00; }
.verdict { display: inline-block; min-width: 1.2em; padding: 0 .25em; border-radius: .25em;
           color: #fff; font-weight: bold; text-align: center; }
.verdict.holds { background: #1a7f37; } .verdict.fails { background: #b42318; }
.verdict.open { background: #6e7781; }
)";

// Sorts a table's body rows by the clicked column: numbers (a cell starting with one) before
// text, numbers by value, text by locale; a second click reverses.
constexpr const char* kScript = R"(
document.querySelectorAll('table.sortable th').forEach(function (th) {
  th.addEventListener('click', function () {
    var table = th.closest('table'), body = table.tBodies[0];
    var col = Array.prototype.indexOf.call(th.parentNode.children, th);
    var up = th.getAttribute('aria-sort') !== 'ascending';
    table.querySelectorAll('th').forEach(function (h) { h.removeAttribute('aria-sort'); });
    th.setAttribute('aria-sort', up ? 'ascending' : 'descending');
    function key(tr) {
      var t = tr.children[col].textContent.trim(), n = parseFloat(t);
      return isNaN(n) ? t : n;
    }
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a), y = key(b), c;
      if (typeof x !== typeof y) c = typeof x === 'number' ? -1 : 1;
      else if (typeof x === 'number') c = x - y;
      else c = x.localeCompare(y);
      return up ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  });
});
)";

// The verdict icons of verdicts.cpp (✅ ❌ ❔) as coloured badges drawn from characters every
// system font has (✓ ✗ ?): a browser without an emoji font (Debian's chromium without
// fonts-noto-color-emoji) shows the emoji as empty boxes. The words beside them stay as text.
std::string verdict_badges(std::string t) {
  static constexpr std::pair<std::string_view, std::string_view> kBadges[] = {
      {"✅", R"(<span class="verdict holds">✓</span>)"},
      {"❌", R"(<span class="verdict fails">✗</span>)"},
      {"❔", R"(<span class="verdict open">?</span>)"}};
  for (const auto& [icon, badge] : kBadges) {
    for (std::size_t at = t.find(icon); at != std::string::npos; at = t.find(icon, at)) {
      t.replace(at, icon.size(), badge);
      at += badge.size();
    }
  }
  return t;
}

std::string inline_html(const Text& text) {
  std::string out;
  for (const auto& s : text.spans()) {
    const std::string t = verdict_badges(escape_html(s.text));
    switch (s.kind) {
      case Span::Kind::plain:
        out += t;
        break;
      case Span::Kind::strong:
        out += "<strong>" + t + "</strong>";
        break;
      case Span::Kind::emphasis:
        out += "<em>" + t + "</em>";
        break;
      case Span::Kind::code:
        out += "<code>" + t + "</code>";
        break;
      case Span::Kind::link:
        out += "<a href=\"" + escape_html(s.target) + "\">" + t + "</a>";
        break;
    }
  }
  return out;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
}

// The SVG element of a gnuplot file, ready to sit inside an HTML body: the XML prologue dropped,
// ids and references to them prefixed with `prefix`, the title set to `title`.
std::string inline_svg(const std::string& svg, const std::string& prefix,
                       const std::string& title) {
  const std::size_t start = svg.find("<svg");
  if (start == std::string::npos) return "";
  std::string out = svg.substr(start);
  for (const char* q : {"'", "\""}) {
    replace_all(out, fmt::format(" id={}", q), fmt::format(" id={}{}", q, prefix));
    replace_all(out, fmt::format("href={}#", q), fmt::format("href={}#{}", q, prefix));
  }
  replace_all(out, "url(#", "url(#" + prefix);
  const std::size_t open = out.find("<title>");
  const std::size_t close = out.find("</title>");
  if (open != std::string::npos && close != std::string::npos && open < close) {
    out.replace(open + 7, close - open - 7, escape_html(title));
  }
  return out;
}

void write_table(std::ostream& html, const Table& t) {
  html << (t.sortable ? "<table class=\"sortable\">" : "<table>") << "\n<thead><tr>";
  for (const auto& h : t.header) html << "<th>" << inline_html(h) << "</th>";
  html << "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    html << "<tr>";
    for (const auto& c : row) html << "<td>" << inline_html(c) << "</td>";
    html << "</tr>\n";
  }
  html << "</tbody></table>\n";
}

}  // namespace

std::string escape_html(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string render_html(const Document& d, const std::string& title,
                        const std::function<std::string(const std::string& file)>& svg_of) {
  std::ostringstream html;
  html << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       << "<meta http-equiv=\"Content-Security-Policy\" content=\"" << kPolicy << "\">\n"
       << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
       << "<title>" << escape_html(title) << "</title>\n<style>" << kStyle << "</style>\n"
       << "</head>\n<body>\n";
  int figures = 0;
  for (const auto& b : d.blocks) {
    switch (b.kind) {
      case Block::Kind::heading:
        html << fmt::format("<h{}{}>{}</h{}>\n", b.level,
                            b.anchor.empty() ? "" : " id=\"" + escape_html(b.anchor) + "\"",
                            inline_html(b.text), b.level);
        break;
      case Block::Kind::paragraph:
        html << "<p>" << inline_html(b.text) << "</p>\n";
        break;
      case Block::Kind::list:
        html << "<ul>\n";
        for (const auto& item : b.items) html << "<li>" << inline_html(item) << "</li>\n";
        html << "</ul>\n";
        break;
      case Block::Kind::table:
        write_table(html, b.table);
        break;
      case Block::Kind::figure: {
        const std::string svg =
            inline_svg(svg_of(b.figure.file), fmt::format("fig{}-", ++figures), b.figure.caption);
        html << "<figure data-file=\"" << escape_html(b.figure.file) << "\">\n"
             << (svg.empty() ? "<p class=\"missing\">Figure " + escape_html(b.figure.file) +
                                   " is missing.</p>"
                             : svg)
             << "\n<figcaption>" << escape_html(b.figure.caption) << "</figcaption>\n</figure>\n";
        break;
      }
    }
  }
  html << "<script>" << kScript << "</script>\n</body>\n</html>\n";
  return html.str();
}

}  // namespace fedverify::reports
