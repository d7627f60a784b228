// The conformance oracle (oracle.hpp): its gradients are counter-addressed per (seed, chain,
// client, request), so a chain's noise does not depend on how many chains run beside it or on
// the order of requests of other clients; their law is ∇f_i(x) + N(0, S_i); the run's bookkeeping
// (rounds, divergence, completeness) and the errors name the implementation's source.
#include "reports/conformance/oracle.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "theory/base/input_error.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::reports {
namespace {

theory::QuadraticProblem problem() {
  auto o = verify::small_options(5);
  o.dim = 2;
  o.clients = 3;
  return theory::generate_quadratic(o);
}

ConformanceRun run_of(int chains, int rounds) {
  ConformanceRun r;
  r.algorithm = "fedavg";
  r.gamma = 0.1;
  r.chains = chains;
  r.rounds = rounds;
  r.seed = 42;
  r.x0 = Matrix::Zero(2, chains);
  return r;
}

void expect_error(const std::function<void()>& f, const std::string& text) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing " << text;
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("implementation:", 0), 0U) << what;
    EXPECT_NE(what.find(text), std::string::npos) << what;
  }
}

TEST(ConformanceOracle, ChainNoiseDoesNotDependOnTheOtherChainsOrClients) {
  const auto q = problem();
  const auto ignore = [](int, const Matrix&) {};
  ConformanceOracle three(q, run_of(3, 1), "implementation", ignore);
  ConformanceOracle five(q, run_of(5, 1), "implementation", ignore);
  const Matrix x3 = Matrix::Ones(2, 3), x5 = Matrix::Ones(2, 5);
  // Five chains ask client 1 first, then client 0; three chains only client 0.
  five.gradient({1}, x5);
  const Matrix g3 = three.gradient({0}, x3), g5 = five.gradient({0}, x5);
  EXPECT_EQ(g3, g5.leftCols(3));  // bit for bit: chain k's stream is (seed, k, client, request)
  // The next request of the same client draws new noise.
  EXPECT_NE(three.gradient({0}, x3), g3);
}

// The mean of n independent gradients at x is ∇f_i(x) ± S_i^{1/2}/√n: each coordinate within
// z = 4 standard errors (two-sided α ≈ 6e-5 per coordinate, 1.3e-4 for the two).
TEST(ConformanceOracle, GradientsAreUnbiasedWithTheClientsNoise) {
  const auto q = problem();
  const int chains = 4000;
  ConformanceOracle oracle(q, run_of(chains, 1), "implementation", [](int, const Matrix&) {});
  Vector x(2);
  x << 0.3, -0.7;
  const Matrix g = oracle.gradient({2}, x.replicate(1, chains));
  const Vector mean = g.rowwise().mean();
  const Vector expected = q.gradient(2, x);
  for (int j = 0; j < 2; ++j) {
    const double se = std::sqrt(q.client(2).noise_cov(j, j) / chains);
    EXPECT_LE(std::abs(mean(j) - expected(j)), 4 * se) << "coordinate " << j;
  }
}

TEST(ConformanceOracle, RoundsDivergenceAndCompleteness) {
  const auto q = problem();
  std::vector<int> recorded;
  ConformanceOracle oracle(q, run_of(2, 3), "implementation",
                           [&](int t, const Matrix&) { recorded.push_back(t); });
  oracle.report(Matrix::Zero(2, 2));
  expect_error([&] { oracle.require_complete("returned"); }, "returned after 1 of 3 rounds");
  Matrix far = Matrix::Zero(2, 2);
  far(1, 1) = 2 * kConformanceDivergence;
  oracle.report(far);
  EXPECT_EQ(oracle.diverged_round(), 2);
  EXPECT_TRUE(oracle.finished());
  oracle.require_complete("returned");       // a diverged run is complete
  EXPECT_EQ(recorded, std::vector<int>{1});  // the diverged round is not recorded
  expect_error([&] { oracle.gradient({0}, Matrix::Zero(2, 2)); }, "after the run ended");
  expect_error([&] { oracle.report(Matrix::Zero(2, 2)); }, "after the run ended");
}

TEST(ConformanceOracle, BadRequestsNameTheImplementation) {
  const auto q = problem();
  ConformanceOracle oracle(q, run_of(2, 1), "implementation", [](int, const Matrix&) {});
  expect_error([&] { oracle.gradient({3}, Matrix::Zero(2, 2)); }, "[0, 3), got 3");
  expect_error([&] { oracle.gradient({0, 1, 2}, Matrix::Zero(2, 2)); }, "one index or 2");
  expect_error([&] { oracle.gradient({0}, Matrix::Zero(3, 2)); }, "2 chains of 2");
  expect_error([&] { oracle.report(Matrix::Zero(2, 3)); }, "2 chains of 2");
}

// A gradient requested at a non-finite x (Python's NaN in the protocol) is divergence in the round
// in progress, not a protocol error: the run is over and complete.
TEST(ConformanceOracle, AGradientRequestAtANonFiniteXIsDivergence) {
  const auto q = problem();
  ConformanceOracle oracle(q, run_of(2, 5), "implementation", [](int, const Matrix&) {});
  oracle.report(Matrix::Zero(2, 2));
  Matrix nan = Matrix::Zero(2, 2);
  nan(0, 0) = std::nan("");
  expect_error([&] { oracle.gradient({0}, nan); }, "diverged in round 2");
  EXPECT_EQ(oracle.diverged_round(), 2);
  EXPECT_TRUE(oracle.finished());
  oracle.require_complete("returned");
}

}  // namespace
}  // namespace fedverify::reports
