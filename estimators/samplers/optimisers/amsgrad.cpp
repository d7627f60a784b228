// AMSGrad (Table 2.1; THEORY O1), Reddi, Kale & Kumar 2018, as printed (no bias correction):
//   m ← β₁m + (1 − β₁)g,  v ← β₂v + (1 − β₂)g²,  v̂ ← max(v̂, v),  x ← x − η m / √(v̂ + ε).
#include "estimators/samplers/optimisers/adam_family.hpp"

namespace fedverify::estimators {
namespace {

class AmsGrad final : public UpdateRule {
 public:
  explicit AmsGrad(const AdamKeys& k) : k_(k) {}
  int vector_count() const override { return 3; }  // m, v, v̂

  void update(int dim, int columns, int /*active*/, long /*t*/, double* x, const double* g,
              const RuleState& state) const override {
    double* m = state.vectors[0];
    double* v = state.vectors[1];
    double* v_max = state.vectors[2];
    for (int j = 0; j < dim * columns; ++j) {
      update_moments(k_, g[j], m[j], v[j]);
      v_max[j] = std::max(v_max[j], v[j]);
      x[j] -= k_.lr * m[j] / adaptive_denominator(v_max[j], k_.eps, k_.eps_in_sqrt);
    }
  }

 private:
  AdamKeys k_;
};

const bool registered = register_update_rule(
    "amsgrad", [](const theory::OptimiserSpec& s, double lr) -> std::unique_ptr<const UpdateRule> {
      return std::make_unique<AmsGrad>(adam_keys(s, lr));
    });

}  // namespace
}  // namespace fedverify::estimators
