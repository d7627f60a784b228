// FedDyn's exact stationary law on linear-sa problems (THEORY-FedDyn (FD5)); see feddyn.hpp.
#include <fmt/format.h>

#include <vector>

#include "theory/algorithms/feddyn.hpp"
#include "theory/algorithms/local_epochs.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/augmented_moments.hpp"
#include "theory/closed_forms/linear_sa_moments.hpp"

namespace fedverify::theory {

namespace {

// Client c's local state v = (y, x, h_c, 1) (size 3d + 1): one step with sample field (A, b) is
// y ← (I − γ(A + αI))y + γαx + γh_c + γb, the identity on the rest.            (FD5)
Matrix local_step(const SampleField& f, double gamma, double alpha) {
  const Eigen::Index d = f.b.size();
  Matrix l = Matrix::Identity(3 * d + 1, 3 * d + 1);
  l.topLeftCorner(d, d) -= gamma * (f.a + alpha * Matrix::Identity(d, d));
  l.block(0, d, d, d) = gamma * alpha * Matrix::Identity(d, d);
  l.block(0, 2 * d, d, d) = gamma * Matrix::Identity(d, d);
  l.block(0, 3 * d, d, 1) = gamma * f.b;
  return l;
}

}  // namespace

ExactMoments feddyn_exact_state_lsa(const LinearSaProblem& p, const RunSetting& s) {
  validate(Algorithm{"feddyn"}, s);
  require_with_replacement(p, "feddyn");
  const int d = p.dim(), n = p.num_clients();
  const Eigen::Index size = static_cast<Eigen::Index>(d) * (n + 1), full = size + 1;
  if (size > kMaxFeddynLsaState) {
    throw InputError(fmt::format(
        "--problem: FedDyn's exact law on linear-sa problems solves for the second moments of the "
        "stacked (x, h_1, …, h_N), d(N + 1) = {} coordinates (at most {}); simulate instead",
        size, kMaxFeddynLsaState));
  }
  const double alpha = feddyn_alpha(s), gamma = s.gamma;
  const Eigen::Index local = 3 * d + 1;
  // C₀: the deterministic part of the round on z = (x, h_1, …, h_N, 1): x' = −x − h̄/α + (2/N)Σy_c,
  // h_c' = h_c + αx − αy_c (the y_c terms are C_c).                               (FD0)
  Matrix c0 = Matrix::Zero(full, full);
  c0.topLeftCorner(d, d) = -Matrix::Identity(d, d);
  for (int c = 0; c < n; ++c) {
    const Eigen::Index h = static_cast<Eigen::Index>(d) * (c + 1);
    c0.block(0, h, d, d) = -Matrix::Identity(d, d) / (n * alpha);
    c0.block(h, h, d, d) = Matrix::Identity(d, d);
    c0.block(h, 0, d, d) = alpha * Matrix::Identity(d, d);
  }
  c0(size, size) = 1.0;
  Matrix mean_map = c0;
  Matrix spread = Matrix::Zero(full * full, full * full);
  std::vector<Matrix> lifted_means;
  for (int c = 0; c < n; ++c) {
    const Eigen::Index h = static_cast<Eigen::Index>(d) * (c + 1);
    // E_c: z ↦ v = (x, x, h_c, 1); C_c P_y: y_c ↦ (2/N)y_c in x', −αy_c in h_c'.
    Matrix embed = Matrix::Zero(local, full);
    embed.block(0, 0, d, d) = Matrix::Identity(d, d);
    embed.block(d, 0, d, d) = Matrix::Identity(d, d);
    embed.block(2 * d, h, d, d) = Matrix::Identity(d, d);
    embed(3 * d, size) = 1.0;
    Matrix lift = Matrix::Zero(full, local);
    lift.block(0, 0, d, d) = (2.0 / n) * Matrix::Identity(d, d);
    lift.block(h, 0, d, d) = -alpha * Matrix::Identity(d, d);
    // One step's moments with a batch of B draws with replacement.                  (L1)
    Matrix step = Matrix::Zero(local, local);
    Matrix step_second = Matrix::Zero(local * local, local * local);
    const int samples = p.num_samples(c);
    for (int k = 0; k < samples; ++k) {
      const double pk = p.least_squares() ? 1.0 / samples : p.probabilities(c)(k);
      const Matrix l = local_step(sample_field(p, c, k), gamma, alpha);
      step += pk * l;
      step_second += pk * kron(l, l);
    }
    const double b = p.batch_size();
    step_second = step_second / b + (1.0 - 1.0 / b) * kron(step, step);
    const Matrix r_mean = lift * matrix_power(step, s.local_steps) * embed;  // E[R_c]
    const Matrix r_second = kron(lift, lift) * matrix_power(step_second, s.local_steps) *
                            kron(embed, embed);  // E[R_c⊗R_c]
    mean_map += r_mean;
    spread += r_second - kron(r_mean, r_mean);
  }
  // About the fixed point z* = (x*, ∇f_1(x*), …, ∇f_N(x*)) (FD2): u = P⁻¹z, P = [[I, z*], [0, 1]].
  Vector fixed(size);
  fixed.head(d) = p.solution();
  for (int c = 0; c < n; ++c) {
    fixed.segment(static_cast<Eigen::Index>(d) * (c + 1), d) =
        p.mean_a(c) * p.solution() - p.mean_b(c);
  }
  Matrix shift = Matrix::Identity(full, full), unshift = Matrix::Identity(full, full);
  shift.topRightCorner(size, 1) = fixed;
  unshift.topRightCorner(size, 1) = -fixed;
  const Matrix second = kron(mean_map, mean_map) + spread;
  ExactMoments out = augmented_stationary_moments(
      unshift * mean_map * shift, kron(unshift, unshift) * second * kron(shift, shift),
      Matrix::Zero(full, full), gamma);
  out.mean += fixed;
  return out;
}

}  // namespace fedverify::theory
