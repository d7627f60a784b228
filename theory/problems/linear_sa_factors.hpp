// Low-rank factors of a linear-sa client's samples, for the noise map 𝒩 of THEORY (L1):
//     𝒩_c(S) B = Σ_k π_k ΔA_k S ΔA_kᵀ = Σ_k π_k A_k S A_kᵀ − Ā_c S Ā_cᵀ,   ΔA_k = A_k − Ā_c.
// The per-sample form (left) costs two d×d×d products per sample. When every sample has a small
// numerical rank r_k (TD(0): A = φ(s)(φ(s) − ρφ(s'))ᵀ, r_k = 1), A_k = U_k V_kᵀ gives
//     A_k S A_kᵀ = U_k (V_kᵀ S V_k) U_kᵀ,
// and stacking the factors of all K samples (d × R, R = Σ_k r_k) makes the sum two d×d×R products
// plus R small blocks: O(d² R) instead of O(K d³).
//
// The factored form subtracts Ā S Āᵀ from Σ π A S Aᵀ; its round-off is relative to the larger
// term, so it is used only when the amplification κ_c = Σ_k π_k ‖A_k‖²_F / Σ_k π_k ‖ΔA_k‖²_F
// (exactly the cancellation of the trace at S = I) is at most kMaxAmplification.
#pragma once

#include <optional>
#include <vector>

#include "theory/base/linalg.hpp"

namespace fedverify::theory {

struct LinearSaClient;

struct LowRankSamples {
  Matrix u;                           // d × R: [U_1, …, U_K], orthonormal columns per sample
  Matrix v;                           // d × R: [V_1, …, V_K]
  Vector p;                           // K: π_k
  std::vector<Eigen::Index> offsets;  // K + 1: sample k owns columns [offsets[k], offsets[k + 1])
  double amplification = 0;           // κ_c above
};

// Numerical rank: A_k = Q Qᵀ A_k up to ‖A_k − Q QᵀA_k‖_F ≤ kRankUlps · d · ε · ‖A_k‖_F. An entry of
// A computed as a product (φ_i ψ_j) carries ε relative error, and the residual of a pivoted
// Gram–Schmidt step is accurate to (d + 2) ε ‖A_k‖_F (its inner products have d terms), so the
// tolerance is above both with a margin of 4; the dropped part changes 𝒩 by at most
// 2 · tolerance · ‖A_k‖ ‖S‖, the order of the per-sample products' own round-off (2dε‖ΔA‖²‖S‖).
constexpr double kRankUlps = 4;
// The largest rank factored, d/4 (0 below d = 4): per sample the factors cost 2d²r + 2dr²
// against the dense 2d³, (r/d)(1 + r/d) ≤ 0.31 of it; a client with a sample of higher rank (a
// full-rank sample always) keeps the per-sample form.
int max_factor_rank(int dim);
// κ_c bound: the factored form's round-off is ≈ κ_c times the per-sample form's (a few ε·√R), so
// 1e3 keeps 𝒩 within ~1e-12 relative, 100 × below the 1e-10 asked of the exact moments.
constexpr double kMaxAmplification = 1e3;

// The factors of `client` (probabilities p, mean Ā), or nullopt when a sample's numerical rank
// exceeds max_factor_rank(d) or κ_c > kMaxAmplification.
std::optional<LowRankSamples> factor_samples(const LinearSaClient& client, const Vector& p,
                                             const Matrix& mean_a);

// Σ_k π_k A_k S A_kᵀ − Ā S Āᵀ from the factors (not symmetrised, not divided by B).
Matrix factored_spread(const LowRankSamples& f, const Matrix& mean_a, const Matrix& s);
// Σ_k π_k ΔA_k S ΔA_kᵀ sample by sample (not symmetrised, not divided by B).
Matrix per_sample_spread(const LinearSaClient& client, const Vector& p, const Matrix& mean_a,
                         const Matrix& s);

}  // namespace fedverify::theory
