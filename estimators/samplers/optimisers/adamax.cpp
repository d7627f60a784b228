// Adamax (Table 2.1; THEORY O1), Kingma & Ba 2015 §7.1. Table 2.1's row is garbled (it mixes
// v, u and m̂ and drops m); the standard rule is used (flagged in THEORY O1):
//   m ← β₁m + (1 − β₁)g,  u ← max(β₂u, |g| + ε),  x ← x − η/(1 − β₁ᵗ) · m/u.
// ε (not in Table 2.1; PyTorch's placement) keeps u > 0 when a coordinate's gradients are all 0.
#include <algorithm>

#include "estimators/samplers/optimisers/adam_family.hpp"

namespace fedverify::estimators {
namespace {

class Adamax final : public UpdateRule {
 public:
  explicit Adamax(const AdamKeys& k) : k_(k) {}
  int vector_count() const override { return 2; }  // m, u

  void update(int dim, int columns, int /*active*/, long t, double* x, const double* g,
              const RuleState& state) const override {
    double* m = state.vectors[0];
    double* u = state.vectors[1];
    const double c1 = 1.0 - std::pow(k_.beta1, static_cast<double>(t));
    for (int j = 0; j < dim * columns; ++j) {
      m[j] = k_.beta1 * m[j] + (1.0 - k_.beta1) * g[j];
      u[j] = std::max(k_.beta2 * u[j], std::abs(g[j]) + k_.eps);
      x[j] -= (k_.lr / c1) * m[j] / u[j];
    }
  }

 private:
  AdamKeys k_;
};

const bool registered = register_update_rule(
    "adamax", [](const theory::OptimiserSpec& s, double lr) -> std::unique_ptr<const UpdateRule> {
      return std::make_unique<Adamax>(adam_keys(s, lr));
    });

}  // namespace
}  // namespace fedverify::estimators
