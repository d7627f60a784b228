// Mime's exact law on linear-sa problems (THEORY-Mime (MI3)); see mime.hpp.
#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <vector>

#include "theory/algorithms/local_epochs.hpp"
#include "theory/algorithms/mime.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/augmented_moments.hpp"
#include "theory/closed_forms/linear_sa_moments.hpp"
#include "theory/closed_forms/trajectory.hpp"
#include "theory/problems/limits.hpp"

namespace fedverify::theory {

namespace {

// E[M] and E[M ⊗ M] of one round on z = (x − x*, m) (size 2d).
struct RoundMoments {
  Matrix mean;    // 2d × 2d
  Matrix second;  // 4d² × 4d²
};

// Client c's local state v = (u, e, m), u = y − x, e = x − x* (size 3d): one step with the
// sample's linear part A (its b cancels in the control variate, c = 𝐇e) is
//     u ← (I − η(1 − β)A)u − η(1 − β)𝐇e − ηβm,                            THEORY-Mime (MI3)
// the identity on e and m.
Matrix local_step(const Matrix& a, const Matrix& h, double eta, double beta) {
  const Eigen::Index d = a.rows();
  Matrix l = Matrix::Identity(3 * d, 3 * d);
  l.topLeftCorner(d, d) -= eta * (1 - beta) * a;
  l.block(0, d, d, d) = -eta * (1 - beta) * h;
  l.block(0, 2 * d, d, d) = -eta * beta * Matrix::Identity(d, d);
  return l;
}

void require_affordable(const LinearSaProblem& p, const RunSetting& s, int rounds) {
  require_with_replacement(p, "mime");
  const int d = p.dim();
  if (3 * d > kMaxMimeLsaLocalState) {
    throw InputError(fmt::format(
        "--problem: Mime's exact law on linear-sa problems (THEORY-Mime MI3) forms the Kronecker "
        "square of a client's local state (y − x, x − x*, m), 3d = {} coordinates (at most {}); "
        "simulate instead",
        3 * d, kMaxMimeLsaLocalState));
  }
  const double local = 3.0 * d, kron = local * local, state = 4.0 * d * d;
  double samples = 0;
  for (int c = 0; c < p.num_clients(); ++c) samples += p.num_samples(c);
  const double flops = samples * kron * kron +
                       p.num_clients() * (s.local_steps * 2.0 * kron * kron * kron) +
                       static_cast<double>(rounds) * 2.0 * state * state;
  limits::require_closed_form_time(
      "--problem",
      fmt::format("Mime's exact law on this linear-sa problem (d = {}, N = {} clients, H = {})", d,
                  p.num_clients(), s.local_steps),
      flops * limits::kFastestSecondsPerFlop,
      fmt::format("Σ_c (n_c (3d)⁴ + 2H (3d)⁶) + 8T(2d)⁴ flops at {:g} s each",
                  limits::kFastestSecondsPerFlop),
      "use a smaller dimension or fewer local steps");
}

RoundMoments round_moments(const LinearSaProblem& p, const RunSetting& s) {
  validate(Algorithm{"mime"}, s);
  const int d = p.dim(), n = p.num_clients();
  const double beta = mime_beta(s), eta = s.gamma;
  const Eigen::Index local = 3 * d, full = 2 * d;
  const Matrix id = Matrix::Identity(d, d);
  Matrix h = Matrix::Zero(d, d);  // 𝐇 = Σ_c p_c Ā_c: c = 𝐇(x − x*)
  for (int c = 0; c < n; ++c) h += p.weight(c) * p.mean_a(c);
  // C₀: e' = e + Σ_c p_c u_c (the u_c are the R_c), m' = (1 − β)𝐇e + βm.       (MI0)
  RoundMoments out{Matrix::Zero(full, full), Matrix::Zero(full * full, full * full)};
  out.mean.topLeftCorner(d, d) = id;
  out.mean.bottomLeftCorner(d, d) = (1 - beta) * h;
  out.mean.bottomRightCorner(d, d) = beta * id;
  // E: z ↦ v = (0, e, m).
  Matrix embed = Matrix::Zero(local, full);
  embed.bottomRows(2 * d) = Matrix::Identity(full, full);
  Matrix spread = Matrix::Zero(full * full, full * full);
  for (int c = 0; c < n; ++c) {
    Matrix lift = Matrix::Zero(full, local);  // u_c ↦ p_c u_c in e'
    lift.topLeftCorner(d, d) = p.weight(c) * id;
    Matrix step = Matrix::Zero(local, local);
    Matrix step_second = Matrix::Zero(local * local, local * local);
    const int samples = p.num_samples(c);
    for (int k = 0; k < samples; ++k) {
      const double pk = p.least_squares() ? 1.0 / samples : p.probabilities(c)(k);
      const Matrix l = local_step(sample_field(p, c, k).a, h, eta, beta);
      step += pk * l;
      step_second += pk * kron(l, l);
    }
    // A batch of B draws with replacement: L is affine in A, so L̄ = L(Ā_S) and       (L1)
    // E[L̄ ⊗ L̄] = (1/B)E[L ⊗ L] + (1 − 1/B)E[L] ⊗ E[L].
    const double b = p.batch_size();
    step_second = step_second / b + (1.0 - 1.0 / b) * kron(step, step);
    const Matrix r_mean = lift * matrix_power(step, s.local_steps) * embed;
    const Matrix r_second =
        kron(lift, lift) * matrix_power(step_second, s.local_steps) * kron(embed, embed);
    out.mean += r_mean;
    spread += r_second - kron(r_mean, r_mean);  // clients independent       (MI3)
  }
  out.second = kron(out.mean, out.mean) + spread;
  return out;
}

// ρ(E[M ⊗ M]): the rate of E‖z_t‖² per round.
double second_moment_radius(const Matrix& second) {
  return Eigen::EigenSolver<Matrix>(second, false).eigenvalues().cwiseAbs().maxCoeff();
}

}  // namespace

TrajectoryMoments mime_trajectory_lsa(const LinearSaProblem& p, const RunSetting& s,
                                      const Vector& x0, int rounds) {
  require_trajectory_rounds(rounds);
  require_affordable(p, s, rounds);
  const RoundMoments r = round_moments(p, s);
  const int d = p.dim();
  const Eigen::Index full = 2 * d;
  Vector mean = Vector::Zero(full);
  mean.head(d) = x0 - p.solution();
  Matrix second = mean * mean.transpose();
  TrajectoryMoments out;
  auto record = [&] {
    out.mean.push_back(p.solution() + mean.head(d));
    const double trace = second.topLeftCorner(d, d).trace() - mean.head(d).squaredNorm();
    out.trace_cov.push_back(trace);
  };
  record();
  for (int t = 1; t <= rounds; ++t) {
    mean = r.mean * mean;  // THEORY-Mime (MI3)
    const Vector flat = r.second * second.reshaped();
    second = symmetric_part(flat.reshaped(full, full));
    record();
    require_finite_trajectory(out, t);
  }
  return out;
}

ExactMoments mime_exact_state_lsa(const LinearSaProblem& p, const RunSetting& s) {
  require_affordable(p, s, 0);
  const RoundMoments r = round_moments(p, s);
  const double rho = second_moment_radius(r.second);
  require_stationary(rho, s, "mime (its second moments, THEORY-Mime MI3)");
  const int d = p.dim();
  Vector z_star = Vector::Zero(2 * d);
  z_star.head(d) = p.solution();  // THEORY-Mime (MI3): the point mass at (x*, 0)
  return {z_star, Matrix::Zero(2 * d, 2 * d), std::sqrt(rho)};
}

}  // namespace fedverify::theory
