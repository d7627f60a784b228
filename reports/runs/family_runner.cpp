#include "reports/runs/family_runner.hpp"

#include <fmt/format.h>

#include <map>
#include <stdexcept>

#include "reports/runs/control_variate.hpp"
#include "theory/base/input_error.hpp"

namespace fedverify::reports {
namespace {

std::map<theory::AlgorithmFamily, FamilyRunner>& runners() {
  static std::map<theory::AlgorithmFamily, FamilyRunner> table;
  return table;
}

}  // namespace

bool register_family_runner(FamilyRunner runner) {
  if (runner.predict == nullptr || runner.simulate == nullptr) {
    throw std::logic_error("register_family_runner: a runner needs predict and simulate");
  }
  const theory::AlgorithmFamily family = runner.family;
  if (!runners().emplace(family, runner).second) {
    throw std::logic_error(fmt::format("register_family_runner: family {} registered twice",
                                       static_cast<int>(family)));
  }
  return true;
}

const FamilyRunner& family_runner(theory::AlgorithmFamily family) {
  const auto it = runners().find(family);
  if (it == runners().end()) {
    throw std::logic_error(
        fmt::format("family_runner: no runner registered for family {}", static_cast<int>(family)));
  }
  return it->second;
}

std::vector<const FamilyRunner*> family_runners() {
  std::vector<const FamilyRunner*> out;
  for (const auto& [family, runner] : runners()) out.push_back(&runner);
  return out;
}

RunOutput predict_run(const RunInputs& inputs, const theory::AlgorithmDescriptor& algorithm) {
  if (!algorithm.has_closed_forms) {
    const std::string with = theory::algorithm_names(
        [](const theory::AlgorithmDescriptor& d) { return d.has_closed_forms; }, "and");
    throw InputError(fmt::format("--algo: predict has no closed forms for {} (it has them for {})",
                                 algorithm.name(), with));
  }
  if ((inputs.trajectory_rounds || !inputs.x0.empty()) &&
      algorithm.family != theory::AlgorithmFamily::chain) {
    throw InputError(fmt::format("{}: only for the chain algorithms, not for --algo {}",
                                 inputs.trajectory_rounds ? "--rounds" : "--x0", algorithm.name()));
  }
  if (!inputs.x0.empty() && !inputs.trajectory_rounds) {
    throw InputError("--x0: the start of the exact trajectory, given with --rounds T");
  }
  return family_runner(algorithm.family).predict(inputs, algorithm);
}

RunOutput simulate_run(const RunInputs& inputs, const SimulateInputs& run,
                       const theory::AlgorithmDescriptor& algorithm,
                       const estimators::Progress& progress) {
  if ((run.curve || !inputs.x0.empty()) && algorithm.family != theory::AlgorithmFamily::chain) {
    throw InputError(fmt::format("{}: only for the chain algorithms, not for --algo {}",
                                 run.curve ? "--curve" : "--x0", algorithm.name()));
  }
  const bool twin = parse_control_variate(run.control_variate, algorithm);
  return family_runner(algorithm.family).simulate(inputs, run, algorithm, twin, progress);
}

}  // namespace fedverify::reports
