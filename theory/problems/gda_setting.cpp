#include "theory/problems/gda_setting.hpp"

#include <fmt/format.h>

#include <cmath>

#include "theory/base/input_error.hpp"

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

}  // namespace fedverify::theory
