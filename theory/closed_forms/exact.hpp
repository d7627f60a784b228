// Exact stationary moments of the linear-Gaussian chains that the chain algorithms are on
// quadratic problems with additive Gaussian noise (THEORY F4, F5, S6, R2). No Monte Carlo.
//
// Small-γ accuracy: the round map is M = I − γD with D = O(1); D, the affine term and the noise
// covariance are formed analytically divided by γ (geometric sums Σ_h (I − γA_c)^h), and the
// Lyapunov equation is solved in its divided form (lyapunov.hpp), so nothing of order γ is
// obtained as a difference of O(1) quantities.
//
// This file holds the shared vocabulary (AffineRoundMap, ExactMoments, ScaffoldExactMoments),
// the building blocks every algorithm's exact moments are made of (LocalSteps, the stationarity
// checks, the Helmert basis), and exact_moments(), which dispatches on the algorithm through the
// registry of theory/algorithms/algorithm_theory.hpp. Each algorithm's own round map and moments
// are in theory/algorithms/<name>.hpp, included at the end of this header.
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

// The law of the leading d coordinates of a stacked state's law: x's, when the state is
// (x, auxiliary states…) as the FedDyn, FedPer, FedOpt, Mime and Scaffold chains stack it.
inline ExactMoments leading_block(const ExactMoments& z, Eigen::Index d) {
  return {z.mean.head(d), z.cov.topLeftCorner(d, d), z.spectral_radius};
}

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

// Exact stationary moments of x for any algorithm that registered closed forms (Scaffold: the x
// block). Validates the setting; throws InputError naming --algo for an algorithm without exact
// moments, and naming --gamma when the round map does not contract.
ExactMoments exact_moments(const QuadraticProblem& problem, Algorithm algorithm,
                           const RunSetting& setting);

// ---------------------------------------------------------------------------------------------
// Building blocks of the per-algorithm exact moments.

// Σ_{h<H} q^h and q^H for one scalar q (an eigenvalue of B_c, or a product of two).
//
// Numerical strategy: for H < kGeometricLoopSteps the series is summed term by term, as it
// always was (results for such H are bit-identical to that loop). From there on, the closed
// forms q^H = pow(q, H) and, for q > 0, Σ = −expm1(H·log1p(−δ))/δ with δ = 1 − q (exact for
// q ∈ [½, 2], so nothing cancels when q^H ≈ 1), for q ≤ 0, Σ = (1 − q^H)/(1 − q): O(1) work
// whatever H, so predict is fast up to H = 2³¹ − 1, and accurate to a few ulps where the loop
// accumulates H roundings (and repeated squaring would double the power's relative error at each
// of its log₂ H steps). Both agree to ~1e-12 relative at moderate H
// (theory/closed_forms/exact_geometric_test.cpp).
struct GeometricSeries {
  double sum = 0;    // Σ_{h<H} q^h
  double power = 1;  // q^H
};
inline constexpr int kGeometricLoopSteps = 1024;
GeometricSeries geometric_series(double q, int steps);
// The two methods, for tests: term by term (O(H)) and in closed form (O(1)).
GeometricSeries geometric_series_loop(double q, int steps);
GeometricSeries geometric_series_closed_form(double q, int steps);

// The H local steps of one client in the eigenbasis of its Hessian A_c = V diag(a) Vᵀ, with
// B_c = I − γA_c. Every power series is summed in that basis (geometric_series): the terms have
// one sign when γa ≤ 1, so there is no cancellation.
struct LocalSteps {
  Matrix v;
  Vector a;
  Vector beta;  // eigenvalues of B_c = 1 − γa
  int steps;

  LocalSteps(const Matrix& hessian, double gamma, int h);
  Matrix in_basis(const Vector& diag) const;
  Vector geometric() const;  // eigenvalues of P_c = Σ_{h<H} B_c^h
  Matrix p() const;          // P_c
  Matrix p_a() const;        // (I − B_c^H)/γ = P_c A_c
  Matrix b_power() const;    // B_c^H
  // Σ_{h<H} B_c^h S (B'_c)^h for another step size's B'_c = V diag(beta2) Vᵀ (same V).
  Matrix noise_sum(const Matrix& s, const Vector& beta2) const;
  // The same sum in the eigenbasis: Vᵀ(Σ_h B_c^h S (B'_c)^h)V from inner = VᵀSV.
  Matrix noise_sum_in_basis(Matrix inner, const Vector& beta2) const;
};

// Throws InputError("--gamma: no stationary distribution for <what> …") unless rho < 1.
void require_stationary(double rho, const RunSetting& setting, const char* what);

// A round map with entries beyond double range (e.g. a hessian entry of 1e300 times γ) has no
// meaningful spectral radius: eigen-solvers return NaN or garbage for it. Throws
// InputError("--gamma: the round map of <what> … overflows …") when D, r or G is not finite.
void require_finite(const AffineRoundMap& map, const RunSetting& setting, const char* what);

// The stationary covariance X = (I − γD) X (I − γD)ᵀ + γG (discrete_lyapunov_solve, divided
// form). The solver checks every eigenvalue of the round map in its own (Schur) basis; when it
// finds one on or outside the unit circle that the spectral radius computed before missed (e.g.
// γ‖D‖ ≥ 1e80, where 1 − γt rounds away the contraction), the setting has no stationary law: throws
// InputError naming --gamma, like require_stationary.
Matrix stationary_covariance(const AffineRoundMap& map, const RunSetting& setting,
                             const char* what);
Matrix stationary_covariance(const Matrix& d, const Matrix& g, const RunSetting& setting,
                             const char* what);

// Variance of time averages of the stationary chain z' = M z + r + η, Cov(η) = Q (THEORY F5a),
// with M = I − γD, Q = γG from `map`:
//   long-run covariance  Σ_∞ = Σ_{k∈ℤ} Cov(z_0, z_k) = (I − M)⁻¹ Q (I − M)⁻ᵀ = D⁻¹ G D⁻ᵀ / γ;
//   over n rounds        n·Var(z̄_n) = Σ_∞ − (E + Eᵀ)/n,  E = M (I − M)⁻² (I − Mⁿ) Σ,
// Σ the stationary covariance (stationary_covariance). The MCSE of a stationary run of K
// independent chains over n rounds is √(diag(n·Var(z̄_n))/(K n)). Mⁿ by binary powering.
Matrix long_run_covariance(const AffineRoundMap& map);
Matrix time_average_covariance(const AffineRoundMap& map, const Matrix& stationary_cov, int rounds);

// Spectral radius of I − γD for a symmetric D.
double symmetric_spectral_radius(const Matrix& d, double gamma);

// The exact stationary moments of a round map whose D is symmetric (FedAvg (F5), FedNova (A2)):
// require_finite, the spectral radius (symmetric_spectral_radius), require_stationary, the mean
// m = D⁻¹r (LDLT) and the covariance by stationary_covariance, symmetrised. `what` names the
// algorithm in the errors.
ExactMoments symmetric_map_moments(const AffineRoundMap& map, const RunSetting& setting,
                                   const char* what);

// Orthonormal basis (N × (N−1)) of {v ∈ ℝᴺ : Σ v = 0}: the Helmert contrasts.
Matrix helmert_basis(int n);

}  // namespace fedverify::theory

// The per-algorithm round maps and exact moments (fedavg_exact, scaffold_exact, fedrr_exact, …),
// so that every caller of this header sees them. Included last: they use the types above.
#include "theory/algorithms/fedavg.hpp"    // IWYU pragma: export
#include "theory/algorithms/fedopt.hpp"    // IWYU pragma: export
#include "theory/algorithms/fedrr.hpp"     // IWYU pragma: export
#include "theory/algorithms/scaffold.hpp"  // IWYU pragma: export
