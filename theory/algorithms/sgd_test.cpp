// SGD's closed forms (theory/algorithms/sgd.cpp: FedAvg with N = H = 1), reached by name
// through theory::exact_moments, against the Kronecker formula of THEORY (G1)
// (theory/base/testing/kronecker.hpp).
// Tolerances: the round-off bounds of theory/base/testing/round_off.hpp (kSafety · n·ε·κ for a
// backward-stable solve; the central-difference error for finite differences).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "theory/base/testing/kronecker.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/generators.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify {
namespace {

using theory::QuadraticProblem;
using verify::kEps;
using verify::kSafety;
using verify::relative_error;
using verify::small_options;

TEST(ExactMoments, SingleClientSingleStepCovarianceIsSgdKroneckerFormula) {
  // THEORY (G1): vec Σ_γ = γ (𝐇⊗I + I⊗𝐇 − γ𝐇⊗𝐇)⁻¹ vec C for N = 1, H = 1.
  for (double gamma : {1e-3, 0.1, 1.0}) {
    auto o = small_options(51);
    o.clients = 1;
    const QuadraticProblem p = theory::generate_quadratic(o);
    const Matrix& h = p.client(0).hessian;
    const Matrix reference = verify::kronecker_sgd_covariance(h, p.client(0).noise_cov, gamma);
    const Matrix i = Matrix::Identity(3, 3);
    const double kappa = verify::condition_number(verify::kron(h, i) + verify::kron(i, h) -
                                                  gamma * verify::kron(h, h));
    for (auto algo : {theory::Algorithm::fedavg, theory::Algorithm::sgd}) {
      const auto exact = theory::exact_moments(p, algo, {gamma, 1});
      const double err = relative_error(exact.cov, reference);
      fmt::print("(G1) {} γ={}: cov rel.err vs Kronecker formula {:.2e}\n", theory::to_string(algo),
                 gamma, err);
      EXPECT_LE(err, kSafety * 9 * kEps * kappa);
    }
  }
}

}  // namespace
}  // namespace fedverify
