// Scaffold's closed forms (theory/algorithms/scaffold.hpp): the exact stationary moments of the
// whole stacked state (x, ξ_1, …, ξ_N), THEORY (S6), against brute-force iteration of the chain's
// moments (theory/problems/testing/brute_force_chain.hpp builds each round step by step from THEORY
// S0), and the control variates' fixed point ξ_c* = −∇f_c(x*), on the small quadratics of
// theory/problems/testing/chain_cases.hpp.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <Eigen/QR>
#include <Eigen/SVD>
#include <cmath>
#include <vector>

#include "theory/algorithms/fedavg.hpp"
#include "theory/algorithms/scaffold.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "theory/problems/testing/brute_force_chain.hpp"
#include "theory/problems/testing/chain_cases.hpp"

namespace fedverify {
namespace {

using theory::QuadraticProblem;
using verify::chain_problem;
using verify::kBruteForceTolerance;
using verify::kChainCases;

TEST(ExactMoments, ScaffoldMatchesBruteForceIterationOnTheWholeStackedState) {
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = chain_problem(k);
    const auto exact = theory::scaffold_exact(p, {k.gamma, k.local_steps});
    const auto brute = verify::brute_force_scaffold(p, k.gamma, k.local_steps);
    verify::expect_brute_force_match(fmt::format("scaffold stacked state {} (2^{} rounds)",
                                                 verify::describe(k), brute.rounds_log2),
                                     exact.mean, exact.cov, brute.mean, brute.cov);
    // Fixed point of the control variates: ξ_c* = −∇f_c(x*).
    const Vector xs = theory::minimizer(p);
    for (int c = 0; c < p.num_clients(); ++c) {
      const Vector target = -p.gradient(c, xs);
      EXPECT_LE((exact.xi_mean(c) - target).norm(), kBruteForceTolerance * (1 + target.norm()))
          << "client " << c;
    }
  }
}

// The noise-free Scaffold round on differences (b_c = 0, no noise), step by step from THEORY
// (S0), applied to the columns of an orthonormal basis of Σ_c ξ_c = 0: an independent build of
// the matrix whose weighted norm scaffold_weighted_norm computes from (S6)'s round map.
Matrix brute_force_weighted_round(const QuadraticProblem& p, double gamma, int h, double weight) {
  const int n = p.num_clients(), d = p.dim();
  // Basis of {(x, ξ): Σ_c ξ_c = 0}: x coordinates, then ξ_c = e_i − ξ_{N−1} = … (QR of a
  // spanning set) — orthonormal in the plain metric.
  Matrix span = Matrix::Zero(d * (n + 1), d * n);
  span.topLeftCorner(d, d).setIdentity();
  for (int c = 0; c + 1 < n; ++c) {
    span.block(d * (1 + c), d * (1 + c), d, d).setIdentity();
    span.block(d * n, d * (1 + c), d, d) = -Matrix::Identity(d, d);
  }
  const Matrix basis = Eigen::HouseholderQR<Matrix>(span).householderQ() *
                       Matrix::Identity(span.rows(), span.cols());
  Matrix image(basis.rows(), basis.cols());
  for (int j = 0; j < basis.cols(); ++j) {
    const Vector z = basis.col(j);
    const Vector x = z.head(d);
    Vector mean = Vector::Zero(d);
    std::vector<Vector> ends;
    for (int c = 0; c < n; ++c) {
      Vector y = x;
      const Vector xi = z.segment(d * (1 + c), d);
      for (int step = 0; step < h; ++step) y -= gamma * (p.client(c).hessian * y + xi);
      ends.push_back(y);
      mean += y / n;
    }
    Vector out(z.size());
    out.head(d) = mean;
    for (int c = 0; c < n; ++c) {
      out.segment(d * (1 + c), d) = z.segment(d * (1 + c), d) + (ends[c] - mean) / (gamma * h);
    }
    image.col(j) = out;
  }
  // Weighted metric diag(I, w I): ‖W^{1/2} T v‖ / ‖W^{1/2} v‖ over v = basis·a.
  Vector root = Vector::Ones(basis.rows());
  root.tail(basis.rows() - d).setConstant(std::sqrt(weight));
  const Matrix wt = root.asDiagonal() * image;
  const Matrix wb = root.asDiagonal() * basis;
  // sup_a ‖wt a‖/‖wb a‖: largest generalized singular value, via wb = QR.
  const Eigen::HouseholderQR<Matrix> qr(wb);
  const Matrix r = qr.matrixQR().topRows(wb.cols()).triangularView<Eigen::Upper>();
  return wt * r.inverse();
}

TEST(ScaffoldWeightedNorm, MatchesAStepByStepRoundAndBoundsTheSpectralRadius) {
  for (const auto& k : kChainCases) {
    if (k.clients < 2) continue;
    const QuadraticProblem p = chain_problem(k);
    const theory::RunSetting s{k.gamma, k.local_steps};
    for (double scale : {1.0, 16.0}) {
      const double w = scale * theory::scaffold_s1_weight(s, p.num_clients());
      const double norm = theory::scaffold_weighted_norm(p, s, w);
      const double brute =
          Eigen::JacobiSVD<Matrix>(brute_force_weighted_round(p, k.gamma, k.local_steps, w))
              .singularValues()(0);
      EXPECT_NEAR(norm, brute, 1e-12 * (1 + brute)) << k.seed << " " << scale;
      EXPECT_GE(norm, theory::scaffold_spectral_radius(p, s) * (1 - 1e-12));
    }
  }
}

// THEORY (S7): Scaffold's covariance of x at second order is FedAvg's H = 1 coefficient, for
// every H (found numerically; this pins it on the chain cases): the error of the γ² coefficient
// halves (≤ 0.6×, as SecondOrder.FedAvgCoefficientsAreTheLimitOfTheExactRemainders) with γ.
TEST(SecondOrder, ScaffoldCovarianceCoefficientDoesNotDependOnH) {
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = chain_problem(k);
    const auto coeff = theory::expansion_coefficients(p);
    const Matrix x1 = theory::scaffold_second_order_cov(coeff);
    EXPECT_LE(verify::relative_error(x1, theory::fedavg_second_order(p, coeff, 1).cov), 1e-13);
    const int n = p.num_clients();
    auto error = [&](double gamma) {
      const auto ex = theory::scaffold_exact(p, {gamma, k.local_steps});
      return ((ex.x_cov() - (gamma / n) * coeff.a_noise) / (gamma * gamma) - x1).norm();
    };
    const double g = 1e-2 / p.smoothness();
    const double e1 = error(g), e2 = error(g / 2);
    fmt::print("(S7) H={} d={} N={}: error {:.2e} → {:.2e} (|X₁| = {:.2e})\n", k.local_steps, k.dim,
               n, e1, e2, x1.norm());
    EXPECT_LE(e2, 0.6 * e1 + 1e-6);
    // Not vacuous: the error is of the size of the next term, O(γ³H²) against γ²·X₁.
    EXPECT_LT(e2, (g / 2) * p.smoothness() * k.local_steps * k.local_steps * x1.norm());
  }
}

}  // namespace
}  // namespace fedverify
