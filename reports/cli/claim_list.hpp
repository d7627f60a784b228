// `fedverify report --list [--only GLOB]` (issue 31 item 5; docs/CLI.md): the catalogue's claim
// ids with their statements, one claim a line, without running anything. The statement is the
// claim card's (verify/claims/card.hpp), the one REPORT.md prints, so it is written once. Opt-in
// claims (the long studies, run only when --only names them) are listed too, marked "(opt-in)",
// unless --only selects otherwise; --only selects as `report --only` does (reports::select_claims).
#pragma once

#include <cstdio>
#include <string>

namespace fedverify::reports {

// Writes the list to `out`; returns the exit code (0; InputError naming --only when the glob
// matches no claim, as `report --only` does).
int print_claim_list(const std::string& only, std::FILE* out);

}  // namespace fedverify::reports
