// Planted perturbations of the claims fixed or added for issue 13 (test-only): for each claim a
// change of the formula it compares with, or of the simulated chain, that makes it fail.
// verify/claim_perturbations_slowtest.cpp runs every one. Nothing here is linked into the
// fedverify command.
#pragma once

#include <memory>

#include "estimators/samplers/round.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/expansions.hpp"

namespace fedverify::verify::planted {

// A FedAvg round whose clients all draw client 0's noise stream (the client index left out of
// the stream address): the N noises of a round are no longer independent, so averaging them does
// not divide their covariance by N — no linear speed-up. (On quadratics with additive noise the
// noises become ε_c = S_c^{1/2} z with one shared z.)
std::shared_ptr<const estimators::RoundSampler> fedavg_round_shared_noise();

// theory::exact_moments with the noise of a round not averaged over the clients: Q of (F5)/(S6)
// N times too large, hence Cov_π N times too large (the covariance is linear in Q).
theory::ExactMoments exact_moments_noise_not_averaged(const theory::QuadraticProblem& problem,
                                                      theory::Algorithm algorithm,
                                                      const theory::StepSetting& step);

// (S1)'s metric weight without its γ²: H²/N instead of γ²H²/N (a dimensional slip: ξ has the
// units of a gradient, γHξ those of x). (Dropping the 1/N instead is NOT caught: the one-step
// contraction holds for weights from about 0.1× to 3× γ²H²/N on q-small — see the claim's note.)
double s1_weight_without_gamma(const theory::StepSetting& step, int clients);

// (F7) with an off-by-one in the local steps: the coefficients of H − 1 steps reported for H (a
// loop bound written h < H − 1). At least one step.
theory::FedavgSecondOrder fedavg_second_order_off_by_one(const theory::QuadraticProblem& problem,
                                                         const theory::ExpansionCoefficients& k,
                                                         int local_steps);

// theory::first_order with a stochasticity bias that grows with the local steps, γH·b_s instead
// of γb_s (the local-step noise summed instead of averaged), for FedAvg and Scaffold.
theory::FirstOrderMoments first_order_stochastic_bias_times_h(
    const theory::ExpansionCoefficients& k, theory::Algorithm algorithm,
    const theory::StepSetting& step);

}  // namespace fedverify::verify::planted
