// The client-weights claim (heterogeneity.weighted-clients, THEORY (A1)) can fail: run (quick
// grid) with a server that ignores the weights (FedLab #305) and with the source's hint for the
// weighted covariance, it must fail, each on the rows that compare with what was planted.
// docs/PERTURBATIONS.md lists both rows.
#include <gtest/gtest.h>

#include "theory/problems/algorithm.hpp"
#include "verify/claim_perturbations.hpp"
#include "verify/claims/heterogeneity/heterogeneity.hpp"
#include "verify/planted/fedavg_bugs.hpp"

namespace fedverify {
namespace {

using perturbations::fails;
using perturbations::quick;
using perturbations::row_fails;
using perturbations::run_as;

constexpr const char* kId = "heterogeneity.weighted-clients";

// FedLab #305: the server's average (1/N) Σ_c y_c whatever p_c. The chain then converges to the
// equally weighted fixed point, many stationary standard deviations from the weighted one.
TEST(ClaimPerturbations, WeightedClientsCatchesAServerThatIgnoresTheWeights) {
  claims::Context ctx = quick();
  ctx.round_for = [](theory::Algorithm a) -> std::shared_ptr<const estimators::RoundSampler> {
    if (a == theory::Algorithm::fedavg)
      return verify::planted::fedavg_round_ignoring_client_weights();
    return nullptr;
  };
  const claims::ClaimResult r = run_as(kId, ctx);
  EXPECT_TRUE(fails("weighted clients, server ignoring the weights", r));
  EXPECT_TRUE(row_fails(r, "hetero-4, p = (1, 2, 4, 8)/15, H = 4, γL = 0.05, simulated"));
  EXPECT_TRUE(row_fails(r, "ls-diabetes, p_c ∝ n_c, H = 2, γL = 0.2, simulated"));
}

// The source's hint for (F2) with weights, γ𝒜(Σ_c p_c² C_c)·(Σ_c p_c²)⁻¹: a factor 1/Σp² too
// large, so the relative error does not fall with γ.
TEST(ClaimPerturbations, WeightedClientsCatchesTheSourcesCovarianceHint) {
  const auto hint = [](const theory::Problem& p, const theory::ExpansionCoefficients& k,
                       const theory::RunSetting& s) {
    double sum_p2 = 0;
    for (int c = 0; c < p.num_clients(); ++c) sum_p2 += p.weight(c) * p.weight(c);
    return Matrix(claims::heterogeneity::weighted_first_order_covariance(p, k, s) / sum_p2);
  };
  const claims::ClaimResult r = run_as(kId, quick(), claims::heterogeneity::weighted_clients,
                                       claims::heterogeneity::WeightedCovariance(hint));
  EXPECT_TRUE(fails("weighted clients, the (Σp²)⁻¹ hint", r));
  EXPECT_TRUE(row_fails(r, "hetero-4, p = (1, 2, 4, 8)/15, H = 4, γL = 0.04 … 0.005"));
  EXPECT_TRUE(row_fails(r, "ls-diabetes, p_c ∝ n_c, H = 2, γL = 0.04 … 0.005"));
}

}  // namespace
}  // namespace fedverify
