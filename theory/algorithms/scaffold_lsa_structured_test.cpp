// Scaffold's structured linear-sa solve (scaffold_lsa_structured.cpp, THEORY (L1)) against the
// dense reference scaffold_exact_lsa_dense (itself checked against a brute-force Kronecker
// reference in linear_sa_test.cpp): equal to round-off on small problems with symmetric and
// non-symmetric Ā (dense samples, least squares, federated TD on a Garnet MDP), d 2–6, N 2–6,
// H 1–4, B 1–2; mean-square instability refused with an InputError naming --gamma.
//
// Tolerance 1e-10 relative (the brief's): both sides are backward-stable solves of the same
// equation, whose condition is ≈ 1/(γμH)² ≤ 1e4 here, so they agree to ≈ 1e-12 (measured: printed).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "theory/algorithms/linear_sa.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/garnet.hpp"
#include "theory/problems/linear_sa_problem.hpp"
#include "theory/problems/problem_io.hpp"
#include "theory/problems/testing/linear_sa_cases.hpp"

namespace fedverify {
namespace {

using theory::LinearSaProblem;

constexpr double kRelative = 1e-10;

using verify::relative_error;

// Non-symmetric dense samples: the builder of the other linear-sa tests.
std::unique_ptr<theory::Problem> dense_problem(int d, int n, int samples, int batch,
                                               unsigned seed) {
  return std::make_unique<LinearSaProblem>(verify::dense_problem(d, n, samples, batch, seed));
}

// Least squares with λ = 0.1: the builder of the other linear-sa tests.
std::unique_ptr<theory::Problem> least_squares(int d, int n, int rows, int batch, unsigned seed) {
  return std::make_unique<LinearSaProblem>(
      verify::least_squares_problem(d, n, rows, batch, 0.1, seed));
}

std::unique_ptr<theory::Problem> garnet(int d, int n, std::uint64_t seed) {
  theory::GarnetOptions o;
  o.states = 2 * d + 2;
  o.features = d;
  o.clients = n;
  o.kernel_heterogeneity = 1.0;
  o.reward_heterogeneity = 1.0;
  o.seed = seed;
  return theory::parse_problem(theory::garnet_td_json(o), "garnet");
}

struct Case {
  std::string name;
  std::unique_ptr<theory::Problem> problem;
  double gamma_l;  // γ·L
  int steps;
};

TEST(ScaffoldLsaStructured, AgreesWithTheDenseSolve) {
  std::vector<Case> cases;
  cases.push_back({"dense d=3 N=4 H=2", dense_problem(3, 4, 3, 1, 11), 0.1, 2});
  cases.push_back({"dense d=2 N=2 H=1", dense_problem(2, 2, 2, 1, 12), 0.3, 1});
  cases.push_back({"dense d=6 N=5 H=3 B=2", dense_problem(6, 5, 4, 2, 13), 0.05, 3});
  cases.push_back({"least squares d=4 N=3 H=3", least_squares(4, 3, 7, 1, 14), 0.05, 3});
  cases.push_back({"least squares d=5 N=6 H=4 B=2", least_squares(5, 6, 9, 2, 15), 0.02, 4});
  cases.push_back({"least squares d=2 N=2 H=1", least_squares(2, 2, 5, 1, 16), 0.2, 1});
  cases.push_back({"td garnet d=4 N=3 H=2", garnet(4, 3, 17), 0.2, 2});
  cases.push_back({"td garnet d=6 N=6 H=4", garnet(6, 6, 18), 0.1, 4});
  for (const Case& c : cases) {
    const auto& p = dynamic_cast<const LinearSaProblem&>(*c.problem);
    const theory::RunSetting s{c.gamma_l / p.smoothness(), c.steps};
    const auto dense = theory::scaffold_exact_lsa_dense(p, s);
    const auto structured = theory::scaffold_exact_lsa_structured(p, s);
    const double mean = relative_error(structured.mean, dense.mean);
    const double cov = relative_error(structured.cov, dense.cov);
    const double radius = std::abs(structured.spectral_radius - dense.spectral_radius);
    fmt::print("{}: relative error mean {:.2e}, cov {:.2e}; spectral radius {:.12f} ({:.1e})\n",
               c.name, mean, cov, dense.spectral_radius, radius);
    EXPECT_LE(mean, kRelative) << c.name;
    EXPECT_LE(cov, kRelative) << c.name;
    EXPECT_LE(radius, 1e-10) << c.name;
  }
}

// scaffold_exact_lsa takes the structured solve from dN = kLsaStructuredMinSize.
TEST(ScaffoldLsaStructured, DispatchBySize) {
  const auto owned = least_squares(6, 20, 8, 1, 21);
  const auto& p = dynamic_cast<const LinearSaProblem&>(*owned);
  ASSERT_GE(p.dim() * p.num_clients(), theory::kLsaStructuredMinSize);
  const theory::RunSetting s{0.05 / p.smoothness(), 2};
  const auto chosen = theory::scaffold_exact_lsa(p, s);
  const auto structured = theory::scaffold_exact_lsa_structured(p, s);
  EXPECT_EQ(relative_error(chosen.cov, structured.cov), 0.0);
  const auto dense = theory::scaffold_exact_lsa_dense(p, s);
  fmt::print("d = 6, N = 20: relative error cov {:.2e}\n", relative_error(chosen.cov, dense.cov));
  EXPECT_LE(relative_error(chosen.cov, dense.cov), kRelative);
}

// Two identical clients with samples A ∈ {0, 2} (Ā = 1), H = 1: the round's x' = x − γĀ_2 x + …
// with Ā_2 the mean of two independent draws, E(1 − γĀ_2)² = 1 − 2γ + 1.5γ² ≥ 1 for γ ≥ 4/3
// while M contracts (ρ = |1 − γ|) for γ < 2: mean-square unstable at γ = 1.6, refused.
TEST(ScaffoldLsaStructured, MeanSquareUnstableIsRefused) {
  std::vector<theory::LinearSaClient> clients(2);
  for (auto& c : clients) {
    c.samples.push_back({1.0, Matrix::Constant(1, 1, 0.0), Vector::Constant(1, 1.0)});
    c.samples.push_back({1.0, Matrix::Constant(1, 1, 2.0), Vector::Constant(1, 0.0)});
  }
  const LinearSaProblem p(std::move(clients), 1);
  EXPECT_NO_THROW(theory::scaffold_exact_lsa_structured(p, {0.5, 1}));
  for (double gamma : {1.4, 1.6, 1.9}) {
    EXPECT_THROW(theory::scaffold_exact_lsa_dense(p, {gamma, 1}), InputError) << gamma;
    try {
      theory::scaffold_exact_lsa_structured(p, {gamma, 1});
      ADD_FAILURE() << "no InputError at gamma = " << gamma;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--gamma"), std::string::npos) << e.what();
    }
  }
  // M itself does not contract (γ > 2): refused as well.
  EXPECT_THROW(theory::scaffold_exact_lsa_structured(p, {2.5, 1}), InputError);
}

}  // namespace
}  // namespace fedverify
