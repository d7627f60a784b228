// Brute-force stationary moments of Scaffold with client sampling (THEORY S8) on quadratic
// problems, for tests only — INDEPENDENT of theory/algorithms/scaffold_sampled.cpp: one round is
// built by literally running the H corrected local steps of the sampled clients on a symbolic
// state (brute_force_chain.hpp's AffineGaussian), then the client and server updates as
// Karimireddy et al. (2020, Algorithm 1, option II, global step 1) print them. No geometric sums,
// no indicator expansion, no Kronecker system: every subset is enumerated
// (brute_force_fedopt.hpp's iterate_random_rounds).
//
// State z = (x, c_1, …, c_N); the server variate c = (1/N) Σ_c c_c is a function of it.
#pragma once

#include <vector>

#include "theory/problems/testing/brute_force_fedopt.hpp"

namespace fedverify::verify {

// z' = F z + c + η when the clients `subset` are sampled.
// eta: the server's global step η_g of THEORY (S9), x' = x + η_g((1/S) Σ_j y_j − x).
inline RoundMap brute_force_scaffold_sampled_round(const theory::QuadraticProblem& p, double gamma,
                                                   int h, const std::vector<int>& subset,
                                                   double eta = 1.0) {
  const int d = p.dim(), n = p.num_clients();
  const int s = static_cast<int>(subset.size());
  const int nz = d * (n + 1), nu = d * s;
  const Matrix id = Matrix::Identity(d, d);
  const auto variate = [&](int c) {  // z ↦ c_c
    Matrix m = Matrix::Zero(d, nz);
    m.middleCols(d * (1 + c), d) = id;
    return m;
  };
  Matrix x_of_z = Matrix::Zero(d, nz), server = Matrix::Zero(d, nz);  // z ↦ x, z ↦ c
  x_of_z.leftCols(d) = id;
  for (int c = 0; c < n; ++c) server += variate(c) / n;
  // Local step of client c (position j): y ← y − γ(A_c(y − b_c) + ε − c_c + c).
  std::vector<Matrix> t_blocks, n_blocks;
  Vector t_vec(nu);
  Matrix s_mat(nu, nz), start(nu, nz);
  for (int j = 0; j < s; ++j) {
    const int c = subset[j];
    const auto& cl = p.client(c);
    t_blocks.push_back(id - gamma * cl.hessian);
    n_blocks.push_back(gamma * gamma * cl.noise_cov);
    t_vec.segment(d * j, d) = gamma * cl.hessian * cl.optimum;
    s_mat.middleRows(d * j, d) = gamma * (variate(c) - server);
    start.middleRows(d * j, d) = x_of_z;
  }
  AffineGaussian u{start, Vector::Zero(nu), Matrix::Zero(nu, nu)};
  const Matrix t_mat = block_diagonal(t_blocks), n_mat = block_diagonal(n_blocks);
  for (int step = 0; step < h; ++step) u.step(t_mat, s_mat, t_vec, n_mat);
  // z' = K z + L u:  x' = (1/S) Σ_j y_j;  c_c' = c_c − c + (x − y_c)/(Hγ) (sampled), c_c' = c_c.
  Matrix k_mat = Matrix::Zero(nz, nz), l_mat = Matrix::Zero(nz, nu);
  for (int j = 0; j < s; ++j) l_mat.block(0, d * j, d, d) = eta * id / s;
  k_mat.topRows(d) = (1.0 - eta) * x_of_z;
  for (int c = 0; c < n; ++c) k_mat.middleRows(d * (1 + c), d) = variate(c);
  for (int j = 0; j < s; ++j) {
    const int c = subset[j];
    k_mat.middleRows(d * (1 + c), d) += -server + x_of_z / (h * gamma);
    l_mat.block(d * (1 + c), d * j, d, d) = -id / (h * gamma);
  }
  return {k_mat + l_mat * u.f, l_mat * u.g, l_mat * u.q * l_mat.transpose()};
}

inline ChainMoments brute_force_scaffold_sampled(const theory::QuadraticProblem& p, double gamma,
                                                 int h, int sampled, double eta = 1.0) {
  std::vector<RoundMap> maps;
  for (const auto& sub : subsets(p.num_clients(), sampled)) {
    maps.push_back(brute_force_scaffold_sampled_round(p, gamma, h, sub, eta));
  }
  return iterate_random_rounds(maps);
}

}  // namespace fedverify::verify
