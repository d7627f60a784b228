// RAdam (Table 2.1; THEORY O1), Liu et al. 2020. Table 2.1 prints v_t = (1/β₂)v_{t−1} + …, which
// grows without bound; the standard rule v ← β₂v + (1 − β₂)g² is used (flagged in THEORY O1).
// It also prints the step with γ for η; η is used. With ρ_∞ = 2/(1 − β₂) − 1 and
// ρ_t = ρ_∞ − 2tβ₂ᵗ/(1 − β₂ᵗ):
//   ρ_t > 5:  x ← x − η m̂ r_t l_t,  l_t = √(1 − β₂ᵗ)/√(v + ε),
//             r_t = √((ρ_t − 4)(ρ_t − 2)ρ_∞ / ((ρ_∞ − 4)(ρ_∞ − 2)ρ_t));
//   else:     x ← x − η m̂   (the variance of the adaptive step is not yet tractable).
#include "estimators/samplers/optimisers/adam_family.hpp"

namespace fedverify::estimators {
namespace {

class RAdam final : public UpdateRule {
 public:
  explicit RAdam(const AdamKeys& k) : k_(k) {}
  int vector_count() const override { return 2; }  // m, v

  void update(int dim, int columns, int /*active*/, long t, double* x, const double* g,
              const RuleState& state) const override {
    double* m = state.vectors[0];
    double* v = state.vectors[1];
    const double b2t = std::pow(k_.beta2, static_cast<double>(t));
    const double c1 = 1.0 - std::pow(k_.beta1, static_cast<double>(t));
    const double c2 = 1.0 - b2t;
    const double rho_inf = 2.0 / (1.0 - k_.beta2) - 1.0;
    const double rho = rho_inf - 2.0 * static_cast<double>(t) * b2t / c2;
    const bool rectified = rho > 5.0;
    const double r = rectified ? std::sqrt((rho - 4.0) * (rho - 2.0) * rho_inf /
                                           ((rho_inf - 4.0) * (rho_inf - 2.0) * rho))
                               : 1.0;
    for (int j = 0; j < dim * columns; ++j) {
      update_moments(k_, g[j], m[j], v[j]);
      const double l =
          rectified ? std::sqrt(c2) / adaptive_denominator(v[j], k_.eps, k_.eps_in_sqrt) : 1.0;
      x[j] -= k_.lr * (m[j] / c1) * r * l;
    }
  }

 private:
  AdamKeys k_;
};

const bool registered = register_update_rule(
    "radam", [](const theory::OptimiserSpec& s, double lr) -> std::unique_ptr<const UpdateRule> {
      return std::make_unique<RAdam>(adam_keys(s, lr));
    });

}  // namespace
}  // namespace fedverify::estimators
