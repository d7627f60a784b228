#include "reports/conformance/process_implementation.hpp"

#include <fmt/format.h>

#include <limits>
#include <vector>

#include "reports/conformance/child_process.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::reports {
namespace {

// K × d JSON rows → d × K, checked (a non-finite entry is allowed only when `allow_infinite`:
// reported iterates, where it means divergence; JSON has no inf, so nlohmann reads it as null).
Matrix states(const nlohmann::json& j, int chains, int dim, const std::string& what,
              bool allow_infinite = false) {
  const auto bad = [&] {
    return InputError(fmt::format("--exec: {}: expected {} rows (chains) of {} finite numbers",
                                  what, chains, dim));
  };
  if (!j.is_array() || static_cast<int>(j.size()) != chains) throw bad();
  Matrix m(dim, chains);
  for (int k = 0; k < chains; ++k) {
    const auto& row = j[k];
    if (!row.is_array() || static_cast<int>(row.size()) != dim) throw bad();
    for (int i = 0; i < dim; ++i) {
      if (row[i].is_number()) {
        m(i, k) = row[i].get<double>();
      } else if (allow_infinite && row[i].is_null()) {
        m(i, k) = std::numeric_limits<double>::infinity();
      } else {
        throw bad();
      }
    }
  }
  if (!allow_infinite && !m.allFinite()) throw bad();
  return m;
}

nlohmann::json rows(const Matrix& m) {  // d × K → K rows
  nlohmann::json out = nlohmann::json::array();
  for (Eigen::Index k = 0; k < m.cols(); ++k) out.push_back(theory::to_json(Vector(m.col(k))));
  return out;
}

// "client": i or [K clients].
std::vector<int> clients_of(const nlohmann::json& c, int chains, int n) {
  const auto bad = [&] {
    return InputError(fmt::format(
        "--exec: grad request client: expected an integer in [0, {}) or {} of them", n, chains));
  };
  std::vector<int> out;
  if (c.is_number_integer()) {
    out.push_back(c.get<int>());
  } else if (c.is_array() && static_cast<int>(c.size()) == chains) {
    for (const auto& ck : c) {
      if (!ck.is_number_integer()) throw bad();
      out.push_back(ck.get<int>());
    }
  } else {
    throw bad();
  }
  return out;
}

void run_process(const std::string& command, ConformanceOracle& oracle) {
  const int d = oracle.dim(), chains = oracle.run().chains;
  ChildProcess child(command);
  child.send(run_message(oracle.run(), d, oracle.clients()));
  while (!oracle.finished()) {
    const nlohmann::json m = child.receive();
    const std::string type =
        m.contains("type") && m["type"].is_string() ? m["type"].get<std::string>() : "";
    if (type == "grad") {
      if (!m.contains("client") || !m.contains("x")) {
        throw InputError("--exec: a grad request needs \"client\" and \"x\"");
      }
      const Matrix x = states(m["x"], chains, d, "grad request x");
      child.send(
          {{"grad", rows(oracle.gradient(clients_of(m["client"], chains, oracle.clients()), x))}});
    } else if (type == "round") {
      if (!m.contains("x")) throw InputError("--exec: a round message needs \"x\"");
      oracle.report(
          states(m["x"], chains, d, fmt::format("round {} x", oracle.rounds_reported() + 1), true));
    } else {
      throw InputError(fmt::format("--exec: expected a message of type grad or round, got {}",
                                   theory::limits::quote_input(m.dump())));
    }
  }
  const int status = child.finish();
  if (oracle.diverged_round() == 0 && status != 0) {
    throw InputError(fmt::format("--exec: the implementation exited with status {}", status));
  }
}

}  // namespace

Implementation process_implementation(const std::string& command) {
  return {"--exec", [command](ConformanceOracle& oracle) { run_process(command, oracle); }};
}

}  // namespace fedverify::reports
