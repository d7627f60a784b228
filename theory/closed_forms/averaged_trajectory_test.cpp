// Polyak–Ruppert averaging in finite time (theory/closed_forms/averaged_trajectory.hpp, THEORY
// (T5)): the recursion against the explicit double sum Cov S_T = Σ_{s,t} Cov(z_s, z_t) with
// Cov(z_t, z_s) = M^{t−s} P_s (t ≥ s), computed from scratch; the mean against the average of
// affine_trajectory's means; and T·Cov x̄_T against the long-run covariance of the stationary chain,
// (I − M)⁻¹P_∞ + P_∞(I − M)⁻ᵀ − P_∞, as T grows.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "theory/algorithms/fedavg.hpp"
#include "theory/algorithms/scaffold.hpp"
#include "theory/closed_forms/averaged_trajectory.hpp"
#include "theory/closed_forms/lyapunov.hpp"
#include "theory/closed_forms/trajectory.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::theory {
namespace {

struct Reference {
  Vector mean;
  double trace_cov = 0;
};

// x̄_T's moments from the definition: every P_t by P_t = M P_{t−1} Mᵀ + γG, every cross-covariance
// M^{t−s} P_s, summed over all pairs (O(T²) products, independent of the recursion under test).
Reference reference(const AffineRoundMap& map, const Vector& x0, int rounds) {
  const Eigen::Index s = map.d.rows(), d = x0.size();
  const Matrix m = map.transition();
  std::vector<Matrix> p(rounds + 1, Matrix::Zero(s, s));
  std::vector<Vector> mean(rounds + 1, Vector::Zero(s));
  mean[0].head(d) = x0;
  for (int t = 1; t <= rounds; ++t) {
    p[t] = m * p[t - 1] * m.transpose() + map.gamma * map.g;
    mean[t] = m * mean[t - 1] + map.gamma * map.r;
  }
  Matrix v = Matrix::Zero(s, s);
  Vector sum = Vector::Zero(s);
  for (int a = 1; a <= rounds; ++a) {
    sum += mean[a];
    Matrix power = Matrix::Identity(s, s);
    for (int b = a; b <= rounds; ++b) {
      const Matrix cross = power * p[a];  // Cov(z_b, z_a)
      v += b == a ? cross : Matrix(cross + cross.transpose());
      power = m * power;
    }
  }
  return {sum.head(d) / rounds, v.topLeftCorner(d, d).trace() / (double(rounds) * rounds)};
}

// Round-off: T² = 225 products of matrices with entries O(1): 1e-12 relative.
TEST(AveragedTrajectory, MatchesTheDoubleSumForFedavgAndScaffold) {
  const QuadraticProblem q = verify::quadratic(2, 3, 0.1);
  const RunSetting step{0.1 / q.smoothness(), 3};
  const Vector x0 = Vector::Constant(2, 1.5);
  for (const AffineRoundMap& map : {fedavg_round_map(q, step), scaffold_round_map(q, step)}) {
    const TrajectoryMoments got = averaged_trajectory(map, x0, 15);
    for (int t : {1, 2, 7, 15}) {
      const Reference want = reference(map, x0, t);
      EXPECT_LE((got.mean[t] - want.mean).norm(), 1e-12 * want.mean.norm()) << "T = " << t;
      EXPECT_NEAR(got.trace_cov[t], want.trace_cov, 1e-12 * want.trace_cov) << "T = " << t;
    }
  }
}

// The mean of x̄_T is the average of E x_1, …, E x_T (affine_trajectory).
TEST(AveragedTrajectory, MeanIsTheAverageOfTheCurve) {
  const QuadraticProblem q = verify::quadratic(2, 3, 0.1);
  const AffineRoundMap map = fedavg_round_map(q, {0.05 / q.smoothness(), 2});
  const Vector x0 = Vector::Constant(2, -1.0);
  const TrajectoryMoments curve = affine_trajectory(map, x0, 40);
  const TrajectoryMoments avg = averaged_trajectory(map, x0, 40);
  Vector sum = Vector::Zero(2);
  for (int t = 1; t <= 40; ++t) sum += curve.mean[t];
  EXPECT_LE((avg.mean[40] - sum / 40).norm(), 1e-13);
}

// Started at the stationary mean, T·tr Cov x̄_T − tr Σ_LR = O(1/T) (the burn-in of P_t and the
// end correction): it falls at least like 1/T from T = 2000 to 8000 (ratio ≤ 1/3, 1/4 expected),
// and is below 1 % of tr Σ_LR at T = 8000.
TEST(AveragedTrajectory, ScaledCovarianceTendsToTheLongRunCovariance) {
  const QuadraticProblem q = verify::quadratic(2, 3, 0.1);
  const RunSetting step{0.1 / q.smoothness(), 2};
  const AffineRoundMap map = fedavg_round_map(q, step);
  const Matrix m = map.transition();
  const Eigen::Index s = m.rows();
  const Matrix id = Matrix::Identity(s, s);
  const Matrix p_inf = discrete_lyapunov_solve(map.d, map.gamma, map.g);
  const Matrix left = (id - m).partialPivLu().solve(p_inf);
  const double long_run = (left + left.transpose() - p_inf).trace();
  const Vector m_inf = map.d.partialPivLu().solve(map.r);  // (I − M)⁻¹γr = D⁻¹r
  const TrajectoryMoments avg = averaged_trajectory(map, m_inf, 8000);
  const double gap_2000 = std::abs(2000 * avg.trace_cov[2000] - long_run);
  const double gap_8000 = std::abs(8000 * avg.trace_cov[8000] - long_run);
  EXPECT_LE(gap_8000, gap_2000 / 3);
  EXPECT_LE(gap_8000, 0.01 * long_run);
}

}  // namespace
}  // namespace fedverify::theory
