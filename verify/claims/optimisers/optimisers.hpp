// The optimiser claims whose compared-with formula is not a first-order prediction: their runs take
// that formula as a parameter (the real one: the theory function named below), so that
// verify/optimiser_planted_test.cpp can run them with a planted wrong one. (The other optimiser
// rows compare with first-order moments, which tests replace through Context::predictor.)
#pragma once

#include "theory/algorithms/dpfedavg_clip.hpp"

#include <functional>

#include "theory/algorithms/fednova.hpp"

#include "theory/closed_forms/expansions.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/linear_sa_problem.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "verify/claims/claim.hpp"
#include "verify/claims/problems/default_problems.hpp"

namespace fedverify::claims::optimisers {

// optimisers.server-stability (and maps.server-stability): the largest stable server step
// (theory::fedopt_server_step_limit).
using ServerStepLimit =
    std::function<double(const theory::QuadraticProblem&, const theory::RunSetting&)>;
ClaimResult run_server_stability(const Context& ctx, const ServerStepLimit& limit);

// optimisers.fedprox-bias: FedProx's bias over FedAvg's as γL → 0 at fixed t = γμ_pH
// (theory::fedprox_bias_ratio_limit).
using BiasRatioLimit = std::function<double(double gamma_mu_h, int local_steps)>;
ClaimResult run_fedprox_bias(const Context& ctx, const BiasRatioLimit& limit);

// optimisers.scaffold-sampling: Scaffold's first-order moments under client sampling
// (theory::scaffold_sampled_first_order, THEORY S8a).
using SampledFirstOrder = std::function<theory::FirstOrderMoments(
    const theory::ExpansionCoefficients&, const theory::RunSetting&)>;
ClaimResult run_scaffold_sampling(const Context& ctx, const SampledFirstOrder& first_order);

// optimisers.server-step-logistic on `problem` at H = 2, γL = gamma_l and twice that, with
// budget_factor times the standard control-variate budget (logistic/measurement.hpp), row seeds
// named by `claim_id`: the registered claim runs lr-hetero (d = 3), optimisers.server-step-research
// breast-cancer (d = 31).
struct ServerStepGrid {
  const NamedProblem* problem = nullptr;
  double gamma_l = 0;
  double budget_factor = 1;
  const char* claim_id = "";
};
ClaimResult run_server_step_logistic(const Context& ctx, const ServerStepGrid& grid);

// optimisers.feddyn: FedDyn's exact stationary mean (theory::feddyn_exact, THEORY-FedDyn (FD2):
// x*) and the small-step limit of its covariance (theory::feddyn_small_step_cov, (FD4)).
using FedDynMean =
    std::function<Vector(const theory::QuadraticProblem&, const theory::RunSetting&)>;
using FedDynSmallStepCov =
    std::function<Matrix(const theory::QuadraticProblem&, const theory::RunSetting&)>;
ClaimResult run_feddyn(const Context& ctx, const FedDynMean& mean, const FedDynSmallStepCov& limit);

// optimisers.fednova: the exact stationary law with unequal local steps under either aggregation
// (theory::unequal_steps_exact, THEORY (A2)) against the surrogate optimum (A2a) and the
// first-order covariance (theory::unequal_steps_first_order_cov, (A2b)).
using UnequalStepsLaw = std::function<theory::ExactMoments(
    const theory::QuadraticProblem&, const theory::RunSetting&, theory::UnequalStepsAggregation)>;
using UnequalStepsFirstOrderCov = std::function<Matrix(
    const theory::QuadraticProblem&, const theory::RunSetting&, theory::UnequalStepsAggregation)>;
ClaimResult run_fednova(const Context& ctx, const UnequalStepsLaw& law,
                        const UnequalStepsFirstOrderCov& first_order);

// optimisers.dp-fedavg: the exact law without clipping against the first order it is compared
// with (theory::dpfedavg_first_order, THEORY (A5)), and the simulated chain against the exact law.
using DpFirstOrder = std::function<theory::FirstOrderMoments(const theory::ExpansionCoefficients&,
                                                             const theory::RunSetting&)>;
// The binding-clip row compares the simulated chain with (A5c) (theory::dpfedavg_clip_first_order).
using DpClipFormula = std::function<theory::DpClipFirstOrder(const theory::QuadraticProblem&,
                                                             const theory::RunSetting&)>;
ClaimResult run_dp_fedavg(const Context& ctx, const DpFirstOrder& first_order,
                          const DpClipFormula& clip_first_order);

// optimisers.reshuffled-epochs: the exact law of FedAvg under reshuffling (THEORY (A4)) against
// the first-order bias it is compared with (theory::reshuffling_bias_first_order), and the
// simulated chain (on the reshuffled problem, or its with-replacement twin when
// `simulate_with_replacement`: a sampler that ignores the sample order) against that law.
using ReshufflingBias =
    std::function<Vector(const theory::LinearSaProblem&, const theory::RunSetting&)>;
ClaimResult run_reshuffled_epochs(const Context& ctx, const ReshufflingBias& bias,
                                  bool simulate_with_replacement);

// optimisers.rfa: RFA's deterministic fixed point against the limit it is compared with
// (theory::geometric_median_root, THEORY (A6)), and the resilience of the robust rules (the rounds
// of rfa and trimmed-mean, through Context::round_for).
using GradientMedianRoot = std::function<Vector(const theory::Problem&)>;
ClaimResult run_rfa(const Context& ctx, const GradientMedianRoot& root);

// optimisers.fednova-random-steps: the exact laws with random local steps (THEORY (A2c)) against
// the surrogate plain FedAvg's mean is compared with (theory::expected_steps_surrogate), and the
// simulated FedNova chain (its round through Context::round_for) against its exact law.
using ExpectedStepsSurrogate =
    std::function<Vector(const theory::QuadraticProblem&, const theory::RunSetting&)>;
ClaimResult run_fednova_random(const Context& ctx, const ExpectedStepsSurrogate& surrogate);

// optimisers.feddyn-linear-sa: FedDyn's exact law on federated TD(0) (THEORY-FedDyn (FD5)) and
// the simulated chain (its round through Context::round_for) against it.
ClaimResult run_feddyn_linear_sa(const Context& ctx);

}  // namespace fedverify::claims::optimisers
