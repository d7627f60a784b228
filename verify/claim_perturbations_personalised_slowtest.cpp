// The personalised-FL claims (THEORY §7) can fail: each is run (quick grid) with a planted
// perturbation of the formula it compares with or of the setting, and must then fail. As
// verify/claim_perturbations_slowtest.cpp, which holds the other families; docs/PERTURBATIONS.md
// lists every row.
#include <gtest/gtest.h>

#include <memory>

#include "estimators/samplers/algorithms/fedper.hpp"
#include "theory/algorithms/l2gd_compressed.hpp"
#include "theory/algorithms/l2gd_plus.hpp"
#include "theory/problems/optimum.hpp"
#include "verify/claim_perturbations.hpp"
#include "verify/claims/personalised/personalised.hpp"
#include "verify/planted/claim_perturbations.hpp"

namespace fedverify {
namespace {

using perturbations::fails;
using perturbations::quick;
using perturbations::run_as;

TEST(ClaimPerturbations, L2gdRateCatchesABoundWithoutItsNeighbourhood) {
  EXPECT_TRUE(fails("l2gd-rate, bound without 2nασ²/μ",
                    run_as("personalised.l2gd-rate", quick(), claims::personalised::l2gd_rate,
                           verify::planted::l2gd_bound_without_neighbourhood)));
}

TEST(ClaimPerturbations, CommunicationCatchesASwappedProbability) {
  EXPECT_TRUE(
      fails("communication, p* = L/(λ + L)",
            run_as("personalised.communication", quick(), claims::personalised::communication,
                   verify::planted::optimal_probability_swapped)));
}

TEST(ClaimPerturbations, OptimumLimitsCatchesTheAverageOfLocalOptima) {
  EXPECT_TRUE(
      fails("optimum-limits, λ → ∞ limit = mean of the local optima",
            run_as("personalised.optimum-limits", quick(), claims::personalised::optimum_limits,
                   verify::planted::average_of_local_optima_replicated)));
}

TEST(ClaimPerturbations, CommunicationLimitsCatchASwappedOptimalProbability) {
  EXPECT_TRUE(
      claims::personalised::communication_limits(quick(), theory::optimal_probability).passed());
  EXPECT_TRUE(fails("communication-limits, p* = L/(λ + L)",
                    run_as("personalised.communication-limits", quick(),
                           claims::personalised::communication_limits,
                           verify::planted::optimal_probability_swapped)));
}

// Local GD's fixed point taken as unbiased: every client's optimum moved to the minimiser x* of
// their average (heterogeneity of the optima removed), so local steps cost nothing at any ε.
TEST(ClaimPerturbations, LocalGdMythCatchesAnUnbiasedLocalGd) {
  const auto unbiased = [](const theory::QuadraticProblem& q) {
    const theory::QuadraticProblem erm = claims::personalised::noise_free(q);
    const Vector x_star = theory::minimizer(erm);
    std::vector<theory::QuadraticClient> clients;
    for (int c = 0; c < erm.num_clients(); ++c) {
      theory::QuadraticClient k = erm.client(c);
      k.optimum = x_star;
      clients.push_back(std::move(k));
    }
    return theory::QuadraticProblem(std::move(clients));
  };
  EXPECT_TRUE(fails("local-gd-myth, unbiased Local GD",
                    run_as("personalised.local-gd-myth", quick(),
                           claims::personalised::local_gd_myth, unbiased)));
}

// The variance-reduced family without its control variates (L2SGD under L2SGD+'s name): the
// estimator keeps its variance at x(λ), so every chain stalls at a neighbourhood.
TEST(ClaimPerturbations, VarianceReducedCatchesDroppedControlVariates) {
  const auto without = [](const theory::QuadraticProblem& q, const theory::L2gdSetting& s,
                          const theory::FiniteSumSplit& split, theory::VarianceReducedRule rule) {
    rule.control_variates = false;
    return theory::variance_reduced_branches(q, s, split, rule);
  };
  EXPECT_TRUE(fails("variance-reduced, control variates dropped",
                    run_as("personalised.variance-reduced", quick(),
                           claims::personalised::variance_reduced, without)));
}

// Compressed L2GD's constants without the master's compression (ω_M taken as 0 in κ_Q and σ_Q²):
// σ_Q² is then 57 % below the estimator's second moment at x(λ) with a compressed downlink; and
// σ_Q² taken as the uncompressed σ² (the compression's variance forgotten): every row. (A rate
// planted twice as fast, 1 − 2αμ/n, is not caught: on this problem the exact chains contract
// faster still — the bound's rate is loose, its neighbourhood is not.)
TEST(ClaimPerturbations, CompressedL2gdCatchesConstantsWithoutTheDownlink) {
  const auto without_downlink = [](const theory::Problem& p, const theory::L2gdSetting& s,
                                   const Matrix& xl, double omega, double, bool own) {
    return theory::compressed_l2gd_constants(p, s, xl, omega, 0.0, own);
  };
  EXPECT_TRUE(fails("compressed-l2gd, ω_M dropped",
                    run_as("personalised.compressed-l2gd", quick(),
                           claims::personalised::compressed_l2gd, without_downlink)));
  const auto sigma_plain = [](const theory::Problem& p, const theory::L2gdSetting& s,
                              const Matrix& xl, double omega, double om, bool own) {
    auto k = theory::compressed_l2gd_constants(p, s, xl, omega, om, own);
    k.sigma2 = theory::l2gd_constants(p, s, xl).sigma2;
    k.neighbourhood = 2 * p.num_clients() * s.alpha * k.sigma2 / p.strong_convexity();
    return k;
  };
  EXPECT_TRUE(fails("compressed-l2gd, σ_Q² = σ²",
                    run_as("personalised.compressed-l2gd", quick(),
                           claims::personalised::compressed_l2gd, sigma_plain)));
}

// Local GD's personalised objective with λ = p/α (the n of θ = αλ/(np) forgotten): the mean
// converges to x(np/α), not to x(p/α).
TEST(ClaimPerturbations, LocalMethodsPermCatchesALambdaWithoutN) {
  EXPECT_TRUE(fails(
      "local-methods-perm, λ = p/α",
      run_as("personalised.local-methods-perm", quick(), claims::personalised::local_methods_perm,
             [](int, double p, double alpha) { return p / alpha; })));
}

// personalised.fedper: a server that averages the personal coordinates too and sends the average
// back — FedAvg's round, the personal layers lost (THEORY (A7)) — fails the simulated row.
struct AveragesPersonal {
  static constexpr bool kKeepsPersonal = false;
};

TEST(ClaimPerturbations, FedperCatchesAveragedPersonalLayers) {
  claims::Context ctx = quick();
  ctx.round_for = [](theory::Algorithm a) -> std::shared_ptr<const estimators::RoundSampler> {
    if (a != theory::Algorithm{"fedper"}) return nullptr;
    return std::make_shared<estimators::FedperRound<AveragesPersonal>>();
  };
  const claims::ClaimResult planted = run_as("personalised.fedper", ctx);
  EXPECT_TRUE(fails("fedper, personal coordinates averaged", planted));
  EXPECT_TRUE(perturbations::row_fails(planted, "simulated"));
}

}  // namespace
}  // namespace fedverify
