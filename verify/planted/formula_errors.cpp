#include "verify/planted/formula_errors.hpp"

namespace fedverify::verify::planted {
namespace {

constexpr Named<FormulaError> kErrors[] = {
    {FormulaError::drop_half, "drop_half"},
    {FormulaError::h_instead_of_h_minus_one, "h_instead_of_h_minus_one"},
    {FormulaError::drop_one_over_n, "drop_one_over_n"},
    {FormulaError::flip_stochastic_sign, "flip_stochastic_sign"},
};

}  // namespace

std::span<const Named<FormulaError>> formula_errors() { return kErrors; }

theory::FirstOrderMoments first_order_with(FormulaError error,
                                           const theory::ExpansionCoefficients& k,
                                           theory::Algorithm algorithm,
                                           const theory::StepSetting& s) {
  theory::FirstOrderMoments m = theory::first_order(k, algorithm, s);
  switch (error) {
    case FormulaError::drop_half:
      m.bias_heterogeneity *= 2.0;
      m.bias_stochastic *= 2.0;
      break;
    case FormulaError::h_instead_of_h_minus_one:
      if (algorithm == theory::Algorithm::fedavg || algorithm == theory::Algorithm::sgd) {
        m.bias_heterogeneity = s.gamma * s.local_steps * k.b_heterogeneity;
      }
      break;
    case FormulaError::drop_one_over_n:
      m.bias_stochastic *= static_cast<double>(k.num_clients);
      m.cov *= static_cast<double>(k.num_clients);
      break;
    case FormulaError::flip_stochastic_sign:
      m.bias_stochastic = -m.bias_stochastic;
      break;
  }
  m.mean = m.x_star + m.bias_heterogeneity + m.bias_stochastic;
  return m;
}

}  // namespace fedverify::verify::planted
