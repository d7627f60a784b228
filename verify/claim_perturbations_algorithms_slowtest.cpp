// The claims about the algorithms the thesis names (THEORY §12: FedNova, …) can fail: each is run
// (quick grid) with a planted perturbation of the law or formula it compares with, and must then
// fail. As verify/claim_perturbations_slowtest.cpp, which holds the other families;
// docs/PERTURBATIONS.md lists every row.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "estimators/samplers/algorithms/feddyn.hpp"
#include "estimators/samplers/algorithms/mime.hpp"
#include "estimators/samplers/algorithms/robust_round.hpp"
#include "estimators/samplers/round.hpp"
#include "theory/algorithms/dpfedavg.hpp"
#include "theory/algorithms/dpfedavg_clip.hpp"
#include "theory/algorithms/fedavg.hpp"
#include "theory/algorithms/fednova.hpp"
#include "theory/algorithms/local_epochs.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "theory/problems/dpfedavg_setting.hpp"
#include "theory/problems/fednova_setting.hpp"
#include "theory/problems/optimum.hpp"
#include "verify/claim_perturbations.hpp"
#include "verify/claims/optimisers/optimisers.hpp"

namespace fedverify {
namespace {

using perturbations::fails;
using perturbations::quick;
using perturbations::run_as;
using theory::UnequalStepsAggregation;

// FedNova without its normalisation (its law is plain FedAvg's with the same H_c): its mean tends
// to the surrogate optimum, not x*, and the mean rows fail; and (A2b) for FedNova without the
// weights H̄/H_c on the clients' noise (the equal-steps (γ/N)𝒜C̄): its relative error stays O(1)
// on q-small (H_c = 1, 4, 16), slope ≈ 0.
TEST(ClaimPerturbations, FednovaCatchesAMissingNormalisationAndUnweightedNoise) {
  const auto unnormalised = [](const theory::QuadraticProblem& q, const theory::RunSetting& s,
                               UnequalStepsAggregation /*a*/) {
    return theory::unequal_steps_exact(q, s, UnequalStepsAggregation::plain);
  };
  const auto unweighted = [](const theory::QuadraticProblem& q, const theory::RunSetting& s,
                             UnequalStepsAggregation a) {
    if (a == UnequalStepsAggregation::plain) return theory::unequal_steps_first_order_cov(q, s, a);
    return Matrix(s.gamma / q.num_clients() * theory::expansion_coefficients(q).a_noise);
  };
  EXPECT_TRUE(fails("fednova, normalisation dropped",
                    run_as("optimisers.fednova", quick(), [&](const claims::Context& c) {
                      return claims::optimisers::run_fednova(c, unnormalised,
                                                             theory::unequal_steps_first_order_cov);
                    })));
  EXPECT_TRUE(fails("fednova, noise not weighted by H̄/H_c",
                    run_as("optimisers.fednova", quick(), [&](const claims::Context& c) {
                      return claims::optimisers::run_fednova(c, theory::unequal_steps_exact,
                                                             unweighted);
                    })));
}

// Local instead of central DP: every client adds N(0, σ_dp² I) to its own update before the
// average, so the server's average carries σ_dp²/N — the round below runs DP-FedAvg's registered
// round with σ_dp/√N. And (A5) without its 1/(γH): σ_dp²·𝒜I, whose relative error stays O(1).
constexpr theory::Algorithm kDpfedavg{"dpfedavg"};

class LocalNoiseRound final : public estimators::RoundSampler {
 public:
  void round(const estimators::RoundBlock& b) const override {
    theory::RunSetting s = b.step;
    s.parameters[std::string(theory::kDpNoiseKey)] = {theory::dp_noise(b.step) /
                                                      std::sqrt(static_cast<double>(b.clients))};
    const estimators::RoundBlock block{b.dim,     b.clients, b.active,    b.gamma,   b.local_steps,
                                       b.address, b.x,       b.auxiliary, b.sampler, b.kernel,
                                       b.scratch, s,         b.weights};
    inner_->round(block);
  }

 private:
  std::shared_ptr<const estimators::RoundSampler> inner_ =
      estimators::RoundRegistry::get("dpfedavg");
};

TEST(ClaimPerturbations, DpFedavgCatchesLocalNoiseAndAMissingStepFactor) {
  claims::Context ctx = quick();
  ctx.round_for = [](theory::Algorithm a) -> std::shared_ptr<const estimators::RoundSampler> {
    if (a == kDpfedavg) return std::make_shared<LocalNoiseRound>();
    return nullptr;
  };
  const claims::ClaimResult local = run_as("optimisers.dp-fedavg", ctx);
  EXPECT_TRUE(fails("dp-fedavg, noise added by each client (σ_dp²/N at the server)", local));
  EXPECT_TRUE(perturbations::row_fails(local, "simulated"));
  const auto no_step_factor = [](const theory::ExpansionCoefficients& k,
                                 const theory::RunSetting& s) {
    theory::FirstOrderMoments m = theory::dpfedavg_first_order(k, s);
    const theory::FirstOrderMoments plain =
        theory::fedavg_first_order(k, theory::without_dp_parameters(s));
    m.cov = plain.cov + (m.cov - plain.cov) * (s.gamma * s.local_steps);  // σ²𝒜I
    return m;
  };
  const claims::ClaimResult formula =
      run_as("optimisers.dp-fedavg", quick(), [&](const claims::Context& c) {
        return claims::optimisers::run_dp_fedavg(c, no_step_factor,
                                                 theory::dpfedavg_clip_first_order);
      });
  EXPECT_TRUE(fails("dp-fedavg, (A5) without 1/(γH)", formula));
  EXPECT_TRUE(perturbations::row_fails(formula, "γL = 0.01 … 0.00125"));
  // (A5c) with the unclipped contraction ā in place of J = Σ p_c a_c P(|g_c| < κ): the variance
  // is off by J/ā ≈ 0.4, which the binding-clip row catches.
  const auto unclipped_contraction = [](const theory::QuadraticProblem& q,
                                        const theory::RunSetting& s) {
    theory::DpClipFirstOrder f = theory::dpfedavg_clip_first_order(q, s);
    double abar = 0;
    for (int c = 0; c < q.num_clients(); ++c) abar += q.weight(c) * q.client(c).hessian(0, 0);
    f.variance *= f.contraction / abar;
    return f;
  };
  const claims::ClaimResult clip =
      run_as("optimisers.dp-fedavg", quick(), [&](const claims::Context& c) {
        return claims::optimisers::run_dp_fedavg(c, theory::dpfedavg_first_order,
                                                 unclipped_contraction);
      });
  EXPECT_TRUE(fails("dp-fedavg, (A5c) with the unclipped contraction", clip));
  EXPECT_TRUE(perturbations::row_fails(clip, "clip S = κγH"));
}

// optimisers.reshuffled-epochs: a sampler that ignores the problem's "sampling" field (the chain
// drawn with replacement, covariance O(γ) against the reshuffled law's O(γ³)) fails the simulation
// row; (A4) with its pair count over n_c instead of n_c − 1 (a relative error 1/n_c at every γ,
// slope ≈ 0) fails the bias row.
TEST(ClaimPerturbations, ReshuffledEpochsCatchAnIgnoredSampleOrderAndAWrongPairCount) {
  const claims::ClaimResult ignored =
      run_as("optimisers.reshuffled-epochs", quick(), [](const claims::Context& c) {
        return claims::optimisers::run_reshuffled_epochs(c, theory::reshuffling_bias_first_order,
                                                         true);
      });
  EXPECT_TRUE(fails("reshuffled-epochs, a sampler drawing with replacement", ignored));
  EXPECT_TRUE(perturbations::row_fails(ignored, "simulated"));
  const auto population = [](const theory::LinearSaProblem& p, const theory::RunSetting& s) {
    const int n = p.num_samples(0);  // every client of ls-epochs has n_c = 8
    return Vector(theory::reshuffling_bias_first_order(p, s) * (n - 1.0) / n);
  };
  const claims::ClaimResult formula =
      run_as("optimisers.reshuffled-epochs", quick(), [&](const claims::Context& c) {
        return claims::optimisers::run_reshuffled_epochs(c, population, false);
      });
  EXPECT_TRUE(fails("reshuffled-epochs, (A4) over n_c instead of n_c − 1", formula));
  EXPECT_TRUE(perturbations::row_fails(formula, "exact mean"));
}

// optimisers.rfa: an rfa round that averages (the Weiszfeld iteration's starting point, no step
// taken) has the mean's error, growing as s², and fails the resilience row; (A6) replaced by x*
// (the mean's root: the relative distance of RFA's fixed point to it stays O(1), slope ≈ 0) fails
// the fixed-point row.
TEST(ClaimPerturbations, RfaCatchesAnAveragingMedianAndTheMeansRoot) {
  claims::Context ctx = quick();
  ctx.round_for = [](theory::Algorithm a) -> std::shared_ptr<const estimators::RoundSampler> {
    if (a != theory::Algorithm{"rfa"}) return nullptr;
    return std::make_shared<estimators::RobustRound>(
        [](const Matrix& points, const theory::RunSetting&) {
          return Vector(points.rowwise().mean());
        });
  };
  const claims::ClaimResult averaging = run_as("optimisers.rfa", ctx);
  EXPECT_TRUE(fails("rfa, a median that averages", averaging));
  EXPECT_TRUE(perturbations::row_fails(averaging, "corrupted"));
  const claims::ClaimResult root = run_as("optimisers.rfa", quick(), [](const claims::Context& c) {
    return claims::optimisers::run_rfa(
        c, [](const theory::Problem& p) { return theory::minimizer(p); });
  });
  EXPECT_TRUE(fails("rfa, (A6) replaced by x*", root));
  EXPECT_TRUE(perturbations::row_fails(root, "exact gradients"));
}

// optimisers.fednova-random-steps: a FedNova round that ignores --random-steps (every H_c = K_c)
// has another law and fails the simulation row; (A2c) with the largest steps K_c in place of
// E[H_c] (the fixed-steps surrogate (A2a)) fails the mean row.
class FixedStepsRound final : public estimators::RoundSampler {
 public:
  void round(const estimators::RoundBlock& b) const override {
    theory::RunSetting s = b.step;
    s.parameters.erase(std::string(theory::kRandomStepsKey));
    const estimators::RoundBlock block{b.dim,     b.clients, b.active,    b.gamma,   b.local_steps,
                                       b.address, b.x,       b.auxiliary, b.sampler, b.kernel,
                                       b.scratch, s,         b.weights};
    inner_->round(block);
  }
  estimators::ChainStepCount local_steps_per_round(const estimators::SamplerOptions& o,
                                                   int clients) const override {
    return inner_->local_steps_per_round(o, clients);
  }

 private:
  std::shared_ptr<const estimators::RoundSampler> inner_ =
      estimators::RoundRegistry::get("fednova");
};

TEST(ClaimPerturbations, FednovaRandomStepsCatchFixedStepsAndTheLargestStepsSurrogate) {
  claims::Context ctx = quick();
  ctx.round_for = [](theory::Algorithm a) -> std::shared_ptr<const estimators::RoundSampler> {
    if (a == theory::Algorithm{"fednova"}) return std::make_shared<FixedStepsRound>();
    return nullptr;
  };
  const claims::ClaimResult fixed = run_as("optimisers.fednova-random-steps", ctx);
  EXPECT_TRUE(fails("fednova-random-steps, a round with every H_c = K_c", fixed));
  EXPECT_TRUE(perturbations::row_fails(fixed, "simulated"));
  const claims::ClaimResult largest =
      run_as("optimisers.fednova-random-steps", quick(), [](const claims::Context& c) {
        return claims::optimisers::run_fednova_random(c, theory::surrogate_optimum);
      });
  EXPECT_TRUE(fails("fednova-random-steps, (A2c) with K_c for E[H_c]", largest));
  EXPECT_TRUE(perturbations::row_fails(largest, "exact"));
}

// optimisers.feddyn-linear-sa: a FedDyn server that omits −h̄/α (the round's map then has an
// eigenvalue 1, THEORY-FedDyn (FD2)) fails the simulation row.
struct NoServerCorrection {
  static double server_correction(double /*mean_h*/, double /*alpha*/) { return 0.0; }
};

TEST(ClaimPerturbations, FeddynLinearSaCatchesAMissingServerCorrection) {
  claims::Context ctx = quick();
  ctx.round_for = [](theory::Algorithm a) -> std::shared_ptr<const estimators::RoundSampler> {
    if (a != theory::Algorithm{"feddyn"}) return nullptr;
    return std::make_shared<estimators::FeddynRound<NoServerCorrection>>();
  };
  const claims::ClaimResult planted = run_as("optimisers.feddyn-linear-sa", ctx);
  EXPECT_TRUE(fails("feddyn-linear-sa, a server without −h̄/α", planted));
  EXPECT_TRUE(perturbations::row_fails(planted, "simulated"));
}

// optimisers.mime: MimeLite's client step — the raw stochastic gradient, no control variate — in
// place of Mime's keeps client drift and a noise floor (THEORY-Mime (MI0)), so its simulated
// E‖x_t − x*‖² does not follow the exact law (MI3) to 0: the simulation row fails.
struct LiteMime {
  static constexpr bool kControlVariate = false;
};

TEST(ClaimPerturbations, MimeCatchesMimeLitesClientStep) {
  claims::Context ctx = quick();
  ctx.round_for = [](theory::Algorithm a) -> std::shared_ptr<const estimators::RoundSampler> {
    if (a != theory::Algorithm{"mime"}) return nullptr;
    return std::make_shared<estimators::MimeRound<LiteMime>>();
  };
  const claims::ClaimResult planted = run_as("optimisers.mime", ctx);
  EXPECT_TRUE(fails("mime, MimeLite's client step", planted));
  EXPECT_TRUE(perturbations::row_fails(planted, "td-garnet-small"));
}

}  // namespace
}  // namespace fedverify
