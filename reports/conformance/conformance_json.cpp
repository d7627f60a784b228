// The JSON of a conformance check (docs/DESIGN-EXTENSIONS.md, "Conformance": the fields), for the
// command line and Python alike.
#include <cmath>

#include "reports/conformance/conformance.hpp"
#include "theory/problems/algorithm.hpp"

namespace fedverify::reports {

nlohmann::json conformance_to_json(const ConformanceSpec& spec, const ConformanceResult& r) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : r.checks) {
    // JSON has no non-finite numbers: null (and so None in Python, not nan), whichever front end.
    const auto number = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nullptr; };
    checks.push_back({{"name", c.name},
                      {"passed", c.decision.passed},
                      {"statistic", number(c.decision.statistic)},
                      {"threshold", number(c.decision.threshold)},
                      {"p_value", number(c.decision.p_value)},
                      {"detail", c.detail}});
  }
  nlohmann::json out = {{"algorithm", theory::to_string(spec.algorithm)},
                        {"gamma", spec.step.gamma},
                        {"local_steps", spec.step.local_steps},
                        {"seed", spec.seed},
                        {"mode", spec.trajectory ? "trajectory" : "statistical"},
                        {"per_model", spec.per_model},
                        {"conforms", r.passed},
                        {"checks", std::move(checks)},
                        {"neighbours", r.neighbours},
                        {"diagnosis", r.diagnosis}};
  if (spec.trajectory) {
    out["precision"] = to_string(*spec.trajectory);
    out["chains"] = spec.chains;
    out["rounds"] = spec.rounds;
  } else {
    out["alpha"] = spec.alpha;
  }
  return out;
}

}  // namespace fedverify::reports
