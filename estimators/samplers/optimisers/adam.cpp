// Adam (Table 2.1; THEORY O1), Kingma & Ba 2015, with Table 2.1's initialisation m_0 = v_0 = 0:
//   m ← β₁m + (1 − β₁)g,  v ← β₂v + (1 − β₂)g²,  m̂ = m/(1 − β₁ᵗ),  v̂ = v/(1 − β₂ᵗ),
//   x ← x − η m̂ / √(v̂ + ε)      (ε inside the root as printed; eps_in_sqrt=0: √v̂ + ε).
#include "estimators/samplers/optimisers/adam_family.hpp"

namespace fedverify::estimators {
namespace {

class Adam final : public UpdateRule {
 public:
  explicit Adam(const AdamKeys& k) : k_(k) {}
  int vector_count() const override { return 2; }  // m, v

  void update(int dim, int columns, int /*active*/, long t, double* x, const double* g,
              const RuleState& state) const override {
    double* m = state.vectors[0];
    double* v = state.vectors[1];
    const double c1 = 1.0 - std::pow(k_.beta1, static_cast<double>(t));
    const double c2 = 1.0 - std::pow(k_.beta2, static_cast<double>(t));
    for (int j = 0; j < dim * columns; ++j) {
      update_moments(k_, g[j], m[j], v[j]);
      x[j] -= k_.lr * (m[j] / c1) / adaptive_denominator(v[j] / c2, k_.eps, k_.eps_in_sqrt);
    }
  }

 private:
  AdamKeys k_;
};

const bool registered = register_update_rule(
    "adam", [](const theory::OptimiserSpec& s, double lr) -> std::unique_ptr<const UpdateRule> {
      return std::make_unique<Adam>(adam_keys(s, lr));
    });

}  // namespace
}  // namespace fedverify::estimators
