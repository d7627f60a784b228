#include "reports/cli/version.hpp"

#include <fmt/format.h>

#include "reports/report/report.hpp"

#ifndef FEDVERIFY_GIT_COMMIT
#define FEDVERIFY_GIT_COMMIT ""
#endif

namespace fedverify::reports {

std::string version_text() {
  const std::string commit = FEDVERIFY_GIT_COMMIT;
  if (commit.empty()) return fmt::format("fedverify {}", fedverify_version());
  return fmt::format("fedverify {} (commit {})", fedverify_version(), commit);
}

}  // namespace fedverify::reports
