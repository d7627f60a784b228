// Adadelta (Table 2.1; THEORY O1), Zeiler 2012. Table 2.1 prints E[g²] ← γE[g²] + (1 − γ)g²,
// x ← x − η g/√(E[g²] + ε), which is RMSProp with decay 0.7; Adadelta's defining second
// accumulator E[Δx²] (its unit correction) is missing. The standard rule is used (flagged in
// THEORY O1), with PyTorch's step multiplier η, Table 2.1's decay ρ = γ = 0.7 and ε = 0.01:
//   E_g ← ρE_g + (1 − ρ)g²,  Δ = √(E_Δ + ε)/√(E_g + ε) · g,  E_Δ ← ρE_Δ + (1 − ρ)Δ²,  x ← x − ηΔ.
#include "estimators/samplers/optimisers/adam_family.hpp"

namespace fedverify::estimators {
namespace {

class Adadelta final : public UpdateRule {
 public:
  explicit Adadelta(const AdamKeys& k) : k_(k) {}
  int vector_count() const override { return 2; }  // E[g²], E[Δx²]

  void update(int dim, int columns, int /*active*/, long /*t*/, double* x, const double* g,
              const RuleState& state) const override {
    double* eg = state.vectors[0];
    double* edx = state.vectors[1];
    for (int j = 0; j < dim * columns; ++j) {
      eg[j] = k_.rho * eg[j] + (1.0 - k_.rho) * g[j] * g[j];
      const double delta = std::sqrt(edx[j] + k_.eps) / std::sqrt(eg[j] + k_.eps) * g[j];
      edx[j] = k_.rho * edx[j] + (1.0 - k_.rho) * delta * delta;
      x[j] -= k_.lr * delta;
    }
  }

 private:
  AdamKeys k_;
};

const bool registered = register_update_rule(
    "adadelta", [](const theory::OptimiserSpec& s, double lr) -> std::unique_ptr<const UpdateRule> {
      return std::make_unique<Adadelta>(adam_keys(s, lr));
    });

}  // namespace
}  // namespace fedverify::estimators
