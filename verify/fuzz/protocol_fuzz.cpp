// libFuzzer target: the conformance protocol reader (reports/conformance/process_implementation,
// child_process): a byte string is taken as the lines an implementation writes, and fedverify's
// side of the protocol serves them against a small quadratic run (3 clients, d = 2, K = 2 chains,
// 3 rounds) — every line parsed as the child-process transport parses it (Python's NaN and
// Infinity read as null), every grad request answered, every round recorded. Any input must end
// the run (all rounds, divergence) or throw InputError — never crash, overflow, read out of
// bounds or hang. Built only with clang and -DFEDVERIFY_FUZZ=ON (verify/fuzz/run_fuzz.sh); seeds
// in verify/fuzz/corpus/protocol/.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "reports/conformance/child_process.hpp"
#include "reports/conformance/oracle.hpp"
#include "reports/conformance/process_implementation.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/testing/small_problems.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fedverify;
  static const theory::QuadraticProblem problem = [] {
    auto o = verify::small_options(5);
    o.dim = 2;
    o.clients = 3;
    return theory::generate_quadratic(o);
  }();
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  reports::ConformanceRun run;
  run.algorithm = "fedavg";
  run.gamma = 0.1;
  run.chains = 2;
  run.rounds = 3;
  run.seed = 7;
  run.x0 = Matrix::Zero(2, 2);
  reports::ConformanceOracle oracle(problem, run, "--exec", [](int, const Matrix&) {});
  std::size_t at = 0;
  const reports::ProtocolChannel channel{[](const nlohmann::json&) {},
                                         [&]() -> nlohmann::json {
                                           if (at >= input.size())
                                             throw InputError("--exec: closed its output");
                                           std::size_t end = input.find('\n', at);
                                           if (end == std::string_view::npos) end = input.size();
                                           const std::string_view line = input.substr(at, end - at);
                                           at = end + 1;
                                           return reports::parse_protocol_line(line);
                                         }};
  try {
    reports::serve_protocol(channel, oracle);
  } catch (const InputError&) {
    // a protocol error, reported as such: the expected outcome for most inputs
  }
  return 0;
}
