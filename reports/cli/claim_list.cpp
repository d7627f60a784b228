#include "reports/cli/claim_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "reports/report/report.hpp"
#include "reports/report/report_document.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/limits.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::reports {

int print_claim_list(const std::string& only, std::FILE* out) {
  std::vector<const claims::Claim*> listed;
  if (only == kAllClaims) {
    for (const claims::Claim& c : claims::catalogue()) listed.push_back(&c);  // opt-in too
  } else {
    listed = select_claims(only);
  }
  if (listed.empty()) {
    throw InputError(
        fmt::format("--only: no claim id matches \"{}\"", theory::limits::quote_input(only)));
  }
  std::size_t width = 0;
  for (const claims::Claim* c : listed) width = std::max(width, c->id.size());
  for (const claims::Claim* c : listed) {
    fmt::print(out, "{:<{}}  {}{}\n", c->id, width, c->opt_in ? "(opt-in) " : "",
               claim_summary(c->card));
  }
  return 0;
}

}  // namespace fedverify::reports
