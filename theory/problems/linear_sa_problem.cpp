#include "theory/problems/linear_sa_problem.hpp"

#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>

#include "theory/base/input_error.hpp"

namespace fedverify::theory {

namespace {

void require_batch(int batch_size) {
  if (batch_size < 1) throw InputError(fmt::format("batch_size: must be >= 1, got {}", batch_size));
}

}  // namespace

LinearSaProblem::LinearSaProblem(std::vector<LinearSaClient> clients, int batch_size)
    : clients_(std::move(clients)), batch_size_(batch_size) {
  require_batch(batch_size);
  if (clients_.empty()) throw InputError("clients: need at least one client");
  for (std::size_t c = 0; c < clients_.size(); ++c) {
    const auto& cl = clients_[c];
    const std::string at = fmt::format("clients[{}].samples", c);
    if (cl.samples.empty()) throw InputError(at + ": need at least one sample");
    if (c == 0) dim_ = static_cast<int>(cl.samples[0].b.size());
    if (dim_ < 1) throw InputError("clients[0].samples[0].b: empty");
    Vector p(static_cast<Eigen::Index>(cl.samples.size()));
    for (std::size_t k = 0; k < cl.samples.size(); ++k) {
      const auto& s = cl.samples[k];
      const std::string sat = fmt::format("{}[{}]", at, k);
      if (!(std::isfinite(s.weight) && s.weight > 0)) {
        throw InputError(
            fmt::format("{}.weight: must be a finite number > 0, got {}", sat, s.weight));
      }
      if (s.a.rows() != dim_ || s.a.cols() != dim_) {
        throw InputError(
            fmt::format("{}.A: expected {}×{} (the dimension of clients[0]), got {}×{}", sat, dim_,
                        dim_, s.a.rows(), s.a.cols()));
      }
      if (s.b.size() != dim_) {
        throw InputError(fmt::format("{}.b: expected {} numbers, got {}", sat, dim_, s.b.size()));
      }
      if (!s.a.allFinite()) throw InputError(sat + ".A: contains a non-finite entry");
      if (!s.b.allFinite()) throw InputError(sat + ".b: contains a non-finite entry");
      p(static_cast<Eigen::Index>(k)) = s.weight;
    }
    if (!std::isfinite(p.sum())) throw InputError(at + ": the sum of the weights overflows");
    probabilities_.push_back(p / p.sum());
    Matrix a = Matrix::Zero(dim_, dim_);
    Vector b = Vector::Zero(dim_);
    for (std::size_t k = 0; k < cl.samples.size(); ++k) {
      const double pk = probabilities_.back()(static_cast<Eigen::Index>(k));
      a += pk * cl.samples[k].a;
      b += pk * cl.samples[k].b;
      l_ = std::max(l_, cl.samples[k].a.operatorNorm());
    }
    factors_.push_back(factor_samples(cl, probabilities_.back(), a));
    mean_a_.push_back(std::move(a));
    mean_b_.push_back(std::move(b));
  }
  finish();
}

LinearSaProblem::LinearSaProblem(std::vector<LeastSquaresClient> clients, double l2, int batch_size)
    : ls_clients_(std::move(clients)), batch_size_(batch_size), least_squares_(true), l2_(l2) {
  if (!std::isfinite(l2) || l2 < 0.0) {
    throw InputError(fmt::format("l2: must be a finite number >= 0, got {}", l2));
  }
  require_batch(batch_size);
  if (ls_clients_.empty()) throw InputError("clients: need at least one client");
  dim_ = static_cast<int>(ls_clients_[0].features.cols());
  if (dim_ < 1) throw InputError("clients[0].features: rows are empty");
  for (std::size_t c = 0; c < ls_clients_.size(); ++c) {
    const auto& cl = ls_clients_[c];
    const std::string at = fmt::format("clients[{}]", c);
    if (cl.features.cols() != dim_) {
      throw InputError(fmt::format("{}.features: rows have {} entries, clients[0] has {}", at,
                                   cl.features.cols(), dim_));
    }
    if (cl.targets.size() != cl.features.rows()) {
      throw InputError(fmt::format("{}.targets: {} targets for {} feature rows", at,
                                   cl.targets.size(), cl.features.rows()));
    }
    if (!cl.features.allFinite()) throw InputError(at + ".features: contains a non-finite entry");
    if (!cl.targets.allFinite()) throw InputError(at + ".targets: contains a non-finite entry");
    const double n = static_cast<double>(cl.features.rows());
    Matrix a = cl.features.transpose() * cl.features / n;  // mean_j a_j a_jᵀ
    a.diagonal().array() += l2;
    mean_a_.push_back(std::move(a));
    mean_b_.push_back(cl.features.transpose() * cl.targets / n);  // mean_j y_j a_j
    probabilities_.push_back(Vector::Constant(cl.features.rows(), 1.0 / n));
    l_ = std::max(l_, cl.features.rowwise().squaredNorm().maxCoeff() + l2);
  }
  finish();
}

void LinearSaProblem::finish() {
  const int n = num_clients();
  mu_ = std::numeric_limits<double>::infinity();
  for (int c = 0; c < n; ++c) {
    if (!mean_a_[c].allFinite() || !mean_b_[c].allFinite()) {
      throw InputError(
          fmt::format("clients[{}]: the mean of A or b overflows double precision", c));
    }
    // Stability of the client's mean map x ↦ x − γ(Ā_c x − b̄_c) for small γ: Re eig(Ā_c) > 0.
    const Eigen::VectorXcd eig = Eigen::EigenSolver<Matrix>(mean_a_[c], false).eigenvalues();
    const double smallest = eig.real().minCoeff();
    if (!(smallest > 0)) {
      throw InputError(fmt::format(
          "clients[{}]: unstable mean map: an eigenvalue of the client's mean A has real part "
          "{:.6g} <= 0 (every client needs Re eig(mean A) > 0{})",
          c, smallest,
          least_squares_ ? "; with l2 = 0 the features must span every direction" : ""));
    }
    mu_ = std::min(mu_, Eigen::SelfAdjointEigenSolver<Matrix>(symmetric_part(mean_a_[c]),
                                                              Eigen::EigenvaluesOnly)
                            .eigenvalues()
                            .minCoeff());
  }
  solve_optimum();
}

void LinearSaProblem::solve_optimum() {
  Matrix sum_a = Matrix::Zero(dim_, dim_);
  Vector sum_b = Vector::Zero(dim_);
  for (int c = 0; c < num_clients(); ++c) {
    // Σ_c p_c Ā_c x* = Σ_c p_c b̄_c (THEORY (L0), (A1)); the plain sums for equal weights.
    const double w = equal_weights() ? 1.0 : weight(c);
    sum_a += w * mean_a_[c];
    sum_b += w * mean_b_[c];
  }
  const Eigen::PartialPivLU<Matrix> lu(sum_a);
  constexpr double kSingular = 64 * std::numeric_limits<double>::epsilon();
  if (!(lu.rcond() > kSingular)) {
    throw InputError(
        fmt::format("clients: the sum over clients of the mean A is singular to working precision "
                    "(reciprocal condition number {:.3g}); x* is not unique",
                    lu.rcond()));
  }
  x_star_ = lu.solve(sum_b);  // THEORY (L0)
}

int LinearSaProblem::num_samples(int c) const {
  return least_squares_ ? static_cast<int>(ls_clients_[c].targets.size())
                        : static_cast<int>(clients_[c].samples.size());
}

void LinearSaProblem::set_sample_order(SampleOrder order) {
  if (order == SampleOrder::reshuffled) {
    for (int c = 0; c < num_clients(); ++c) {
      if (!least_squares_ && (probabilities_[c].array() != probabilities_[c](0)).any()) {
        throw InputError(fmt::format(
            "sampling: \"reshuffled\" needs equally likely samples; clients[{}] has unequal "
            "sample weights",
            c));
      }
      if (num_samples(c) % batch_size_ != 0) {
        throw InputError(fmt::format(
            "sampling: \"reshuffled\" needs batch_size = {} to divide every client's sample "
            "count (a pass is whole batches); clients[{}] has {}",
            batch_size_, c, num_samples(c)));
      }
    }
  }
  sample_order_ = order;
}

double LinearSaProblem::value(int c, const Vector& x) const {
  return 0.5 * x.dot(mean_a_[c] * x) - mean_b_[c].dot(x);
}

Vector LinearSaProblem::gradient(int c, const Vector& x) const {
  return mean_a_[c] * x - mean_b_[c];
}

Matrix LinearSaProblem::hessian(int c, const Vector& /*x*/) const { return mean_a_[c]; }

Vector LinearSaProblem::third_derivative(int /*c*/, const Vector& /*x*/,
                                         const Matrix& /*m*/) const {
  return Vector::Zero(dim_);
}

Matrix LinearSaProblem::noise_covariance(int c, const Vector& x) const {
  return expected_noise_covariance(c, x, Matrix::Zero(dim_, dim_));
}

Matrix LinearSaProblem::expected_noise_covariance(int c, const Vector& m, const Matrix& s) const {
  Matrix out;
  if (least_squares_) {
    // A_j − Ā = a_j a_jᵀ − F̄ (λ cancels), F̄ = mean_j a_j a_jᵀ; the residual at m is
    // r_j = a_j (a_jᵀ m − y_j) − mean_j(·). Rank one: a_j a_jᵀ s a_j a_jᵀ = (a_jᵀ s a_j) a_j a_jᵀ.
    const auto& cl = ls_clients_[c];
    const double n = static_cast<double>(cl.targets.size());
    const Vector coeff = cl.features * m - cl.targets;         // a_jᵀ m − y_j
    Matrix r = cl.features.array().colwise() * coeff.array();  // rows r_jᵀ
    r.rowwise() -= r.colwise().mean();
    const Vector q = (cl.features * s).cwiseProduct(cl.features).rowwise().sum();  // a_jᵀ s a_j
    const Matrix gram = mean_a_[c] - l2_ * Matrix::Identity(dim_, dim_);           // F̄
    out = r.transpose() * r / n + cl.features.transpose() * q.asDiagonal() * cl.features / n -
          gram * s * gram.transpose();
  } else {
    const auto& cl = clients_[c];
    const Vector& p = probabilities_[c];
    out = Matrix::Zero(dim_, dim_);
    for (std::size_t k = 0; k < cl.samples.size(); ++k) {
      const Matrix da = cl.samples[k].a - mean_a_[c];
      const Vector r = da * m - (cl.samples[k].b - mean_b_[c]);
      out += p(static_cast<Eigen::Index>(k)) * (r * r.transpose() + da * s * da.transpose());
    }
  }
  return symmetric_part(out) / batch_size_;  // THEORY (L1): the 1/B of E[Ḡ ⊗ Ḡ]
}

Matrix LinearSaProblem::expected_noise_covariance_linear(int c, const Matrix& s) const {
  Matrix out;
  if (least_squares_) {
    const auto& cl = ls_clients_[c];
    const double n = static_cast<double>(cl.targets.size());
    const Vector q = (cl.features * s).cwiseProduct(cl.features).rowwise().sum();  // a_jᵀ s a_j
    const Matrix gram = mean_a_[c] - l2_ * Matrix::Identity(dim_, dim_);           // F̄
    out = cl.features.transpose() * q.asDiagonal() * cl.features / n - gram * s * gram.transpose();
  } else if (factored(c)) {
    out = factored_spread(*factors_[c], mean_a_[c], s);
  } else {
    out = per_sample_spread(clients_[c], probabilities_[c], mean_a_[c], s);
  }
  return symmetric_part(out) / batch_size_;  // THEORY (L1)
}

}  // namespace fedverify::theory
