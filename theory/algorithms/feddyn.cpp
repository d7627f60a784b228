#include "theory/algorithms/feddyn.hpp"

#include <fmt/format.h>
#include <Eigen/Eigenvalues>
#include <memory>
#include <vector>

#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/lyapunov.hpp"
#include "theory/closed_forms/trajectory.hpp"
#include "theory/problems/limits.hpp"

namespace fedverify::theory {

namespace {

// The dense Schur form of a d(N+1) map: as Scaffold's dense solve (THEORY S6).
constexpr double kFeddynSecondsPerCube = 2e-9;

void require_feddyn_affordable(const QuadraticProblem& q) {
  const double size = static_cast<double>(q.dim()) * (q.num_clients() + 1.0);
  limits::require_closed_form_time(
      "problem",
      fmt::format("FedDyn's exact moments for d = {} and N = {} clients (a system of size "
                  "d(N+1) = {:.0f})",
                  q.dim(), q.num_clients(), size),
      kFeddynSecondsPerCube * size * size * size,
      fmt::format("{:g} s x (d(N+1))^3", kFeddynSecondsPerCube),
      "use fewer clients or a smaller dimension");
}

}  // namespace

AffineRoundMap feddyn_round_map(const QuadraticProblem& q, const RunSetting& s) {
  validate(Algorithm{"feddyn"}, s);
  const int n = q.num_clients();
  const int d = q.dim();
  const int size = d * (n + 1);
  const double alpha = feddyn_alpha(s);
  const double gamma = s.gamma;
  AffineRoundMap map{Matrix::Zero(size, size), Vector::Zero(size), Matrix::Zero(size, size), gamma};
  auto blk = [d](Matrix& m, int i, int j) { return m.block(d * i, d * j, d, d); };
  const Matrix id = Matrix::Identity(d, d);
  Matrix qsum = Matrix::Zero(d, d);
  for (int c = 0; c < n; ++c) {
    const auto& cl = q.client(c);
    // THEORY-FedDyn (FD1): the local objective's Hessian is Ã_c = A_c + αI.
    const LocalSteps ls(cl.hessian + alpha * id, gamma, s.local_steps);
    const Matrix p = ls.p();                                  // P̃_c
    const Matrix pa = p * cl.hessian;                         // P̃_c A_c
    const Matrix qhat = ls.noise_sum(cl.noise_cov, ls.beta);  // Cov(n_c)/γ²
    const Vector pab = pa * cl.optimum;
    blk(map.d, 0, 0) += (2.0 / n) * pa;
    blk(map.d, 0, 1 + c) = id / (n * alpha * gamma) - (2.0 / n) * p;
    map.r.head(d) += (2.0 / n) * pab;
    blk(map.d, 1 + c, 0) = -alpha * pa;
    blk(map.d, 1 + c, 1 + c) = alpha * p;
    map.r.segment(d * (1 + c), d) = -alpha * pab;
    qsum += qhat;
    blk(map.g, 0, 1 + c) = -(2.0 * alpha * gamma / n) * qhat;
    blk(map.g, 1 + c, 0) = -(2.0 * alpha * gamma / n) * qhat;
    blk(map.g, 1 + c, 1 + c) = (alpha * alpha * gamma) * qhat;
  }
  blk(map.g, 0, 0) = (4.0 * gamma / (static_cast<double>(n) * n)) * qsum;
  return map;
}

Vector feddyn_fixed_point(const QuadraticProblem& q) {
  const int n = q.num_clients();
  const int d = q.dim();
  Vector z(d * (n + 1));
  // x* solves (Σ_c A_c) x = Σ_c A_c b_c (∇f(x*) = 0).
  Matrix a = Matrix::Zero(d, d);
  Vector ab = Vector::Zero(d);
  for (int c = 0; c < n; ++c) {
    a += q.client(c).hessian;
    ab += q.client(c).hessian * q.client(c).optimum;
  }
  const Vector x_star = a.ldlt().solve(ab);
  z.head(d) = x_star;
  for (int c = 0; c < n; ++c) {  // THEORY-FedDyn (FD2): h_c = ∇f_c(x*)
    z.segment(d * (1 + c), d) = q.gradient(c, x_star);
  }
  return z;
}

ExactMoments feddyn_exact_state(const QuadraticProblem& q, const RunSetting& s) {
  validate(Algorithm{"feddyn"}, s);
  require_feddyn_affordable(q);
  const AffineRoundMap map = feddyn_round_map(q, s);
  require_finite(map, s, "feddyn");
  // THEORY-FedDyn (FD3): one Schur form of D gives the spectral radius and the covariance.
  const StationarySolve solve = discrete_lyapunov_solve_checked(map.d, s.gamma, map.g);
  require_stationary(solve.spectral_radius, s, "feddyn");
  return {map.d.partialPivLu().solve(map.r), symmetric_part(solve.x), solve.spectral_radius};
}

ExactMoments feddyn_exact(const QuadraticProblem& q, const RunSetting& s) {
  ExactMoments m = feddyn_exact_state(q, s);
  const auto d = q.dim();
  return leading_block(m, d);
}

Matrix feddyn_small_step_cov(const QuadraticProblem& q, const RunSetting& s) {
  validate(Algorithm{"feddyn"}, s);
  const int n = q.num_clients();
  const int d = q.dim();
  const double alpha = feddyn_alpha(s);
  Matrix hbar = Matrix::Zero(d, d);
  Matrix cbar = Matrix::Zero(d, d);
  for (int c = 0; c < n; ++c) {
    hbar += q.client(c).hessian / n;
    cbar += q.client(c).noise_cov / n;
  }
  const Eigen::SelfAdjointEigenSolver<Matrix> es(hbar);
  const Vector& lam = es.eigenvalues();  // ascending
  const Matrix& v = es.eigenvectors();
  const double same = 1e-9 * lam.cwiseAbs().maxCoeff();
  Matrix out = Matrix::Zero(d, d);
  for (int i = 0; i < d;) {  // THEORY-FedDyn (FD4): one eigenvalue group [i, j) at a time
    int j = i + 1;
    while (j < d && lam(j) - lam(i) <= same) ++j;
    const Matrix basis = v.middleCols(i, j - i);
    const Matrix proj = basis * basis.transpose();  // Π_λ
    const double l = lam.segment(i, j - i).mean();
    out += proj * cbar * proj / (2.0 * l * (l + alpha));
    i = j;
  }
  return symmetric_part(out / (static_cast<double>(n) * s.local_steps));
}

namespace {

class FeddynTheory final : public AlgorithmTheory {
 public:
  bool has_first_order() const override { return false; }
  FirstOrderMoments first_order(const ExpansionCoefficients& /*k*/,
                                const RunSetting& /*s*/) const override {
    throw InputError(
        "--algo feddyn: no first-order expansion (its closed forms are exact, on quadratic "
        "problems)");
  }
  ExactMoments exact(const QuadraticProblem& q, const RunSetting& s) const override {
    return feddyn_exact(q, s);
  }
  std::optional<ExactMoments> exact_state(const QuadraticProblem& q,
                                          const RunSetting& s) const override {
    return feddyn_exact_state(q, s);
  }
  std::optional<ExactMoments> exact_linear_sa(const LinearSaProblem& p,
                                              const RunSetting& s) const override {
    const ExactMoments z = feddyn_exact_state_lsa(p, s);  // THEORY-FedDyn (FD5)
    const int d = p.dim();
    return leading_block(z, d);
  }
  std::optional<ExactMoments> exact_state_linear_sa(const LinearSaProblem& p,
                                                    const RunSetting& s) const override {
    return feddyn_exact_state_lsa(p, s);
  }
  // THEORY (T1) on the stacked state from (x0, h = 0).
  std::optional<TrajectoryMoments> exact_trajectory(const Problem& p, const RunSetting& s,
                                                    const Vector& x0, int rounds) const override {
    if (p.kind() != ProblemKind::quadratic) return std::nullopt;
    return affine_trajectory(feddyn_round_map(dynamic_cast<const QuadraticProblem&>(p), s), x0,
                             rounds);
  }
};

// Help-text position: after Scaffold (30), the other algorithm with per-client state.
constexpr int kFeddynOrder = 32;

[[maybe_unused]] const bool registered = register_algorithm(
    {.algorithm = Algorithm{"feddyn"},
     .order = kFeddynOrder,
     .summary = "FedDyn: local SGD on the dynamically regularised objective (THEORY-FedDyn FD0)",
     .theory_labels = {"FD0", "FD1", "FD2", "FD3", "FD4", "FD5"},
     .family = AlgorithmFamily::chain,
     .options = {AlgorithmOption::local_steps, AlgorithmOption::burn_in,
                 AlgorithmOption::batch_rounds},
     .parameters = {dyn_alpha_parameter()}},
    std::make_unique<FeddynTheory>());

}  // namespace
}  // namespace fedverify::theory
