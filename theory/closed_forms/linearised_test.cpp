// The twin's exact stationary mean (theory/closed_forms/linearised.hpp, THEORY (L3)).
#include <gtest/gtest.h>

#include <string>

#include "theory/base/input_error.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/linearised.hpp"
#include "theory/problems/optimiser.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::theory {
namespace {

constexpr Algorithm kFedopt{"fedopt"};

// Statement: a quadratic problem is its own linearisation, so m_lin is its exact mean bit for bit
// (what makes simulate's mean_cv the exact mean on a quadratic). Decision: exact equality.
TEST(LinearisedMean, OnAQuadraticItIsTheExactMean) {
  const auto q = verify::quadratic(3, 4, 1.0);
  RunSetting momentum{0.05, 3};
  momentum.server = parse_optimiser("sgd:momentum=0.5", OptimiserRole::server);
  momentum.participating = 2;
  for (const auto& [algorithm, setting] :
       {std::pair{Algorithm::fedavg, RunSetting{0.05, 3}},
        std::pair{Algorithm::scaffold, RunSetting{0.05, 3}},
        std::pair{Algorithm::fedrr, RunSetting{0.05, 2}}, std::pair{kFedopt, momentum}}) {
    SCOPED_TRACE(to_string(algorithm));
    EXPECT_EQ(linearised_stationary_mean(q, algorithm, setting),
              exact_moments(q, algorithm, setting).mean);
  }
}

// Statement: the linearised problem's mean field is the client's first-order Taylor expansion at
// x*: A_c(y − θ_c) = ∇f_c(x*) + ∇²f_c(x*)(y − x*) (θ_c = x* − A_c⁻¹∇f_c(x*)). Tolerance: one
// solve with A_c (condition κ_c) of O(1) data: 64·κ_c·ε relative to ‖A_c‖(‖y‖ + ‖x*‖) + ‖∇f_c‖.
TEST(LinearisedMean, LinearisedProblemIsTheMeanFieldOfTheTwin) {
  const auto p = verify::logistic(3, 4, 30, 1);
  const Vector x_star = minimizer(p);
  const QuadraticProblem lin = linearised_problem(p, x_star);
  const Vector y = Vector::Constant(3, 0.7);
  for (int c = 0; c < p.num_clients(); ++c) {
    const Matrix& a = lin.client(c).hessian;
    const Vector lhs = a * (y - lin.client(c).optimum);
    const Vector rhs = p.gradient(c, x_star) + p.hessian(c, x_star) * (y - x_star);
    const Eigen::SelfAdjointEigenSolver<Matrix> es(a);
    const double kappa = es.eigenvalues().maxCoeff() / es.eigenvalues().minCoeff();
    const double scale = a.norm() * (y.norm() + x_star.norm()) + p.gradient(c, x_star).norm();
    EXPECT_LE((lhs - rhs).norm(), 64 * kappa * verify::kEps * scale) << "client " << c;
    EXPECT_EQ(lin.client(c).noise_cov, Matrix::Zero(3, 3));
  }
}

// Statement: the twin's own problem (per_sample_linearisation) has, per client, the mean field of
// the Taylor expansion, Ā_c y − b̄_c = ∇f_c(x*) + ∇²f_c(x*)(y − x*), and at y = x* the noise of the
// logistic gradients, C_c(x*) (LogisticProblem's gradient, hessian and noise_covariance: code it
// shares nothing with); and at y ≠ x* the noise of the per-sample expansions ∇ℓ_j(x*) +
// ∇²ℓ_j(x*)(y − x*), each Hessian by central differences of sample_gradients (step 1e-4:
// truncation ≈ h²·|∇³ℓ| ≤ 1e-8·‖a‖³). Tolerances: sums of n_c O(1) terms, 1e3·ε relative; the
// difference quotients, 1e-6 relative.
TEST(LinearisedMean, PerSampleLinearisationIsTheTwinsProblem) {
  const auto p = verify::logistic(3, 4, 30, 1);
  const Vector x_star = minimizer(p);
  const LinearSaProblem lin = per_sample_linearisation(p, x_star);
  const Vector y = Vector::Constant(3, 0.7);
  for (int c = 0; c < p.num_clients(); ++c) {
    const Vector field = lin.gradient(c, y);
    const Vector taylor = p.gradient(c, x_star) + p.hessian(c, x_star) * (y - x_star);
    EXPECT_LE((field - taylor).norm(), 1e3 * verify::kEps * (1 + taylor.norm())) << c;
    const Matrix noise = lin.noise_covariance(c, x_star);
    EXPECT_LE((noise - p.noise_covariance(c, x_star)).norm(), 1e3 * verify::kEps * noise.norm());
  }
  // Per sample, through the noise at y ≠ x*: Cov_j(A_j y − b_j)/B of `lin` against the covariance
  // of the finite-difference expansions ∇ℓ_j(x*) + ∇²ℓ_j(x*)(y − x*) over client 0's samples.
  const double h = 1e-4;
  const Matrix g0 = p.sample_gradients(0, x_star);
  Matrix fields(3, g0.cols());
  for (Eigen::Index j = 0; j < g0.cols(); ++j) {
    Matrix hess(3, 3);
    for (int k = 0; k < 3; ++k) {
      const Vector e = Vector::Unit(3, k) * h;
      hess.col(k) =
          (p.sample_gradients(0, x_star + e).col(j) - p.sample_gradients(0, x_star - e).col(j)) /
          (2 * h);
    }
    fields.col(j) = g0.col(j) + hess * (y - x_star);
  }
  const Matrix centred = fields.colwise() - fields.rowwise().mean();
  const Matrix cov =
      centred * centred.transpose() / static_cast<double>(g0.cols() * p.batch_size());
  EXPECT_LE((lin.noise_covariance(0, y) - cov).norm(), 1e-6 * cov.norm());
}

// Statement: on logistic, Scaffold's twin mean and FedAvg's at H = 1 are the linearised
// problem's minimiser x* − 𝐇⁻¹∇f(x*) = x* up to the Newton tolerance (THEORY (S3), §8: no
// heterogeneity bias), while FedAvg's at H = 3 is not (its bias γ(H − 1)b_h ≠ 0 here).
// Tolerance: the exact solves' round-off, 1e3·ε relative to ‖x*‖ + 1 (κ(𝐇) ≈ 10, d(N + 1) ≤ 15
// unknowns); the H = 3 shift is γ·2·‖b_h‖ ≫ that (checked to exceed 100 times the tolerance).
TEST(LinearisedMean, ScaffoldAndSgdTwinsHaveTheMinimiserAsMean) {
  const auto p = verify::logistic(3, 4, 30, 1);
  const Vector x_star = minimizer(p);
  const double tolerance = 1e3 * verify::kEps * (x_star.norm() + 1.0);
  EXPECT_LE((linearised_stationary_mean(p, Algorithm::scaffold, {0.1, 3}) - x_star).norm(),
            tolerance);
  EXPECT_LE((linearised_stationary_mean(p, Algorithm::fedavg, {0.1, 1}) - x_star).norm(),
            tolerance);
  EXPECT_GT((linearised_stationary_mean(p, Algorithm::fedavg, {0.1, 3}) - x_star).norm(),
            100 * tolerance);
}

// Statement: without an exact mean of the twin the option is refused naming --control-variate
// (FedOpt with Adam on the server; L2GD). Decision: the exception and its field.
TEST(LinearisedMean, RefusesAlgorithmsWithoutAnExactMean) {
  const auto p = verify::logistic(3, 4, 30, 1);
  RunSetting adam{0.05, 2};
  adam.server = parse_optimiser("adam", OptimiserRole::server);
  for (const auto& [algorithm, setting] :
       {std::pair{kFedopt, adam}, std::pair{parse_algorithm("l2gd"), RunSetting{0.05, 1}}}) {
    SCOPED_TRACE(to_string(algorithm));
    try {
      linearised_stationary_mean(p, algorithm, setting);
      ADD_FAILURE() << "no InputError";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--control-variate", 0), 0U) << e.what();
    }
  }
}

}  // namespace
}  // namespace fedverify::theory
