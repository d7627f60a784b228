#include "reports/cli/check_command.hpp"

#include <memory>

#include "reports/cli/claim_file.hpp"
#include "reports/cli/claim_rows.hpp"

namespace fedverify::reports {

claims::Claim load_claim_file(const std::string& path) {
  return claim_of(std::make_shared<const ClaimFile>(parse_claim_file(path)), "Claim file " + path);
}

int run_check(const std::string& path, ReportOptions options) {
  const claims::Claim claim = load_claim_file(path);
  options.command = "check";
  ReportContents contents;
  contents.claims.push_back(&claim);
  contents.problems_note = "The claim file's problem: " + path;
  return run_report(options, contents);
}

}  // namespace fedverify::reports
