#include "verify/claims/claim.hpp"

namespace fedverify::claims {

const std::vector<Claim>& catalogue() {
  static const std::vector<Claim> all = [] {
    std::vector<Claim> v;
    for (auto&& family : {quadratic_exact_claims(), quadratic_simulation_claims(),
                          dynamics_claims(), logistic_bias_claims(), personalised_claims()}) {
      v.insert(v.end(), family.begin(), family.end());
    }
    return v;
  }();
  return all;
}

}  // namespace fedverify::claims
