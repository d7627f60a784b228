// RMSProp (Table 2.1; THEORY O1), Tieleman & Hinton 2012. Table 2.1 fixes the decay at 0.9; it
// is the key rho here (default 0.9):
//   E ← ρE + (1 − ρ)g²,  x ← x − η g / √(E + ε).
#include "estimators/samplers/optimisers/adam_family.hpp"

namespace fedverify::estimators {
namespace {

class RmsProp final : public UpdateRule {
 public:
  explicit RmsProp(const AdamKeys& k) : k_(k) {}
  int vector_count() const override { return 1; }  // E[g²]

  void update(int dim, int columns, int /*active*/, long /*t*/, double* x, const double* g,
              const RuleState& state) const override {
    double* e = state.vectors[0];
    for (int j = 0; j < dim * columns; ++j) {
      e[j] = k_.rho * e[j] + (1.0 - k_.rho) * g[j] * g[j];
      x[j] -= k_.lr * g[j] / adaptive_denominator(e[j], k_.eps, k_.eps_in_sqrt);
    }
  }

 private:
  AdamKeys k_;
};

const bool registered = register_update_rule(
    "rmsprop", [](const theory::OptimiserSpec& s, double lr) -> std::unique_ptr<const UpdateRule> {
      return std::make_unique<RmsProp>(adam_keys(s, lr));
    });

}  // namespace
}  // namespace fedverify::estimators
