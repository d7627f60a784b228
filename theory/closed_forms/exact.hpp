// Exact stationary moments of the linear-Gaussian chains that FedAvg, Scaffold and FedRR are on
// quadratic problems with additive Gaussian noise (THEORY F4, F5, S6, R2). No Monte Carlo.
//
// Small-γ accuracy: the round map is M = I − γD with D = O(1); D, the affine term and the noise
// covariance are formed analytically divided by γ (geometric sums Σ_h (I − γA_c)^h), and the
// Lyapunov equation is solved in its divided form (lyapunov.hpp), so nothing of order γ is
// obtained as a difference of O(1) quantities.
#pragma once

#include "theory/problems/algorithm.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::theory {

// One round written as z' = (I − γD) z + γ r + η, Cov(η) = γ G.
struct AffineRoundMap {
  Matrix d;      // D = (I − M)/γ
  Vector r;      // affine term / γ
  Matrix g;      // Cov(η)/γ
  double gamma;  // the γ that scales D, r and G
  Matrix transition() const { return Matrix::Identity(d.rows(), d.cols()) - gamma * d; }
};

struct ExactMoments {
  Vector mean;
  Matrix cov;              // Cov_π(x) (about the stationary mean, not about x*)
  double spectral_radius;  // of the round map; < 1 for a stationary law to exist
};

// FedAvg's round map on a quadratic problem (THEORY F5).
AffineRoundMap fedavg_round_map(const QuadraticProblem& problem, const StepSetting& setting);

// Exact stationary mean and covariance of FedAvg (THEORY F5); SGD is H = 1.
// Throws InputError("--gamma: …") when the spectral radius of the round map is ≥ 1.
ExactMoments fedavg_exact(const QuadraticProblem& problem, const StepSetting& setting);

// Deterministic FedAvg (no noise): the fixed point x_{γ,H} by the closed form of THEORY (F4),
// and the Lipschitz constant ‖M‖₂ of the round map (its contraction factor).
Vector fedavg_fixed_point(const QuadraticProblem& problem, const StepSetting& setting);
double fedavg_contraction_factor(const QuadraticProblem& problem, const StepSetting& setting);

// Scaffold's stacked state z = (x, ξ_1, …, ξ_N) ∈ ℝ^{d(N+1)} (THEORY S0, S6), restricted to the
// invariant subspace Σ_c ξ_c = 0 on which the round map contracts.
struct ScaffoldExactMoments {
  Vector mean;             // stacked, length d(N+1)
  Matrix cov;              // stacked, d(N+1) × d(N+1)
  double spectral_radius;  // of the round map on Σ_c ξ_c = 0
  int dim = 0;
  int num_clients = 0;

  Vector x_mean() const { return mean.head(dim); }
  Vector xi_mean(int c) const { return mean.segment(dim * (1 + c), dim); }
  Matrix x_cov() const { return cov.topLeftCorner(dim, dim); }
  Matrix xi_cov(int c, int c2) const { return cov.block(dim * (1 + c), dim * (1 + c2), dim, dim); }
  Matrix x_xi_cov(int c) const {
    return cov.block(0, dim * (1 + c), dim, dim);
  }  // E[(x−m)(ξ_c−m_c)ᵀ]
};

AffineRoundMap scaffold_round_map(const QuadraticProblem& problem, const StepSetting& setting);
ScaffoldExactMoments scaffold_exact(const QuadraticProblem& problem, const StepSetting& setting);

// FedRR: χ = 2 x^{(γ)} − x^{(2γ)} from two FedAvg runs whose noise is independent or shared
// (THEORY R1, R2). Requires a stationary law at 2γ.
ExactMoments fedrr_exact(const QuadraticProblem& problem, const StepSetting& setting,
                         NoiseCoupling coupling = NoiseCoupling::independent);

// Dispatch on the algorithm (Scaffold: the x block).
ExactMoments exact_moments(const QuadraticProblem& problem, Algorithm algorithm,
                           const StepSetting& setting);

}  // namespace fedverify::theory
