#include "theory/closed_forms/trajectory.hpp"

#include <fmt/format.h>

#include <cmath>

#include "theory/base/input_error.hpp"
#include "theory/closed_forms/linear_sa_moments.hpp"
#include "theory/problems/limits.hpp"

namespace fedverify::theory {

namespace {

constexpr double kSecondsPerFlop = limits::kFastestSecondsPerFlop;

}  // namespace

void require_trajectory_rounds(int rounds) {
  limits::require_range("--rounds", rounds, 0, limits::kMaxTrajectoryRounds,
                        "the exact curve has T + 1 points");
}

void require_finite_trajectory(const TrajectoryMoments& m, int t) {
  if (!m.mean.back().allFinite() || !std::isfinite(m.trace_cov.back())) {
    throw InputError(fmt::format(
        "--rounds: the exact moments overflow double precision at round {} (the chain diverges "
        "from this start: decrease --gamma)",
        t));
  }
}

TrajectoryMoments affine_trajectory(const AffineRoundMap& map, const Vector& x0, int rounds) {
  require_trajectory_rounds(rounds);
  const Eigen::Index s = map.d.rows();
  const Eigen::Index d = x0.size();
  const double size = static_cast<double>(s);
  limits::require_closed_form_time(
      "--rounds",
      fmt::format("the exact trajectory over T = {} rounds (a state of size {})", rounds, s),
      rounds * 4.0 * size * size * size * kSecondsPerFlop,
      fmt::format("T × 4s³ flops at {:g} s each", kSecondsPerFlop), "use fewer rounds");
  const Matrix m = map.transition();
  const Vector drift = map.gamma * map.r;
  const Matrix noise = map.gamma * map.g;
  Vector mean = Vector::Zero(s);
  mean.head(d) = x0;
  Matrix cov = Matrix::Zero(s, s);
  TrajectoryMoments out;
  out.mean.reserve(static_cast<std::size_t>(rounds) + 1);
  out.trace_cov.reserve(static_cast<std::size_t>(rounds) + 1);
  out.mean.push_back(mean.head(d));
  out.trace_cov.push_back(0.0);
  for (int t = 1; t <= rounds; ++t) {
    mean = m * mean + drift;  // THEORY (T1)
    cov = symmetric_part(m * cov * m.transpose() + noise);
    out.mean.push_back(mean.head(d));
    out.trace_cov.push_back(cov.topLeftCorner(d, d).trace());
    require_finite_trajectory(out, t);
  }
  return out;
}

TrajectoryMoments fedavg_trajectory_lsa(const LinearSaProblem& p, const RunSetting& s,
                                        const Vector& x0, int rounds) {
  require_trajectory_rounds(rounds);
  require_with_replacement(p, "fedavg's trajectory");
  // lsa_exact_seconds bounds kLsaMinimumPasses passes of N·H local steps; a round is one pass.
  limits::require_closed_form_time(
      "--rounds",
      fmt::format("the exact trajectory of fedavg over T = {} rounds on this linear-sa problem",
                  rounds),
      rounds * lsa_exact_seconds(p, s) / kLsaMinimumPasses,
      "a lower bound: T passes of N·H local steps", "use fewer rounds or local steps");
  const int n = p.num_clients();
  const Eigen::Index d = p.dim();
  Matrix m = Matrix::Zero(d, d);  // M = Σ_c p_c B_c^H: the round's mean map (A1)
  for (int c = 0; c < n; ++c) {
    m += weighted_term(p, c, lsa_local_map(p.mean_a(c), s.gamma, s.local_steps).b_power);
  }
  const Vector no_correction = Vector::Zero(d);
  Vector mean = x0;
  Matrix cov = Matrix::Zero(d, d);
  TrajectoryMoments out;
  out.mean.push_back(mean);
  out.trace_cov.push_back(0.0);
  for (int t = 1; t <= rounds; ++t) {
    // THEORY (T1) with (L1)'s round: y_c = B_c^H x + γP_c b̄_c + ε_c, ε_c uncorrelated with x and
    // across clients, Cov ε_c = γ·noise_over_gamma from x ~ (mean, cov).
    Vector next = Vector::Zero(d);
    Matrix noise = Matrix::Zero(d, d);
    for (int c = 0; c < n; ++c) {
      const LsaClientRound r = lsa_client_round(p, c, s.gamma, s.local_steps, mean, cov,
                                                no_correction, nullptr, nullptr);
      next += weighted_term(p, c, r.mean);
      noise += s.gamma * noise_factor(p, c) * r.noise_over_gamma / noise_divisor(p);
    }
    cov = symmetric_part(m * cov * m.transpose() + noise);
    mean = next;
    out.mean.push_back(mean);
    out.trace_cov.push_back(cov.trace());
    require_finite_trajectory(out, t);
  }
  return out;
}

std::vector<double> mean_square_error(const TrajectoryMoments& moments, const Vector& x_star) {
  std::vector<double> out;
  out.reserve(moments.mean.size());
  for (std::size_t t = 0; t < moments.mean.size(); ++t) {
    out.push_back((moments.mean[t] - x_star).squaredNorm() + moments.trace_cov[t]);
  }
  return out;
}

TrajectoryMoments richardson_trajectory(const TrajectoryMoments& at_gamma,
                                        const TrajectoryMoments& at_2gamma) {
  TrajectoryMoments out;
  for (std::size_t t = 0; t < at_gamma.mean.size(); ++t) {
    out.mean.push_back(2.0 * at_gamma.mean[t] - at_2gamma.mean[t]);  // THEORY (R2)
    out.trace_cov.push_back(4.0 * at_gamma.trace_cov[t] + at_2gamma.trace_cov[t]);
  }
  return out;
}

}  // namespace fedverify::theory
