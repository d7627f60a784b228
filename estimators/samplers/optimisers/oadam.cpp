// Optimistic Adam (Daskalakis, Ilyas, Syrgkanis and Zeng 2018, "Training GANs with Optimism",
// Algorithm 1; the optimiser of [DeepGMM]'s games, THEORY M6), with Adam's bias correction:
//   m ← β₁m + (1 − β₁)g,  v ← β₂v + (1 − β₂)g²,  s_t = m̂_t / (√v̂_t + ε),
//   x ← x − 2η s_t + η s_{t−1}   (s_0 = 0),
// i.e. Adam's step taken twice and the previous one undone once: optimistic mirror descent's
// extrapolation with Adam's preconditioner. Defaults β = (0.5, 0.9), ε = 1e-8
// (theory/problems/optimiser.cpp).
#include "estimators/samplers/optimisers/adam_family.hpp"

namespace fedverify::estimators {
namespace {

class OptimisticAdam final : public UpdateRule {
 public:
  explicit OptimisticAdam(const AdamKeys& k) : k_(k) {}
  int vector_count() const override { return 3; }  // m, v, s_{t−1}

  void update(int dim, int columns, int /*active*/, long t, double* x, const double* g,
              const RuleState& state) const override {
    double* m = state.vectors[0];
    double* v = state.vectors[1];
    double* previous = state.vectors[2];
    const double c1 = 1.0 - std::pow(k_.beta1, static_cast<double>(t));
    const double c2 = 1.0 - std::pow(k_.beta2, static_cast<double>(t));
    for (int j = 0; j < dim * columns; ++j) {
      update_moments(k_, g[j], m[j], v[j]);
      const double s = (m[j] / c1) / (std::sqrt(v[j] / c2) + k_.eps);
      x[j] -= k_.lr * (2.0 * s - previous[j]);
      previous[j] = s;
    }
  }

 private:
  AdamKeys k_;
};

const bool registered = register_update_rule(
    "oadam", [](const theory::OptimiserSpec& s, double lr) -> std::unique_ptr<const UpdateRule> {
      return std::make_unique<OptimisticAdam>(adam_keys(s, lr));
    });

}  // namespace
}  // namespace fedverify::estimators
