// Scaffold's exact stationary moments on linear-sa problems by a structured solve (THEORY (L1),
// the linear-sa counterpart of (S6a)); scaffold_lsa.cpp keeps the dense reference.
//
// Numerical strategy. M (scaffold_lsa.cpp) is replaced by M̃, equal to M on Σ_c ξ_c = 0 and
// sending Σ_c ξ_c to 0 (its Stein operator is then invertible, with the same solution). With
// w̃ = −(1/N) Σ_e K_e ξ_e, K_c = I − P_c/H:  x' = (I − γD) x − γH w̃,  ξ_c' = K_c ξ_c + C_c x + w̃,
// C_c = −(P_cĀ_c − D)/H: M̃ = Λ + UVᵀ, Λ = blockdiag(I − γD, K_1, …, K_N), U, V of rank 2d. The
// noise is Q = blockdiag(0, Ṽ_c/(γH²)) + FEᵀ + EFᵀ, E = U's w̃ column (−γH I on x, I on ξ_c),
// F_x = −V̄/(2NH), F_c = (V̄/2 − Ṽ_c)/(NγH²). With Ā_c = V_c diag(a_c) V_c⁻¹ (not orthogonal for
// TD; real orthogonal when every Ā_c is symmetric), D = W diag(δ) W⁻¹ and T = blockdiag(W, V_c),
// Λ̃ = T⁻¹ΛT = diag(1 − ν), ν = γδ and p_c/H (p_c = Σ_{h<H} (1 − γa_c)^h: no O(γ) difference of
// O(1) numbers), and S = T S̃ Tᴴ solves S̃ = (Q̃ + 𝒫(Ỹ)) ⊘ Ω, Ω_ij = ν_i + ν̄_j − ν_iν̄_j, Ỹ = V̂ᵀS̃,
//   𝒫(Ỹ) = Λ̃ỸᴴÛᴴ + ÛỸΛ̃ᴴ + Û(ỸV̂ᵀᴴ)Ûᴴ,   Û = T⁻¹U, V̂ᵀ = VᵀT.
// Q depends (linearly, 𝒩) on S only through S_xx, S_xξc, S_ξcξc: rows of Y = VᵀS = ỸTᴴ and the
// client diagonal blocks. So S = M̃SM̃ᵀ + Q(0) + 𝒩(S) is one real linear system u = G(u) in
// u = (Y, S_ξcξc), solved by restarted GMRES (theory/base/gmres.hpp) on block-scaled unknowns;
// a product costs the N client rounds of 𝒩 and S̃ ⊘ Ω by column blocks, O(d s²), s = d(N + 1).
// Mean-square instability: (1 − ρ(L⁻¹𝒩))⟨Φ, S⟩ = ⟨Φ, L⁻¹Q(0)⟩ for the Perron functional Φ ⪰ 0
// of the cone-preserving L⁻¹𝒩, so the solution is not PSD when ρ ≥ 1: refused (pivoted LDLᵀ).
// The spectral radius of M on Σ_c ξ_c = 0 is the largest Ritz value of restarted Arnoldi on M̃.
#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <complex>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "theory/algorithms/linear_sa.hpp"
#include "theory/base/arnoldi.hpp"
#include "theory/base/gmres.hpp"
#include "theory/base/input_error.hpp"

namespace fedverify::theory {

namespace {

using Complex = std::complex<double>;
constexpr double kGmresTolerance = 1e-15;  // as scaffold_structured.hpp: a few ulps of u
template <class S>
using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
template <class S>
using Vec = Eigen::Matrix<S, Eigen::Dynamic, 1>;

template <class S, class E>
Matrix real_part(const Eigen::MatrixBase<E>& m) {
  if constexpr (std::is_same_v<S, double>) {
    return m;
  } else {
    return m.real();
  }
}

// A = V diag(values) V⁻¹ (THEORY (L1) above): orthogonal when A is symmetric (S = double).
template <class S>
struct EigenBasis {
  Mat<S> v, v_inv;
  Vec<S> values;
};

template <class S>
EigenBasis<S> eigen_basis(const Matrix& a) {
  EigenBasis<S> out;
  if constexpr (std::is_same_v<S, double>) {
    const Eigen::SelfAdjointEigenSolver<Matrix> es(symmetric_part(a));
    out.v = es.eigenvectors();
    out.v_inv = out.v.transpose();
    out.values = es.eigenvalues();
  } else {
    const Eigen::EigenSolver<Matrix> es(a);
    out.v = es.eigenvectors();
    const Eigen::PartialPivLU<Eigen::MatrixXcd> lu(out.v);
    if (!(lu.rcond() > kLsaEigenbasisRcond)) {
      throw std::domain_error(fmt::format(
          "eigenbasis too ill-conditioned for the structured solve (rcond {:.3g})", lu.rcond()));
    }
    out.v_inv = lu.inverse();
    out.values = es.eigenvalues();
  }
  return out;
}

template <class S>
class StructuredLsa {
 public:
  StructuredLsa(const LinearSaProblem& p, const RunSetting& s, const Vector& mean)
      : p_(p), s_(s), d_(p.dim()), n_(p.num_clients()), size_(d_ * (n_ + 1)) {
    const double h = s.local_steps;
    Matrix dbar = Matrix::Zero(d_, d_);
    std::vector<LsaLocalMap> local;
    for (int c = 0; c < n_; ++c) {
      local.push_back(lsa_local_map(p.mean_a(c), s.gamma, s.local_steps));
      dbar += local.back().p * p.mean_a(c) / n_;
    }
    basis_.push_back(eigen_basis<S>(dbar));
    nu_.resize(size_);
    nu_.head(d_) = s.gamma * basis_[0].values;
    u_ = Mat<S>::Zero(size_, 2 * d_);
    u_.block(0, d_, d_, d_) = -s.gamma * h * basis_[0].v_inv;
    vt_w_.resize(d_, size_ - d_);
    for (int c = 0; c < n_; ++c) {
      basis_.push_back(eigen_basis<S>(p.mean_a(c)));
      const EigenBasis<S>& e = basis_.back();
      Vec<S> pc = Vec<S>::Zero(d_);  // eigenvalues of P_c: Σ_{h<H} (1 − γa)^h
      Vec<S> power = Vec<S>::Ones(d_);
      for (int k = 0; k < s.local_steps; ++k) {
        pc += power;
        power = power.cwiseProduct((Vec<S>::Ones(d_) - s.gamma * e.values));
      }
      const Eigen::Index r = row(c + 1);
      nu_.segment(r, d_) = pc / h;
      const Matrix cc = -(local[c].p * p.mean_a(c) - dbar) / h;
      u_.block(r, 0, d_, d_) = e.v_inv * cc;
      u_.block(r, d_, d_, d_) = e.v_inv;
      vt_w_.middleCols(r - d_, d_) =
          -e.v * (Vec<S>::Ones(d_) - nu_.segment(r, d_)).asDiagonal() / static_cast<double>(n_);
      // The constant part Q(0) of the noise: the client rounds from the stationary mean.
      const Vector xi = mean.segment(r, d_);
      const Matrix zero = Matrix::Zero(d_, d_);
      v0_.push_back(
          lsa_client_round(p, c, s.gamma, s.local_steps, mean.head(d_), zero, xi, &zero, &zero)
              .noise_over_gamma);
      k_.push_back(Matrix::Identity(d_, d_) - local[c].p / h);
      c_.push_back(cc);
    }
    m_xx_ = Matrix::Identity(d_, d_) - s.gamma * dbar;
  }

  Eigen::Index size() const { return size_; }
  Eigen::Index row(int block) const { return static_cast<Eigen::Index>(d_) * block; }

  // The noise in z̃ coordinates from the clients' Ṽ_c: F̃ = T⁻¹F (size × d), B̃_c (THEORY above).
  void noise(const std::vector<Matrix>& v, Mat<S>* f, std::vector<Mat<S>>* blocks) const {
    const double nd = n_;
    const double h = s_.local_steps;
    Matrix vbar = Matrix::Zero(d_, d_);
    for (const Matrix& vc : v) vbar += vc / nd;
    f->resize(size_, d_);
    f->topRows(d_) = basis_[0].v_inv * (-vbar / (2 * nd * h));
    blocks->resize(n_);
    const double g = s_.gamma * h * h;
    for (int c = 0; c < n_; ++c) {
      const EigenBasis<S>& e = basis_[c + 1];
      f->middleRows(row(c + 1), d_) = e.v_inv * ((0.5 * vbar - v[c]) / (nd * g));
      (*blocks)[c] = e.v_inv * (v[c] / g) * e.v_inv.adjoint();
    }
  }

  // THEORY above: S̃ = (Q̃ + 𝒫(Ỹ)) ⊘ Ω column block by column block, only the blocks on and below
  // the diagonal (S̃ is Hermitian: Ω is, and 𝒫(Ỹ) is once ỸV̂ᵀᴴ is replaced by its Hermitian part,
  // which it is at the solution, so the fixed point and the invertibility of u ↦ u − G(u) are
  // unchanged); returns V̂ᵀS̃ and the client diagonal blocks, S̃ itself into *full when given.
  Mat<S> core(const Mat<S>& y_t, const Mat<S>& f, const std::vector<Mat<S>>& blocks,
              std::vector<Mat<S>>* diag, Mat<S>* full) const {
    Mat<S> z = Mat<S>::Zero(2 * d_, size_);
    Mat<S> left(size_, 4 * d_);  // [Û, L]: panel = [Û, L] [Z_J; Û_Jᴴ]
    left.leftCols(2 * d_) = u_;
    left.rightCols(2 * d_).setZero();
    if (y_t.size() > 0) {
      const Mat<S> yl = y_t * nu_.conjugate().unaryExpr([](S x) { return S(1) - x; }).asDiagonal();
      Mat<S> yv(2 * d_, 2 * d_);  // Ỹ V̂ᵀᴴ
      yv.leftCols(d_) = y_t.leftCols(d_) * basis_[0].v.adjoint();
      yv.rightCols(d_) = y_t.rightCols(size_ - d_) * vt_w_.adjoint();
      const Mat<S> yv_h = (yv + yv.adjoint()) / 2.0;
      z = yl;
      z.noalias() += yv_h * u_.adjoint();
      left.rightCols(2 * d_) = yl.adjoint();
    }
    z.bottomRows(d_) += f.adjoint();
    left.rightCols(d_) += f;
    Mat<S> out = Mat<S>::Zero(2 * d_, size_);  // V̂ᵀS̃: x rows basis_[0].v, w̃ row vt_w_
    diag->resize(n_);
    for (int j = 0; j <= n_; ++j) {
      const Eigen::Index j0 = row(j);
      const Eigen::Index below = size_ - j0 - d_;
      Mat<S> right(4 * d_, d_);
      right.topRows(2 * d_) = z.middleCols(j0, d_);
      right.bottomRows(2 * d_) = u_.middleRows(j0, d_).adjoint();
      Mat<S> panel(size_ - j0, d_);  // S̃ rows j0.., columns J
      panel.noalias() = left.bottomRows(size_ - j0) * right;
      if (j > 0) panel.topRows(d_) += blocks[j - 1];
      for (Eigen::Index k = 0; k < d_; ++k) {
        const S nj = Eigen::numext::conj(nu_(j0 + k));
        const auto nu = nu_.tail(size_ - j0).array();
        panel.col(k).array() /= nu + nj - nu * nj;  // 1 − λ_iλ̄_j
      }
      // Column block J of V̂ᵀS̃ from the rows on and below J; block J of V̂ᵀ times the blocks
      // S̃_JI = S̃_IJᴴ right of the diagonal.
      if (j == 0) {
        out.topRows(d_).noalias() = basis_[0].v * panel.adjoint();  // S̃_0· = S̃_·0ᴴ
        out.bottomRows(d_).leftCols(d_).noalias() = vt_w_ * panel.bottomRows(below);
      } else {
        const auto w_j = vt_w_.middleCols(j0 - d_, d_);
        out.bottomRows(d_).middleCols(j0, d_).noalias() += vt_w_.rightCols(below + d_) * panel;
        out.bottomRows(d_).rightCols(below).noalias() += w_j * panel.bottomRows(below).adjoint();
        (*diag)[j - 1] = panel.topRows(d_);
      }
      if (full != nullptr) {
        full->block(j0, j0, size_ - j0, d_) = panel;
        full->block(j0, j0 + d_, d_, below) = panel.bottomRows(below).adjoint();
      }
    }
    return out;
  }

  // u = (Y, S_ξcξc) ↦ G(u) in real coordinates: its linear part, G(0), or G(u) (`part`).
  enum class Part { linear, constant, both };
  void map(const Matrix& y, const std::vector<Matrix>& dg, Part part, Matrix* y_out,
           std::vector<Matrix>* dg_out, Mat<S>* full) const {
    std::vector<Matrix> v(n_);
    Mat<S> y_t;
    if (part != Part::constant) {
      y_t.resize(2 * d_, size_);
      for (int j = 0; j <= n_; ++j) {
        y_t.middleCols(row(j), d_) = y.middleCols(row(j), d_) * basis_[j].v_inv.adjoint();
      }
      for (int c = 0; c < n_; ++c) {
        v[c] = lsa_client_noise_linear(p_, c, s_.gamma, s_.local_steps, y.leftCols(d_).topRows(d_),
                                       y.middleCols(row(c + 1), d_).topRows(d_), dg[c]);
        if (part == Part::both) v[c] += v0_[c];  // Q(S) = Q(0) + 𝒩(S)
      }
    } else {
      v = v0_;
    }
    Mat<S> f;
    std::vector<Mat<S>> blocks;
    noise(v, &f, &blocks);
    std::vector<Mat<S>> diag;
    const Mat<S> out = core(y_t, f, blocks, &diag, full);
    y_out->resize(2 * d_, size_);
    for (int j = 0; j <= n_; ++j) {
      y_out->middleCols(row(j), d_) =
          real_part<S>(out.middleCols(row(j), d_) * basis_[j].v.adjoint());
    }
    dg_out->resize(n_);
    for (int c = 0; c < n_; ++c) {
      (*dg_out)[c] = real_part<S>(basis_[c + 1].v * diag[c] * basis_[c + 1].v.adjoint());
    }
  }

  // The covariance S = T S̃ Tᴴ from the solved u.
  Matrix covariance(const Matrix& y, const std::vector<Matrix>& dg) const {
    Mat<S> full(size_, size_);
    Matrix y_out;
    std::vector<Matrix> dg_out;
    map(y, dg, Part::both, &y_out, &dg_out, &full);
    Matrix cov(size_, size_);
    for (int i = 0; i <= n_; ++i) {
      for (int j = 0; j <= n_; ++j) {
        cov.block(row(i), row(j), d_, d_) =
            real_part<S>(basis_[i].v * full.block(row(i), row(j), d_, d_) * basis_[j].v.adjoint());
      }
    }
    return symmetric_part(cov);
  }

  // M̃ z in real coordinates (THEORY above), for Arnoldi.
  Vector apply_round(const Vector& z) const {
    Vector w = Vector::Zero(d_);
    for (int c = 0; c < n_; ++c) w -= k_[c] * z.segment(row(c + 1), d_) / n_;
    Vector out(size_);
    out.head(d_) = m_xx_ * z.head(d_) - s_.gamma * s_.local_steps * w;
    for (int c = 0; c < n_; ++c) {
      out.segment(row(c + 1), d_) = k_[c] * z.segment(row(c + 1), d_) + c_[c] * z.head(d_) + w;
    }
    return out;
  }

  int dim() const { return d_; }
  double w_row_norm() const { return vt_w_.norm(); }

 private:
  const LinearSaProblem& p_;
  RunSetting s_;
  int d_, n_;
  Eigen::Index size_;
  std::vector<EigenBasis<S>> basis_;  // 0: D (x), c + 1: Ā_c
  Vec<S> nu_;                         // 1 − λ of Λ̃
  Mat<S> u_;                          // Û, size × 2d
  Mat<S> vt_w_;                       // the w̃ row of V̂ᵀ on the clients: −V_c diag(κ_c)/N
  std::vector<Matrix> v0_;            // Ṽ_c of Q(0)
  std::vector<Matrix> k_, c_;         // K_c, C_c
  Matrix m_xx_;                       // I − γD
};

// Packs u = (Y, S_ξcξc) into GMRES's vector, multiplying each block by its scale (THEORY above).
struct Scales {
  double xx, xc, wx, wc, dg;
};

Vector pack(const Matrix& y, const std::vector<Matrix>& dg, const Scales& sc, int d) {
  const Eigen::Index ny = y.size();
  Vector out(ny + static_cast<Eigen::Index>(dg.size()) * d * d);
  Matrix ys = y;
  ys.topLeftCorner(d, d) *= sc.xx;
  ys.topRightCorner(d, y.cols() - d) *= sc.xc;
  ys.bottomLeftCorner(d, d) *= sc.wx;
  ys.bottomRightCorner(d, y.cols() - d) *= sc.wc;
  out.head(ny) = Eigen::Map<const Vector>(ys.data(), ny);
  for (std::size_t c = 0; c < dg.size(); ++c) {
    out.segment(ny + static_cast<Eigen::Index>(c) * d * d, d * d) =
        Eigen::Map<const Vector>(dg[c].data(), d * d) * sc.dg;
  }
  return out;
}

void unpack(const Vector& v, const Scales& sc, int d, Eigen::Index cols, int n, Matrix* y,
            std::vector<Matrix>* dg) {
  const Eigen::Index ny = 2 * d * cols;
  *y = Eigen::Map<const Matrix>(v.data(), 2 * d, cols);
  y->topLeftCorner(d, d) /= sc.xx;
  y->topRightCorner(d, cols - d) /= sc.xc;
  y->bottomLeftCorner(d, d) /= sc.wx;
  y->bottomRightCorner(d, cols - d) /= sc.wc;
  dg->resize(n);
  for (int c = 0; c < n; ++c) {
    (*dg)[c] =
        Eigen::Map<const Matrix>(v.data() + ny + static_cast<Eigen::Index>(c) * d * d, d, d) /
        sc.dg;
  }
}

double inverse_or_one(double x) { return x > 0 ? 1.0 / x : 1.0; }
template <class S>
Matrix structured_covariance(const StructuredLsa<S>& op, const RunSetting& s) {
  const int d = op.dim();
  const int n = static_cast<int>(op.size() / d) - 1;
  const Eigen::Index len = op.size();
  Matrix y0;
  std::vector<Matrix> dg0;
  Mat<S> open_loop(len, len);  // Q̃(0) ⊘ Ω
  op.map(Matrix(), {}, StructuredLsa<S>::Part::constant, &y0, &dg0, &open_loop);
  // Block scales: row norms of Vᵀ times the open-loop blocks (as scaffold_structured.cpp).
  double diag = 0;
  for (int c = 0; c < n; ++c) diag += open_loop.block(d * (c + 1), d * (c + 1), d, d).squaredNorm();
  const double xx = open_loop.topLeftCorner(d, d).norm();
  const double xc = open_loop.topRightCorner(d, len - d).norm();
  const double cc = open_loop.bottomRightCorner(len - d, len - d).norm();
  const double rx = std::sqrt(static_cast<double>(d));
  const double rw = op.w_row_norm();
  const Scales sc{inverse_or_one(rx * xx), inverse_or_one(rx * xc), inverse_or_one(rw * xc),
                  inverse_or_one(rw * cc), inverse_or_one(std::sqrt(diag))};
  const auto apply = [&](const Vector& v) {
    Matrix y;
    std::vector<Matrix> dg;
    unpack(v, sc, d, len, n, &y, &dg);
    Matrix y_out;
    std::vector<Matrix> dg_out;
    op.map(y, dg, StructuredLsa<S>::Part::linear, &y_out, &dg_out, nullptr);
    return Vector(v - pack(y_out, dg_out, sc, d));
  };
  Vector solution;
  try {
    solution = gmres(apply, pack(y0, dg0, sc, d), kGmresTolerance, "scaffold_exact_lsa_structured");
  } catch (const std::runtime_error& e) {
    throw InputError(fmt::format(
        "--gamma: no stationary second moment for scaffold on this linear-sa problem at gamma = "
        "{} (the moment equation is too close to singular: {})",
        s.gamma, e.what()));
  }
  Matrix y;
  std::vector<Matrix> dg;
  unpack(solution, sc, d, len, n, &y, &dg);
  return op.covariance(y, dg);
}

// THEORY above: a solution that is not PSD means ρ(L⁻¹𝒩) ≥ 1 (no finite second moment).
void require_psd(const Matrix& cov, const RunSetting& s) {
  const Vector scale = cov.diagonal().cwiseMax(0.0).cwiseSqrt().unaryExpr(
      [](double x) { return x > 0 ? 1.0 / x : 1.0; });
  const Matrix normalised = scale.asDiagonal() * cov * scale.asDiagonal();
  const Eigen::LDLT<Matrix> ldlt(normalised);
  const double lowest = ldlt.vectorD().minCoeff();
  if (!(lowest >= -kLsaPsdTolerance) || cov.diagonal().minCoeff() < 0) {
    throw InputError(fmt::format(
        "--gamma: no stationary second moment for scaffold on this linear-sa problem at gamma = "
        "{} (the solution of the moment equation is not positive semi-definite, pivot {:.3g}: "
        "the chain is mean-square unstable)",
        s.gamma, lowest));
  }
}

template <class S>
ScaffoldExactMoments solve(const LinearSaProblem& p, const RunSetting& s, Vector mean) {
  const StructuredLsa<S> op(p, s, mean);
  ScaffoldExactMoments out;
  out.dim = p.dim();
  out.num_clients = p.num_clients();
  // The spectral radius of M on Σ_c ξ_c = 0: M̃'s other eigenvalues are 0 (on Σ_c ξ_c).
  out.spectral_radius =
      arnoldi_radius([&op](const Vector& z) { return op.apply_round(z); }, op.size());
  require_stationary(out.spectral_radius, s, "scaffold");
  out.cov = structured_covariance(op, s);
  require_psd(out.cov, s);
  out.mean = std::move(mean);
  return out;
}

}  // namespace

ScaffoldExactMoments scaffold_exact_lsa_structured(const LinearSaProblem& p, const RunSetting& s) {
  validate(Algorithm::scaffold, s);
  require_lsa_exact_affordable(p, s, "scaffold");
  const int n = p.num_clients();
  const int d = p.dim();
  // The mean: the fixed point of the mean field's round, x = x*, ξ_c = −(Ā_c x* − b̄_c).
  Vector mean(static_cast<Eigen::Index>(d) * (n + 1));
  mean.head(d) = p.solution();
  for (int c = 0; c < n; ++c) mean.segment(d * (1 + c), d) = -p.gradient(c, p.solution());
  bool symmetric = true;
  for (int c = 0; c < n; ++c) {
    const Matrix& a = p.mean_a(c);
    if (!a.allFinite() || !(s.gamma * s.local_steps * a.norm() < 1e300)) {
      throw InputError(fmt::format(
          "--gamma: the round map of scaffold overflows double precision at gamma = {}", s.gamma));
    }
    symmetric = symmetric && a == a.transpose();
  }
  return symmetric ? solve<double>(p, s, std::move(mean)) : solve<Complex>(p, s, std::move(mean));
}

}  // namespace fedverify::theory
