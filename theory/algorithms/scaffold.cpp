#include "theory/algorithms/scaffold.hpp"

#include <fmt/format.h>
#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <cmath>
#include <memory>
#include <string>

#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/algorithms/linear_sa.hpp"
#include "theory/algorithms/scaffold_sampled.hpp"
#include "theory/algorithms/scaffold_structured.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/lyapunov.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/scaffold_setting.hpp"

namespace fedverify::theory {

FirstOrderMoments scaffold_first_order(const ExpansionCoefficients& k, const RunSetting& s) {
  validate(Algorithm::scaffold, s);
  const double gamma = s.gamma;
  const double n = k.num_clients;
  FirstOrderMoments m;
  // THEORY (S9): with a global step η_g the server's dynamics are SGD at step γη_gH on f with the
  // noise C̄/(NH) of one round's average gradient: both first-order terms scale by η_g.
  const double eta = scaffold_server_lr(s);
  m.x_star = k.constants.x_star;
  m.bias_heterogeneity = Vector::Zero(m.x_star.size());  // THEORY (S3)
  m.bias_stochastic = gamma * eta * k.b_stochastic;      // THEORY (S3), (S9)
  m.cov = (gamma * eta / n) * k.a_noise;                 // THEORY (S2), (S9)
  m.mean = m.x_star + m.bias_heterogeneity + m.bias_stochastic;
  return m;
}

ScaffoldControlVariateMoments scaffold_control_variate_first_order(const Problem& problem,
                                                                   const ExpansionCoefficients& k,
                                                                   const RunSetting& s) {
  const int n = k.num_clients;
  const double hs = s.local_steps;
  const double g = s.gamma;
  const Matrix& cbar = k.noise_at_optimum;
  ScaffoldControlVariateMoments out;
  out.num_clients = n;
  for (int c = 0; c < n; ++c) {
    for (int c2 = 0; c2 < n; ++c2) {
      if (c == c2) {  // THEORY (S4), Σ^ξ_(c,c)
        out.xi_xi.push_back((1.0 - 2.0 / n) * k.client_noise[c] / hs + cbar / (n * hs));
      } else {  // THEORY (S4), Σ^ξ_(c,c')
        out.xi_xi.push_back((cbar - k.client_noise[c] - k.client_noise[c2]) / (n * hs));
      }
    }
  }
  for (int c = 0; c < n; ++c) {  // THEORY (S4), Σ^{x,ξ}_(c), both sign candidates
    const Matrix hdiff = problem.hessian(c, k.constants.x_star) - k.constants.hessian_at_optimum;
    const Matrix first = (g / n) * k.a_noise * hdiff;
    const Matrix second = (g / n) * (k.client_noise[c] - cbar);
    out.x_xi_plus.push_back(first + second);
    out.x_xi_minus.push_back(-first + second);
  }
  return out;
}

AffineRoundMap scaffold_round_map(const QuadraticProblem& q, const RunSetting& s) {
  // THEORY (S0) on f_c = ½(x − b_c)ᵀA_c(x − b_c), noise n_c = −γ Σ_h B_c^{H−1−h} ε_h:
  //   x_c^H = B_c^H x + γ P_c (A_c b_c − ξ_c) + n_c,   x' = (1/N) Σ_c x_c^H,
  //   ξ_c'  = ξ_c + (x_c^H − x')/(γH).
  // With D̄ = (1/N) Σ P_c A_c (so B_c^H − M = γ(D̄ − P_c A_c)), divided by γ:
  //   D_xx = D̄,  D_xξc = P_c/N,  D_ξc x = −(D̄ − P_c A_c)/(γH),
  //   D_ξc ξc' = δ_cc' P_c/(γH) − P_c'/(γHN).
  const int n = q.num_clients();
  const int d = q.dim();
  const int size = d * (n + 1);
  const double gh = s.gamma * s.local_steps;
  AffineRoundMap map{Matrix::Zero(size, size), Vector::Zero(size), Matrix::Zero(size, size),
                     s.gamma};
  std::vector<Matrix> p(n), pa(n), qhat(n);
  Matrix dbar = Matrix::Zero(d, d);
  Vector rbar = Vector::Zero(d);
  Matrix qsum = Matrix::Zero(d, d);
  for (int c = 0; c < n; ++c) {
    const auto& cl = q.client(c);
    const LocalSteps ls(cl.hessian, s.gamma, s.local_steps);
    p[c] = ls.p();
    pa[c] = ls.p_a();
    qhat[c] = ls.noise_sum(cl.noise_cov, ls.beta);  // Cov(n_c)/γ²
    dbar += pa[c] / n;
    rbar += pa[c] * cl.optimum / n;
    qsum += qhat[c];
  }
  auto blk = [d](Matrix& m, int i, int j) { return m.block(d * i, d * j, d, d); };
  blk(map.d, 0, 0) = dbar;
  map.r.head(d) = rbar;
  for (int c = 0; c < n; ++c) {
    blk(map.d, 0, 1 + c) = p[c] / n;
    blk(map.d, 1 + c, 0) = -(dbar - pa[c]) / gh;
    for (int c2 = 0; c2 < n; ++c2) {
      blk(map.d, 1 + c, 1 + c2) = -p[c2] / (gh * n);
    }
    blk(map.d, 1 + c, 1 + c) += p[c] / gh;
    map.r.segment(d * (1 + c), d) = (pa[c] * q.client(c).optimum - rbar) / gh;
  }
  // Noise, divided by γ: η_x = (1/N) Σ n_c, η_ξc = (n_c − η_x)/(γH), Cov(n_c) = γ² Q̂_c.
  const double nn = static_cast<double>(n) * n;
  blk(map.g, 0, 0) = s.gamma * qsum / nn;
  for (int c = 0; c < n; ++c) {
    const Matrix xc = (qhat[c] / n - qsum / nn) / s.local_steps;
    blk(map.g, 0, 1 + c) = xc;
    blk(map.g, 1 + c, 0) = xc.transpose();
    for (int c2 = 0; c2 < n; ++c2) {
      Matrix cc = -qhat[c] / n - qhat[c2] / n + qsum / nn;
      if (c == c2) cc += qhat[c];
      blk(map.g, 1 + c, 1 + c2) = cc / (s.gamma * s.local_steps * s.local_steps);
    }
  }
  // THEORY (S9): a global step η_g moves x by η_g times the average move, x' = x + η_g(x̄ − x),
  // so x's rows of D, r and the noise scale by η_g; the variates' update reads x̄, not x', and
  // keeps its rows (Karimireddy et al.'s option II).
  if (const double eta = scaffold_server_lr(s); eta != 1.0) {
    map.d.topRows(d) *= eta;
    map.r.head(d) *= eta;
    map.g.topRows(d) *= eta;
    map.g.leftCols(d) *= eta;
  }
  return map;
}

namespace {

// THEORY (S6): an orthonormal basis E = blockdiag(I_d, Helmert ⊗ I_d) of Σ_c ξ_c = 0.
Matrix invariant_subspace_basis(int d, int n) {
  const Matrix helmert = helmert_basis(n);
  Matrix e = Matrix::Zero(d * (n + 1), d * n);
  e.topLeftCorner(d, d).setIdentity();
  for (int c = 0; c < n; ++c) {
    for (int k = 0; k + 1 < n; ++k) {
      e.block(d * (1 + c), d * (1 + k), d, d) = helmert(c, k) * Matrix::Identity(d, d);
    }
  }
  return e;
}

}  // namespace

bool scaffold_uses_structured_solve(int dim, int clients, const RunSetting& setting) {
  return static_cast<double>(dim) * (clients + 1.0) >= kScaffoldStructuredSize &&
         scaffold_server_lr(setting) == 1.0;
}

void require_scaffold_exact_affordable(const QuadraticProblem& q, const RunSetting& s) {
  const int d = q.dim();
  const int n = q.num_clients();
  const double size = static_cast<double>(d) * (n + 1.0);
  double seconds = kScaffoldStructuredSecondsPerDSquare * d * size * size;
  std::string formula = fmt::format("{:g} s x d (d(N+1))^2", kScaffoldStructuredSecondsPerDSquare);
  if (scaffold_server_lr(s) != 1.0) {  // THEORY (S9): the dense solve of (S6)
    seconds = kScaffoldDenseSecondsPerCube * size * size * size;
    formula = fmt::format("{:g} s x (d(N+1))^3 (the dense solve: --server-lr is not 1)",
                          kScaffoldDenseSecondsPerCube);
  } else if (s.gamma * s.local_steps * q.smoothness() > 1.0) {  // radius from dense eigenvalues
    seconds += kScaffoldDenseSecondsPerCube * size * size * size;
    formula += fmt::format(" + {:g} s x (d(N+1))^3 (gamma H L > 1)", kScaffoldDenseSecondsPerCube);
  }
  // "problem:" is replaced by the file name where the CLI prints the message.
  limits::require_closed_form_time(
      "problem",
      fmt::format("Scaffold's exact moments for d = {} and N = {} clients (a system of size "
                  "d(N+1) = {:.0f})",
                  d, n, size),
      seconds, formula,
      "use fewer clients or a smaller dimension (FedAvg and FedRR have no such limit)");
}

double scaffold_spectral_radius(const QuadraticProblem& q, const RunSetting& s) {
  validate(Algorithm::scaffold, s);
  if (scaffold_uses_structured_solve(q.dim(), q.num_clients(), s)) {
    return scaffold_spectral_radius_structured(q, s);
  }
  const AffineRoundMap map = scaffold_round_map(q, s);
  require_finite(map, s, "scaffold");
  const Matrix e = invariant_subspace_basis(q.dim(), q.num_clients());
  const Matrix dr = e.transpose() * map.d * e;
  // The real QR eigen-solver: half the time of the complex one that scaffold_exact uses (maps call
  // this thousands of times); the two radii agree to round-off (≈ 1e-14).
  const Eigen::EigenSolver<Matrix> es(Matrix::Identity(dr.rows(), dr.cols()) - s.gamma * dr,
                                      /*computeEigenvectors=*/false);
  return es.eigenvalues().cwiseAbs().maxCoeff();
}

double scaffold_s1_weight(const RunSetting& s, int clients) {
  const double gh = s.gamma * s.local_steps;
  return gh * gh / clients;  // THEORY (S1): ‖x‖² + (γ²H²/N) Σ_c ‖ξ_c‖²
}

double scaffold_weighted_norm(const QuadraticProblem& q, const RunSetting& s, double weight) {
  validate(Algorithm::scaffold, s);
  if (!(weight > 0.0) || !std::isfinite(weight)) {
    throw InputError(fmt::format("weight: must be positive and finite, got {}", weight));
  }
  const int d = q.dim();
  const AffineRoundMap map = scaffold_round_map(q, s);
  require_finite(map, s, "scaffold");
  // E is orthonormal and maps the ξ coordinates to ξ coordinates, so the metric restricted to
  // the subspace is diag(I_d, w I): the norm is ‖W^{1/2} Eᵀ T E W^{−1/2}‖₂.
  const Matrix e = invariant_subspace_basis(d, q.num_clients());
  Matrix t = e.transpose() * map.transition() * e;
  const double root = std::sqrt(weight);
  t.bottomLeftCorner(t.rows() - d, d) *= root;
  t.topRightCorner(d, t.cols() - d) /= root;
  return Eigen::JacobiSVD<Matrix>(t).singularValues()(0);  // THEORY (S1)
}

Matrix scaffold_second_order_cov(const ExpansionCoefficients& k) {
  const Matrix& hess = k.constants.hessian_at_optimum;
  // THEORY (S7): (1/N) 𝒜(𝐇 (𝒜C̄) 𝐇).
  return symmetric_part(lyapunov_operator(hess, symmetric_part(hess * k.a_noise * hess))) /
         k.num_clients;
}

ScaffoldExactMoments scaffold_exact(const QuadraticProblem& q, const RunSetting& s) {
  validate(Algorithm::scaffold, s);
  require_scaffold_exact_affordable(q, s);
  // The structured solve of THEORY (S6a) is written for η_g = 1; (S9) takes the dense one.
  if (scaffold_server_lr(s) != 1.0) return scaffold_exact_dense(q, s);
  return scaffold_exact_structured(q, s);
}

ScaffoldExactMoments scaffold_exact_dense(const QuadraticProblem& q, const RunSetting& s) {
  validate(Algorithm::scaffold, s);
  const int n = q.num_clients();
  const int d = q.dim();
  const AffineRoundMap map = scaffold_round_map(q, s);
  require_finite(map, s, "scaffold");
  // THEORY (S6): restrict to Σ_c ξ_c = 0 with E = blockdiag(I_d, Helmert ⊗ I_d).
  const Matrix e = invariant_subspace_basis(d, n);
  const Matrix dr = e.transpose() * map.d * e;
  const Matrix gr = e.transpose() * map.g * e;
  const Vector rr = e.transpose() * map.r;
  ScaffoldExactMoments out;
  out.dim = d;
  out.num_clients = n;
  // One Schur form of the reduced D gives both the spectral radius and the covariance.
  StationarySolve solve = discrete_lyapunov_solve_checked(dr, s.gamma, gr);
  out.spectral_radius = solve.spectral_radius;
  require_stationary(out.spectral_radius, s, "scaffold");
  out.mean = e * dr.partialPivLu().solve(rr);
  out.cov = symmetric_part(e * solve.x * e.transpose());
  return out;
}

namespace {

class ScaffoldTheory final : public AlgorithmTheory {
 public:
  FirstOrderMoments first_order(const ExpansionCoefficients& k,
                                const RunSetting& s) const override {
    return scaffold_first_order(k, s);
  }
  ExactMoments exact(const QuadraticProblem& q, const RunSetting& s) const override {
    if (s.participating != 0 && s.participating < q.num_clients()) {  // THEORY (S8): x block
      const ExactMoments state = scaffold_sampled_exact(q, s);
      const int d = q.dim();
      return leading_block(state, d);
    }
    const ScaffoldExactMoments m = scaffold_exact(q, s);
    return {m.x_mean(), m.x_cov(), m.spectral_radius};
  }
  // THEORY (T1) on the stacked state from (x0, ξ = 0): full participation (S8's sampled rounds
  // have random coefficients).
  std::optional<TrajectoryMoments> exact_trajectory(const Problem& p, const RunSetting& s,
                                                    const Vector& x0, int rounds) const override {
    if (p.kind() != ProblemKind::quadratic && !is_linear_sa(p.kind())) return std::nullopt;
    if (s.participating != 0 && s.participating < p.num_clients()) {
      throw InputError(
          "--participating: the exact trajectory of scaffold is for full "
          "participation");
    }
    if (is_linear_sa(p.kind())) {
      return scaffold_trajectory_lsa(dynamic_cast<const LinearSaProblem&>(p), s, x0, rounds);
    }
    validate(Algorithm::scaffold, s);
    return affine_trajectory(scaffold_round_map(dynamic_cast<const QuadraticProblem&>(p), s), x0,
                             rounds);
  }
  std::optional<ExactMoments> exact_state(const QuadraticProblem& q,
                                          const RunSetting& s) const override {
    ScaffoldExactMoments m = scaffold_exact(q, s);
    return ExactMoments{std::move(m.mean), std::move(m.cov), m.spectral_radius};
  }
  std::optional<ExactMoments> exact_linear_sa(const LinearSaProblem& p,
                                              const RunSetting& s) const override {
    const ScaffoldExactMoments m = scaffold_exact_lsa(p, s);  // THEORY (L1)
    return ExactMoments{m.x_mean(), m.x_cov(), m.spectral_radius};
  }
  std::optional<ExactMoments> exact_state_linear_sa(const LinearSaProblem& p,
                                                    const RunSetting& s) const override {
    ScaffoldExactMoments m = scaffold_exact_lsa(p, s);
    return ExactMoments{std::move(m.mean), std::move(m.cov), m.spectral_radius};
  }
};

// Help-text position: after FedAvg, which it corrects.
constexpr int kScaffoldOrder = 30;

[[maybe_unused]] const bool registered =
    register_algorithm({.algorithm = Algorithm::scaffold,
                        .order = kScaffoldOrder,
                        .summary = "Scaffold: FedAvg with control variates (THEORY S0)",
                        .theory_labels = {"S0", "S1", "S2", "S3", "S4", "S5", "S6", "S7", "S9"},
                        .family = AlgorithmFamily::chain,
                        .options = {AlgorithmOption::local_steps, AlgorithmOption::burn_in,
                                    AlgorithmOption::batch_rounds},
                        .parameters = {scaffold_server_lr_parameter()}},
                       std::make_unique<ScaffoldTheory>());

}  // namespace
// THEORY (S6)
std::vector<double> scaffold_transient_mse(const QuadraticProblem& q, const RunSetting& step,
                                           const Vector& x0, const Vector& x_star, int rounds) {
  const auto map = scaffold_round_map(q, step);
  const int d = q.dim();
  const Matrix t = map.transition();
  Vector m = Vector::Zero(t.rows());
  m.head(d) = x0;
  Matrix p = Matrix::Zero(t.rows(), t.cols());
  std::vector<double> mse;
  for (int r = 0; r <= rounds; ++r) {
    mse.push_back((m.head(d) - x_star).squaredNorm() + p.topLeftCorner(d, d).trace());
    m = t * m + map.gamma * map.r;
    p = t * p * t.transpose() + map.gamma * map.g;
  }
  return mse;
}

}  // namespace fedverify::theory
