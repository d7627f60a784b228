// The implementation under test as a child process speaking the JSON-lines protocol of
// docs/DESIGN-EXTENSIONS.md, "Conformance" (child_process.hpp): fedverify sends the run message,
// then answers every {"type": "grad"} line with {"grad": …} and records every {"type": "round"}
// line, until the run ends (T rounds, or divergence, when the pipes are closed).
#pragma once

#include <string>

#include "reports/conformance/oracle.hpp"

namespace fedverify::reports {

// Errors name --exec: the command cannot be started, writes a line that is not a protocol message,
// exits early or with a non-zero status.
Implementation process_implementation(const std::string& command);

}  // namespace fedverify::reports
