// Prodigy (Table 2.1; THEORY O1), Mishchenko & Defazio 2024, Algorithm 3 (the gradient-descent
// form Table 2.1 prints), per column, with λ_t = λ (the multiplier: server lr or client γ):
//   S_t = S_{t−1} + d_t²λ²‖g_t‖²,  η_t = d_t²λ / √(d_t²G² + S_t),  x_{t+1} = x_t − η_t g_t,
//   N_t = N_{t−1} + η_t⟨g_t, x_0 − x_t⟩,  d_{t+1} = max(d_t, N_t/‖x_{t+1} − x_0‖),
// d_0 = d0 (Table 2.1: 1e-4). G, a bound on the gradient norm, is not given by Table 2.1; the
// first gradient's norm ‖g_1‖ is used (flagged in THEORY O1).
#include "estimators/samplers/optimisers/parameter_free.hpp"

namespace fedverify::estimators {
namespace {

class Prodigy final : public UpdateRule {
 public:
  Prodigy(double lambda, double d0) : lambda_(lambda), d0_(d0) {}
  int vector_count() const override { return 1; }  // x_0
  int scalar_count() const override { return 4; }  // d, S, N, G²

  void start(int dim, int columns, const double* x, const RuleState& state) const override {
    start_from(dim, columns, x, state);
    std::fill(state.scalars[0], state.scalars[0] + columns, d0_);
  }

  void update(int dim, int columns, int /*active*/, long t, double* x, const double* g,
              const RuleState& state) const override {
    const double* x0 = state.vectors[0];
    double* d = state.scalars[0];
    double* sum = state.scalars[1];
    double* numerator = state.scalars[2];
    double* bound = state.scalars[3];
    ColumnScratch norm{}, inner{}, step{}, dist{};
    column_squared_norms(dim, columns, g, norm.data());
    for (int i = 0; i < dim; ++i) {
      for (int c = 0; c < columns; ++c) {
        inner[c] += g[i * columns + c] * (x0[i * columns + c] - x[i * columns + c]);
      }
    }
    for (int c = 0; c < columns; ++c) {
      if (t == 1) bound[c] = norm[c];
      const double d2 = d[c] * d[c];
      sum[c] += d2 * lambda_ * lambda_ * norm[c];
      const double denominator = std::sqrt(d2 * bound[c] + sum[c]);
      step[c] = denominator > 0.0 ? d2 * lambda_ / denominator : 0.0;
      numerator[c] += step[c] * inner[c];
    }
    take_column_steps(dim, columns, step.data(), g, x);
    column_squared_distances(dim, columns, x, x0, dist.data());
    for (int c = 0; c < columns; ++c) {
      if (dist[c] > 0.0) d[c] = std::max(d[c], numerator[c] / std::sqrt(dist[c]));
    }
  }

 private:
  double lambda_, d0_;
};

const bool registered = register_update_rule(
    "prodigy", [](const theory::OptimiserSpec& s, double lr) -> std::unique_ptr<const UpdateRule> {
      return std::make_unique<Prodigy>(lr, s.value("d0"));
    });

}  // namespace
}  // namespace fedverify::estimators
