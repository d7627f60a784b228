// Shared by the logistic-regression bias claims (THEORY §6): on logistic regression ∇³f ≠ 0
// makes the stochasticity bias γ b_s non-zero. There are no exact moments here: the measurement
// is a simulation, and the O(γ²) part of the bias (large when H > 1, THEORY §8) is removed by
// Richardson extrapolation of the measured bias over γ and 2γ:
//   β(γ) = (E_π[x] − x*)/γ = β₁ + γ β₂ + o(γ)  ⇒  2 β(γ) − β(2γ) = β₁ + o(γ),
// with β₁ = (H−1) b_h + b_s for FedAvg and b_s for Scaffold (THEORY (F3), (S3)).
//
// Error bars: every measurement is G independent replications (kit/stationary_run.hpp), and the
// two step sizes use independent seeds, so the Richardson combination of replication g,
// 2 β_g(γ) − β_g(2γ), is i.i.d. over g and a Hotelling T² test on those G vectors is exactly
// calibrated for Gaussian replication means, whatever the autocorrelation inside a chain.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "estimators/statistics/decide.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "verify/claims/claim.hpp"
#include "verify/claims/kit/stationary_run.hpp"
#include "verify/claims/problems/default_problems.hpp"

namespace fedverify::claims::logistic {

// Independent replications per measurement: G − 1 ≥ d(d+1)/2 = 6 for the covariance test.
inline constexpr int kReplications = 16;

// Equivalence margin of a Richardson row (kit/verdict.hpp), relative to ‖predicted β₁‖. The
// combination 2β(γ) − β(2γ) cancels the γ term of β = bias/γ, so of the (F3) remainder
// O(γ²H² + γ^{3/2}H) it leaves a relative O(√γ·H) (the γ^{3/2} term, times 2 − √2): no proof
// bounds its constant, THEORY §8 measured agreement "to a few percent", and the errors that
// matter — a dropped ½, a sign, H for H − 1 at H = 2 — are ≥ 100 %. δ = 25 %.
inline constexpr double kRichardsonMargin = 0.25;
// The margin of a Richardson row measured with the control variate, relative to ‖β₁‖ on every
// coordinate: the remainder left by the combination over (γ, 2γ) was measured at ≈ 1 % of ‖b_s‖
// on breast-cancer at γL = 0.5 and 1 (SGD; the single-step β(γ) is 5 % and 12 % off there), and
// issue 26 asks for agreement within 5 %.
inline constexpr double kControlVariateMargin = 0.05;
// The card text of that margin (the Margin: field of the control-variate claims).
std::string control_variate_margin_text();
// The card text of that margin (the Margin: field of the Richardson claims), with its number.
std::string richardson_margin_text();

// How a measurement estimates E_π[x] (the columns of ScaledBias::per_replica).
enum class Estimator {
  plain,  // the chains' average of x over rounds and chains
  // The coupled linearised control variate (THEORY (L3)): mean(x − y) + m_lin, y the chain's twin
  // run on the per-sample linearisation at x* with the same draws, m_lin its exact stationary
  // mean (theory::linearised_stationary_mean). x − y fluctuates by O(γ) where x does by O(√γ),
  // so the standard error of the scaled bias no longer grows as γ → 0.
  control_variate,
};

// The size and estimator of one measurement.
struct MeasureOptions {
  Estimator estimator = Estimator::plain;
  // plain: kReplications replications of budget_factor times the standard chains and rounds
  // (standard errors shrink by that factor).
  int budget_factor = 1;
  // control_variate: `replications` (G − 1 ≥ d for Hotelling's T²) of `chains` chains each,
  // recording `mixing_times` autocorrelation times 1/(1 − ρ) per chain (ρ the round's contraction
  // near x*), so that the standard error of the scaled bias is the same at every γ and H.
  int replications = kReplications;
  int chains = 2;
  double mixing_times = 0;
};

// The control-variate measurement of the research-sized claims: 40 replications (Hotelling's T²
// needs G − 1 ≥ d = 31 on breast-cancer) of 8 chains (the kernel's 8 lanes: with 2 chains 3 of
// the 8 SIMD lanes sat idle and throughput was 2.6× lower), recording 24 autocorrelation times
// per chain. Measured on breast-cancer, SGD at γL = 0.5 and 1: the Richardson combination's
// standard error is ≈ 0.25 % of ‖b_s‖ per coordinate, so a 5 % margin is confirmed by the
// per-coordinate TOST when the remainder is below ≈ 4 %.
// `factor` scales the recorded autocorrelation times (standard errors shrink by √factor): the
// small problems (d = 3) afford more.
MeasureOptions control_variate_budget(double factor = 1.0);

// The problem of the b_s claims that the issue asks to confirm on real data: lr-breast-cancer
// (d = 31, N = 10; problems/research_logistic_problems.hpp) on the default grid, lr-hetero (d = 3,
// N = 10) on the quick grid. A measurement on breast-cancer needs ≈ 5000 rounds per
// autocorrelation budget (L/μ ≈ 110) of 31-dimensional steps; on lr-hetero the same verdict costs
// ≈ 1/50 of that, which is what a smoke run affords. The claim's card names both.
const NamedProblem& bias_problem(const Context& ctx);

// The measured stationary bias scaled by 1/γ, one column per replication.
struct ScaledBias {
  theory::Algorithm algorithm = theory::Algorithm::fedavg;
  theory::StepSetting step;
  std::uint64_t seed = 0;
  Estimator estimator = Estimator::plain;
  Matrix per_replica;  // d × G: (m_g − x*)/γ, m_g the replication's estimate of E_π[x]
  // control_variate: Hotelling's T² of "E[y] = m_lin" on the twin's own replication means (plain
  // Monte Carlo precision). The estimate mean(x − y) + m_lin is E_π[x] only when the sampler runs
  // the algorithm whose exact twin mean m_lin is: a bug in the linear part of a round moves x and
  // y alike, cancels in x − y, and would be hidden; this test exposes it. Passed for plain runs.
  estimators::Decision twin_mean_test;
  Vector mean;      // its row mean
  Matrix mean_cov;  // covariance of `mean`, from the spread across replications
  StationaryRun run;
  bool diverged() const { return run.diverged; }
  bool twin_consistent() const { return estimator == Estimator::plain || twin_mean_test.passed; }
  int replications() const { return static_cast<int>(per_replica.cols()); }
};

// One stationary measurement of `algorithm` at `step` (chains started at x*).
ScaledBias measure(const NamedProblem& np, const theory::ExpansionCoefficients& k,
                   theory::Algorithm algorithm, const theory::StepSetting& step, const Context& ctx,
                   std::uint64_t seed, const MeasureOptions& options = {});

// The first-order coefficient β₁ predicted by kit::first_order (which carries a planted formula
// error when the context sets one): (mean − x*)/γ.
Vector predicted_coefficient(const theory::ExpansionCoefficients& k, theory::Algorithm algorithm,
                             const theory::StepSetting& step, const Context& ctx);

// Hotelling T² of "E[mean] = target" from `replications` i.i.d. replications.
estimators::Decision hotelling(const Vector& mean, const Matrix& mean_cov, const Vector& target,
                               double alpha, int replications = kReplications);

// The run's settings and scaled bias, for results.json.
nlohmann::json run_json(const ScaledBias& m);

// Covariance entries of the replications: the MCSE of every entry of the pooled covariance from
// the spread across the G i.i.d. replications.
Matrix replica_cov_mcse(const StationaryRun& run);

// The equivalence part (kit/verdict.hpp) of a covariance row decided by `rule`
// (decide.hpp (d), entrywise agreement within δ·max |predicted| plus MCSE): TOST of every distinct
// entry of the pooled covariance within ±δ·max |predicted| at α (standard errors from the spread of
// the kReplications replications), and the rule's MDE relative to max |predicted|.
void covariance_equivalence(Row& row, const StationaryRun& run, const Matrix& predicted,
                            double delta, const estimators::Decision& rule, double alpha);

// One Richardson measurement: the scaled bias at γ and at 2γ (independent runs, seeds
// kit::row_seed(ctx, claim_id, "<setting>, γ" and "…, 2γ")), and per replication g
//   first  = 2 β_g(γ) − β_g(2γ)          → the first-order coefficient β₁,
//   second = (β_g(2γ) − β_g(γ))/γ        → the second-order coefficient β₂,
// i.i.d. over g (the two runs' replications are independent), so differences between
// independent pairs are i.i.d. too and Hotelling's T² on them is exactly calibrated.
struct RichardsonPair {
  std::string setting;  // "<problem>, <algorithm>, γL = a and 2a, H = h"
  ScaledBias at_gamma, at_2gamma;
  Matrix first, second;  // d × G per replication
  Vector predicted;      // kit::first_order's coefficient at γ
  bool diverged() const { return at_gamma.diverged() || at_2gamma.diverged(); }
  bool twin_consistent() const { return at_gamma.twin_consistent() && at_2gamma.twin_consistent(); }
  bool control_variate() const { return at_gamma.estimator == Estimator::control_variate; }
  std::string divergence() const {
    return at_gamma.diverged() ? at_gamma.run.divergence : at_2gamma.run.divergence;
  }
};
RichardsonPair richardson_pair(const NamedProblem& np, theory::Algorithm algorithm, double gamma_l,
                               int h, const Context& ctx, const char* claim_id,
                               const MeasureOptions& options = {});
// The same at explicit steps (e.g. FedOpt's, whose server settings ride on the step) with the row
// setting `setting`, which also names the seeds.
RichardsonPair richardson_pair(const NamedProblem& np, const theory::ExpansionCoefficients& k,
                               theory::Algorithm algorithm, const theory::StepSetting& step,
                               const theory::StepSetting& step2, std::string setting,
                               const Context& ctx, const char* claim_id,
                               const MeasureOptions& options);

// Hotelling T² of "E[v] = target" on the G i.i.d. columns of v (G − 1 ≥ d).
estimators::Decision replicate_test(const Matrix& v, const Vector& target, double alpha);

// A row whose claim is that the data REJECT a value, by `test` (Hotelling's T² on kReplications
// replications whose mean has covariance `mean_cov`): the rule confirms the claim itself, one-
// sided (margin 0, kit/verdict.hpp), and its MDE is the Hotelling test's over |scale|.
void confirm_rejection(Row& row, const std::string& what, const estimators::Decision& test,
                       const Matrix& mean_cov, double scale, int replications = kReplications);

// (1/N) Σ_c ∇³f_c(x*)[C_c]: the third derivative of each client against its OWN noise (the
// local steps' noise is not averaged over clients), which drives the known part of the
// second-order bias (THEORY §8).
Vector local_noise_third_derivative(const theory::Problem& problem,
                                    const theory::ExpansionCoefficients& k);

// One Richardson row: measured 2β(γ) − β(2γ) against the predicted first-order coefficient,
// and (when `rejected` is given) a second prediction that the measurement must REJECT.
// The two runs' seeds are kit::row_seed(ctx, claim_id, "<row setting>, γ" and "…, 2γ").
// Plain measurements: Hotelling's T² of "= β₁" decides, with the equivalence margin
// kRichardsonMargin. Control-variate measurements resolve the o(γ) remainder of the combination,
// so a point null would reject a true theorem: the rule is agreement within the margin
// kControlVariateMargin of ‖β₁‖ on every coordinate (decide.hpp (e), Bonferroni over d), and the
// TOST confirms the same margin.
Row richardson_row(const NamedProblem& np, theory::Algorithm algorithm, double gamma_l, int h,
                   const Context& ctx, const char* claim_id, double alpha,
                   const Vector* rejected = nullptr, const char* rejected_name = "",
                   const MeasureOptions& options = {});

// One term c·(pair) of a combination of first-order coefficients.
struct RichardsonTerm {
  double coefficient = 1.0;
  const RichardsonPair* pair = nullptr;
};

// A linear combination Σ c_i·(pair i) of first-order coefficients (Richardson combinations,
// replication by replication: the pairs are independent runs, so the combinations are i.i.d. over
// the replications), tested against the same combination of the predictions, e.g. β₁(N) − 2β₁(2N)
// (b_s ∝ 1/N) or β₁ itself. `alternative` is the combination under the hypothesis the row is meant
// to exclude; the margin is relative to its distance from the prediction, on every coordinate.
// Control-variate pairs: agreement within the margin decides (decide.hpp (e), as richardson_row);
// plain pairs: Hotelling's point null, with the margin's TOST beside it. Every pair's twin must
// agree with its exact mean.
Row combination_row(const std::string& setting, double margin,
                    const std::vector<RichardsonTerm>& terms, const Vector& alternative,
                    const std::string& alternative_name, double alpha);

}  // namespace fedverify::claims::logistic
