// Wasserstein-2 distances: between Gaussians (closed form), between two empirical measures
// (exact optimal assignment), in one dimension (sorting) and sliced (random projections).
//
// Samples are d×n matrices, one column per sample, like the d×K chain ensembles; every
// function returns W2 itself (not W2²).
#pragma once

#include <cstdint>
#include <vector>

#include "theory/base/linalg.hpp"

namespace fedverify::estimators {

// The symmetric square root of a positive semi-definite S (of its symmetric part), negative
// eigenvalues from round-off clamped to 0.
Matrix psd_sqrt(const Matrix& s);

// Bures–Wasserstein distance between N(m1, S1) and N(m2, S2):
//   W2² = ‖m1 − m2‖² + tr S1 + tr S2 − 2 tr (S2^{1/2} S1 S2^{1/2})^{1/2}.
// Square roots by symmetric eigen-decomposition with negative eigenvalues (round-off of a PSD
// input) clamped to 0; W2² is clamped at 0 before the square root. Throws InputError on a
// dimension mismatch or a non-symmetric/non-finite covariance.
double bures_wasserstein(const Vector& m1, const Matrix& s1, const Vector& m2, const Matrix& s2);

// Exact W2 between the empirical measures (1/n) Σ δ_{x_i} and (1/n) Σ δ_{y_j} (equal sizes,
// uniform weights): W2² = (1/n) min over permutations σ of Σ_i ‖x_i − y_σ(i)‖².
// Solved as a min-cost flow on the complete bipartite graph with LEMON's NetworkSimplex, which
// needs integer costs: squared distances are scaled so that the largest becomes 2⁵⁸/n and
// rounded to int64 (headroom for the simplex potentials, which reach ≈ 2n·max cost). The
// assignment found is therefore optimal up to W2² + n·max‖x_i − y_j‖²·2⁻⁵⁸ (≈ 4·10⁻¹⁵ of the
// largest squared distance at n = 1000); its cost is then re-evaluated in double precision.
// Time ~ n² log n to n³, memory O(n²) (≈ 70 bytes per arc): meant for n up to a few thousand.
double empirical_w2(const Matrix& x, const Matrix& y);

// The optimal assignment behind empirical_w2: sigma[i] = j pairs column i of x with column j
// of y.
std::vector<int> optimal_assignment(const Matrix& x, const Matrix& y);

// Exact W2 in one dimension between equal-size samples: sort both, pair in order.
double w2_1d(std::vector<double> x, std::vector<double> y);

// Sliced W2: SW2² = (1/L) Σ_l W2²(θ_lᵀx, θ_lᵀy) with L directions θ_l uniform on the sphere,
// drawn from Stream(seed, Purpose::projections). Since each projection is 1-Lipschitz,
// SW2 ≤ W2 holds for every draw; in d = 1 it equals w2_1d.
double sliced_w2(const Matrix& x, const Matrix& y, int projections, std::uint64_t seed);

}  // namespace fedverify::estimators
