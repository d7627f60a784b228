#include "theory/algorithms/fednova.hpp"

#include <Eigen/Cholesky>
#include <memory>
#include <numeric>

#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/algorithms/linear_sa.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/lyapunov.hpp"

namespace fedverify::theory {

AffineRoundMap unequal_steps_round_map(const QuadraticProblem& q, const RunSetting& s,
                                       UnequalStepsAggregation aggregation) {
  const int n = q.num_clients();
  const int d = q.dim();
  const std::vector<double> steps = per_client_values(s, kClientStepsKey, n);
  const double mean_steps = std::accumulate(steps.begin(), steps.end(), 0.0) / n;  // τ_eff = H̄
  AffineRoundMap map{Matrix::Zero(d, d), Vector::Zero(d), Matrix::Zero(d, d), s.gamma};
  for (int c = 0; c < n; ++c) {
    const auto& cl = q.client(c);
    const int h = static_cast<int>(steps[static_cast<std::size_t>(c)]);
    // THEORY (A2): the normalised update (x − y_c)/H_c, × H̄; plain FedAvg: x − y_c.
    const double w = aggregation == UnequalStepsAggregation::normalised ? mean_steps / h : 1.0;
    const LocalSteps ls(cl.hessian, s.gamma, h);
    const Matrix pa = ls.p_a();
    map.d += (w / n) * pa;
    map.r += (w / n) * (pa * cl.optimum);
    map.g += (w * w) * ls.noise_sum(cl.noise_cov, ls.beta);
  }
  map.g *= s.gamma / (static_cast<double>(n) * n);
  return map;
}

AffineRoundMap fednova_round_map(const QuadraticProblem& q, const RunSetting& s) {
  return unequal_steps_round_map(q, s, UnequalStepsAggregation::normalised);
}

ExactMoments unequal_steps_exact(const QuadraticProblem& q, const RunSetting& s,
                                 UnequalStepsAggregation aggregation) {
  validate(Algorithm{"fednova"}, s);
  return symmetric_map_moments(unequal_steps_round_map(q, s, aggregation), s,
                               aggregation == UnequalStepsAggregation::normalised
                                   ? "fednova"
                                   : "fedavg with unequal local steps");
}

Vector surrogate_optimum(const QuadraticProblem& q, const RunSetting& s) {
  const int n = q.num_clients();
  const std::vector<double> steps = per_client_values(s, kClientStepsKey, n);
  Matrix a = Matrix::Zero(q.dim(), q.dim());
  Vector r = Vector::Zero(q.dim());
  for (int c = 0; c < n; ++c) {
    const double h = steps[static_cast<std::size_t>(c)];
    a += h * q.client(c).hessian;  // THEORY (A2a)
    r += h * (q.client(c).hessian * q.client(c).optimum);
  }
  return a.ldlt().solve(r);
}

Matrix unequal_steps_first_order_cov(const QuadraticProblem& q, const RunSetting& s,
                                     UnequalStepsAggregation aggregation) {
  const int n = q.num_clients();
  const std::vector<double> steps = per_client_values(s, kClientStepsKey, n);
  const double mean_steps = std::accumulate(steps.begin(), steps.end(), 0.0) / n;
  Matrix d0 = Matrix::Zero(q.dim(), q.dim()), q0 = Matrix::Zero(q.dim(), q.dim());
  for (int c = 0; c < n; ++c) {
    const double h = steps[static_cast<std::size_t>(c)];
    const double w = aggregation == UnequalStepsAggregation::normalised ? mean_steps / h : 1.0;
    d0 += (w * h / n) * q.client(c).hessian;  // THEORY (A2b)
    q0 += (w * w * h / (static_cast<double>(n) * n)) * q.client(c).noise_cov;
  }
  return s.gamma * lyapunov_operator(d0, q0);
}

ExactMoments fednova_exact(const QuadraticProblem& q, const RunSetting& s) {
  return unequal_steps_exact(q, s, UnequalStepsAggregation::normalised);  // THEORY (A2)
}

namespace {

void require_fixed_steps(const RunSetting& s) {
  if (random_steps(s)) {
    throw InputError(
        "--random-steps: the exact law with random local steps (THEORY (A2c)) is on quadratic "
        "problems, stationary; simulate the others");
  }
}

class FednovaTheory final : public AlgorithmTheory {
 public:
  bool has_first_order() const override { return false; }
  FirstOrderMoments first_order(const ExpansionCoefficients& /*k*/,
                                const RunSetting& /*s*/) const override {
    throw InputError(
        "--algo fednova: no first-order expansion (its closed forms are exact, on "
        "quadratic problems)");
  }
  ExactMoments exact(const QuadraticProblem& q, const RunSetting& s) const override {
    if (random_steps(s)) return random_steps_exact(q, s, UnequalStepsAggregation::normalised);
    return fednova_exact(q, s);
  }
  std::optional<ExactMoments> exact_linear_sa(const LinearSaProblem& p,
                                              const RunSetting& s) const override {
    require_fixed_steps(s);
    return unequal_steps_exact_lsa(p, s, UnequalStepsAggregation::normalised);  // (A2), (L1)
  }
  std::optional<TrajectoryMoments> exact_trajectory(const Problem& p, const RunSetting& s,
                                                    const Vector& x0, int rounds) const override {
    require_fixed_steps(s);
    if (is_linear_sa(p.kind())) {  // THEORY (T1)
      return unequal_steps_trajectory_lsa(dynamic_cast<const LinearSaProblem&>(p), s, x0, rounds,
                                          UnequalStepsAggregation::normalised);
    }
    if (p.kind() != ProblemKind::quadratic) return std::nullopt;
    return affine_trajectory(fednova_round_map(dynamic_cast<const QuadraticProblem&>(p), s), x0,
                             rounds);
  }
};

// Help-text position: after FedAvg, of which it is the per-client-H generalisation.
constexpr int kFednovaOrder = 25;

[[maybe_unused]] const bool registered = register_algorithm(
    {.algorithm = Algorithm{"fednova"},
     .order = kFednovaOrder,
     .summary = "FedNova: H_c local SGD steps on client c, normalised averaging (THEORY A2)",
     .theory_labels = {"A2", "A2c"},
     .family = AlgorithmFamily::chain,
     .options = {AlgorithmOption::burn_in, AlgorithmOption::batch_rounds},
     .parameters = {client_steps_parameter(), random_steps_parameter()}},
    std::make_unique<FednovaTheory>());

}  // namespace
}  // namespace fedverify::theory
