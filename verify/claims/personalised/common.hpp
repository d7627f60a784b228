// Shared by the personalised-FL claims (THEORY §7, [L2GD]): the fixed problems of the rate and
// communication claims (so the figures match docs/THEORY-L2GD-notes.md; only the simulation seeds
// follow --seed) and the labels and colours of their rows and figures.
//
// Problems: the quadratic make_quadratic(n = 4, d = 3, μ = 0.1, L = 1), on which
// theory::L2gdMeanSquare gives E‖x^k − x(λ)‖² exactly, and the logistic regression
// make_logistic(n = 3, m = 20, d = 2, l2 = 0.1), on which L2GD is simulated
// (verify/claims/problems/personalised_problems.hpp). Every run starts from x⁰ = 0 (all clients
// share the model), so ‖x⁰ − x(λ)‖² = ‖x(λ)‖².
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "theory/closed_forms/personalised.hpp"
#include "theory/problems/logistic_problem.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::claims::personalised {

// The problems of the rate and communication claims and the seeds that build them.
inline constexpr int kQuadClients = 4, kQuadDim = 3;
inline constexpr double kQuadMu = 0.1, kQuadL = 1.0;
inline constexpr std::uint64_t kQuadSeed = 18;
inline constexpr int kLogClients = 3, kLogSamples = 20, kLogDim = 2;
inline constexpr double kLogL2 = 0.1;
inline constexpr std::uint64_t kLogSeed = 19;

const theory::QuadraticProblem& rate_quadratic();
const theory::LogisticProblem& rate_logistic();
std::string quadratic_name();
std::string logistic_name();

// The grid `ps` and p*, sorted; a grid point within 1e-9 of p* is dropped for p* (at λ = L = 1,
// p* = 0.5 up to round-off).
std::vector<double> with_p_star(const std::vector<double>& ps, double p_star);

// The data of a rate row of personalised.l2gd-rate: the setting, the (P3) constants, and the worst
// ratio E‖x^k − x(λ)‖²/bound over k (also the row's baseline value, with its tolerance).
nlohmann::json rate_row_json(const char* problem, const theory::L2gdSetting& s, double alpha_factor,
                             const theory::L2gdConstants& k, int iterations, double worst_ratio,
                             int worst_k, double tolerance);

// Gradient descent on f = (1/n) Σ f_i with step 1/L from 0: the iterations until ‖x − x*‖² ≤
// relative_eps·‖x*‖² (GD communicates every iteration: the baseline of (P4)).
int gradient_descent_iterations(const theory::QuadraticProblem& q, double relative_eps);

// "α_max/4", "α_max", "16α_max"; for gnuplot (enhanced text) with the subscript braced.
std::string alpha_factor_name(double c, bool gnuplot = false);

// The lines of one setting in a figure share a colour.
const char* figure_colour(std::size_t i);

}  // namespace fedverify::claims::personalised
