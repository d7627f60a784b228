// Adagrad (Table 2.1; THEORY O1), Duchi, Hazan & Singer 2011, with the diagonal G:
//   G ← G + g²,  x ← x − η g / √(G + ε).
#include "estimators/samplers/optimisers/adam_family.hpp"

namespace fedverify::estimators {
namespace {

class Adagrad final : public UpdateRule {
 public:
  explicit Adagrad(const AdamKeys& k) : k_(k) {}
  int vector_count() const override { return 1; }  // G

  void update(int dim, int columns, int /*active*/, long /*t*/, double* x, const double* g,
              const RuleState& state) const override {
    double* sum = state.vectors[0];
    for (int j = 0; j < dim * columns; ++j) {
      sum[j] += g[j] * g[j];
      x[j] -= k_.lr * g[j] / adaptive_denominator(sum[j], k_.eps, k_.eps_in_sqrt);
    }
  }

 private:
  AdamKeys k_;
};

const bool registered = register_update_rule(
    "adagrad", [](const theory::OptimiserSpec& s, double lr) -> std::unique_ptr<const UpdateRule> {
      return std::make_unique<Adagrad>(adam_keys(s, lr));
    });

}  // namespace
}  // namespace fedverify::estimators
