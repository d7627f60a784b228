#include "theory/algorithms/fedavg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/algorithms/linear_sa.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/lyapunov.hpp"

namespace fedverify::theory {

FirstOrderMoments fedavg_first_order(const ExpansionCoefficients& k, const RunSetting& s) {
  validate(Algorithm::fedavg, s);
  const double gamma = s.gamma;
  const double n = k.num_clients;
  FirstOrderMoments m;
  m.x_star = k.constants.x_star;
  m.bias_heterogeneity = gamma * (s.local_steps - 1) * k.b_heterogeneity;  // THEORY (F3)
  m.bias_stochastic = gamma * k.b_stochastic;                              // THEORY (F3)
  m.cov = (gamma / n) * k.a_noise;                                         // THEORY (F2)
  m.mean = m.x_star + m.bias_heterogeneity + m.bias_stochastic;
  return m;
}

AffineRoundMap fedavg_round_map(const QuadraticProblem& q, const RunSetting& s) {
  const int n = q.num_clients();
  const int d = q.dim();
  AffineRoundMap map{Matrix::Zero(d, d), Vector::Zero(d), Matrix::Zero(d, d), s.gamma};
  for (int c = 0; c < n; ++c) {
    const auto& cl = q.client(c);
    const LocalSteps ls(cl.hessian, s.gamma, s.local_steps);
    const Matrix pa = ls.p_a();
    // THEORY (F5), with client weights (A1): I − M = γ Σ_c p_c P_c A_c, r = γ Σ_c p_c P_c A_c b_c,
    // Q = γ² Σ_c p_c² Σ_h B^h S B^h (p_c = 1/N: the printed (F5)).
    map.d += weighted_term(q, c, pa);
    map.r += weighted_term(q, c, Vector(pa * cl.optimum));
    map.g += noise_factor(q, c) * ls.noise_sum(cl.noise_cov, ls.beta);
  }
  map.g *= s.gamma / noise_divisor(q);
  return map;
}

ExactMoments fedavg_exact(const QuadraticProblem& q, const RunSetting& s) {
  validate(Algorithm::fedavg, s);
  return symmetric_map_moments(fedavg_round_map(q, s), s, "fedavg");  // THEORY (F5)
}

Vector fedavg_fixed_point(const QuadraticProblem& q, const RunSetting& s) {
  validate(Algorithm::fedavg, s);
  // THEORY (F4): x_{γ,H} = (Σ_c (I − B_c^H))⁻¹ Σ_c (I − B_c^H) b_c.
  // With client weights, Σ_c p_c in both sums (A1).
  const int d = q.dim();
  Matrix lhs = Matrix::Zero(d, d);
  Vector rhs = Vector::Zero(d);
  for (int c = 0; c < q.num_clients(); ++c) {
    const auto& cl = q.client(c);
    const Matrix i_minus_bh = weighted_term(
        q, c,
        Matrix(Matrix::Identity(d, d) - LocalSteps(cl.hessian, s.gamma, s.local_steps).b_power()));
    lhs += i_minus_bh;
    rhs += i_minus_bh * cl.optimum;
  }
  return lhs.partialPivLu().solve(rhs);
}

double fedavg_contraction_factor(const QuadraticProblem& q, const RunSetting& s) {
  // M is symmetric, so its operator norm is its spectral radius.
  return symmetric_spectral_radius(fedavg_round_map(q, s).d, s.gamma);
}

double FedavgLargeHLimit::gap_bound(int local_steps) const {
  const double qh = std::pow(q, local_steps);
  return qh < 1.0 ? qh / (1.0 - qh) * spread : std::numeric_limits<double>::infinity();
}

FedavgLargeHLimit fedavg_large_h_limit(const QuadraticProblem& problem, double gamma) {
  // THEORY (F6): x_{γ,H} → x̄ = (1/N) Σ_c b_c (Σ_c p_c b_c, A1) when every ρ(I − γA_c) < 1.
  const int n = problem.num_clients();
  FedavgLargeHLimit out;
  out.limit = Vector::Zero(problem.dim());
  for (int c = 0; c < n; ++c) {
    const auto& cl = problem.client(c);
    const Vector a =
        Eigen::SelfAdjointEigenSolver<Matrix>(cl.hessian, Eigen::EigenvaluesOnly).eigenvalues();
    out.q = std::max(out.q, (Vector::Ones(a.size()) - gamma * a).cwiseAbs().maxCoeff());
    out.limit += weighted_term(problem, c, cl.optimum);
  }
  if (!(gamma > 0.0 && out.q < 1.0)) {
    throw InputError(fmt::format(
        "--gamma: FedAvg's stationary mean has no limit as H grows at gamma = {} (largest "
        "|1 - gamma a| over the client Hessians' eigenvalues a = {:.6g}; needs 0 < gamma < 2/L)",
        gamma, out.q));
  }
  for (int c = 0; c < n; ++c) {
    out.spread += weighted_term(problem, c, (problem.client(c).optimum - out.limit).norm());
  }
  return out;
}

FedavgSecondOrder fedavg_second_order(const QuadraticProblem& q, const ExpansionCoefficients& k,
                                      int local_steps) {
  if (!q.equal_weights()) {
    throw InputError(
        "clients: FedAvg's second-order terms (THEORY (F7)) are derived for equal client weights "
        "only");
  }
  const int n = q.num_clients();
  const int d = q.dim();
  const double h = local_steps;
  const Matrix& hess = k.constants.hessian_at_optimum;
  const Vector& x_star = k.constants.x_star;
  const Matrix& y = k.a_noise;  // 𝒜C̄
  Matrix m2 = Matrix::Zero(d, d);
  Matrix as = Matrix::Zero(d, d);
  Vector a2_grad = Vector::Zero(d);
  for (int c = 0; c < n; ++c) {
    const auto& cl = q.client(c);
    const Matrix a2 = cl.hessian * cl.hessian;
    m2 += a2 / n;
    as += (cl.hessian * cl.noise_cov + cl.noise_cov * cl.hessian) / n;
    a2_grad += a2 * q.gradient(c, x_star) / n;
  }
  const auto hess_ldlt = hess.ldlt();
  FedavgSecondOrder out;
  // THEORY (F7): c₂(H) = ((H−1)²/2) 𝐇⁻¹M₂ b_h − ((H−1)(H−2)/6) 𝐇⁻¹ (1/N) Σ_c A_c² ∇f_c(x*).
  out.mean = hess_ldlt.solve((h - 1) * (h - 1) / 2 * (m2 * k.b_heterogeneity) -
                             (h - 1) * (h - 2) / 6 * a2_grad);
  // THEORY (F7): X₁(H) = (1/N) 𝒜[((H−1)/2)(M₂Y + YM₂ − (1/N) Σ_c (A_cS_c + S_cA_c)) + H 𝐇Y𝐇].
  const Matrix inner = (h - 1) / 2 * (m2 * y + y * m2 - as) + h * hess * y * hess;
  out.cov = symmetric_part(lyapunov_operator(hess, symmetric_part(inner))) / n;
  return out;
}

AverageDrift average_drift(const Problem& problem, const Vector& x_star, const RunSetting& s) {
  validate(Algorithm::fedavg, s);
  AverageDrift out;
  out.g = Vector::Zero(problem.dim());
  for (int c = 0; c < problem.num_clients(); ++c) {
    Vector x = x_star;
    Vector client_sum = Vector::Zero(problem.dim());
    for (int h = 0; h < s.local_steps; ++h) {  // THEORY (N5): local paths from x*
      const Vector grad = problem.gradient(c, x);
      client_sum += grad;
      x -= s.gamma * grad;
    }
    out.g += weighted_term(problem, c, client_sum);  // Σ_c p_c with client weights (A1)
  }
  out.g /= static_cast<double>(s.local_steps);
  out.zeta = out.g.squaredNorm();
  out.round_step = -s.gamma * s.local_steps * out.g;  // T(x*) − x* = −γH g
  return out;
}

Vector fedavg_deterministic_round(const Problem& problem, const RunSetting& s, const Vector& x) {
  Vector next = Vector::Zero(x.size());
  for (int c = 0; c < problem.num_clients(); ++c) {
    Vector y = x;
    for (int h = 0; h < s.local_steps; ++h) y -= s.gamma * problem.gradient(c, y);  // (F0)
    next += weighted_term(problem, c, y);  // Σ_c p_c y_c (A1)
  }
  return next;
}

Vector fedavg_deterministic_fixed_point(const Problem& problem, const RunSetting& s,
                                        const Vector& start, double tolerance) {
  validate(Algorithm::fedavg, s);
  if (!(s.gamma * problem.smoothness() <= 1.0)) {
    throw InputError(fmt::format(
        "--gamma: the deterministic FedAvg round is a contraction only for gamma <= 1/L = {:.6g}, "
        "got {:.6g}",
        1.0 / problem.smoothness(), s.gamma));
  }
  // THEORY (F1): T is ρ-Lipschitz, so ‖x − x_{γ,H}‖ ≤ ‖T(x) − x‖/(1 − ρ).
  const double rho = std::pow(1.0 - s.gamma * problem.strong_convexity(), s.local_steps);
  Vector x = start;
  // At most log(‖T(x₀) − x₀‖/tolerance)/(1 − ρ) rounds; the cap only guards against a μ of 0.
  const long cap = 100 + static_cast<long>(std::ceil(200.0 / std::max(1.0 - rho, 1e-12)));
  for (long t = 0; t < cap; ++t) {
    const Vector next = fedavg_deterministic_round(problem, s, x);
    const double step = (next - x).norm();
    x = next;
    if (step <= tolerance * (1.0 - rho)) return x;
  }
  throw InputError(
      fmt::format("--gamma: the deterministic FedAvg fixed point did not converge in {} rounds "
                  "(contraction factor {:.6g})",
                  cap, rho));
}

DriftBiasBound drift_bias_bound(const AverageDrift& drift, double rho) {
  // THEORY (F8): ‖x* − x_{γ,H}‖ ≤ ‖x* − T(x*)‖ + ρ‖x* − x_{γ,H}‖ and
  // ‖T(x*) − x*‖ ≤ ‖T(x*) − T(x_{γ,H})‖ + ‖x_{γ,H} − x*‖ ≤ (1 + ρ)‖x_{γ,H} − x*‖.
  const double step = drift.round_step.norm();
  return {step / (1.0 + rho),
          rho < 1.0 ? step / (1.0 - rho) : std::numeric_limits<double>::infinity()};
}

std::optional<TrajectoryMoments> fedavg_trajectory(const Problem& p, const RunSetting& s,
                                                   const Vector& x0, int rounds) {
  validate(Algorithm::fedavg, s);
  if (p.kind() == ProblemKind::quadratic) {
    return affine_trajectory(fedavg_round_map(dynamic_cast<const QuadraticProblem&>(p), s), x0,
                             rounds);
  }
  if (is_linear_sa(p.kind())) {
    return fedavg_trajectory_lsa(dynamic_cast<const LinearSaProblem&>(p), s, x0, rounds);
  }
  return std::nullopt;
}

namespace {

class FedavgTheory final : public AlgorithmTheory {
 public:
  FirstOrderMoments first_order(const ExpansionCoefficients& k,
                                const RunSetting& s) const override {
    return fedavg_first_order(k, s);
  }
  ExactMoments exact(const QuadraticProblem& q, const RunSetting& s) const override {
    return fedavg_exact(q, s);
  }
  std::optional<ExactMoments> exact_linear_sa(const LinearSaProblem& p,
                                              const RunSetting& s) const override {
    return fedavg_exact_lsa(p, s);  // THEORY (L1)
  }
  std::optional<TrajectoryMoments> exact_trajectory(const Problem& p, const RunSetting& s,
                                                    const Vector& x0, int rounds) const override {
    return fedavg_trajectory(p, s, x0, rounds);  // THEORY (T1)
  }
};

// Help-text position: second, after SGD (its H = 1 special case).
constexpr int kFedavgOrder = 20;

[[maybe_unused]] const bool registered = register_algorithm(
    {.algorithm = Algorithm::fedavg,
     .order = kFedavgOrder,
     .summary = "FedAvg: H local SGD steps per client, then averaging (THEORY F0)",
     .theory_labels = {"F0", "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "N5", "L1", "A1"},
     .family = AlgorithmFamily::chain,
     .options = {AlgorithmOption::local_steps, AlgorithmOption::burn_in,
                 AlgorithmOption::batch_rounds},
     .weighted_clients = true},
    std::make_unique<FedavgTheory>());

}  // namespace
}  // namespace fedverify::theory
