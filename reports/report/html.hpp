// REPORT.html: the HTML writer of a report Document (document.hpp). One self-contained file that
// can be sent as it is: the figures inline as SVG, the style and a few lines of script inline,
// no framework and nothing fetched (a Content-Security-Policy forbids every network request).
// Tables marked sortable sort by a click on a header (numerically when the cells start with a
// number). Every text is escaped (&, <, >, " and ').
#pragma once

#include <functional>
#include <string>

#include "reports/report/document.hpp"

namespace fedverify::reports {

// `svg_of(file)` returns the SVG text of a figure file, or "" when there is none (the figure is
// then named as missing). Each inlined SVG's ids get a prefix of their own, so that the ids of
// several gnuplot files (which all define gpPt0, …) cannot collide, and its <title> becomes the
// figure's caption.
std::string render_html(const Document& document, const std::string& title,
                        const std::function<std::string(const std::string& file)>& svg_of);

// The text with &, <, >, " and ' replaced by their character references.
std::string escape_html(const std::string& text);

}  // namespace fedverify::reports
