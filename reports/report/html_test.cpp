// reports/report/html: REPORT.html's writer. Statements: every text is escaped (claim statements
// hold <, >, &); an inlined gnuplot SVG loses its XML prologue, gets ids of its own (two figures
// that both define gpPt0 do not collide) and its caption as title; a figure without its SVG is
// named as missing; the page allows no network request and sorts the tables marked sortable.
#include "reports/report/html.hpp"

#include <gtest/gtest.h>

#include <string>

namespace fedverify::reports {
namespace {

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

constexpr const char* kSvg =
    "<?xml version=\"1.0\"?>\n<svg viewBox=\"0 0 10 10\">\n<title>Gnuplot</title>\n<defs><path "
    "id='gpPt0' d='M0,0'/></defs><use xlink:href='#gpPt0'/><g id=\"gnuplot_canvas\" "
    "clip-path=\"url(#clip1)\"></g></svg>\n";

TEST(Html, EscapesEveryText) {
  EXPECT_EQ(escape_html("a < b && c > \"d\" 'e'"),
            "a &lt; b &amp;&amp; c &gt; &quot;d&quot; &#39;e&#39;");
  Document d;
  d.heading(3, Text("q.<id>"), "q.<id>");
  d.paragraph(Text().strong("Statement.").plain(" x < y & z > w").code("E[x] <= 1"));
  Table t;
  t.header = {Text("a|b")};
  t.rows = {{Text().link("<x>", "#<x>")}};
  d.table(t);
  const std::string html = render_html(d, "T & <U>", [](const std::string&) { return ""; });
  EXPECT_NE(html.find("<title>T &amp; &lt;U&gt;</title>"), std::string::npos);
  EXPECT_NE(html.find("<h3 id=\"q.&lt;id&gt;\">q.&lt;id&gt;</h3>"), std::string::npos);
  EXPECT_NE(html.find("<p><strong>Statement.</strong> x &lt; y &amp; z &gt; w<code>E[x] &lt;= "
                      "1</code></p>"),
            std::string::npos);
  EXPECT_NE(html.find("<a href=\"#&lt;x&gt;\">&lt;x&gt;</a>"), std::string::npos);
  EXPECT_EQ(html.find("x < y"), std::string::npos);
  EXPECT_EQ(html.find("<table class=\"sortable\">"), std::string::npos);  // not marked sortable
}

TEST(Html, InlinesEachSvgWithIdsOfItsOwnAndTheCaptionAsTitle) {
  Document d;
  d.figure({"a.svg", "first & <one>"});
  d.figure({"b.svg", "second"});
  d.figure({"gone.svg", "never drawn"});
  const std::string html = render_html(d, "t", [](const std::string& file) {
    return file == "gone.svg" ? std::string() : std::string(kSvg);
  });
  EXPECT_EQ(count(html, "<svg"), 2u);
  EXPECT_EQ(html.find("<?xml"), std::string::npos);
  EXPECT_EQ(html.find("id='gpPt0'"), std::string::npos);
  EXPECT_NE(html.find("id='fig1-gpPt0'"), std::string::npos);
  EXPECT_NE(html.find("xlink:href='#fig2-gpPt0'"), std::string::npos);
  EXPECT_NE(html.find("id=\"fig2-gnuplot_canvas\""), std::string::npos);
  EXPECT_NE(html.find("url(#fig1-clip1)"), std::string::npos);
  EXPECT_NE(html.find("<title>first &amp; &lt;one&gt;</title>"), std::string::npos);
  EXPECT_NE(html.find("<title>second</title>"), std::string::npos);
  EXPECT_NE(html.find("<figure data-file=\"gone.svg\">\n<p class=\"missing\">Figure gone.svg is "
                      "missing.</p>"),
            std::string::npos);
}

TEST(Html, FetchesNothingAndSortsMarkedTables) {
  Document d;
  Table t;
  t.sortable = true;
  t.header = {Text("n")};
  d.table(t);
  const std::string html = render_html(d, "t", [](const std::string&) { return ""; });
  EXPECT_NE(html.find("content=\"default-src 'none';"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);  // no URL at all (the test SVG has none)
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_NE(html.find("<table class=\"sortable\">"), std::string::npos);
  EXPECT_NE(html.find("table.sortable th"), std::string::npos);  // the script that sorts them
}

}  // namespace
}  // namespace fedverify::reports
