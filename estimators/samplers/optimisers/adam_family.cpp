#include "estimators/samplers/optimisers/adam_family.hpp"

namespace fedverify::estimators {

AdamKeys adam_keys(const theory::OptimiserSpec& spec, double lr) {
  auto key = [&](const char* name, double otherwise) {
    return spec.has_key(name) ? spec.value(name) : otherwise;
  };
  return {lr,
          key("beta1", 0.0),
          key("beta2", 0.0),
          key("rho", 0.0),
          key("eps", 0.0),
          key("eps_in_sqrt", 1.0) != 0.0};
}

}  // namespace fedverify::estimators
