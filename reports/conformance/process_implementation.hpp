// The implementation under test as a child process speaking the JSON-lines protocol of
// docs/DESIGN-EXTENSIONS.md, "Conformance" (child_process.hpp): fedverify sends the run message,
// then answers every {"type": "grad"} line with {"grad": …} and records every {"type": "round"}
// line, until the run ends (T rounds, or divergence, when the pipes are closed and the child is
// terminated). Non-finite numbers in a message (null, or Python's NaN and Infinity) are
// divergence at the round in progress, not a protocol error.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <string>

#include "reports/conformance/child_process.hpp"
#include "reports/conformance/oracle.hpp"

namespace fedverify::reports {

// Errors name --exec: the command cannot be started, writes a line that is not a protocol message
// or longer than the largest valid one (max_line_bytes), does not answer a message within
// `timeout_seconds`, exits early or with a non-zero status.
Implementation process_implementation(const std::string& command, double timeout_seconds,
                                      ProtocolPipes pipes = ProtocolPipes::stdio);

// fedverify's side of the protocol over any channel of JSON messages (a child process; the fuzz
// target's byte string, verify/fuzz/protocol_fuzz.cpp): sends the run message, then answers every
// grad request and records every round until the run ends (T rounds, or divergence: a reported
// iterate beyond 1e100 or not finite, or a gradient asked at a non-finite x). Throws InputError
// naming --exec for a message of the wrong type or shape.
struct ProtocolChannel {
  std::function<void(const nlohmann::json&)> send;
  std::function<nlohmann::json()> receive;
};
void serve_protocol(const ProtocolChannel& channel, ConformanceOracle& oracle);

// The largest valid line of a run of `chains` chains in dimension `dim` (a round or gradient
// request: chains × dim numbers of at most 64 characters, one client index per chain, framing).
std::size_t max_line_bytes(int chains, int dim);

}  // namespace fedverify::reports
