// libFuzzer target: the problem-file reader (theory/problems/problem_io). Any byte string must
// either parse into a problem that round-trips through problem_to_json exactly, or throw
// InputError — never crash, overflow, read out of bounds or hang. Built only with clang and
// -DFEDVERIFY_FUZZ=ON (verify/fuzz/run_fuzz.sh); seeds in verify/fuzz/corpus/problem/.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "theory/base/input_error.hpp"
#include "theory/problems/problem_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  using namespace fedverify;
  try {
    const auto problem = theory::parse_problem(theory::parse_json_text(text, "fuzz"), "fuzz");
    const nlohmann::json written = theory::problem_to_json(*problem);
    const auto again = theory::parse_problem(written, "fuzz (round trip)");
    if (theory::problem_to_json(*again) != written) std::abort();  // not a faithful round trip
  } catch (const InputError&) {
    // bad input, reported as such: the expected outcome for most inputs
  }
  return 0;
}
