// DoG, Distance over Gradients (Table 2.1; THEORY O1), Ivgi, Hinder & Carmon 2023:
//   r̄_t = max(r_ε, max_{i≤t} ‖x_i − x_0‖),  G_t = Σ_{i≤t} ‖g_i‖²,  x ← x − η r̄_t/√G_t · g,
// per column, with the multiplier η (1: the paper's rule; the server's lr or the client's γ) and
// r_ε = r_eps(1 + ‖x_0‖) (parameter_free.hpp). A column whose gradients have all been 0 stays.
#include "estimators/samplers/optimisers/parameter_free.hpp"

namespace fedverify::estimators {
namespace {

class DoG final : public UpdateRule {
 public:
  DoG(double lr, double r_eps) : lr_(lr), r_eps_(r_eps) {}
  int vector_count() const override { return 1; }  // x_0
  int scalar_count() const override { return 2; }  // r̄, G

  void start(int dim, int columns, const double* x, const RuleState& state) const override {
    start_from(dim, columns, x, state);
    initial_distance(dim, columns, x, r_eps_, state.scalars[0]);
  }

  void update(int dim, int columns, int /*active*/, long /*t*/, double* x, const double* g,
              const RuleState& state) const override {
    double* r_bar = state.scalars[0];
    double* sum = state.scalars[1];
    ColumnScratch dist{}, norm{}, step{};
    column_squared_distances(dim, columns, x, state.vectors[0], dist.data());
    column_squared_norms(dim, columns, g, norm.data());
    for (int c = 0; c < columns; ++c) {
      r_bar[c] = std::max(r_bar[c], std::sqrt(dist[c]));
      sum[c] += norm[c];
      step[c] = sum[c] > 0.0 ? lr_ * r_bar[c] / std::sqrt(sum[c]) : 0.0;
    }
    take_column_steps(dim, columns, step.data(), g, x);
  }

 private:
  double lr_, r_eps_;
};

const bool registered = register_update_rule(
    "dog", [](const theory::OptimiserSpec& s, double lr) -> std::unique_ptr<const UpdateRule> {
      return std::make_unique<DoG>(lr, s.value("r_eps"));
    });

}  // namespace
}  // namespace fedverify::estimators
