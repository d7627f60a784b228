// Gradient complexity to ε (issue 29 item 3, THEORY (T2)): for one algorithm on one quadratic
// problem, the least number of stochastic gradients per client after which E‖x_t − x*‖² ≤ ε²
// holds at every later round, minimised over the step size γ (a geometric grid of ratio 2^{1/8}
// below γ_max) with H fixed; T and the curve from the exact moment recursion (THEORY (T1)).
#pragma once

#include <string>
#include <vector>

#include "theory/problems/algorithm.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::claims::dynamics {

// The methods compared. "Minibatch SGD" is FedAvg with H = 1: one gradient per client per round,
// averaged by the server (a step with a minibatch of N gradients), on the same gradient budget.
enum class ComplexityMethod { fedavg, scaffold, fedrr, minibatch_sgd };
std::string to_string(ComplexityMethod m);

// What is counted: stochastic gradients per client (H per round; FedRR 2H; minibatch SGD 1), or
// communication rounds (the myth slide of seed 001: Local GD against GD on ERM).
enum class ComplexityCount { gradients_per_client, rounds };

struct ComplexitySetting {
  int local_steps = 4;         // H (minibatch SGD: 1)
  double gamma_max_l = 0.125;  // γ_max·L: the largest step tried (FedRR runs 2γ: half of it)
  ComplexityCount count = ComplexityCount::gradients_per_client;
};

// Where the speed-up ends (N_end): the first N of `clients` (doubling from one to the next) whose
// doubling saves less than a third of the count, log₂(count(2N)/count(N)) > −0.58; 0 when every
// doubling saves more (the speed-up goes on past the last N). Counts ≤ 0 (not reached) are
// skipped.
int speedup_end(const std::vector<int>& clients, const std::vector<double>& counts);

// How far below a grid count the least count over all γ may lie, in log: log(2^{1/8}(1 + 1/T)),
// T the fewest rounds behind the counts (the grid's ratio 2^{1/8} and the rounding of T to whole
// rounds, when γT(γ, ε) is non-decreasing in γ).
double grid_allowance(int fewest_rounds);

// Gradients per client per round: H local steps (FedRR: two runs, 2H; minibatch SGD: 1).
int gradients_per_round(ComplexityMethod m, int h);

// Per ε (same order as `epsilon2`): the least count (gradients per client, or rounds, as the
// setting says), the γ that reaches it and the rounds; 0 when no γ of the grid reaches ε² (its
// stationary level is above).
struct Complexity {
  std::vector<double> gradients, gamma;
  std::vector<int> rounds;
  int curves = 0;  // exact curves computed
};

// Descends the γ grid from γ_max; for each γ the exact curve from x₀ runs until the slowest mode
// of the mean has decayed by e^{−10} (⌈10/(Hγλ_min(𝐇))⌉ rounds), and T(γ, ε) is one more than the
// last round with E_t > ε² (or none, when E_T > ε²). Stops when every ε has been reached and its
// best has not improved over the last 8 grid points (one halving of γ): the count per client
// grows like 1/γ below the step where ε² is first reached.
Complexity gradient_complexity(const theory::QuadraticProblem& q, ComplexityMethod method,
                               const ComplexitySetting& setting, const Vector& x0,
                               const std::vector<double>& epsilon2);

}  // namespace fedverify::claims::dynamics
