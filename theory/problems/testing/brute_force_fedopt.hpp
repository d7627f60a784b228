// Brute-force stationary moments of FedOpt (THEORY O0, O2, O3, O5) on quadratic problems, for
// tests only — INDEPENDENT of theory/algorithms/fedopt.cpp: one round is built by literally
// running the local steps of the sampled clients on a symbolic state (brute_force_chain.hpp's
// AffineGaussian), then the server's update of (x, m) as the algorithm states it (the momentum
// buffer m itself, not the rescaled u = m/γ of the closed form). No geometric sums, no divided
// forms, no pairwise identities: client sampling is handled by enumerating every subset.
#pragma once

#include <cmath>
#include <stdexcept>
#include <vector>

#include "theory/base/linalg.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "theory/problems/testing/brute_force_chain.hpp"

namespace fedverify::verify {

struct FedoptCase {
  double lr = 1;        // η_g
  double momentum = 0;  // β
  bool nesterov = false;
  double mu = 0;  // FedProx μ_p (0: client SGD)
};

// z' = F z + c + η for the clients `subset`; z = x (β = 0) or (x, m).
inline RoundMap brute_force_fedopt_round(const theory::QuadraticProblem& p, double gamma, int h,
                                         const FedoptCase& f, const std::vector<int>& subset) {
  const int d = p.dim();
  const int s = static_cast<int>(subset.size());
  const int nz = f.momentum != 0.0 ? 2 * d : d;
  const int nu = d * s;
  const Matrix id = Matrix::Identity(d, d);
  Matrix x_of_z = Matrix::Zero(d, nz);  // F: z ↦ x
  x_of_z.leftCols(d) = id;
  Matrix m_of_z = Matrix::Zero(d, nz);  // z ↦ m
  if (nz == 2 * d) m_of_z.rightCols(d) = id;
  // Local step of client c (position j): y ← y − γ(A_c(y − b_c) + ε + μ(y − x)).
  std::vector<Matrix> t_blocks, n_blocks;
  Vector t_vec(nu);
  Matrix s_mat = Matrix::Zero(nu, nz);
  Matrix start = Matrix::Zero(nu, nz);
  for (int j = 0; j < s; ++j) {
    const auto& cl = p.client(subset[j]);
    t_blocks.push_back(id - gamma * cl.hessian - gamma * f.mu * id);
    n_blocks.push_back(gamma * gamma * cl.noise_cov);
    t_vec.segment(d * j, d) = gamma * cl.hessian * cl.optimum;
    s_mat.middleRows(d * j, d) = gamma * f.mu * x_of_z;
    start.middleRows(d * j, d) = x_of_z;
  }
  AffineGaussian u{start, Vector::Zero(nu), Matrix::Zero(nu, nu)};
  const Matrix t_mat = block_diagonal(t_blocks);
  const Matrix n_mat = block_diagonal(n_blocks);
  for (int step = 0; step < h; ++step) u.step(t_mat, s_mat, t_vec, n_mat);
  // Δ = x − (1/S) Σ_j y_j = x_of_z z − avg u.
  Matrix avg = Matrix::Zero(d, nu);
  for (int j = 0; j < s; ++j) avg.middleCols(d * j, d) = id / s;
  // z' = K z + L u:  m' = β m + Δ;  x' = x − η_g m' (heavy ball) or x − η_g (Δ + β m').
  const Matrix delta_z = x_of_z;  // Δ's dependence on z through x
  const Matrix delta_u = -avg;    // … and on u
  const Matrix m_new_z = f.momentum * m_of_z + delta_z;
  const Matrix& m_new_u = delta_u;  // (the buffer starts at 0: m' depends on u through Δ only)
  Matrix x_new_z, x_new_u;
  if (f.nesterov) {
    x_new_z = x_of_z - f.lr * (delta_z + f.momentum * m_new_z);
    x_new_u = -f.lr * (delta_u + f.momentum * m_new_u);
  } else {
    x_new_z = x_of_z - f.lr * m_new_z;
    x_new_u = -f.lr * m_new_u;
  }
  Matrix k_mat(nz, nz), l_mat(nz, nu);
  k_mat.topRows(d) = x_new_z;
  l_mat.topRows(d) = x_new_u;
  if (nz == 2 * d) {
    k_mat.bottomRows(d) = m_new_z;
    l_mat.bottomRows(d) = m_new_u;
  }
  return {k_mat + l_mat * u.f, l_mat * u.g, l_mat * u.q * l_mat.transpose()};
}

// Every subset of {0, …, n−1} of size s, in lexicographic order.
inline std::vector<std::vector<int>> subsets(int n, int s) {
  std::vector<std::vector<int>> out;
  std::vector<int> pick(s);
  for (int i = 0; i < s; ++i) pick[i] = i;
  while (true) {
    out.push_back(pick);
    int i = s - 1;
    while (i >= 0 && pick[i] == n - s + i) --i;
    if (i < 0) return out;
    ++pick[i];
    for (int j = i + 1; j < s; ++j) pick[j] = pick[j - 1] + 1;
  }
}

// Stationary moments of a chain whose round is one of `maps`, each with equal probability and
// independently of the past: the mean from m ← E[F_S] m + E[c_S] (a fixed linear recursion, by
// doubling), then the covariance from the centred recursion Σ ← E_S[F_S Σ F_Sᵀ + w_S w_Sᵀ + Q_S],
// w_S = F_S m + c_S − m (z independent of the round's subset and noise), iterated from 0 until one
// step changes Σ by less than 1e-15 relative (a few ulps; the neglected tail is then
// ≲ 1e-15/(1 − ρ_ms) relative).
inline ChainMoments iterate_random_rounds(const std::vector<RoundMap>& maps) {
  const auto nz = maps[0].f.rows();
  const auto count = static_cast<double>(maps.size());
  Matrix fbar = Matrix::Zero(nz, nz);
  Vector cbar = Vector::Zero(nz);
  for (const auto& m : maps) {
    fbar += m.f / count;
    cbar += m.c / count;
  }
  ChainMoments out = iterate_to_stationarity(fbar, cbar, Matrix::Zero(nz, nz));
  Matrix constant = Matrix::Zero(nz, nz);
  for (const auto& m : maps) {
    const Vector w = m.f * out.mean + m.c - out.mean;
    constant += (w * w.transpose() + m.q) / count;
  }
  Matrix sigma = Matrix::Zero(nz, nz);
  constexpr int kMaxIterations = 200000;
  for (int it = 0; it < kMaxIterations; ++it) {
    Matrix next = constant;
    for (const auto& m : maps) next += m.f * sigma * m.f.transpose() / count;
    const double change = (next - sigma).norm();
    sigma = next;
    if (change <= 1e-15 * sigma.norm()) {
      out.cov = sigma;
      out.rounds_log2 = static_cast<int>(std::ceil(std::log2(it + 1.0)));
      return out;
    }
  }
  throw std::runtime_error("iterate_random_rounds: no convergence (not mean-square stable?)");
}

// Stationary moments of FedOpt with S of the N clients sampled uniformly without replacement
// (S = N: the fixed chain, iterated by doubling; S < N: every one of the C(N, S) subsets,
// iterate_random_rounds).
inline ChainMoments brute_force_fedopt(const theory::QuadraticProblem& p, double gamma, int h,
                                       const FedoptCase& f, int sampled) {
  const int n = p.num_clients();
  std::vector<RoundMap> maps;
  for (const auto& sub : subsets(n, sampled)) {
    maps.push_back(brute_force_fedopt_round(p, gamma, h, f, sub));
  }
  if (sampled == n) return iterate_to_stationarity(maps[0].f, maps[0].c, maps[0].q);
  return iterate_random_rounds(maps);
}

}  // namespace fedverify::verify
