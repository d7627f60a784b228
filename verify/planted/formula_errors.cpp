#include "verify/planted/formula_errors.hpp"

#include <array>
#include <cmath>

#include "verify/planted/entries.hpp"

namespace fedverify::verify::planted {

namespace {

// Every error once: its name and what it does.
struct Entry {
  FormulaError key;
  const char* name;
  const char* description;
};

const std::array<Entry, 4> kErrors = {{
    {FormulaError::drop_half, "drop_half", "b_h and b_s without their factor 1/2 (F3)"},
    {FormulaError::h_instead_of_h_minus_one, "h_instead_of_h_minus_one",
     "FedAvg's heterogeneity bias γH b_h instead of γ(H−1) b_h (F3)"},
    {FormulaError::drop_one_over_n, "drop_one_over_n",
     "b_s and the covariance without their factor 1/N (F2, F3)"},
    {FormulaError::flip_stochastic_sign, "flip_stochastic_sign", "+b_s instead of −b_s (F3)"},
}};

}  // namespace

std::vector<FormulaError> formula_errors() { return keys_of(kErrors); }

std::string to_string(FormulaError error) { return entry_of(kErrors, error).name; }

std::string describe(FormulaError error) { return entry_of(kErrors, error).description; }

theory::FirstOrderMoments first_order_with(FormulaError error,
                                           const theory::ExpansionCoefficients& k,
                                           theory::Algorithm algorithm,
                                           const theory::RunSetting& s) {
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
                                 theory::Algorithm algorithm, const theory::RunSetting& s) {
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
                                             const theory::RunSetting& s) {
  return term == FirstOrderTerm::bias ? scaled(factor, 1.0, k, algorithm, s)
                                      : scaled(1.0, factor, k, algorithm, s);
}

theory::FirstOrderMoments first_order_with_three_halves_term(const theory::ExpansionCoefficients& k,
                                                             theory::Algorithm algorithm,
                                                             const theory::RunSetting& s) {
  const double factor = 1.0 + std::sqrt(s.gamma * k.constants.l);
  return scaled(factor, factor, k, algorithm, s);
}

}  // namespace fedverify::verify::planted
