// The generic FedOpt round (THEORY O0) with client SGD or FedProx (O3), server SGD with step η_g,
// heavy-ball or Nesterov momentum β (O2), and S of N clients sampled without replacement each
// round (O5). FedAvg is the special case η_g = 1, β = 0, S = N (client sgd).
//
// On quadratic problems with additive Gaussian noise every client's round is affine,
//   x − y_c = γ(D_c x − r_c) − n_c,   Cov(n_c) = γ² Q̂_c,                     THEORY (O0), (O3)
// (client SGD: D_c = P_c A_c as FedAvg's (F5); FedProx: D_c = P̃_c A_c with P̃_c the geometric sum of
// B̃_c = I − γ(A_c + μ_p I)), the pseudo-gradient is Δ = (1/S) Σ_{c∈S} (x − y_c), and the server
// acts on the state z = x (no momentum) or z = (x, u), u = m/γ (momentum; u = O(1) at
// stationarity):
//   z' = A₀ z + E Δ,
//   heavy ball  m' = βm + Δ, x' = x − η_g m'            : x' = x − γη_gβ u − η_g Δ,  u' = βu + Δ/γ;
//   Nesterov    m' = βm + Δ, x' = x − η_g(Δ + βm')      : x' = x − γη_gβ² u − η_g(1+β)Δ, u' as
//   above.
// So the round is the affine map z' = (I − γ𝐃_S) z + γ𝐫_S + noise with
//   𝐃_S = (I − A₀)/γ − E D_S F,  𝐫_S = −E r_S,  F = [I 0],                          THEORY (O2)
// D_S, r_S the averages over the sampled clients; with S = N it is a fixed linear-Gaussian chain
// (exact moments from the Lyapunov equation, as FedAvg's), with S < N a chain with random
// coefficients (O5, fedopt_exact: the fixed point of Σ = E[M_S Σ M_Sᵀ] + Cov(M_S μ + t_S) +
// E[Q_S]).
#pragma once

#include <vector>

#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "theory/problems/fedopt_setting.hpp"

namespace fedverify::theory {

// Mean x* + γ(H−1)b_h + γ η_g/(1−β) b_s, covariance (γ η_g/((1−β) S)) 𝒜[C̄ + H(N−S)/(N−1) G]:
// the first-order picture of THEORY (O2), (O3), (O5) — derived, not from a source; the claims
// under verify/claims/optimisers/ measure its remainder.
FirstOrderMoments fedopt_first_order(const ExpansionCoefficients& k, const RunSetting& setting);

// The largest stable server step (THEORY O2, derived here). With full participation D̄ is symmetric
// (client sgd or fedprox), and in each of its eigen-directions (eigenvalue d, a = γη_g d) the
// noiseless server iteration is x_{t+1} = (1 + β − a)x_t − βx_{t−1} (heavy ball) or has the
// characteristic polynomial z² − (1 + β)(1 − a)z + β(1 − a) (Nesterov); by Jury's conditions
// (0 ≤ β < 1) it contracts iff
//   heavy ball  0 < a < 2(1 + β),     Nesterov  0 < a < 2(1 + β)/(1 + 2β).
// So the round map contracts iff η_g < 2(1 + β)/(c γ d_max), c = 1 (heavy ball) or 1 + 2β
// (Nesterov), given d_min > 0; this returns that bound (the setting's own lr is ignored). Since
// D̄ ≼ H·(1/N)Σ_c A_c when γ(A_c + μ_p) ≼ I, η_g γ H L < 2(1 + β)/c is sufficient there.
// Throws InputError naming --gamma when d_min ≤ 0 (no server step contracts) and naming
// --participating when S < N (the sampled chain's stability is mean-square, not this).
double fedopt_server_step_limit(const QuadraticProblem& problem, const RunSetting& setting);

// FedProx's heterogeneity bias over FedAvg's in the limit γL → 0 at fixed t = γμ_pH (THEORY O3,
// derived here, not from a source). With ρ = 1 − γμ_p the local map is B̃ = ρI − γA_c, so to first
// order in γA_c the client's P̃ = Σ_{j<H} B̃^j is W₀I − γVA_c with W₀ = Σ_{j<H} ρ^j and
// V = Σ_{j<H} jρ^{j−1}, and the fixed point of Σ_c P̃A_c(x − b_c) = 0 is
//   x* + γ(V/W₀) Ā⁻¹ (1/N) Σ_c A_c²(x* − b_c) + O(γ²):
// FedAvg's bias direction (V/W₀ = (H − 1)/2 at ρ = 1), scaled by
//   R₀(t) = 2V/((H − 1)W₀) = 1 + t(5 − H)/(6H) + O(t²)
// (R₀ = 2/(H − 1) at t = H, ρ = 0). H ≥ 2 (at H = 1 neither algorithm has a heterogeneity bias).
// Throws std::invalid_argument for H < 2 or t < 0.
double fedprox_bias_ratio_limit(double gamma_mu_h, int local_steps);

// FedExP's stability threshold on a noiseless quadratic, full participation, client SGD (THEORY
// O4; derived here, docs/THEORY.md (O4a)). FedAvg's deterministic fixed point x_F (Δ̄(x_F) = 0,
// Δ̄(x) = J(x − x_F) with J = (1/N)Σ_c(I − B_c^H) = γD̄ symmetric) is a fixed point of FedExP for
// every ε, and since Δ̄(x_F) = 0 the linearisation of x ↦ x − η(x)Δ̄(x) there is I − η_F J with
// η_F = max(1, Σ_c‖Δ_c(x_F)‖²/(2Nε)). So x_F attracts iff η_F λ_max(J) < 2, i.e. (when η_F > 1)
//   ε > ε* = Σ_c‖Δ_c(x_F)‖² λ_max(J) / (4N);
// below ε* the fixed point repels along J's top eigenvector (eigenvalue 1 − η_Fλ_max < −1): the
// iterates oscillate about x_F, and as ε → 0, η_F → ∞. The setting's server and client specs are
// ignored (FedExP with client sgd is what this describes).
struct FedexpThreshold {
  Vector fixed_point;    // x_F
  double client_spread;  // Σ_c ‖Δ_c(x_F)‖²
  double jacobian_max;   // λ_max(J)
  double jacobian_min;   // λ_min(J)
  double critical_eps;   // ε*
};
FedexpThreshold fedexp_threshold(const QuadraticProblem& problem, const RunSetting& setting);

// One round of each client on a quadratic, divided by γ (THEORY O0, O3).
struct ClientPieces {
  std::vector<Matrix> d;  // D_c
  std::vector<Vector> r;  // r_c = D_c b_c
  std::vector<Matrix> q;  // Q̂_c = Cov(n_c)/γ²
};
ClientPieces fedopt_client_pieces(const QuadraticProblem& problem, const RunSetting& setting);

// The sampling factor of THEORY (O5): for S of N clients drawn uniformly without replacement and
// any w_1 … w_N (vectors or matrices), E[(w_S − w̄) X (w_S − w̄)ᵀ] = κ Σ_c (w_c − w̄) X (w_c − w̄)ᵀ
// with w_S = (1/S) Σ_{c∈S} w_c (E[ι_c] = S/N, E[ι_cι_c'] = S(S−1)/(N(N−1)) for c ≠ c'), where
//   κ = (N − S)/(S N (N − 1))   (0 when S = N).
double fedopt_sampling_kappa(int clients, int sampled);

// The law of one round from a fixed x₀ with the server's momentum buffer at 0 (THEORY O0, O2,
// O5): with Δ = (1/S) Σ_{c∈S} Δ_c, Δ_c = γ(D_c x₀ − r_c) + n_c, S of N clients sampled without
// replacement, the server's first step is x₁ = x₀ − η_g c Δ (m' = Δ; c = 1 heavy ball or no
// momentum, 1 + β Nesterov: ServerSgd::gain), so with a = η_g c
//   E x₁ = x₀ − aγ(D̄x₀ − r̄),
//   Cov x₁ = a²γ² [κ Σ_c v_c v_cᵀ + (1/(SN)) Σ_c Q̂_c],  v_c = (D_c − D̄)x₀ − (r_c − r̄),
//   κ = (N − S)/(S N (N − 1))  (0 when S = N).
// With client sgd and a = 1 it is FedAvg's round (and Scaffold's first round from ξ = 0). Throws
// InputError naming --server for a server rule other than sgd.
struct OneRoundLaw {
  Vector mean;
  Matrix cov;
};
OneRoundLaw fedopt_one_round(const QuadraticProblem& problem, const RunSetting& setting,
                             const Vector& x0);

// (I − A₀)/γ and E of the server rule, for a state of fedopt_state_dim rows (THEORY O2).
int fedopt_state_dim(int dim, const RunSetting& setting);
Matrix fedopt_server_drift(int dim, const RunSetting& setting);
Matrix fedopt_pseudo_gradient_gain(int dim, const RunSetting& setting);

// The round map with full participation (S = N), on z = x or z = (x, u).         THEORY (O2)
// With η_g = 1, β = 0 and client sgd it is FedAvg's (F5) map, bit for bit.
AffineRoundMap fedopt_round_map(const QuadraticProblem& problem, const RunSetting& setting);

// Exact stationary moments of the whole state z (x first; u = m/γ after it with momentum).
// S = N: the Lyapunov equation of fedopt_round_map. S < N (THEORY O5): the mean solves
// 𝐃̄ μ = 𝐫̄ (E[𝐃_S] = 𝐃̄, E[𝐫_S] = 𝐫̄), and the covariance is the fixed point of
//   Σ = M̄ΣM̄ᵀ + κγ² E [Σ_c Δ_c (FΣFᵀ) Δ_cᵀ + v_c v_cᵀ] Eᵀ + (γ²/(SN)) E (Σ_c Q̂_c) Eᵀ,
//   κ = (N − S)/(S N (N − 1)),  Δ_c = D_c − D̄,  v_c = D_c μ_x − r_c,
// (sampling without replacement: E[ι_c ι_c'] = S(S−1)/(N(N−1)) and Σ_c Δ_c = Σ_c v_c = 0 turn the
// pairwise sums into single sums), summed as the Neumann series Σ = Σ_k Σ_k, Σ_0 = Lyap(M̄, C),
// Σ_{k+1} = Lyap(M̄, 𝒦(Σ_k)). It converges iff the chain is mean-square stable; stop when
// ‖Σ_k‖_F ≤ kFedoptFixedPointTolerance (1 − q)‖Σ‖_F, q = ‖Σ_k‖/‖Σ_{k−1}‖ the observed ratio (so
// the neglected tail, ≤ ‖Σ_k‖ q/(1 − q), is below that tolerance). spectral_radius is that of M̄.
// Throws InputError naming --gamma when M̄ does not contract or the iteration does not converge.
inline constexpr double kFedoptFixedPointTolerance = 1e-14;
inline constexpr int kFedoptFixedPointIterations = 10000;
ExactMoments fedopt_exact_state(const QuadraticProblem& problem, const RunSetting& setting);
// The moments of (x, m) from those of (x, u), m = γu: what `predict` prints as stacked_mean_exact
// and stacked_cov_exact (the algorithm's own momentum buffer).
ExactMoments fedopt_momentum_state(ExactMoments state, int dim, double gamma);
ExactMoments fedopt_exact(const QuadraticProblem& problem, const RunSetting& setting);

}  // namespace fedverify::theory
