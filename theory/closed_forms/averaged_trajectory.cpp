#include "theory/closed_forms/averaged_trajectory.hpp"

#include <fmt/format.h>

#include <cmath>

#include "theory/base/input_error.hpp"
#include "theory/problems/limits.hpp"

namespace fedverify::theory {

TrajectoryMoments averaged_trajectory(const AffineRoundMap& map, const Vector& x0, int rounds) {
  limits::require_range("--rounds", rounds, 0, limits::kMaxTrajectoryRounds,
                        "the exact curve has T + 1 points");
  const Eigen::Index s = map.d.rows();
  const Eigen::Index d = x0.size();
  const double size = static_cast<double>(s);
  limits::require_closed_form_time(
      "--rounds",
      fmt::format("the averaged exact trajectory over T = {} rounds (a state of size {})", rounds,
                  s),
      rounds * 8.0 * size * size * size * limits::kFastestSecondsPerFlop,
      fmt::format("T × 8s³ flops at {:g} s each", limits::kFastestSecondsPerFlop),
      "use fewer rounds");
  const Matrix m = map.transition();
  const Vector drift = map.gamma * map.r;
  const Matrix noise = map.gamma * map.g;
  Vector mean = Vector::Zero(s);
  mean.head(d) = x0;
  Vector mean_sum = Vector::Zero(s);
  Matrix p = Matrix::Zero(s, s), c = Matrix::Zero(s, s), v = Matrix::Zero(s, s);
  TrajectoryMoments out;
  out.mean.reserve(static_cast<std::size_t>(rounds) + 1);
  out.trace_cov.reserve(static_cast<std::size_t>(rounds) + 1);
  out.mean.push_back(x0);
  out.trace_cov.push_back(0.0);
  for (int t = 1; t <= rounds; ++t) {
    mean = m * mean + drift;  // THEORY (T1)
    p = symmetric_part(m * p * m.transpose() + noise);
    const Matrix cross = c * m.transpose();  // Cov(S_{t−1}, z_t)               THEORY (T5)
    v = symmetric_part(v + cross + cross.transpose() + p);
    c = cross + p;
    mean_sum += mean;
    const double n = t;
    out.mean.push_back(mean_sum.head(d) / n);
    out.trace_cov.push_back(v.topLeftCorner(d, d).trace() / (n * n));
    if (!out.mean.back().allFinite() || !std::isfinite(out.trace_cov.back())) {
      throw InputError(fmt::format(
          "--rounds: the exact moments overflow double precision at round {} (the chain diverges "
          "from this start: decrease --gamma)",
          t));
    }
  }
  return out;
}

Matrix long_run_covariance(const AffineRoundMap& map, int dim) {
  // Σ_LR = (I − M)⁻¹ γG (I − M)⁻ᵀ with I − M = γD: D⁻¹ G D⁻ᵀ / γ.               THEORY (T5)
  const auto lu = map.d.partialPivLu();
  const Matrix left = lu.solve(map.g);                         // D⁻¹G
  const Matrix full = lu.solve(left.transpose()).transpose();  // D⁻¹ G D⁻ᵀ (G symmetric)
  return symmetric_part(full / map.gamma).topLeftCorner(dim, dim);
}

Matrix polyak_ruppert_covariance(const ExpansionCoefficients& k, const RunSetting& setting) {
  const Matrix h_inv = k.constants.hessian_at_optimum.inverse();
  return h_inv * k.noise_at_optimum * h_inv /
         (static_cast<double>(k.num_clients) * setting.local_steps);  // THEORY (T5)
}

}  // namespace fedverify::theory
