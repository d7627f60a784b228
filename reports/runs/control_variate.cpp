#include "reports/runs/control_variate.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>

#include "reports/runs/family_runner.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::reports {

bool parse_control_variate(const std::string& text, const theory::AlgorithmDescriptor& algorithm) {
  if (text == "none") return false;
  if (text != "linearised") {
    throw InputError(fmt::format("--control-variate: expected none or linearised, got \"{}\"",
                                 theory::limits::quote_input(text)));
  }
  const auto has_twin = [](const theory::AlgorithmDescriptor& d) {
    return family_runner(d.family).has_control_variate;
  };
  if (!has_twin(algorithm)) {
    throw InputError(fmt::format(
        "--control-variate: linearised is for the chain algorithms ({}), not for --algo {}",
        theory::algorithm_names(has_twin, "and"), algorithm.name()));
  }
  return true;
}

nlohmann::json control_variate_fields(const estimators::SimulationResult& result,
                                      const Vector& linearised_mean) {
  if (!result.twin_difference) {
    throw std::logic_error("control_variate_fields: the run had no linearised twin");
  }
  const estimators::MomentEstimate& difference = *result.twin_difference;
  const Vector mean_cv = difference.mean + linearised_mean;  // THEORY (L3)
  const std::pair<const char*, bool> fields[] = {
      {"mean_cv", mean_cv.allFinite()},
      {"mean_cv_mcse", difference.mean_mcse.allFinite()},
      {"linearised_mean_exact", linearised_mean.allFinite()}};
  for (const auto& [name, finite] : fields) {
    if (!finite) {
      throw InputError(
          fmt::format("{}: not finite for this run; simulate refuses to print it", name));
    }
  }
  nlohmann::json out;
  out["mean_cv"] = theory::to_json(mean_cv);
  out["mean_cv_mcse"] = theory::to_json(difference.mean_mcse);
  out["linearised_mean_exact"] = theory::to_json(linearised_mean);
  return out;
}

}  // namespace fedverify::reports
