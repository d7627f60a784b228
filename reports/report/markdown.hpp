// REPORT.md: the markdown writer of a report Document (document.hpp). GitHub-flavoured: pipe
// tables (a | inside a cell escaped, a line break folded to a space), headings with an explicit
// <a id> anchor so that links to claim ids with dots resolve on every renderer.
#pragma once

#include <string>

#include "reports/report/document.hpp"

namespace fedverify::reports {

std::string render_markdown(const Text& text);
std::string render_markdown(const Document& document);

}  // namespace fedverify::reports
