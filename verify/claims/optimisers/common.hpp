// Shared by the optimiser claims (THEORY §9: O2 server step and momentum, O3 FedProx, O5 client
// sampling), all exact on the default quadratic problems: the settings of --algo fedopt, the
// remainder-order row (log–log slope of ‖exact − first order‖ along the γ grid) and the round-off
// bound of a difference of two exact stationary means.
#pragma once

#include <string>
#include <vector>

#include "theory/closed_forms/expansions.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::claims::optimisers {

inline constexpr theory::Algorithm kFedopt{"fedopt"};

// γ, H and fedopt's options as the command line spells them ("sgd:lr=1.5,momentum=0.5",
// "fedprox:mu=0.3"; S = 0: all clients).
theory::RunSetting fedopt_setting(double gamma, int local_steps, const std::string& server,
                                  const std::string& client = "sgd", int participating = 0);

// The server option "sgd:lr=η_g,momentum=β,nesterov=0|1" at full precision.
std::string server_sgd_option(double lr, double momentum, bool nesterov);

// Spectral radius of FedOpt's exact round map on (x, u) (theory::fedopt_round_map), also when it
// is ≥ 1: what the stability claim and map classify (THEORY O2).
double server_round_radius(const theory::QuadraticProblem& q, const theory::RunSetting& s);

// Second-moment remainder ‖(Σ_exact + (m − x*)(m − x*)ᵀ) − first-order covariance‖_F: the
// first-order covariance is about x*, the exact one about the stationary mean m.
double second_moment_remainder(const theory::ExactMoments& exact,
                               const theory::FirstOrderMoments& first, const Vector& x_star);

// The remainder of an O(γ²) claim: order > kRequiredOrder (lower confidence bound of the log–log
// slope at quadratic::kSlopeAlpha), as quadratic.exact-remainder-order; or, for `expect_order_one`
// (a formula that is missing a first-order term), upper bound < kRequiredOrder. Records the
// slope, its interval and the curve in the row's data and gates the slope.
inline constexpr double kRequiredOrder = 1.5;
Row remainder_order_row(const std::string& setting, const std::vector<double>& gamma,
                        const std::vector<double>& remainder, bool expect_order_one = false);

// The row "<setting>, mean": the largest gap ‖m − FedAvg's exact mean‖ (or another `predicted`
// mean) over the γ grid against its round-off bound (mean_round_off), gated.
Row fedavg_mean_row(const std::string& setting, double max_gap, double round_off,
                    const std::string& predicted = "FedAvg's exact mean");

// Round-off bound of ‖m₁ − m₂‖ for two stationary means solved from systems of condition number
// at most `condition`: quadratic::kRoundOffUlps · κ · ε · max(1, ‖x*‖) (backward-stable solves:
// error ≲ n κ ε relative).
double mean_round_off(double condition, const Vector& x_star);
// The 2-norm condition number of a square matrix (by its singular values).
double condition_number(const Matrix& m);

}  // namespace fedverify::claims::optimisers
