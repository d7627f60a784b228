// L2GD (THEORY P2), personalised federated learning: each client keeps its own model and, with
// probability p, a step pulls the models towards their average instead of a local gradient
// step. Its closed forms: the constants of the rate (P3), the optimal probability p* and the
// communication count (P4), the variance constants ω of the unbiased compressors (P5), and the
// exact mean-square dynamics on quadratic problems. The objective (P1), its optimum x(λ) and the
// run settings are in theory/problems/personalised_objective.hpp. The file also registers the
// descriptors of L2SGD and L2SGD+ ([L2GD] Algorithm 2), which run on the same state and have no
// closed forms of their own.
//
// A personalised model x = (x_1, …, x_n) is stored as a d×n matrix, column i = x_i (n = the
// number of clients N). Flattened column-major it is the stacked nd-vector, client blocks
// contiguous; the nd×nd matrices below act on that vector.
#pragma once

#include <cstdint>
#include <vector>

#include "theory/closed_forms/branched_moments.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/personalised_objective.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::theory {

// ---------------------------------------------------------------------------------------------
// The L2GD rate (P3) and communication (P4).

struct L2gdConstants {
  double mu = 0;             // strong convexity of the f_i (Problem::strong_convexity)
  double l = 0;              // smoothness of the f_i (Problem::smoothness)
  double l_cal = 0;          // 𝓛 = (1/n) max{L/(1−p), λ/p}                    THEORY (P3)
  double alpha_max = 0;      // 1/(2𝓛)                                          THEORY (P3)
  double rate = 0;           // 1 − αμ/n                                        THEORY (P3)
  double sigma2 = 0;         // σ² at x(λ)                                      THEORY (P3)
  double neighbourhood = 0;  // 2nασ²/μ                                         THEORY (P3)
};

L2gdConstants l2gd_constants(const Problem& problem, const L2gdSetting& setting,
                             const Matrix& x_lambda);

// The (P3) bound on E‖x^k − x(λ)‖²: rate^k·‖x⁰ − x(λ)‖² + neighbourhood.      THEORY (P3)
double l2gd_bound(const L2gdConstants& k, double initial_error2, int iteration);

// p* = λ/(λ + L), the minimiser of 𝓛 over p.                                   THEORY (P4)
double optimal_probability(double lambda, double l);

// The personalised family's view of a run's setting (algorithm.hpp), resolved for l2gd, l2sgd or
// l2sgd+: λ and α = γ as given, p as given or p* = λ/(λ + L) of the problem (P4). Throws
// InputError naming --lambda, --p or --gamma for values out of range, and --p when p (given or p*)
// lies within kMinAveragingProbability of 0 or 1: the rates divide by p and 1 − p (P3).
inline constexpr double kMinAveragingProbability = 1e-12;
L2gdSetting l2gd_setting(const RunSetting& run, const Problem& problem);

// Communications to reach ε at p*, α = α_max: (2λ/(λ + L)) (L/μ) log(1/ε).     THEORY (P4)
double predicted_communications(double lambda, double l, double mu, double eps);

// Gradient descent on f communicates every iteration: (L/μ) log(1/ε) (the baseline of (P4)).
double gradient_descent_communications(double l, double mu, double eps);

// Expected number of communication rounds in k iterations: a round happens when an averaging
// step follows a local step (ξ_{j−1} = 0, ξ_j = 1); all clients start from the same model, so
// ξ_{−1} = 1 by convention and the count is (k − 1)·p(1 − p) for k ≥ 1.       THEORY (P2)
double expected_communications(double p, std::int64_t iterations);

// ---------------------------------------------------------------------------------------------
// Exact mean-square dynamics of L2GD on a quadratic problem.
//
// L2GD is the random affine iteration x ← M_ξ x + c_ξ, ξ ~ Bernoulli(p) (THEORY (P2)); the
// error e = x − x(λ) obeys e ← M_ξ e + r_ξ with r_ξ = M_ξ x(λ) + c_ξ − x(λ): two branches of
// THEORY (P6) (theory/closed_forms/branched_moments.hpp), whose moment recursion gives
// E‖x^k − x(λ)‖² = tr S_k exactly.
struct L2gdAffineMaps {
  Matrix local_map;       // M_0 = I − (α/(n(1−p))) blockdiag(A_i)
  Vector local_offset;    // r_0 = −(α/(n(1−p))) (A_i (x_i(λ) − b_i))_i
  Matrix average_map;     // M_1 = (1 − θ) I + θ (𝟙𝟙ᵀ/n ⊗ I_d), θ = αλ/(np)
  Vector average_offset;  // r_1 = −θ (x_i(λ) − x̄(λ))_i
};

L2gdAffineMaps l2gd_affine_maps(const QuadraticProblem& problem, const L2gdSetting& setting,
                                const Matrix& x_lambda);

// The two branches of (P6): local (1 − p), averaging (p).
std::vector<AffineBranch> l2gd_branches(const L2gdAffineMaps& maps, double p);

class L2gdMeanSquare {
 public:
  // Starts from the deterministic x⁰ (d×n).
  L2gdMeanSquare(const QuadraticProblem& problem, const L2gdSetting& setting, const Matrix& x0);

  double mean_square_error() const { return moments_.second_moment().trace(); }  // E‖x^k − x(λ)‖²
  Matrix mean() const;                                                           // E x^k (d×n)
  const Matrix& x_lambda() const { return x_lambda_; }
  std::int64_t iteration() const { return moments_.iteration(); }
  void step() { moments_.step(); }

 private:
  Matrix x_lambda_;
  BranchedMoments moments_;
};

// E‖x^k − x(λ)‖² for k = 0, 1, …, iterations.
std::vector<double> l2gd_mean_square_trajectory(const QuadraticProblem& problem,
                                                const L2gdSetting& setting, const Matrix& x0,
                                                int iterations);

// The first k with E‖x^k − x(λ)‖² ≤ eps, or −1 if not reached within max_iterations.
std::int64_t l2gd_iterations_to_reach(const QuadraticProblem& problem, const L2gdSetting& setting,
                                      const Matrix& x0, double eps, std::int64_t max_iterations);

// ---------------------------------------------------------------------------------------------
// Unbiased compressors (P5): E𝒬(x) = x and E‖𝒬(x) − x‖² ≤ ω‖x‖² (CompressorSpec in
// personalised_objective.hpp).

// ω: identity 0; random-k d/k − 1; random dithering min(d/s², √d/s); natural 1/8.  THEORY (P5)
double compressor_omega(const CompressorSpec& spec, int dim);

}  // namespace fedverify::theory
