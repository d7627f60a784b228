#include "theory/algorithms/scaffold_structured.hpp"

#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "theory/base/gmres.hpp"
#include "theory/problems/algorithm.hpp"

namespace fedverify::theory {

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

// THEORY (S6a): the round map on Σ_c ξ_c = 0 in the coordinates z̃ = (Wᵀx, V_1ᵀw_1, …, V_Nᵀw_N),
// w_c = γHξ_c, D̄ = W diag(δ) Wᵀ:  M = diag(λ) + U Vᵀ  (its d-dimensional complement, Σ_c w_c,
// is sent to 0 so that the Lyapunov operator is invertible on the whole space).
struct StructuredMap {
  int d = 0;
  int clients = 0;
  Eigen::Index size = 0;  // d(N + 1)
  std::vector<LocalSteps> steps;
  Matrix w;       // eigenvectors of D̄
  Vector lambda;  // diagonal of Λ: 1 − γδ (server), κ = 1 − p/H (clients)
  Vector nu;      // 1 − λ, formed analytically: γδ and p/H
  Matrix u;       // size × 3d
  Matrix vt;      // 3d × size
  Matrix noise;   // Cov(η)/γ² in z̃ coordinates, size × size

  Eigen::Index client_row(int c) const { return d * (1 + c); }
};

StructuredMap structured_map(const QuadraticProblem& q, const RunSetting& s) {
  StructuredMap m;
  m.d = q.dim();
  m.clients = q.num_clients();
  const int d = m.d;
  const int n = m.clients;
  const double h = s.local_steps;
  m.size = static_cast<Eigen::Index>(d) * (n + 1);
  Matrix dbar = Matrix::Zero(d, d);
  std::vector<Vector> p(n);
  for (int c = 0; c < n; ++c) {
    m.steps.emplace_back(q.client(c).hessian, s.gamma, s.local_steps);
    const LocalSteps& ls = m.steps.back();
    p[c] = ls.geometric();
    dbar += ls.in_basis(p[c].cwiseProduct(ls.a)) / n;  // (1/N) Σ_c P_c A_c, as (S0)
  }
  const Eigen::SelfAdjointEigenSolver<Matrix> server(symmetric_part(dbar));
  m.w = server.eigenvectors();
  const Vector& delta = server.eigenvalues();

  m.lambda.resize(m.size);
  m.nu.resize(m.size);
  m.nu.head(d) = s.gamma * delta;
  m.lambda.head(d) = Vector::Ones(d) - m.nu.head(d);
  // U = [[I, 0, 0], [0, C, −G/N]],  Vᵀ = [[0, B], [I, 0], [0, GᵀΛ_κ]]  (THEORY S6a), with
  // B_c = −Wᵀ V_c diag(p_c/H)/N,  C_c = γ (V_cᵀW) ∘ (δ_j − p_ci a_ci),  G_c = V_cᵀ.
  m.u = Matrix::Zero(m.size, 3 * d);
  m.vt = Matrix::Zero(3 * d, m.size);
  m.u.topLeftCorner(d, d).setIdentity();
  m.vt.block(d, 0, d, d).setIdentity();
  Matrix g(static_cast<Eigen::Index>(d) * n, d);  // G, stacked V_cᵀ
  Matrix t(static_cast<Eigen::Index>(d) * n, d);  // V_cᵀ Q̂_c
  Matrix qsum = Matrix::Zero(d, d);               // Σ_c Q̂_c, Cov(n_c) = γ²Q̂_c
  Matrix noise_blocks(d, static_cast<Eigen::Index>(d) * n);
  for (int c = 0; c < n; ++c) {
    const LocalSteps& ls = m.steps[c];
    const Eigen::Index r = m.client_row(c);
    const Vector ph = p[c] / h;
    m.nu.segment(r, d) = ph;
    m.lambda.segment(r, d) = Vector::Ones(d) - ph;
    const Matrix vw = ls.v.transpose() * m.w;
    Matrix cx(d, d);
    for (int j = 0; j < d; ++j) {
      for (int i = 0; i < d; ++i) cx(i, j) = s.gamma * vw(i, j) * (delta(j) - p[c](i) * ls.a(i));
    }
    m.u.block(r, d, d, d) = cx;
    m.u.block(r, 2 * d, d, d) = -ls.v.transpose() / n;
    m.vt.block(0, r, d, d) = -(m.w.transpose() * ls.v) * ph.asDiagonal() / n;
    m.vt.block(2 * d, r, d, d) = ls.v * m.lambda.segment(r, d).asDiagonal();
    g.middleRows(r - d, d) = ls.v.transpose();
    const Matrix qt =
        ls.noise_sum_in_basis(ls.v.transpose() * q.client(c).noise_cov * ls.v, ls.beta);
    noise_blocks.middleCols(r - d, d) = qt;
    t.middleRows(r - d, d) = qt * ls.v.transpose();
    qsum += ls.v * qt * ls.v.transpose();
  }
  // Noise of x: n̄ = (1/N) Σ_c n_c; of w_c: n_c − n̄ (THEORY S0), rotated; divided by γ².
  const double nn = static_cast<double>(n) * n;
  m.noise.resize(m.size, m.size);
  auto ww = m.noise.bottomRightCorner(m.size - d, m.size - d);
  // G Q̄ Gᵀ/N² − (T Gᵀ + G Tᵀ)/N as one product with inner dimension 2d.
  Matrix left(g.rows(), 2 * d);
  Matrix right(g.rows(), 2 * d);
  left << g * (qsum / nn) - t / n, -g / n;
  right << g, t;
  ww.noalias() = left * right.transpose();
  for (int c = 0; c < n; ++c) {
    ww.block(d * c, d * c, d, d) += noise_blocks.middleCols(d * c, d);
  }
  m.noise.block(0, d, d, m.size - d) =
      m.w.transpose() * (t.transpose() / n - qsum * g.transpose() / nn);
  m.noise.block(d, 0, m.size - d, d) = m.noise.block(0, d, d, m.size - d).transpose();
  m.noise.topLeftCorner(d, d) = m.w.transpose() * qsum * m.w / nn;
  return m;
}

// The linear operator of THEORY (S6a): Y ↦ Y − Vᵀ[𝒫(Y) ⊘ Ω], 𝒫(Y) = U(YΛ) + (YΛ)ᵀUᵀ + U(YV)Uᵀ.
// 𝒫(Y) ⊘ Ω is never stored whole: it is formed kPanel columns at a time (two products with inner
// dimension 3d), divided by Ω = 1 − λ_iλ_j formed on the fly, and multiplied by Vᵀ while the
// panel is in cache. Panels are independent, so they run on OpenMP threads (results do not depend
// on the number of threads: every panel is computed by the same operations).
class CoreOperator {
 public:
  explicit CoreOperator(const StructuredMap& m) : m_(m) {}

  // Vᵀ[(A + 𝒫(Y)) ⊘ Ω] where A is `add` (the noise Q) or nothing; with `full`, also
  // (A + 𝒫(Y)) ⊘ Ω itself into *full (size × size).
  Matrix project(const Matrix* y, const Matrix* add, Matrix* full) const {
    const Eigen::Index s = m_.size;
    const Eigen::Index r = m_.vt.rows();
    Matrix yl;
    Matrix z;
    if (y != nullptr) {
      yl = *y * m_.lambda.asDiagonal();
      z = yl;
      z.noalias() += (*y * m_.vt.transpose()) * m_.u.transpose();
    }
    Matrix out(r, s);
    const Eigen::Index panels = (s + kPanel - 1) / kPanel;
#pragma omp parallel for schedule(static) if (s >= 4 * kPanel)
    for (Eigen::Index k = 0; k < panels; ++k) {
      const Eigen::Index j0 = k * kPanel;
      const Eigen::Index w = std::min(kPanel, s - j0);
      Matrix panel(s, w);
      if (y != nullptr) {
        panel.noalias() = m_.u * z.middleCols(j0, w);
        panel.noalias() += yl.transpose() * m_.u.middleRows(j0, w).transpose();
        if (add != nullptr) panel += add->middleCols(j0, w);
      } else {
        panel = add->middleCols(j0, w);
      }
      for (Eigen::Index j = 0; j < w; ++j) {
        const double nj = m_.nu(j0 + j);
        panel.col(j).array() /= m_.nu.array() + nj - m_.nu.array() * nj;  // 1 − λ_iλ_j
      }
      out.middleCols(j0, w).noalias() = m_.vt * panel;
      if (full != nullptr) full->middleCols(j0, w) = panel;
    }
    return out;
  }

  Matrix apply(const Matrix& y) const { return y - project(&y, nullptr, nullptr); }

 private:
  static constexpr Eigen::Index kPanel = 32;
  const StructuredMap& m_;
};

// Block scaling of the unknowns Y = VᵀS (3 row blocks × {x, clients} column blocks) by their
// natural sizes, so that GMRES's residual weighs every block by its own size: row block i of Vᵀ
// (norm ‖Vᵀ_i‖) times the matching block of the open-loop covariance Q ⊘ Ω (x rows for the
// middle block, client rows for the others). (Scaling by the blocks of the right-hand side
// itself fails: Vᵀ_0 (Q ⊘ Ω) is a round-off-sized average of the clients' noise when H = 1.)
Matrix block_scales(const StructuredMap& m, const Matrix& open_loop) {
  const int d = m.d;
  const Eigen::Index w = m.size - d;
  const double row_norm[3] = {m.vt.block(0, d, d, w).norm(), std::sqrt(static_cast<double>(d)),
                              m.vt.block(2 * d, d, d, w).norm()};
  Matrix scale(3, 2);
  for (int i = 0; i < 3; ++i) {
    const Eigen::Index r0 = i == 1 ? 0 : d;
    const Eigen::Index nr = i == 1 ? d : w;
    for (int j = 0; j < 2; ++j) {
      const Eigen::Index c0 = j == 0 ? 0 : d;
      const Eigen::Index nc = j == 0 ? d : w;
      const double size = row_norm[i] * open_loop.block(r0, c0, nr, nc).norm();
      scale(i, j) = size > 0 ? 1.0 / size : 1.0;
    }
  }
  return scale;
}

void apply_scales(Matrix& y, const Matrix& scale, int d, bool inverse) {
  for (int i = 0; i < 3; ++i) {
    const double x = inverse ? 1.0 / scale(i, 0) : scale(i, 0);
    const double c = inverse ? 1.0 / scale(i, 1) : scale(i, 1);
    y.block(d * i, 0, d, d) *= x;
    y.block(d * i, d, d, y.cols() - d) *= c;
  }
}

// The stationary covariance of z̃ divided by γ² (THEORY S6a).
Matrix structured_covariance(const StructuredMap& m) {
  const int d = m.d;
  const CoreOperator op(m);
  Matrix open_loop(m.size, m.size);  // Q ⊘ Ω
  const Matrix b = op.project(nullptr, &m.noise, &open_loop);
  const Matrix scale = block_scales(m, open_loop);
  Matrix b_scaled = b;
  apply_scales(b_scaled, scale, d, false);
  const Eigen::Index rows = b.rows();
  const Eigen::Index cols = b.cols();
  const auto apply = [&](const Vector& v) {
    Matrix y = Eigen::Map<const Matrix>(v.data(), rows, cols);
    apply_scales(y, scale, d, true);
    Matrix out = op.apply(y);
    apply_scales(out, scale, d, false);
    return Vector(Eigen::Map<const Vector>(out.data(), out.size()));
  };
  const Vector solution = gmres(apply, Eigen::Map<const Vector>(b_scaled.data(), b_scaled.size()),
                                kGmresTolerance, "scaffold_exact_structured");
  Matrix y = Eigen::Map<const Matrix>(solution.data(), rows, cols);
  apply_scales(y, scale, d, true);
  Matrix s(m.size, m.size);
  op.project(&y, &m.noise, &s);
  return s;
}

// λ_min of T(z) = I − (1/N) Σ_c V_c diag(ρ_c/(z − κ_c)) V_cᵀ (THEORY S6a).
double secular_min_eigenvalue(const StructuredMap& m, const std::vector<Vector>& rho, double z) {
  const int d = m.d;
  Matrix t = Matrix::Identity(d, d);
  for (int c = 0; c < m.clients; ++c) {
    const Vector& kappa = m.lambda.segment(m.client_row(c), d);
    const Vector weight = rho[c].array() / (z - kappa.array());
    t.noalias() -= m.steps[c].v * weight.asDiagonal() * m.steps[c].v.transpose() / m.clients;
  }
  return Eigen::SelfAdjointEigenSolver<Matrix>(symmetric_part(t), Eigen::EigenvaluesOnly)
      .eigenvalues()(0);
}

double structured_radius(const StructuredMap& m, const RunSetting& s) {
  const int d = m.d;
  const double h = s.local_steps;
  double a_max = 0;
  for (const LocalSteps& ls : m.steps) a_max = std::max(a_max, ls.a.maxCoeff());
  if (s.gamma * h * a_max <= 1.0) {
    // All ρ = (p/H)(1 − γaH) ≥ 0 and κ ∈ [0, 1): the eigenvalues are real, the largest is the
    // largest root of det T(z) in (max κ, 1) (T(1) = γH𝐇 ≻ 0), or max κ when there is none.
    std::vector<Vector> rho;
    double lo = 0;
    for (int c = 0; c < m.clients; ++c) {
      const LocalSteps& ls = m.steps[c];
      const Vector ph = m.nu.segment(m.client_row(c), d);
      rho.push_back(ph.cwiseProduct((Vector::Ones(d) - s.gamma * h * ls.a)));
      lo = std::max(lo, m.lambda.segment(m.client_row(c), d).maxCoeff());
    }
    double hi = 1.0;
    for (int it = 0; it < 200 && hi - lo > 4 * kEps * hi; ++it) {
      const double mid = 0.5 * (lo + hi);
      (secular_min_eigenvalue(m, rho, mid) < 0.0 ? lo : hi) = mid;
    }
    return hi;
  }
  // Otherwise the eigenvalues of the dense map (it has d extra eigenvalues 0, on Σ_c w_c).
  const Matrix dense = Matrix(m.lambda.asDiagonal()) + m.u * m.vt;
  const Eigen::EigenSolver<Matrix> es(dense, /*computeEigenvectors=*/false);
  return es.eigenvalues().cwiseAbs().maxCoeff();
}

}  // namespace

double scaffold_spectral_radius_structured(const QuadraticProblem& q, const RunSetting& s) {
  validate(Algorithm::scaffold, s);
  return structured_radius(structured_map(q, s), s);
}

ScaffoldExactMoments scaffold_exact_structured(const QuadraticProblem& q, const RunSetting& s) {
  validate(Algorithm::scaffold, s);
  const int d = q.dim();
  const int n = q.num_clients();
  const StructuredMap m = structured_map(q, s);
  Matrix couplings(m.size, 6 * d);  // the round map's pieces, checked as require_finite does
  couplings << m.u, m.vt.transpose();
  require_finite(AffineRoundMap{std::move(couplings), m.nu, m.noise, s.gamma}, s, "scaffold");
  ScaffoldExactMoments out;
  out.dim = d;
  out.num_clients = n;
  out.spectral_radius = structured_radius(m, s);
  require_stationary(out.spectral_radius, s, "scaffold");

  // Mean: the fixed point of (S0), x = x* = 𝐇⁻¹ (1/N) Σ_c A_c b_c and ξ_c = A_c(b_c − x*).
  Matrix hsum = Matrix::Zero(d, d);
  Vector rsum = Vector::Zero(d);
  for (int c = 0; c < n; ++c) {
    hsum += q.client(c).hessian;
    rsum += q.client(c).hessian * q.client(c).optimum;
  }
  const Vector x_star = hsum.ldlt().solve(rsum);
  out.mean.resize(m.size);
  out.mean.head(d) = x_star;
  for (int c = 0; c < n; ++c) {
    out.mean.segment(m.client_row(c), d) = q.client(c).hessian * (q.client(c).optimum - x_star);
  }

  // Covariance: S (in z̃, divided by γ²) rotated back, x = W x̃, ξ_c = V_c w̃_c/(γH).
  const Matrix sz = structured_covariance(m);
  const double to_xi = 1.0 / (s.gamma * s.local_steps);
  std::vector<Matrix> back(n + 1);
  back[0] = m.w * s.gamma;  // γ: the square root of the γ² divided out
  for (int c = 0; c < n; ++c) back[c + 1] = m.steps[c].v * (s.gamma * to_xi);
  Matrix right(m.size, m.size);  // S Tᵀ
  for (int j = 0; j <= n; ++j) {
    right.middleCols(d * j, d).noalias() = sz.middleCols(d * j, d) * back[j].transpose();
  }
  out.cov.resize(m.size, m.size);
  for (int i = 0; i <= n; ++i) {
    out.cov.middleRows(d * i, d).noalias() = back[i] * right.middleRows(d * i, d);
  }
  out.cov = symmetric_part(out.cov);
  return out;
}

}  // namespace fedverify::theory
