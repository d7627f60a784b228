// The claim kit: what every claim file uses — named constants, the two test-only hooks of
// Context, JSON/text formatting of vectors, and the rows and figures every claim builds. (The
// catalogue times every claim run; claims do not time themselves.)
// Statistics (replicated means, decision rules) are not here: they live in
// estimators/statistics (moments.hpp, decide.hpp), one statistic in one place.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "estimators/samplers/chains.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::claims::kit {

// ---------------------------------------------------------------------------------------------
// Named constants.

// The family-wise false-alarm level of a statistical claim is claims::kFamilyAlpha (claim.hpp).

// Baseline comparison (`fedverify report --baseline`): a simulated value may move by
// kBaselineZ standard errors between two runs of different code before it counts as a
// regression; 3.29 is the two-sided 0.001 normal quantile (z_{0.9995} = 3.2905, rounded).
inline constexpr double kBaselineZ = 3.29;

// Baseline comparison of exact (deterministic) values: they may move by round-off only, from
// re-ordered sums and different kernels (measured ≤ 1e-14 relative; 1e-9 leaves a wide margin).
inline constexpr double kExactRelative = 1e-9;

// ---------------------------------------------------------------------------------------------
// The injection points of Context. Every prediction a claim compares with goes through
// first_order, and every chain a claim simulates is built from sampler_options: the only two
// places that read Context::predictor and Context::round_for.

// The context's predictor (theory::first_order unless a test injected another).
theory::FirstOrderMoments first_order(const Context& ctx, const theory::ExpansionCoefficients& k,
                                      theory::Algorithm algorithm, const theory::RunSetting& step);

// Sampler options with the context's round for `algorithm` (the registered one unless a test
// injected another).
estimators::SamplerOptions sampler_options(const Context& ctx, theory::Algorithm algorithm,
                                           const theory::RunSetting& step, std::uint64_t seed);

// ---------------------------------------------------------------------------------------------
// Claimed contraction rates (the formula the contraction claims compare with; tests plant wrong
// ones, verify/planted/map_perturbations.hpp).

// The contraction factor of one round that the theorems claim, (1 − γμ)^H: FedAvg for γL ≤ 1
// (THEORY F1), Scaffold for γHL ≤ 1 (THEORY S1). Beyond γμ ≥ 1 the formula promises nothing
// meaningful (a factor ≤ 0 for odd H); it is read as 0 there, so every stable point beyond it is
// "slower than claimed".
double claimed_rate(const theory::RunSetting& step, double mu, double l);

// What a claim compares a contraction with: claimed_rate, or a planted wrong rate in tests (which
// may use the smoothness l as well).
using RateClaim = std::function<double(const theory::RunSetting& step, double mu, double l)>;

// ---------------------------------------------------------------------------------------------
// Seeds.

// The seed of one row (or of one run inside a row): a 64-bit hash of (run seed, claim id, row
// key), so that rows are independent confirmations, and adding, removing or reordering rows or
// claims moves no other row's seed. `row_key` names the run within the claim, e.g. the row's
// setting text; it must be unique within the claim.
//
// The mix is SplitMix64's finaliser (Steele, Lea & Flood 2014; a bijection of 64-bit words with
// full avalanche) chained over the input: h ← mix(seed); then h ← mix(h ⊕ b) for every byte b of
// the claim id, a 0 separator byte, and every byte of the row key. The Context overload hashes
// the confirmation attempt in (Context::attempt, run_claim): h ← mix(h ⊕ a) for a = 1..attempt,
// so a rerun's rows are independent of the first attempt's and attempt 0 keeps the seed above.
std::uint64_t row_seed(std::uint64_t run_seed, std::string_view claim_id, std::string_view row_key);
std::uint64_t row_seed(const Context& ctx, std::string_view claim_id, std::string_view row_key);

// ---------------------------------------------------------------------------------------------
// Threads.

// Threads for the claims that advance one ensemble round by round (trajectories, couplings): a
// round of a few thousand chains is too little work to split across threads at every round — on
// a loaded 2-core machine the per-round barrier made these claims 10–20× slower (measured 0.7 s
// → 16 s). One thread unless --threads asks for more; threads never change a number.
int round_by_round_threads(const Context& ctx);

// ---------------------------------------------------------------------------------------------
// Formatting for rows and results.json.
std::vector<double> to_std(const Vector& v);
std::vector<std::vector<double>> rows_of(const Matrix& m);  // row-major nested vectors
std::string vec_str(const Vector& v);                       // "[0.1234, −0.5678]"
std::string vec_pm(const Vector& v, const Matrix& cov);     // "[0.1234±0.0010, …]"

// ---------------------------------------------------------------------------------------------
// Rows and figures.

// The failing row of a setting whose chains diverged (no stationary law to measure).
Row diverged_row(std::string setting, const std::string& divergence);

// Gates (claim.hpp): adds (name, value, tolerance) to the row; a non-finite value is not gated
// (there is nothing to compare).
void gate(Row& row, std::string name, double value, double tolerance);
// Simulated vector: gates name[i] with tolerance kBaselineZ·se_i.
void gate_simulated(Row& row, const std::string& name, const Vector& value, const Vector& se);
// Exact value: tolerance max(kExactRelative·|value|, floor), `floor` an absolute round-off bound
// for values that may be round-off zeros.
void gate_exact(Row& row, std::string name, double value, double floor = 0);
void gate_exact(Row& row, const std::string& name, const Vector& value, double floor = 0);

// The 2σ ellipse of the 2-d Gaussian N(m, S), m + 2 S^{1/2}(cos θ, sin θ) at 201 points, as a
// line series titled `title` (scatter plots of stationary clouds).
Series ellipse(const Vector& m, const Matrix& s, const std::string& title);

// Adds a figure to `out` when the report asks for plot data (ctx.figures).
void add_figure(const Context& ctx, PlotSpec plot, std::string file, std::string caption,
                ClaimResult& out);

}  // namespace fedverify::claims::kit
