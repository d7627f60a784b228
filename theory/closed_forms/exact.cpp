#include "theory/closed_forms/exact.hpp"

#include <fmt/format.h>

#include <cmath>

#include "theory/base/input_error.hpp"
#include "theory/closed_forms/lyapunov.hpp"

namespace fedverify::theory {
namespace {

// Local-step powers of one client in the eigenbasis of A_c = V diag(a) Vᵀ, B_c = I − γA_c.
struct LocalSteps {
  Matrix v;
  Vector a;
  Vector beta;  // eigenvalues of B_c = 1 − γa
  int steps;

  LocalSteps(const Matrix& hessian, double gamma, int h) : steps(h) {
    const Eigen::SelfAdjointEigenSolver<Matrix> es(hessian);
    v = es.eigenvectors();
    a = es.eigenvalues();
    beta = Vector::Ones(a.size()) - gamma * a;
  }
  Matrix in_basis(const Vector& diag) const { return v * diag.asDiagonal() * v.transpose(); }
  // P_c = Σ_{h<H} B_c^h; the loop sums terms of one sign when γa ≤ 1 (no cancellation).
  Vector geometric() const {
    Vector s = Vector::Zero(a.size());
    Vector p = Vector::Ones(a.size());
    for (int h = 0; h < steps; ++h) {
      s += p;
      p = p.cwiseProduct(beta);
    }
    return s;
  }
  Matrix p() const { return in_basis(geometric()); }
  // (I − B_c^H)/γ = P_c A_c.
  Matrix p_a() const { return in_basis(geometric().cwiseProduct(a)); }
  Matrix b_power() const { return in_basis(beta.array().pow(steps).matrix()); }
  // Σ_{h<H} B_c^h S (B'_c)^h for another step size's B'_c = V diag(beta2) Vᵀ (same V).
  Matrix noise_sum(const Matrix& s, const Vector& beta2) const {
    Matrix inner = v.transpose() * s * v;
    for (Eigen::Index j = 0; j < inner.cols(); ++j) {
      for (Eigen::Index i = 0; i < inner.rows(); ++i) {
        const double q = beta(i) * beta2(j);
        double sum = 0, pw = 1;
        for (int h = 0; h < steps; ++h) {
          sum += pw;
          pw *= q;
        }
        inner(i, j) *= sum;
      }
    }
    return v * inner * v.transpose();
  }
};

void require_stationary(double rho, const StepSetting& s, const char* what) {
  if (!(rho < 1.0)) {
    throw InputError(fmt::format(
        "--gamma: no stationary distribution for {} at gamma = {} with H = {} (spectral radius "
        "of the round map = {:.6g} >= 1); decrease gamma",
        what, s.gamma, s.local_steps, rho));
  }
}

// A round map with entries beyond double range (e.g. a hessian entry of 1e300 times γ) has no
// meaningful spectral radius: eigen-solvers return NaN or garbage for it, so say so first.
void require_finite(const AffineRoundMap& map, const StepSetting& s, const char* what) {
  if (!map.d.allFinite() || !map.g.allFinite() || !map.r.allFinite()) {
    throw InputError(fmt::format(
        "--gamma: the round map of {} at gamma = {} with H = {} overflows double precision (the "
        "problem's matrices are too large for this step); decrease gamma or rescale the problem",
        what, s.gamma, s.local_steps));
  }
}

double symmetric_spectral_radius(const Matrix& d, double gamma) {
  const Vector ev = Eigen::SelfAdjointEigenSolver<Matrix>(d, Eigen::EigenvaluesOnly).eigenvalues();
  return (Vector::Ones(ev.size()) - gamma * ev).cwiseAbs().maxCoeff();
}

// Orthonormal basis (N × (N−1)) of {v ∈ ℝᴺ : Σ v = 0}: the Helmert contrasts.
Matrix helmert_basis(int n) {
  Matrix e = Matrix::Zero(n, n - 1);
  for (int k = 1; k < n; ++k) {
    const double norm = std::sqrt(static_cast<double>(k) * (k + 1));
    for (int i = 0; i < k; ++i) e(i, k - 1) = 1.0 / norm;
    e(k, k - 1) = -static_cast<double>(k) / norm;
  }
  return e;
}

}  // namespace

AffineRoundMap fedavg_round_map(const QuadraticProblem& q, const StepSetting& s) {
  const int n = q.num_clients();
  const int d = q.dim();
  AffineRoundMap map{Matrix::Zero(d, d), Vector::Zero(d), Matrix::Zero(d, d), s.gamma};
  for (int c = 0; c < n; ++c) {
    const auto& cl = q.client(c);
    const LocalSteps ls(cl.hessian, s.gamma, s.local_steps);
    const Matrix pa = ls.p_a();
    map.d += pa / n;                               // THEORY (F5): I − M = (γ/N) Σ_c P_c A_c
    map.r += pa * cl.optimum / n;                  // THEORY (F5): r = (γ/N) Σ_c P_c A_c b_c
    map.g += ls.noise_sum(cl.noise_cov, ls.beta);  // THEORY (F5): Q = (γ²/N²) Σ_c Σ_h B^h S B^h
  }
  map.g *= s.gamma / (static_cast<double>(n) * n);
  return map;
}

ExactMoments fedavg_exact(const QuadraticProblem& q, const StepSetting& s) {
  validate(Algorithm::fedavg, s);
  const AffineRoundMap map = fedavg_round_map(q, s);
  require_finite(map, s, "fedavg");
  ExactMoments out;
  out.spectral_radius = symmetric_spectral_radius(map.d, s.gamma);
  require_stationary(out.spectral_radius, s, "fedavg");
  out.mean = map.d.ldlt().solve(map.r);  // m = (I − M)⁻¹ r, THEORY (F5)
  out.cov = symmetric_part(discrete_lyapunov_solve(map.d, s.gamma, map.g));  // Σ = MΣMᵀ + Q
  return out;
}

Vector fedavg_fixed_point(const QuadraticProblem& q, const StepSetting& s) {
  validate(Algorithm::fedavg, s);
  // THEORY (F4): x_{γ,H} = (Σ_c (I − B_c^H))⁻¹ Σ_c (I − B_c^H) b_c.
  const int d = q.dim();
  Matrix lhs = Matrix::Zero(d, d);
  Vector rhs = Vector::Zero(d);
  for (int c = 0; c < q.num_clients(); ++c) {
    const auto& cl = q.client(c);
    const Matrix i_minus_bh =
        Matrix::Identity(d, d) - LocalSteps(cl.hessian, s.gamma, s.local_steps).b_power();
    lhs += i_minus_bh;
    rhs += i_minus_bh * cl.optimum;
  }
  return lhs.partialPivLu().solve(rhs);
}

double fedavg_contraction_factor(const QuadraticProblem& q, const StepSetting& s) {
  // M is symmetric, so its operator norm is its spectral radius.
  return symmetric_spectral_radius(fedavg_round_map(q, s).d, s.gamma);
}

AffineRoundMap scaffold_round_map(const QuadraticProblem& q, const StepSetting& s) {
  // THEORY (S0) on f_c = ½(x − b_c)ᵀA_c(x − b_c), noise n_c = −γ Σ_h B_c^{H−1−h} ε_h:
  //   x_c^H = B_c^H x + γ P_c (A_c b_c − ξ_c) + n_c,   x' = (1/N) Σ_c x_c^H,
  //   ξ_c'  = ξ_c + (x_c^H − x')/(γH).
  // With D̄ = (1/N) Σ P_c A_c (so B_c^H − M = γ(D̄ − P_c A_c)), divided by γ:
  //   D_xx = D̄,  D_xξc = P_c/N,  D_ξc x = −(D̄ − P_c A_c)/(γH),
  //   D_ξc ξc' = δ_cc' P_c/(γH) − P_c'/(γHN).
  const int n = q.num_clients();
  const int d = q.dim();
  const int size = d * (n + 1);
  const double gh = s.gamma * s.local_steps;
  AffineRoundMap map{Matrix::Zero(size, size), Vector::Zero(size), Matrix::Zero(size, size),
                     s.gamma};
  std::vector<Matrix> p(n), pa(n), qhat(n);
  Matrix dbar = Matrix::Zero(d, d);
  Vector rbar = Vector::Zero(d);
  Matrix qsum = Matrix::Zero(d, d);
  for (int c = 0; c < n; ++c) {
    const auto& cl = q.client(c);
    const LocalSteps ls(cl.hessian, s.gamma, s.local_steps);
    p[c] = ls.p();
    pa[c] = ls.p_a();
    qhat[c] = ls.noise_sum(cl.noise_cov, ls.beta);  // Cov(n_c)/γ²
    dbar += pa[c] / n;
    rbar += pa[c] * cl.optimum / n;
    qsum += qhat[c];
  }
  auto blk = [d](Matrix& m, int i, int j) { return m.block(d * i, d * j, d, d); };
  blk(map.d, 0, 0) = dbar;
  map.r.head(d) = rbar;
  for (int c = 0; c < n; ++c) {
    blk(map.d, 0, 1 + c) = p[c] / n;
    blk(map.d, 1 + c, 0) = -(dbar - pa[c]) / gh;
    for (int c2 = 0; c2 < n; ++c2) {
      blk(map.d, 1 + c, 1 + c2) = -p[c2] / (gh * n);
    }
    blk(map.d, 1 + c, 1 + c) += p[c] / gh;
    map.r.segment(d * (1 + c), d) = (pa[c] * q.client(c).optimum - rbar) / gh;
  }
  // Noise, divided by γ: η_x = (1/N) Σ n_c, η_ξc = (n_c − η_x)/(γH), Cov(n_c) = γ² Q̂_c.
  const double nn = static_cast<double>(n) * n;
  blk(map.g, 0, 0) = s.gamma * qsum / nn;
  for (int c = 0; c < n; ++c) {
    const Matrix xc = (qhat[c] / n - qsum / nn) / s.local_steps;
    blk(map.g, 0, 1 + c) = xc;
    blk(map.g, 1 + c, 0) = xc.transpose();
    for (int c2 = 0; c2 < n; ++c2) {
      Matrix cc = -qhat[c] / n - qhat[c2] / n + qsum / nn;
      if (c == c2) cc += qhat[c];
      blk(map.g, 1 + c, 1 + c2) = cc / (s.gamma * s.local_steps * s.local_steps);
    }
  }
  return map;
}

ScaffoldExactMoments scaffold_exact(const QuadraticProblem& q, const StepSetting& s) {
  validate(Algorithm::scaffold, s);
  const int n = q.num_clients();
  const int d = q.dim();
  const AffineRoundMap map = scaffold_round_map(q, s);
  require_finite(map, s, "scaffold");
  // THEORY (S6): restrict to Σ_c ξ_c = 0 with E = blockdiag(I_d, Helmert ⊗ I_d).
  const Matrix helmert = helmert_basis(n);
  Matrix e = Matrix::Zero(d * (n + 1), d * n);
  e.topLeftCorner(d, d).setIdentity();
  for (int c = 0; c < n; ++c) {
    for (int k = 0; k + 1 < n; ++k) {
      e.block(d * (1 + c), d * (1 + k), d, d) = helmert(c, k) * Matrix::Identity(d, d);
    }
  }
  const Matrix dr = e.transpose() * map.d * e;
  const Matrix gr = e.transpose() * map.g * e;
  const Vector rr = e.transpose() * map.r;
  ScaffoldExactMoments out;
  out.dim = d;
  out.num_clients = n;
  out.spectral_radius = spectral_radius(Matrix::Identity(dr.rows(), dr.cols()) - s.gamma * dr);
  require_stationary(out.spectral_radius, s, "scaffold");
  out.mean = e * dr.partialPivLu().solve(rr);
  out.cov = symmetric_part(e * discrete_lyapunov_solve(dr, s.gamma, gr) * e.transpose());
  return out;
}

ExactMoments fedrr_exact(const QuadraticProblem& q, const StepSetting& s, NoiseCoupling coupling) {
  validate(Algorithm::fedrr, s);
  // Joint chain of (x^{(γ)}, x^{(2γ)}) written with the base step γ: D = blockdiag(D_γ, 2 D_2γ).
  const int n = q.num_clients();
  const int d = q.dim();
  const StepSetting s2{2.0 * s.gamma, s.local_steps};
  const AffineRoundMap m1 = fedavg_round_map(q, s);
  const AffineRoundMap m2 = fedavg_round_map(q, s2);
  require_finite(m1, s, "fedrr (the run at gamma)");
  require_finite(m2, s, "fedrr (the run at 2*gamma)");
  ExactMoments out;
  out.spectral_radius =
      std::max(symmetric_spectral_radius(m1.d, s.gamma), symmetric_spectral_radius(m2.d, s2.gamma));
  require_stationary(out.spectral_radius, s, "fedrr (the run at 2*gamma)");
  Matrix dj = Matrix::Zero(2 * d, 2 * d);
  Matrix gj = Matrix::Zero(2 * d, 2 * d);
  dj.topLeftCorner(d, d) = m1.d;
  dj.bottomRightCorner(d, d) = 2.0 * m2.d;
  gj.topLeftCorner(d, d) = m1.g;
  gj.bottomRightCorner(d, d) = 2.0 * m2.g;  // Cov(η₂)/γ = 2 · Cov(η₂)/(2γ)
  if (coupling == NoiseCoupling::shared) {
    // Cov(η₁, η₂) = (2γ²/N²) Σ_c Σ_h B_{c,γ}^h S_c B_{c,2γ}^h, divided by γ.
    Matrix cross = Matrix::Zero(d, d);
    for (int c = 0; c < n; ++c) {
      const auto& cl = q.client(c);
      const LocalSteps l1(cl.hessian, s.gamma, s.local_steps);
      const LocalSteps l2(cl.hessian, s2.gamma, s.local_steps);
      cross += l1.noise_sum(cl.noise_cov, l2.beta);
    }
    cross *= 2.0 * s.gamma / (static_cast<double>(n) * n);
    gj.topRightCorner(d, d) = cross;
    gj.bottomLeftCorner(d, d) = cross.transpose();
  }
  const Matrix x = discrete_lyapunov_solve(dj, s.gamma, gj);
  const Vector mean1 = m1.d.ldlt().solve(m1.r);
  const Vector mean2 = m2.d.ldlt().solve(m2.r);
  out.mean = 2.0 * mean1 - mean2;  // THEORY (R1)
  const Matrix x11 = x.topLeftCorner(d, d), x22 = x.bottomRightCorner(d, d);
  const Matrix x12 = x.topRightCorner(d, d);
  out.cov = symmetric_part(4.0 * x11 - 2.0 * (x12 + x12.transpose()) + x22);  // THEORY (R2)
  return out;
}

ExactMoments exact_moments(const QuadraticProblem& q, Algorithm algorithm, const StepSetting& s) {
  validate(algorithm, s);
  switch (algorithm) {
    case Algorithm::sgd:
    case Algorithm::fedavg:
      return fedavg_exact(q, s);
    case Algorithm::scaffold: {
      const ScaffoldExactMoments m = scaffold_exact(q, s);
      return {m.x_mean(), m.x_cov(), m.spectral_radius};
    }
    case Algorithm::fedrr:
      return fedrr_exact(q, s);
  }
  return {};
}

}  // namespace fedverify::theory
