// Scaffold's exact finite-time law on linear-sa problems (THEORY (T1) with (L1)'s round, (S0)); see
// linear_sa.hpp.
//
// The stacked state z = (x, ξ_1, …, ξ_N) starts at (x₀, 0, …, 0), as the samplers start it, so
// Σ_c ξ_c = 0 at every round and z − z* lies in the span of T (scaffold_lsa_stacked.hpp), z* the
// fixed point of the mean field (x*, −(Ā_c x* − b̄_c)). In the Helmert coordinates u = Tᵀ(z − z*)
//     E u' = M_T E u,    Cov u' = M_T Cov(u) M_Tᵀ + Tᵀ Q(E z, Cov z) T,    M_T = I − Tᵀ(I − M)T,
// where Q is the clients' noise of one round started from the CURRENT moments (lsa_client_round:
// the noise of A(Z)y − b(Z) depends on the mean of y, not only on its covariance) — the same Q as
// the stationary solve's, evaluated along the way instead of at the fixed point.
#include <fmt/format.h>

#include <vector>

#include "theory/algorithms/linear_sa.hpp"
#include "theory/algorithms/scaffold_lsa_stacked.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/trajectory.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/scaffold_setting.hpp"

namespace fedverify::theory {

TrajectoryMoments scaffold_trajectory_lsa(const LinearSaProblem& p, const RunSetting& s,
                                          const Vector& x0, int rounds) {
  require_trajectory_rounds(rounds);
  require_with_replacement(p, "scaffold's trajectory");
  validate(Algorithm::scaffold, s);
  if (const double eta = scaffold_server_lr(s); eta != 1.0) {
    throw InputError(fmt::format(
        "--server-lr: Scaffold's exact trajectory on linear-sa problems (THEORY L1) is for eta_g "
        "= 1, not {:g}",
        eta));
  }
  const int n = p.num_clients();
  const int d = p.dim();
  const double reduced = static_cast<double>(d) * n;
  limits::require_closed_form_time(
      "--rounds",
      fmt::format("the exact trajectory of scaffold over T = {} rounds on this linear-sa problem",
                  rounds),
      rounds * (lsa_exact_seconds(p, s) / kLsaMinimumPasses +
                4.0 * reduced * reduced * reduced * limits::kFastestSecondsPerFlop),
      "a lower bound: T passes of N·H local steps and T products of (dN)² matrices",
      "use fewer rounds, clients or local steps");
  const ScaffoldLsaStacked st = scaffold_lsa_stacked(p, s);
  const Eigen::Index size = st.t.cols();
  const Matrix m = Matrix::Identity(size, size) - st.e_reduced;
  Vector z_star = Vector::Zero(st.t.rows());
  z_star.head(d) = p.solution();
  for (int c = 0; c < n; ++c) z_star.segment(d * (1 + c), d) = -p.gradient(c, p.solution());
  Vector start = Vector::Zero(st.t.rows());
  start.head(d) = x0;
  Vector u = st.t.transpose() * (start - z_star);
  Matrix cov = Matrix::Zero(size, size);
  TrajectoryMoments out;
  out.mean.reserve(static_cast<std::size_t>(rounds) + 1);
  out.trace_cov.reserve(static_cast<std::size_t>(rounds) + 1);
  out.mean.push_back(x0);
  out.trace_cov.push_back(0.0);
  std::vector<Matrix> v(n);
  for (int t = 1; t <= rounds; ++t) {
    const Vector z = z_star + st.t * u;
    const Matrix full = st.t * cov * st.t.transpose();
    for (int c = 0; c < n; ++c) {
      const Eigen::Index rc = d * (1 + c);
      const Matrix cross = full.block(0, rc, d, d);
      const Matrix xi_cov = full.block(rc, rc, d, d);
      v[c] = lsa_client_round(p, c, s.gamma, s.local_steps, z.head(d), full.topLeftCorner(d, d),
                              z.segment(rc, d), &cross, &xi_cov)
                 .noise_over_gamma;
    }
    cov = symmetric_part(m * cov * m.transpose() + scaffold_lsa_round_noise(st, v, s));
    u = m * u;
    out.mean.push_back(z_star.head(d) + u.head(d));
    out.trace_cov.push_back(cov.topLeftCorner(d, d).trace());
    require_finite_trajectory(out, t);
  }
  return out;
}

}  // namespace fedverify::theory
