// Exact moments of a random affine iteration with finitely many branches (THEORY (P6)).
//
// e ← N_b e + r_b with probability π_b, the branch drawn afresh and independently each step.
// The first two moments m = E e, S = E eeᵀ follow the deterministic recursion
//   m ← Σ_b π_b (N_b m + r_b),
//   S ← Σ_b π_b (N_b S N_bᵀ + N_b m r_bᵀ + r_b mᵀ N_bᵀ + r_b r_bᵀ),
// so E‖e_k‖² = tr S_k, exactly. L2GD (two branches: local or averaging step), its variance-reduced
// variants on finite-sum quadratics (the branches enumerate the clients' sample draws), L2SGD++'s
// client sets and compressed L2GD with random-k compressors (the branches enumerate the masks) are
// all of this form (theory/algorithms/l2gd.hpp, l2gd_plus.hpp). The state is kept as the error
// e = z − z* from the fixed point z*, which avoids the cancellation in E‖z‖² − 2z*ᵀE z + ‖z*‖².
//
// The linear part alone, 𝒯(S) = Σ_b π_b N_b S N_bᵀ, is the second-moment operator; its spectral
// radius ρ₂ is the asymptotic rate of E‖e_k‖² when every offset r_b vanishes (a chain whose
// variance is zero at its fixed point), and ρ₂ < 1 is mean-square stability.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "theory/base/linalg.hpp"

namespace fedverify::theory {

struct AffineBranch {
  double probability = 0;  // π_b
  Matrix map;              // N_b
  Vector offset;           // r_b (size of the state; zero when z* is a fixed point of the branch)
};

// The recursion is affine in z = (m, vec S): z ← A z + c. With many branches on a small state it is
// cheaper to form A once (s + s² applications of the branch sum) and step by one product with A:
// BranchedMoments does so when the branch sum costs more than a product with A, i.e. when
// (branches)·4s³ > (s + s²)², and steps branch by branch otherwise. Both agree to round-off.
class BranchedMoments {
 public:
  // Starts from the deterministic error e₀ (m = e₀, S = e₀e₀ᵀ). Throws std::invalid_argument
  // when the probabilities are not a distribution (each ≥ 0, sum 1 within 1e-12) or a size
  // differs from e₀'s. `compile`: form A when it pays (above), never, or always.
  enum class Compile { when_cheaper, never, always };
  BranchedMoments(std::vector<AffineBranch> branches, const Vector& e0,
                  Compile compile = Compile::when_cheaper);

  void step();
  const Vector& mean() const { return mean_; }             // E e_k
  const Matrix& second_moment() const { return second_; }  // E e_k e_kᵀ
  // E‖P e_k‖² for the coordinates [begin, begin + size) (the model block of an augmented state).
  double mean_square(Eigen::Index begin, Eigen::Index size) const;
  std::int64_t iteration() const { return iteration_; }

 private:
  // One step of the branch sum from (m, S).
  std::pair<Vector, Matrix> branch_sum(const Vector& m, const Matrix& s) const;

  std::vector<AffineBranch> branches_;
  Vector mean_;
  Matrix second_;
  std::int64_t iteration_ = 0;
  Matrix affine_;         // A, when compiled (empty otherwise)
  Vector affine_offset_;  // c
};

// Every k-subset of {0, …, n − 1}, in lexicographic order (the branches of a uniform draw of k of
// n without replacement: working clients, random-k masks).
std::vector<std::vector<int>> subsets_of_size(int n, int k);

// ρ₂ = the spectral radius of 𝒯 (restarted Arnoldi on the vectorised map).
double second_moment_radius(const std::vector<AffineBranch>& branches);

}  // namespace fedverify::theory
