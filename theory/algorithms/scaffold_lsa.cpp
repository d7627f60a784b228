// Scaffold's exact stationary moments on linear-sa problems (THEORY (L1), (S0)); see
// linear_sa.hpp.
//
// Numerical strategy: the stacked round map M is formed through I − M, whose blocks are written
// analytically from the local maps (no O(γ) quantity is a difference of O(1) ones; formulas in
// scaffold_lsa_stacked.hpp), and the Stein equation is solved in the Helmert coordinates of
// Σ_c ξ_c = 0 (size dN), where M contracts.
#include <fmt/format.h>

#include <stdexcept>
#include <vector>

#include "theory/algorithms/linear_sa.hpp"
#include "theory/algorithms/scaffold_lsa_stacked.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/scaffold_setting.hpp"

namespace fedverify::theory {

ScaffoldLsaStacked scaffold_lsa_stacked(const LinearSaProblem& p, const RunSetting& s) {
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
  const Matrix helmert = helmert_basis(n);
  ScaffoldLsaStacked out;
  out.dim = d;
  out.num_clients = n;
  out.t = Matrix::Zero(size, d * n);
  out.t.topLeftCorner(d, d).setIdentity();
  for (int c = 0; c < n; ++c) {
    for (int k = 0; k + 1 < n; ++k) {
      out.t.block(d * (1 + c), d * (1 + k), d, d).diagonal().setConstant(helmert(c, k));
    }
  }
  out.e_reduced = out.t.transpose() * e * out.t;
  return out;
}

Matrix scaffold_lsa_round_noise(const ScaffoldLsaStacked& st, const std::vector<Matrix>& v,
                                const RunSetting& s) {
  const int n = st.num_clients;
  const int d = st.dim;
  const double h = s.local_steps;
  Matrix vbar = Matrix::Zero(d, d);
  for (int c = 0; c < n; ++c) vbar += v[c] / n;
  Matrix qf = Matrix::Zero(d * (n + 1), d * (n + 1));
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
  return st.t.transpose() * qf * st.t;
}

ScaffoldExactMoments scaffold_exact_lsa_dense(const LinearSaProblem& p, const RunSetting& s) {
  validate(Algorithm::scaffold, s);
  require_lsa_exact_affordable(p, s, "scaffold");
  const int n = p.num_clients();
  const int d = p.dim();
  const int size = d * (n + 1);
  const ScaffoldLsaStacked st = scaffold_lsa_stacked(p, s);
  const DiscreteLyapunovSolver solver(st.e_reduced, 1.0);  // X = M X Mᵀ + Q, M = I − E
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
    const Matrix full = st.t * reduced * st.t.transpose();
    std::vector<Matrix> v;
    for (int c = 0; c < n; ++c) {
      const Eigen::Index rc = d * (1 + c);
      const Matrix cross = full.block(0, rc, d, d);
      const Matrix xi_cov = full.block(rc, rc, d, d);
      v.push_back(lsa_client_round(p, c, s.gamma, s.local_steps, out.mean.head(d),
                                   full.topLeftCorner(d, d), out.mean.segment(rc, d), &cross,
                                   &xi_cov)
                      .noise_over_gamma);
    }
    return scaffold_lsa_round_noise(st, v, s);
  };
  const Matrix reduced = lsa_stationary_covariance(solver, q, d * n, s, "scaffold");
  out.cov = symmetric_part(st.t * reduced * st.t.transpose());
  return out;
}

ScaffoldExactMoments scaffold_exact_lsa(const LinearSaProblem& p, const RunSetting& s) {
  if (const double eta = scaffold_server_lr(s); eta != 1.0) {
    throw InputError(fmt::format(
        "--server-lr: Scaffold's exact law on linear-sa problems (THEORY L1) is solved for "
        "eta_g = 1, not {:g}; on quadratic problems any eta_g (THEORY S9)",
        eta));
  }
  if (p.dim() * p.num_clients() < kLsaStructuredMinSize) return scaffold_exact_lsa_dense(p, s);
  try {
    return scaffold_exact_lsa_structured(p, s);
  } catch (const std::domain_error&) {  // an eigenbasis too ill-conditioned: the reference
    return scaffold_exact_lsa_dense(p, s);
  }
}

}  // namespace fedverify::theory
