// Scaffold's exact stationary moments on linear-sa problems (THEORY (L1), (S0)); see
// linear_sa.hpp.
//
// Numerical strategy: the stacked round map M is formed through I − M, whose blocks are written
// analytically from the local maps (no O(γ) quantity is a difference of O(1) ones):
//   (I − M)_xx = γD,  (I − M)_{x,ξ_e} = γP_e/N,  (I − M)_{ξ_c,x} = (P_cĀ_c − D)/H,
//   (I − M)_{ξ_c,ξ_e} = δ_ce P_c/H − P_e/(NH),     D = (1/N) Σ_c P_c Ā_c,
// and the Stein equation is solved in the Helmert coordinates of Σ_c ξ_c = 0 (size dN), where
// M contracts. With ε_c the noise of client c's H steps and Ṽ_c = Cov(ε_c)/γ, the noise of a
// round (x' = (1/N)Σ_c y_c, ξ_c' = ξ_c + (y_c − x')/(γH)) has the blocks
//   Q_xx = γ V̄/N,  Q_{x,ξ_c} = (Ṽ_c − V̄)/(NH),
//   Q_{ξ_c,ξ_e} = (δ_ce Ṽ_c − (Ṽ_c + Ṽ_e)/N + V̄/N)/(γH²),   V̄ = (1/N) Σ_c Ṽ_c.
#include <fmt/format.h>

#include <stdexcept>
#include <vector>

#include "theory/algorithms/linear_sa.hpp"
#include "theory/base/input_error.hpp"

namespace fedverify::theory {

ScaffoldExactMoments scaffold_exact_lsa_dense(const LinearSaProblem& p, const StepSetting& s) {
  validate(Algorithm::scaffold, s);
  const int n = p.num_clients();
  const int d = p.dim();
  const int size = d * (n + 1);
  const double h = s.local_steps;
  std::vector<LsaLocalMap> local;
  Matrix dbar = Matrix::Zero(d, d);
  for (int c = 0; c < n; ++c) {
    local.push_back(lsa_local_map(p.mean_a(c), s.gamma, s.local_steps));
    dbar += local.back().p * p.mean_a(c) / n;
  }
  Matrix e = Matrix::Zero(size, size);  // I − M, stacked (x, ξ_1, …, ξ_N)
  e.topLeftCorner(d, d) = s.gamma * dbar;
  for (int c = 0; c < n; ++c) {
    const Eigen::Index rc = d * (1 + c);
    e.block(0, rc, d, d) = s.gamma * local[c].p / n;
    e.block(rc, 0, d, d) = (local[c].p * p.mean_a(c) - dbar) / h;
    for (int c2 = 0; c2 < n; ++c2) {
      e.block(rc, d * (1 + c2), d, d) = -local[c2].p / (n * h);
    }
    e.block(rc, rc, d, d) += local[c].p / h;
  }
  if (!e.allFinite()) {
    throw InputError(fmt::format(
        "--gamma: the round map of scaffold overflows double precision at gamma = {}", s.gamma));
  }
  // T = blockdiag(I_d, Helmert ⊗ I_d): orthonormal basis of Σ_c ξ_c = 0.
  const Matrix helmert = helmert_basis(n);
  Matrix t = Matrix::Zero(size, d * n);
  t.topLeftCorner(d, d).setIdentity();
  for (int c = 0; c < n; ++c) {
    for (int k = 0; k + 1 < n; ++k) {
      t.block(d * (1 + c), d * (1 + k), d, d).diagonal().setConstant(helmert(c, k));
    }
  }
  const Matrix e_reduced = t.transpose() * e * t;
  const DiscreteLyapunovSolver solver(e_reduced, 1.0);  // X = M X Mᵀ + Q, M = I − E
  ScaffoldExactMoments out;
  out.dim = d;
  out.num_clients = n;
  out.spectral_radius = solver.spectral_radius();
  require_stationary(out.spectral_radius, s, "scaffold");
  if (!solver.stable()) require_stationary(1.0, s, "scaffold");
  // The mean: the fixed point of the mean field's round, x = x*, ξ_c = −(Ā_c x* − b̄_c).
  out.mean = Vector::Zero(size);
  out.mean.head(d) = p.solution();
  for (int c = 0; c < n; ++c) out.mean.segment(d * (1 + c), d) = -p.gradient(c, p.solution());
  const auto q = [&](const Matrix& reduced) {
    const Matrix full = t * reduced * t.transpose();
    std::vector<Matrix> v;
    Matrix vbar = Matrix::Zero(d, d);
    for (int c = 0; c < n; ++c) {
      const Eigen::Index rc = d * (1 + c);
      const Matrix cross = full.block(0, rc, d, d);
      const Matrix xi_cov = full.block(rc, rc, d, d);
      v.push_back(lsa_client_round(p, c, s.gamma, s.local_steps, out.mean.head(d),
                                   full.topLeftCorner(d, d), out.mean.segment(rc, d), &cross,
                                   &xi_cov)
                      .noise_over_gamma);
      vbar += v.back() / n;
    }
    Matrix qf = Matrix::Zero(size, size);
    qf.topLeftCorner(d, d) = s.gamma * vbar / n;
    for (int c = 0; c < n; ++c) {
      const Eigen::Index rc = d * (1 + c);
      qf.block(0, rc, d, d) = (v[c] - vbar) / (n * h);
      qf.block(rc, 0, d, d) = qf.block(0, rc, d, d).transpose();
      for (int c2 = 0; c2 < n; ++c2) {
        Matrix block = (vbar / n - (v[c] + v[c2]) / n) / (s.gamma * h * h);
        if (c2 == c) block += v[c] / (s.gamma * h * h);
        qf.block(rc, d * (1 + c2), d, d) = block;
      }
    }
    return Matrix(t.transpose() * qf * t);
  };
  const Matrix reduced = lsa_stationary_covariance(solver, q, d * n, s, "scaffold");
  out.cov = symmetric_part(t * reduced * t.transpose());
  return out;
}

ScaffoldExactMoments scaffold_exact_lsa(const LinearSaProblem& p, const StepSetting& s) {
  if (p.dim() * p.num_clients() < kLsaStructuredMinSize) return scaffold_exact_lsa_dense(p, s);
  try {
    return scaffold_exact_lsa_structured(p, s);
  } catch (const std::domain_error&) {  // an eigenbasis too ill-conditioned: the reference
    return scaffold_exact_lsa_dense(p, s);
  }
}

}  // namespace fedverify::theory
