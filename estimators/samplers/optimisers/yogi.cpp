// Yogi (Zaheer et al. 2018) as FedYogi runs it on the server (Reddi et al. 2021, "Adaptive
// Federated Optimization", Algorithm 2; THEORY O1): no bias correction, and the second moment moves
// by a signed additive step instead of Adam's multiplicative one,
//   m ← β₁m + (1 − β₁)g,  v ← v − (1 − β₂) sign(v − g²) g²,  x ← x − η m / (√v + τ),
// τ = the key eps (1e-3; eps_in_sqrt=1: √(v + τ)). State starts at m = v = 0 (the Adam family's
// initialisation here; the paper's v₋₁ ≥ τ² only matters when the denominator has no τ), and v
// stays ≥ 0: it grows by (1 − β₂)g² while v ≤ g² and shrinks by it only while v > g².
#include "estimators/samplers/optimisers/adam_family.hpp"

namespace fedverify::estimators {
namespace {

class Yogi final : public UpdateRule {
 public:
  explicit Yogi(const AdamKeys& k) : k_(k) {}
  int vector_count() const override { return 2; }  // m, v

  void update(int dim, int columns, int /*active*/, long /*t*/, double* x, const double* g,
              const RuleState& state) const override {
    double* m = state.vectors[0];
    double* v = state.vectors[1];
    for (int j = 0; j < dim * columns; ++j) {
      const double g2 = g[j] * g[j];
      m[j] = k_.beta1 * m[j] + (1.0 - k_.beta1) * g[j];
      const double sign = v[j] > g2 ? 1.0 : (v[j] < g2 ? -1.0 : 0.0);
      v[j] -= (1.0 - k_.beta2) * sign * g2;
      x[j] -= k_.lr * m[j] / adaptive_denominator(v[j], k_.eps, k_.eps_in_sqrt);
    }
  }

 private:
  AdamKeys k_;
};

const bool registered = register_update_rule(
    "yogi", [](const theory::OptimiserSpec& s, double lr) -> std::unique_ptr<const UpdateRule> {
      return std::make_unique<Yogi>(adam_keys(s, lr));
    });

}  // namespace
}  // namespace fedverify::estimators
