#include "theory/algorithms/fedrr.hpp"

#include <algorithm>
#include <memory>

#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/algorithms/fedavg.hpp"
#include "theory/algorithms/linear_sa.hpp"
#include "theory/closed_forms/lyapunov.hpp"

namespace fedverify::theory {

FirstOrderMoments fedrr_first_order(const ExpansionCoefficients& k, const RunSetting& s) {
  validate(Algorithm::fedrr, s);
  const double gamma = s.gamma;
  const double n = k.num_clients;
  FirstOrderMoments m;
  m.x_star = k.constants.x_star;
  const Eigen::Index d = m.x_star.size();
  m.bias_heterogeneity = Vector::Zero(d);  // THEORY (R1)
  m.bias_stochastic = Vector::Zero(d);     // THEORY (R1)
  m.cov = (6.0 * gamma / n) * k.a_noise;   // THEORY (R2), independent noise
  m.mean = m.x_star + m.bias_heterogeneity + m.bias_stochastic;
  return m;
}

ExactMoments fedrr_exact(const QuadraticProblem& q, const RunSetting& s, NoiseCoupling coupling) {
  validate(Algorithm::fedrr, s);
  // Joint chain of (x^{(γ)}, x^{(2γ)}) written with the base step γ: D = blockdiag(D_γ, 2 D_2γ).
  const int n = q.num_clients();
  const int d = q.dim();
  const RunSetting s2{2.0 * s.gamma, s.local_steps};
  const AffineRoundMap m1 = fedavg_round_map(q, s);
  const AffineRoundMap m2 = fedavg_round_map(q, s2);
  require_finite(m1, s, "fedrr (the run at gamma)");
  require_finite(m2, s, "fedrr (the run at 2*gamma)");
  ExactMoments out;
  out.spectral_radius =
      std::max(symmetric_spectral_radius(m1.d, s.gamma), symmetric_spectral_radius(m2.d, s2.gamma));
  require_stationary(out.spectral_radius, s, "fedrr (the run at 2*gamma)");
  Matrix dj = Matrix::Zero(2 * d, 2 * d);
  Matrix gj = Matrix::Zero(2 * d, 2 * d);
  dj.topLeftCorner(d, d) = m1.d;
  dj.bottomRightCorner(d, d) = 2.0 * m2.d;
  gj.topLeftCorner(d, d) = m1.g;
  gj.bottomRightCorner(d, d) = 2.0 * m2.g;  // Cov(η₂)/γ = 2 · Cov(η₂)/(2γ)
  if (coupling == NoiseCoupling::shared) {
    // Cov(η₁, η₂) = (2γ²/N²) Σ_c Σ_h B_{c,γ}^h S_c B_{c,2γ}^h (Σ_c p_c² with weights), over γ.
    Matrix cross = Matrix::Zero(d, d);
    for (int c = 0; c < n; ++c) {
      const auto& cl = q.client(c);
      const LocalSteps l1(cl.hessian, s.gamma, s.local_steps);
      const LocalSteps l2(cl.hessian, s2.gamma, s.local_steps);
      cross += noise_factor(q, c) * l1.noise_sum(cl.noise_cov, l2.beta);  // p_c² (A1)
    }
    cross *= 2.0 * s.gamma / noise_divisor(q);
    gj.topRightCorner(d, d) = cross;
    gj.bottomLeftCorner(d, d) = cross.transpose();
  }
  const Matrix x = stationary_covariance(dj, gj, s, "fedrr");
  const Vector mean1 = m1.d.ldlt().solve(m1.r);
  const Vector mean2 = m2.d.ldlt().solve(m2.r);
  out.mean = 2.0 * mean1 - mean2;  // THEORY (R1)
  const Matrix x11 = x.topLeftCorner(d, d), x22 = x.bottomRightCorner(d, d);
  const Matrix x12 = x.topRightCorner(d, d);
  out.cov = symmetric_part(4.0 * x11 - 2.0 * (x12 + x12.transpose()) + x22);  // THEORY (R2)
  return out;
}

ExactMoments fedrr_exact_lsa(const LinearSaProblem& p, const RunSetting& s) {
  validate(Algorithm::fedrr, s);
  RunSetting s2 = s;
  s2.gamma = 2.0 * s.gamma;
  const ExactMoments m1 = fedavg_exact_lsa(p, s);
  const ExactMoments m2 = fedavg_exact_lsa(p, s2);
  ExactMoments out;
  out.mean = 2.0 * m1.mean - m2.mean;               // THEORY (R1)
  out.cov = symmetric_part(4.0 * m1.cov + m2.cov);  // THEORY (R2), independent runs
  out.spectral_radius = std::max(m1.spectral_radius, m2.spectral_radius);
  return out;
}

namespace {

class FedrrTheory final : public AlgorithmTheory {
 public:
  FirstOrderMoments first_order(const ExpansionCoefficients& k,
                                const RunSetting& s) const override {
    return fedrr_first_order(k, s);
  }
  ExactMoments exact(const QuadraticProblem& q, const RunSetting& s) const override {
    return fedrr_exact(q, s);  // the default, independent noise: as first_order
  }
  std::optional<ExactMoments> exact_linear_sa(const LinearSaProblem& p,
                                              const RunSetting& s) const override {
    return fedrr_exact_lsa(p, s);  // THEORY (L1), (R2) with independent runs
  }
  // THEORY (T1) and (R2) at every round: two independent FedAvg runs from the same x0 (the
  // default coupling, as exact()).
  std::optional<TrajectoryMoments> exact_trajectory(const Problem& p, const RunSetting& s,
                                                    const Vector& x0, int rounds) const override {
    validate(Algorithm::fedrr, s);
    RunSetting twice = s;
    twice.gamma = 2.0 * s.gamma;
    std::optional<TrajectoryMoments> low = fedavg_trajectory(p, s, x0, rounds);
    std::optional<TrajectoryMoments> high = fedavg_trajectory(p, twice, x0, rounds);
    if (!low || !high) return std::nullopt;
    return richardson_trajectory(*low, *high);
  }
};

// Help-text position: after Scaffold, the last chain algorithm.
constexpr int kFedrrOrder = 40;

[[maybe_unused]] const bool registered = register_algorithm(
    {.algorithm = Algorithm::fedrr,
     .order = kFedrrOrder,
     .summary = "FedRR: Richardson-Romberg 2x(gamma) - x(2 gamma) of FedAvg (THEORY R0)",
     .theory_labels = {"R0", "R1", "R2", "A1"},
     .family = AlgorithmFamily::chain,
     .options = {AlgorithmOption::local_steps, AlgorithmOption::burn_in,
                 AlgorithmOption::batch_rounds, AlgorithmOption::noise},
     .weighted_clients = true},
    std::make_unique<FedrrTheory>());

}  // namespace
}  // namespace fedverify::theory
