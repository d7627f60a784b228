// Brute-force stationary moments of the linear-Gaussian chains of THEORY (F0), (S0), (R0) on
// quadratic problems — an implementation INDEPENDENT of theory/closed_forms/exact.cpp, for tests
// only.
//
// One round is built by literally running the H local steps of the algorithm on a symbolic
// state: every local iterate u is kept as an affine function of the round's starting state z
// plus Gaussian noise,  u = F z + g + η,  Cov η = Q,  and each local step
//     u ← T u + S z + t − (noise of this step)
// updates (F, g, Q) ← (T F + S, T g + t, T Q Tᵀ + N). No closed form (geometric sums, divided
// forms, eigenbases) is used. The round map z' = 𝐅 z + c + η' is then iterated,
//     m ← 𝐅 m + c,   Σ ← 𝐅 Σ 𝐅ᵀ + 𝐐,
// from m = 0, Σ = 0, by doubling (t rounds → 2t rounds: m_{2t} = m_t + 𝐅ᵗ m_t,
// Σ_{2t} = Σ_t + 𝐅ᵗ Σ_t 𝐅ᵗᵀ, 𝐅²ᵗ = 𝐅ᵗ 𝐅ᵗ), which gives exactly the iterates at t = 2ᵏ rounds,
// until they stop changing. The chain starts at z = 0, which lies in Scaffold's invariant
// subspace Σ_c ξ_c = 0.
#pragma once

#include <stdexcept>
#include <vector>

#include "theory/base/linalg.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::verify {

// u = F z + g + η, Cov η = Q.
struct AffineGaussian {
  Matrix f;
  Vector g;
  Matrix q;

  // One local step u ← T u + S z + t + ζ with Cov ζ = N (ζ independent of everything before).
  void step(const Matrix& t_mat, const Matrix& s_mat, const Vector& t_vec, const Matrix& n_mat) {
    f = t_mat * f + s_mat;
    g = t_mat * g + t_vec;
    q = t_mat * q * t_mat.transpose() + n_mat;
  }
};

struct ChainMoments {
  Vector mean;
  Matrix cov;
  int rounds_log2 = 0;  // the moments are those after 2^rounds_log2 rounds
};

// Iterates z' = F z + c + η (Cov η = Q) from z = 0 by doubling until the moments are stable.
// `projector` (orthogonal projector Π onto an invariant subspace V that contains c and the
// range of Q, or empty): the iteration is run with Π𝐅Π, Πc, ΠQΠ. On Scaffold's subspace
// Σ_c ξ_c = 0 the map contracts but off it 𝐅 has eigenvalue 1, so 𝐅ᵗ would not tend to 0 and
// round-off components off V would accumulate; Π𝐅Π equals 𝐅 on V and is 0 on V^⊥.
inline ChainMoments iterate_to_stationarity(const Matrix& f, const Vector& c, const Matrix& q,
                                            const Matrix& projector = Matrix()) {
  // Stop when one doubling changes the moments by less than this relative amount: the change
  // is the contribution of rounds t+1 … 2t, and the neglected tail beyond 2t is smaller still
  // (by a further factor ≤ ‖𝐅ᵗ‖), so the result is stationary to ~1e-15 relative.
  constexpr double kStable = 1e-15;
  constexpr int kMaxDoublings = 80;  // 2^80 rounds: far beyond any contraction we test
  const bool restricted = projector.size() > 0;
  Matrix ft = restricted ? Matrix(projector * f * projector) : f;  // 𝐅ᵗ
  ChainMoments m{restricted ? Vector(projector * c) : c,
                 restricted ? Matrix(projector * q * projector.transpose()) : q, 0};
  for (int k = 1; k <= kMaxDoublings; ++k) {
    const Vector mean_next = m.mean + ft * m.mean;
    const Matrix cov_next = m.cov + ft * m.cov * ft.transpose();
    ft = ft * ft;
    const double dm = (mean_next - m.mean).norm();
    const double dc = (cov_next - m.cov).norm();
    m.mean = mean_next;
    m.cov = cov_next;
    m.rounds_log2 = k;
    if (dm <= kStable * m.mean.norm() && dc <= kStable * m.cov.norm()) return m;
  }
  throw std::runtime_error("iterate_to_stationarity: no convergence (unstable chain?)");
}

inline Matrix block_diagonal(const std::vector<Matrix>& blocks) {
  Eigen::Index n = 0;
  for (const auto& b : blocks) n += b.rows();
  Matrix out = Matrix::Zero(n, n);
  Eigen::Index at = 0;
  for (const auto& b : blocks) {
    out.block(at, at, b.rows(), b.cols()) = b;
    at += b.rows();
  }
  return out;
}

// --- FedAvg (THEORY F0) ----------------------------------------------------------------------
// State z = x; local state u = (x_1, …, x_N). Local step of client c:
//   x_c ← x_c − γ (A_c (x_c − b_c) + ε),  ε ~ N(0, S_c).
struct RoundMap {
  Matrix f;
  Vector c;
  Matrix q;
};

inline RoundMap brute_force_fedavg_round(const theory::QuadraticProblem& p, double gamma, int h) {
  const int n = p.num_clients(), d = p.dim();
  std::vector<Matrix> t_blocks, n_blocks;
  Vector t_vec(d * n);
  for (int c = 0; c < n; ++c) {
    const auto& cl = p.client(c);
    t_blocks.push_back(Matrix::Identity(d, d) - gamma * cl.hessian);
    n_blocks.push_back(gamma * gamma * cl.noise_cov);
    t_vec.segment(d * c, d) = gamma * cl.hessian * cl.optimum;
  }
  const Matrix t_mat = block_diagonal(t_blocks);
  const Matrix n_mat = block_diagonal(n_blocks);
  // Every client starts the round at x: u = (I, …, I)ᵀ z.
  Matrix start(d * n, d);
  for (int c = 0; c < n; ++c) start.block(d * c, 0, d, d).setIdentity();
  AffineGaussian u{start, Vector::Zero(d * n), Matrix::Zero(d * n, d * n)};
  for (int step = 0; step < h; ++step) u.step(t_mat, Matrix::Zero(d * n, d), t_vec, n_mat);
  // x' = Σ_c p_c x_c (p_c = 1/N for equal weights, THEORY (A1)).
  Matrix avg(d, d * n);
  for (int c = 0; c < n; ++c) avg.block(0, d * c, d, d) = p.weight(c) * Matrix::Identity(d, d);
  return {avg * u.f, avg * u.g, avg * u.q * avg.transpose()};
}

inline ChainMoments brute_force_fedavg(const theory::QuadraticProblem& p, double gamma, int h) {
  const RoundMap r = brute_force_fedavg_round(p, gamma, h);
  return iterate_to_stationarity(r.f, r.c, r.q);
}

// --- FedRR (THEORY R0): FedAvg at γ and at 2γ run side by side ---------------------------------
// State z = (x^{(γ)}, x^{(2γ)}); local state u = (x_1^{(γ)}, …, x_N^{(γ)}, x_1^{(2γ)}, …).
// With shared noise both runs use the same ε at the same (client, local step).
// Returns the moments of z; χ = 2 x^{(γ)} − x^{(2γ)} is a linear function of it.
inline ChainMoments brute_force_fedrr_pair(const theory::QuadraticProblem& p, double gamma, int h,
                                           bool shared_noise) {
  const int n = p.num_clients(), d = p.dim();
  const int half = d * n;
  Matrix t_mat = Matrix::Zero(2 * half, 2 * half);
  Matrix n_mat = Matrix::Zero(2 * half, 2 * half);
  Vector t_vec(2 * half);
  const double g2 = 2.0 * gamma;
  for (int c = 0; c < n; ++c) {
    const auto& cl = p.client(c);
    const int i1 = d * c, i2 = half + d * c;
    t_mat.block(i1, i1, d, d) = Matrix::Identity(d, d) - gamma * cl.hessian;
    t_mat.block(i2, i2, d, d) = Matrix::Identity(d, d) - g2 * cl.hessian;
    t_vec.segment(i1, d) = gamma * cl.hessian * cl.optimum;
    t_vec.segment(i2, d) = g2 * cl.hessian * cl.optimum;
    // Noise −γ ε₁ and −2γ ε₂, with ε₁ = ε₂ when shared.
    n_mat.block(i1, i1, d, d) = gamma * gamma * cl.noise_cov;
    n_mat.block(i2, i2, d, d) = g2 * g2 * cl.noise_cov;
    if (shared_noise) {
      n_mat.block(i1, i2, d, d) = gamma * g2 * cl.noise_cov;
      n_mat.block(i2, i1, d, d) = gamma * g2 * cl.noise_cov;
    }
  }
  Matrix start = Matrix::Zero(2 * half, 2 * d);
  for (int c = 0; c < n; ++c) {
    start.block(d * c, 0, d, d).setIdentity();
    start.block(half + d * c, d, d, d).setIdentity();
  }
  AffineGaussian u{start, Vector::Zero(2 * half), Matrix::Zero(2 * half, 2 * half)};
  for (int step = 0; step < h; ++step) u.step(t_mat, Matrix::Zero(2 * half, 2 * d), t_vec, n_mat);
  // Each run's average Σ_c p_c x_c (p_c = 1/N for equal weights, THEORY (A1)).
  Matrix avg = Matrix::Zero(2 * d, 2 * half);
  for (int c = 0; c < n; ++c) {
    avg.block(0, d * c, d, d) = p.weight(c) * Matrix::Identity(d, d);
    avg.block(d, half + d * c, d, d) = p.weight(c) * Matrix::Identity(d, d);
  }
  return iterate_to_stationarity(avg * u.f, avg * u.g, avg * u.q * avg.transpose());
}

// --- Scaffold (THEORY S0) ------------------------------------------------------------------
// State z = (x, ξ_1, …, ξ_N); local state u = (x_1, …, x_N). Local step of client c:
//   x_c ← x_c − γ (A_c (x_c − b_c) + ε + ξ_c).
// End of round: x' = (1/N) Σ_c x_c,  ξ_c' = ξ_c + (x_c − x')/(γH).
// eta: the server's global step η_g of THEORY (S9), x' = x + η_g(x̄ − x) (1: averaging, S0).
// The round map z' = 𝐅 z + c + η of Scaffold's state (x, ξ_1, …, ξ_N), built by running the
// round as above.
inline RoundMap brute_force_scaffold_round(const theory::QuadraticProblem& p, double gamma, int h,
                                           double eta = 1.0) {
  const int n = p.num_clients(), d = p.dim();
  const int nu = d * n, nz = d * (n + 1);
  std::vector<Matrix> t_blocks, n_blocks;
  Vector t_vec(nu);
  Matrix s_mat = Matrix::Zero(nu, nz);  // the −γ ξ_c term
  Matrix start = Matrix::Zero(nu, nz);  // x_c starts at x
  for (int c = 0; c < n; ++c) {
    const auto& cl = p.client(c);
    t_blocks.push_back(Matrix::Identity(d, d) - gamma * cl.hessian);
    n_blocks.push_back(gamma * gamma * cl.noise_cov);
    t_vec.segment(d * c, d) = gamma * cl.hessian * cl.optimum;
    s_mat.block(d * c, d * (1 + c), d, d) = -gamma * Matrix::Identity(d, d);
    start.block(d * c, 0, d, d).setIdentity();
  }
  const Matrix t_mat = block_diagonal(t_blocks);
  const Matrix n_mat = block_diagonal(n_blocks);
  AffineGaussian u{start, Vector::Zero(nu), Matrix::Zero(nu, nu)};
  for (int step = 0; step < h; ++step) u.step(t_mat, s_mat, t_vec, n_mat);

  // z' = P u + K z.
  Matrix avg = Matrix::Zero(d, nu);
  for (int c = 0; c < n; ++c) avg.block(0, d * c, d, d) = Matrix::Identity(d, d) / n;
  Matrix p_mat = Matrix::Zero(nz, nu);
  Matrix k_mat = Matrix::Zero(nz, nz);
  p_mat.topRows(d) = eta * avg;
  k_mat.topLeftCorner(d, d) = (1.0 - eta) * Matrix::Identity(d, d);
  const double gh = gamma * h;
  for (int c = 0; c < n; ++c) {
    Matrix own = Matrix::Zero(d, nu);
    own.block(0, d * c, d, d).setIdentity();
    p_mat.block(d * (1 + c), 0, d, nu) = (own - avg) / gh;
    k_mat.block(d * (1 + c), d * (1 + c), d, d).setIdentity();
  }
  return {p_mat * u.f + k_mat, p_mat * u.g, p_mat * u.q * p_mat.transpose()};
}

inline ChainMoments brute_force_scaffold(const theory::QuadraticProblem& p, double gamma, int h,
                                         double eta = 1.0) {
  const int n = p.num_clients(), d = p.dim();
  const int nz = d * (n + 1);
  const RoundMap r = brute_force_scaffold_round(p, gamma, h, eta);
  // Orthogonal projector onto Σ_c ξ_c = 0: subtract from each ξ_c the mean of the ξ blocks.
  Matrix projector = Matrix::Identity(nz, nz);
  for (int c = 0; c < n; ++c) {
    for (int c2 = 0; c2 < n; ++c2) {
      projector.block(d * (1 + c), d * (1 + c2), d, d) -= Matrix::Identity(d, d) / n;
    }
  }
  return iterate_to_stationarity(r.f, r.c, r.q, projector);
}

}  // namespace fedverify::verify
