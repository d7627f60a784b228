// SGD with heavy-ball or Nesterov momentum (Table 2.1; THEORY O0, O2):
//   m ← βm + g,  x ← x − η m              (heavy ball; β = 0: x ← x − η g)
//   m ← βm + g,  x ← x − η (g + βm)       (Nesterov)
// One vector (m) when β ≠ 0, none otherwise. With η = 1 on the server this is the FedAvg step
// x ← x − Δ; the linear closed forms of these rules are theory/algorithms/fedopt.* (ServerSgd).
#include "estimators/samplers/optimisers/update_rule.hpp"

namespace fedverify::estimators {
namespace {

class Sgd final : public UpdateRule {
 public:
  Sgd(double lr, double momentum, bool nesterov)
      : lr_(lr), momentum_(momentum), nesterov_(nesterov) {}

  int vector_count() const override { return momentum_ != 0.0 ? 1 : 0; }

  void update(int dim, int columns, int /*active*/, long /*t*/, double* x, const double* g,
              const RuleState& state) const override {
    const int n = dim * columns;
    if (momentum_ == 0.0) {
      for (int j = 0; j < n; ++j) x[j] -= lr_ * g[j];
      return;
    }
    double* m = state.vectors[0];
    for (int j = 0; j < n; ++j) {
      m[j] = momentum_ * m[j] + g[j];
      x[j] -= nesterov_ ? lr_ * (g[j] + momentum_ * m[j]) : lr_ * m[j];
    }
  }

 private:
  double lr_, momentum_;
  bool nesterov_;
};

const bool registered = register_update_rule(
    "sgd", [](const theory::OptimiserSpec& s, double lr) -> std::unique_ptr<const UpdateRule> {
      return std::make_unique<Sgd>(lr, s.value("momentum"), s.value("nesterov") != 0.0);
    });

}  // namespace
}  // namespace fedverify::estimators
