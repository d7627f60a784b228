// NAdam (Table 2.1; THEORY O1), Dozat 2016, as printed: Adam's m, v, m̂, v̂ and
//   x ← x − η/√(v̂ + ε) · (β₁m̂ + (1 − β₁)g/(1 − β₁ᵗ)).
#include "estimators/samplers/optimisers/adam_family.hpp"

namespace fedverify::estimators {
namespace {

class NAdam final : public UpdateRule {
 public:
  explicit NAdam(const AdamKeys& k) : k_(k) {}
  int vector_count() const override { return 2; }  // m, v

  void update(int dim, int columns, int /*active*/, long t, double* x, const double* g,
              const RuleState& state) const override {
    double* m = state.vectors[0];
    double* v = state.vectors[1];
    const double c1 = 1.0 - std::pow(k_.beta1, static_cast<double>(t));
    const double c2 = 1.0 - std::pow(k_.beta2, static_cast<double>(t));
    for (int j = 0; j < dim * columns; ++j) {
      update_moments(k_, g[j], m[j], v[j]);
      const double look_ahead = k_.beta1 * (m[j] / c1) + (1.0 - k_.beta1) * g[j] / c1;
      x[j] -= k_.lr * look_ahead / adaptive_denominator(v[j] / c2, k_.eps, k_.eps_in_sqrt);
    }
  }

 private:
  AdamKeys k_;
};

const bool registered = register_update_rule(
    "nadam", [](const theory::OptimiserSpec& s, double lr) -> std::unique_ptr<const UpdateRule> {
      return std::make_unique<NAdam>(adam_keys(s, lr));
    });

}  // namespace
}  // namespace fedverify::estimators
