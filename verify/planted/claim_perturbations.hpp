// Planted perturbations of the claims fixed or added for issue 13 (test-only): for each claim a
// change of the formula it compares with, or of the simulated chain, that makes it fail.
// verify/claim_perturbations_slowtest.cpp and claim_perturbations_personalised_slowtest.cpp run
// every one. Nothing here is linked into the fedverify command.
#pragma once

#include <memory>

#include "estimators/samplers/round.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "theory/closed_forms/personalised.hpp"
#include "theory/problems/problem.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::verify::planted {

// A FedAvg round whose clients all draw client 0's noise stream (the client index left out of
// the stream address): the N noises of a round are no longer independent, so averaging them does
// not divide their covariance by N — no linear speed-up. (On quadratics with additive noise the
// noises become ε_c = S_c^{1/2} z with one shared z.)
std::shared_ptr<const estimators::RoundSampler> fedavg_round_shared_noise();

// FedRR whose round does not override RoundSampler::combine_runs: it runs x_γ and x_2γ but reports
// x_γ (the default combination, the first run) instead of χ = 2x_γ − x_2γ (THEORY (R0)), so its
// bias is FedAvg's, O(γ).
std::shared_ptr<const estimators::RoundSampler> fedrr_round_without_extrapolation();

// FedRR combining its runs with the wrong Richardson weights, χ = (4x_γ − x_2γ)/3 (the weights of
// a second-order extrapolation, (2^p x_γ − x_2γ)/(2^p − 1) with p = 2, used where the bias is
// O(γ)): its first-order bias is (2/3)·FedAvg's, and its covariance (16Σ^(γ) + Σ^(2γ))/9 ≈
// (2γ/N)𝒜C̄, a third of (R2)'s.
std::shared_ptr<const estimators::RoundSampler> fedrr_round_wrong_weights();

// theory::exact_moments with the noise of a round not averaged over the clients: Q of (F5)/(S6)
// N times too large, hence Cov_π N times too large (the covariance is linear in Q).
theory::ExactMoments exact_moments_noise_not_averaged(const theory::QuadraticProblem& problem,
                                                      theory::Algorithm algorithm,
                                                      const theory::RunSetting& step);

// (S1)'s metric weight without its γ²: H²/N instead of γ²H²/N (a dimensional slip: ξ has the
// units of a gradient, γHξ those of x). (Dropping the 1/N instead is NOT caught: the one-step
// contraction holds for weights from about 0.1× to 3× γ²H²/N on q-small — see the claim's note.)
double s1_weight_without_gamma(const theory::RunSetting& step, int clients);

// (F7) with an off-by-one in the local steps: the coefficients of H − 1 steps reported for H (a
// loop bound written h < H − 1). At least one step.
theory::FedavgSecondOrder fedavg_second_order_off_by_one(const theory::QuadraticProblem& problem,
                                                         const theory::ExpansionCoefficients& k,
                                                         int local_steps);

// theory::first_order with a stochasticity bias that grows with the local steps, γH·b_s instead
// of γb_s (the local-step noise summed instead of averaged), for FedAvg and Scaffold.
theory::FirstOrderMoments first_order_stochastic_bias_times_h(
    const theory::ExpansionCoefficients& k, theory::Algorithm algorithm,
    const theory::RunSetting& step);

// Scaffold's exact stationary mean of x with the control variates never updated (they stay at
// their zero initialisation, e.g. the server's c and the clients' c_i never written back): the
// chain is FedAvg's, so the mean is FedAvg's, biased by γ(H−1)b_h + O(γ²).
Vector scaffold_mean_variates_never_updated(const theory::QuadraticProblem& problem,
                                            const theory::RunSetting& step);

// (S4)'s control-variate covariance blocks Σ^ξ with H² for H in their denominators (the variance
// of the mean of H local gradients written C/H² instead of C/H): every Σ^ξ block H times too
// small, so its relative error to the exact (S6) blocks tends to 1 − 1/H, not 0.
theory::ScaffoldControlVariateMoments s4_over_h_squared(const theory::Problem& problem,
                                                        const theory::ExpansionCoefficients& k,
                                                        const theory::RunSetting& step);

// (F1)'s contraction factor squared, (1 − γμ)^{2Ht}: the rate of W2² stated for W2.
double fedavg_contraction_squared(const theory::RunSetting& step, double mu, int rounds);

// (P3)'s bound without its neighbourhood 2nασ²/μ, rate^k‖x⁰ − x(λ)‖²: L2GD's linear rate stated as
// if its random coin added no noise (gradient descent's bound).
double l2gd_bound_without_neighbourhood(const theory::L2gdConstants& k, double initial_error2,
                                        int iteration);

// p* of (P4) with λ and L swapped, L/(λ + L) = 1 − p*: the probability of a local step taken for
// that of an averaging step.
double optimal_probability_swapped(double lambda, double l);

// The λ → ∞ limit of x(λ) taken as the average of the local optima (replicated) instead of x*, the
// minimiser of the average f: equal only when every client has the same Hessian.
Matrix average_of_local_optima_replicated(const theory::Problem& problem);

// The quadratic problem with every client's noise covariance multiplied by N: the averaged noise of
// a round then has covariance C̄ instead of C̄/N — what N clients sharing one noise stream give
// when their S_c are equal — so averaging over clients no longer buys a linear speed-up. The
// exact-law counterpart of fedavg_round_shared_noise (dynamics.gradient-complexity is exact).
theory::QuadraticProblem noise_not_averaged(const theory::QuadraticProblem& problem);

}  // namespace fedverify::verify::planted
