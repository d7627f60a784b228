#include "theory/problems/gda_setting.hpp"

#include <fmt/format.h>

#include <cmath>

#include "theory/base/input_error.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/algorithm_parameter.hpp"
#include "theory/problems/gda_parameters.hpp"

namespace fedverify::theory {

void validate(const GdaSetting& s) {
  if (!(std::isfinite(s.alpha_theta) && s.alpha_theta > 0)) {
    throw InputError(fmt::format("--alpha-theta: must be finite and > 0, got {}", s.alpha_theta));
  }
  if (!(std::isfinite(s.alpha_tau) && s.alpha_tau > 0)) {
    throw InputError(fmt::format("--alpha-tau: must be finite and > 0, got {}", s.alpha_tau));
  }
  if (s.local_steps < 1) {
    throw InputError(fmt::format("--local-steps: R must be >= 1, got {}", s.local_steps));
  }
}

GdaSetting gda_setting(double gamma, double step_ratio, int local_steps) {
  if (!(std::isfinite(step_ratio) && step_ratio > 0)) {
    throw InputError(fmt::format(
        "--step-ratio: alpha_tau/alpha_theta must be finite and > 0, got {}", step_ratio));
  }
  if (!(std::isfinite(gamma) && gamma > 0)) {
    throw InputError(fmt::format("--gamma: alpha_theta must be finite and > 0, got {}", gamma));
  }
  GdaSetting s{gamma, gamma * step_ratio, local_steps};
  validate(s);
  return s;
}

GdaSetting gda_setting(const RunSetting& run) {
  return gda_setting(run.gamma, parameter_value(run, kStepRatioKey), run.local_steps);
}

}  // namespace fedverify::theory
