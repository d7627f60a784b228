#include "verify/planted/formula_errors.hpp"

#include <cmath>

namespace fedverify::verify::planted {

std::vector<FormulaError> formula_errors() {
  return {FormulaError::drop_half, FormulaError::h_instead_of_h_minus_one,
          FormulaError::drop_one_over_n, FormulaError::flip_stochastic_sign};
}

std::string to_string(FormulaError error) {
  switch (error) {
    case FormulaError::drop_half:
      return "drop_half";
    case FormulaError::h_instead_of_h_minus_one:
      return "h_instead_of_h_minus_one";
    case FormulaError::drop_one_over_n:
      return "drop_one_over_n";
    case FormulaError::flip_stochastic_sign:
      return "flip_stochastic_sign";
  }
  return "?";
}

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

namespace {

// theory::first_order with its bias terms multiplied by `bias` and its covariance by `cov`.
theory::FirstOrderMoments scaled(double bias, double cov, const theory::ExpansionCoefficients& k,
                                 theory::Algorithm algorithm, const theory::StepSetting& s) {
  theory::FirstOrderMoments m = theory::first_order(k, algorithm, s);
  m.bias_heterogeneity *= bias;
  m.bias_stochastic *= bias;
  m.cov *= cov;
  m.mean = m.x_star + m.bias_heterogeneity + m.bias_stochastic;
  return m;
}

}  // namespace

std::string to_string(FirstOrderTerm term) {
  return term == FirstOrderTerm::bias ? "bias" : "covariance";
}

theory::FirstOrderMoments first_order_scaled(FirstOrderTerm term, double factor,
                                             const theory::ExpansionCoefficients& k,
                                             theory::Algorithm algorithm,
                                             const theory::StepSetting& s) {
  return term == FirstOrderTerm::bias ? scaled(factor, 1.0, k, algorithm, s)
                                      : scaled(1.0, factor, k, algorithm, s);
}

theory::FirstOrderMoments first_order_with_three_halves_term(const theory::ExpansionCoefficients& k,
                                                             theory::Algorithm algorithm,
                                                             const theory::StepSetting& s) {
  const double factor = 1.0 + std::sqrt(s.gamma * k.constants.l);
  return scaled(factor, factor, k, algorithm, s);
}

}  // namespace fedverify::verify::planted
