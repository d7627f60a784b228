// DoWG, Distance over Weighted Gradients (Table 2.1; THEORY O1), Khaled, Mishchenko & Jin 2023:
//   r̄_t = max(r̄_{t−1}, ‖x_t − x_0‖),  v_t = v_{t−1} + r̄_t²‖g_t‖²,  x ← x − η r̄_t²/√v_t · g,
// per column, with r̄_0 = r_ε = r_eps(1 + ‖x_0‖) (Table 2.1 prints r̄_0 = 0, with which the rule
// never moves; flagged) and the multiplier η (1: the paper's rule).
#include "estimators/samplers/optimisers/parameter_free.hpp"

namespace fedverify::estimators {
namespace {

class DoWG final : public UpdateRule {
 public:
  DoWG(double lr, double r_eps) : lr_(lr), r_eps_(r_eps) {}
  int vector_count() const override { return 1; }  // x_0
  int scalar_count() const override { return 2; }  // r̄, v

  void start(int dim, int columns, const double* x, const RuleState& state) const override {
    start_from(dim, columns, x, state);
    initial_distance(dim, columns, x, r_eps_, state.scalars[0]);
  }

  void update(int dim, int columns, int /*active*/, long /*t*/, double* x, const double* g,
              const RuleState& state) const override {
    double* r_bar = state.scalars[0];
    double* v = state.scalars[1];
    ColumnScratch dist{}, norm{}, step{};
    column_squared_distances(dim, columns, x, state.vectors[0], dist.data());
    column_squared_norms(dim, columns, g, norm.data());
    for (int c = 0; c < columns; ++c) {
      r_bar[c] = std::max(r_bar[c], std::sqrt(dist[c]));
      const double r2 = r_bar[c] * r_bar[c];
      v[c] += r2 * norm[c];
      step[c] = v[c] > 0.0 ? lr_ * r2 / std::sqrt(v[c]) : 0.0;
    }
    take_column_steps(dim, columns, step.data(), g, x);
  }

 private:
  double lr_, r_eps_;
};

const bool registered = register_update_rule(
    "dowg", [](const theory::OptimiserSpec& s, double lr) -> std::unique_ptr<const UpdateRule> {
      return std::make_unique<DoWG>(lr, s.value("r_eps"));
    });

}  // namespace
}  // namespace fedverify::estimators
