#include "theory/problems/linear_sa_factors.hpp"

#include <limits>

#include "theory/problems/linear_sa_problem.hpp"

namespace fedverify::theory {

namespace {

// Q (d × r, orthonormal columns) with ‖A − QQᵀA‖_F ≤ tolerance, by Gram–Schmidt with column
// pivoting on the residual (reorthogonalised once); nullopt when that needs more than max_rank
// columns. O(d² r) for rank r: a rank-one sample costs two passes over A.
std::optional<Matrix> range_basis(const Matrix& a, double tolerance, int max_rank) {
  const Eigen::Index d = a.rows();
  Matrix residual = a;
  Matrix q(d, max_rank);
  for (int r = 0;; ++r) {
    if (residual.norm() <= tolerance) return Matrix(q.leftCols(r));
    if (r == max_rank) return std::nullopt;
    Eigen::Index pivot = 0;
    residual.colwise().squaredNorm().maxCoeff(&pivot);
    Vector col = residual.col(pivot);
    col -= q.leftCols(r) * (q.leftCols(r).transpose() * col);
    col.normalize();
    q.col(r) = col;
    residual.noalias() -= col * (col.transpose() * residual);
  }
}

}  // namespace

int max_factor_rank(int dim) { return dim / 4; }

std::optional<LowRankSamples> factor_samples(const LinearSaClient& client, const Vector& p,
                                             const Matrix& mean_a) {
  const int d = static_cast<int>(mean_a.rows());
  const int max_rank = max_factor_rank(d);
  if (max_rank < 1) return std::nullopt;
  const double ulps = kRankUlps * d * std::numeric_limits<double>::epsilon();
  std::vector<Matrix> bases;
  double total = 0;
  double spread = 0;
  LowRankSamples out;
  out.offsets.push_back(0);
  for (std::size_t k = 0; k < client.samples.size(); ++k) {
    const Matrix& a = client.samples[k].a;
    const double pk = p(static_cast<Eigen::Index>(k));
    std::optional<Matrix> q = range_basis(a, ulps * a.norm(), max_rank);
    if (!q) return std::nullopt;
    total += pk * a.squaredNorm();
    spread += pk * (a - mean_a).squaredNorm();
    out.offsets.push_back(out.offsets.back() + q->cols());
    bases.push_back(std::move(*q));
  }
  out.amplification = total / spread;
  if (!(out.amplification <= kMaxAmplification)) return std::nullopt;
  out.p = p;
  out.u.resize(d, out.offsets.back());
  out.v.resize(d, out.offsets.back());
  for (std::size_t k = 0; k < bases.size(); ++k) {
    const Eigen::Index r = bases[k].cols();
    out.u.middleCols(out.offsets[k], r) = bases[k];
    out.v.middleCols(out.offsets[k], r).noalias() = client.samples[k].a.transpose() * bases[k];
  }
  return out;
}

Matrix factored_spread(const LowRankSamples& f, const Matrix& mean_a, const Matrix& s) {
  // THEORY (L1): Σ_k π_k U_k (V_kᵀ S V_k) U_kᵀ − Ā S Āᵀ, the blocks V_kᵀ S V_k from W = S V.
  const Matrix w = s * f.v;
  Matrix x(f.u.rows(), f.u.cols());  // [π_k U_k (V_kᵀ S V_k)]_k
  const std::size_t samples = f.offsets.size() - 1;
  for (std::size_t k = 0; k < samples; ++k) {
    const Eigen::Index o = f.offsets[k];
    const Eigen::Index r = f.offsets[k + 1] - o;
    if (r == 1) {
      x.col(o) = f.u.col(o) * (f.p(static_cast<Eigen::Index>(k)) * f.v.col(o).dot(w.col(o)));
    } else if (r > 1) {
      x.middleCols(o, r).noalias() =
          f.u.middleCols(o, r) * (f.p(static_cast<Eigen::Index>(k)) *
                                  (f.v.middleCols(o, r).transpose() * w.middleCols(o, r)));
    }
  }
  Matrix out = x * f.u.transpose();
  out.noalias() -= mean_a * s * mean_a.transpose();
  return out;
}

Matrix per_sample_spread(const LinearSaClient& client, const Vector& p, const Matrix& mean_a,
                         const Matrix& s) {
  Matrix out = Matrix::Zero(mean_a.rows(), mean_a.cols());
  for (std::size_t k = 0; k < client.samples.size(); ++k) {
    const Matrix da = client.samples[k].a - mean_a;
    out += p(static_cast<Eigen::Index>(k)) * (da * s * da.transpose());
  }
  return out;
}

}  // namespace fedverify::theory
