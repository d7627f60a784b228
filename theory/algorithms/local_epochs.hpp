// FedAvg with a server step on a linear-sa or least-squares problem whose clients draw their
// samples as the problem says (THEORY (A4)): with replacement, or by random reshuffling (each
// pass a fresh random order of the client's n_c samples, B at a time; LinearSaProblem::
// SampleOrder). The round of client c is a random affine map, in the augmented coordinates
// u = (x, 1) the product Y_c = G_{S_H} ⋯ G_{S_1} of the steps' G_S = [[I − γĀ_S, γb̄_S], [0, 1]];
// the server's x' = x + η_g Σ_c p_c (y_c − x) is u' = Σ_c p_c Z_c u with Z_c = η_g Y_c + (1 −
// η_g)I. Its stationary law is exact from E[Y_c] and E[Y_c ⊗ Y_c]: with replacement the H steps are
// independent (powers of one step's moments); reshuffled, the steps of a pass are not, and the
// pass's moments are summed over every ordered choice of its batches, by dynamic programming over
// the set of samples already drawn (2^{n_c} sets, not n_c! orders).
#pragma once

#include "theory/base/linalg.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/linear_sa_problem.hpp"

namespace fedverify::theory {

// Sample k of client c as the pair (A_k, b_k) of its field A_k x − b_k (least squares: A = aaᵀ +
// λI, b = y·a), formed densely: for the small problems the exact laws here enumerate.
struct SampleField {
  Matrix a;
  Vector b;
};
SampleField sample_field(const LinearSaProblem& problem, int client, int sample);

// The moments of one client's round map in the augmented coordinates u = (x − origin, 1) (size
// d + 1; a step's b̄_S becomes b̄_S − Ā_S·origin). fedavg_local_order_exact takes origin = x*, where
// the second moments are O(γ²) and their cancellation in Cov = E[uuᵀ] − E[u]E[u]ᵀ costs O(γ)
// relative, not 1/Cov.
struct ClientRoundMoments {
  Matrix mean;  // E[Y_c], (d+1) × (d+1)
  Matrix second;  // E[Y_c ⊗ Y_c], (d+1)² × (d+1)²: vec E[Y U Yᵀ] = second · vec U (column-major)
};

// E[Y_c] and E[Y_c ⊗ Y_c] of client c's `steps` local steps of size γ under the problem's sample
// order. Reshuffled, the pass is enumerated: InputError naming "sampling" when n_c exceeds
// kMaxEnumeratedSamples or the enumeration would cost more than kMaxEnumerationFlops.
ClientRoundMoments client_round_moments(const LinearSaProblem& problem, int client, double gamma,
                                        int steps, const Vector& origin);
inline constexpr int kMaxEnumeratedSamples = 16;
inline constexpr double kMaxEnumerationFlops = 2e10;

// The exact stationary law of x for FedAvg with a server step η_g (setting.server: sgd with lr η_g,
// no momentum; client sgd; every client every round) under the problem's sample order, THEORY
// (A4): the mean solves (I − F)m = f from E[u'] = M̄u, M̄ = Σ_c p_c E[Z_c] = [[F, f], [0, 1]], and
// the second moment U = E[uuᵀ] the linear system vec U = T vec U, U_{d+1,d+1} = 1, with
//   T = M̄ ⊗ M̄ + Σ_c p_c² (E[Z_c ⊗ Z_c] − E[Z_c] ⊗ E[Z_c])   (clients independent).
// With replacement this is (L1)'s law (fedopt_exact_lsa), computed another way. Throws InputError
// naming --server / --client / --participating for a setting it does not cover, and --gamma when F
// or T's block on the second moments of x has spectral radius ≥ 1 (no stationary law).
ExactMoments fedavg_local_order_exact(const LinearSaProblem& problem, const RunSetting& setting);

// THEORY (A4), first order: the reshuffled stationary mean minus the with-replacement one,
//   γ b_RR = −(γ/H) 𝐇⁻¹ Σ_c p_c π_c K_c(x*) + O(γ²),
//   K_c(x) = (1/n_c) Σ_j (A_j − Ā_c)(A_j x − b_j − (Ā_c x − b̄_c))  (the samples' covariance of A
//   and the field), π_c = [q k(k − 1) + r(r − 1)] / (2(n_c − 1)): the number of step pairs that
//   share a pass over n_c − 1, with k = n_c/B steps a pass and H = qk + r. Free of η_g. Throws
//   InputError naming "sampling" when some n_c = 1.
Vector reshuffling_bias_first_order(const LinearSaProblem& problem, const RunSetting& setting);

}  // namespace fedverify::theory
