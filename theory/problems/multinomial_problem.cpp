#include "theory/problems/multinomial_problem.hpp"

#include <fmt/format.h>

#include <cmath>

#include "theory/base/input_error.hpp"

namespace fedverify::theory {
namespace {

// The rows a computation runs over: `rows`, or 0, …, n − 1 when empty.
std::vector<int> all_rows_if_empty(const ClassificationData& data, std::span<const int> rows) {
  if (!rows.empty()) return {rows.begin(), rows.end()};
  std::vector<int> all(static_cast<std::size_t>(data.samples()));
  for (int j = 0; j < data.samples(); ++j) all[static_cast<std::size_t>(j)] = j;
  return all;
}

Eigen::Map<const Matrix> weights(const Vector& x, int features, int classes) {
  return {x.data(), features, classes};
}

// Softmax probabilities of the listed rows (n × K), row by row with the maximum subtracted, and
// the log-partition function of each row.
Matrix probabilities(const ClassificationData& data, const Vector& x, const std::vector<int>& rows,
                     Vector* log_partition) {
  const auto w = weights(x, data.dim(), data.classes);
  Matrix z(static_cast<Eigen::Index>(rows.size()), data.classes);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    z.row(static_cast<Eigen::Index>(r)).noalias() = data.features.row(rows[r]) * w;
  }
  if (log_partition != nullptr) log_partition->resize(z.rows());
  for (Eigen::Index r = 0; r < z.rows(); ++r) {
    const double top = z.row(r).maxCoeff();
    z.row(r) = (z.row(r).array() - top).exp().matrix();
    const double total = z.row(r).sum();
    z.row(r) /= total;
    if (log_partition != nullptr) (*log_partition)(r) = top + std::log(total);
  }
  return z;
}

}  // namespace

ClassificationData ClassificationData::subset(std::span<const int> rows) const {
  ClassificationData out{
      Matrix(static_cast<Eigen::Index>(rows.size()), features.cols()), {}, classes};
  out.labels.reserve(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    out.features.row(static_cast<Eigen::Index>(r)) = features.row(rows[r]);
    out.labels.push_back(labels[static_cast<std::size_t>(rows[r])]);
  }
  return out;
}

void validate(const ClassificationData& data, const char* what) {
  if (data.classes < 2) {
    throw InputError(fmt::format("{}: need at least 2 classes, got {}", what, data.classes));
  }
  if (data.features.rows() != static_cast<Eigen::Index>(data.labels.size())) {
    throw InputError(fmt::format("{}: {} feature rows but {} labels", what, data.features.rows(),
                                 data.labels.size()));
  }
  for (std::size_t j = 0; j < data.labels.size(); ++j) {
    if (data.labels[j] < 0 || data.labels[j] >= data.classes) {
      throw InputError(fmt::format("{}: label of row {} is {}, outside [0, {})", what, j,
                                   data.labels[j], data.classes));
    }
  }
  if (!data.features.allFinite())
    throw InputError(fmt::format("{}: a feature is not finite", what));
}

double softmax_loss(const ClassificationData& data, const Vector& x, double l2,
                    std::span<const int> rows) {
  const std::vector<int> list = all_rows_if_empty(data, rows);
  if (list.empty()) return 0.5 * l2 * x.squaredNorm();
  const auto w = weights(x, data.dim(), data.classes);
  Vector log_partition;
  probabilities(data, x, list, &log_partition);
  double sum = 0.0;
  for (std::size_t r = 0; r < list.size(); ++r) {
    const int j = list[r];
    const double score = data.features.row(j).dot(w.col(data.labels[static_cast<std::size_t>(j)]));
    sum += log_partition(static_cast<Eigen::Index>(r)) - score;
  }
  return sum / static_cast<double>(list.size()) + 0.5 * l2 * x.squaredNorm();
}

Vector softmax_gradient(const ClassificationData& data, const Vector& x, double l2,
                        std::span<const int> rows) {
  const std::vector<int> list = all_rows_if_empty(data, rows);
  Vector g = l2 * x;
  if (list.empty()) return g;
  Matrix residual = probabilities(data, x, list, nullptr);  // P − Y
  Matrix a(static_cast<Eigen::Index>(list.size()), data.dim());
  for (std::size_t r = 0; r < list.size(); ++r) {
    residual(static_cast<Eigen::Index>(r), data.labels[static_cast<std::size_t>(list[r])]) -= 1.0;
    a.row(static_cast<Eigen::Index>(r)) = data.features.row(list[r]);
  }
  Eigen::Map<Matrix>(g.data(), data.dim(), data.classes).noalias() +=
      a.transpose() * residual / static_cast<double>(list.size());
  return g;
}

Matrix softmax_hessian(const ClassificationData& data, const Vector& x, double l2,
                       std::span<const int> rows) {
  const std::vector<int> list = all_rows_if_empty(data, rows);
  const int p = data.dim();
  const int k = data.classes;
  Matrix h =
      l2 * Matrix::Identity(static_cast<Eigen::Index>(p) * k, static_cast<Eigen::Index>(p) * k);
  if (list.empty()) return h;
  const Matrix prob = probabilities(data, x, list, nullptr);
  Matrix a(static_cast<Eigen::Index>(list.size()), p);
  for (std::size_t r = 0; r < list.size(); ++r) {
    a.row(static_cast<Eigen::Index>(r)) = data.features.row(list[r]);
  }
  const double n = static_cast<double>(list.size());
  // Block (k1, k2) = (1/n) Aᵀ diag(δ_{k1k2} p_{k1} − p_{k1} p_{k2}) A.
  for (int k1 = 0; k1 < k; ++k1) {
    for (int k2 = 0; k2 < k; ++k2) {
      Vector weight = -prob.col(k1).cwiseProduct(prob.col(k2));
      if (k1 == k2) weight += prob.col(k1);
      h.block(static_cast<Eigen::Index>(k1) * p, static_cast<Eigen::Index>(k2) * p, p, p) +=
          a.transpose() * weight.asDiagonal() * a / n;
    }
  }
  return h;
}

Matrix softmax_sample_gradients(const ClassificationData& data, const Vector& x) {
  const std::vector<int> list = all_rows_if_empty(data, {});
  Matrix residual = probabilities(data, x, list, nullptr);
  const int p = data.dim();
  Matrix out(static_cast<Eigen::Index>(p) * data.classes, data.samples());
  for (int j = 0; j < data.samples(); ++j) {
    residual(j, data.labels[static_cast<std::size_t>(j)]) -= 1.0;
    for (int c = 0; c < data.classes; ++c) {
      out.col(j).segment(static_cast<Eigen::Index>(c) * p, p) =
          data.features.row(j).transpose() * residual(j, c);
    }
  }
  return out;
}

Matrix softmax_noise_covariance(const ClassificationData& data, const Vector& x, int batch_size) {
  const Matrix g = softmax_sample_gradients(data, x);
  const Matrix centred = g.colwise() - g.rowwise().mean();
  return centred * centred.transpose() / (static_cast<double>(g.cols()) * batch_size);
}

double softmax_accuracy(const ClassificationData& data, const Vector& x) {
  if (data.samples() == 0) return 0.0;
  const auto w = weights(x, data.dim(), data.classes);
  int correct = 0;
  for (int j = 0; j < data.samples(); ++j) {
    Eigen::Index best = 0;
    (data.features.row(j) * w).maxCoeff(&best);
    correct += best == data.labels[static_cast<std::size_t>(j)] ? 1 : 0;
  }
  return static_cast<double>(correct) / data.samples();
}

MultinomialProblem::MultinomialProblem(std::vector<ClassificationData> clients, double l2,
                                       int batch_size)
    : clients_(std::move(clients)), l2_(l2), batch_size_(batch_size) {
  if (!std::isfinite(l2) || l2 < 0.0) {
    throw InputError(fmt::format("l2: must be a finite number >= 0, got {}", l2));
  }
  if (batch_size < 1) throw InputError(fmt::format("batch_size: must be >= 1, got {}", batch_size));
  if (clients_.empty()) throw InputError("clients: need at least one client");
  features_ = clients_[0].dim();
  classes_ = clients_[0].classes;
  for (std::size_t c = 0; c < clients_.size(); ++c) {
    const std::string what = fmt::format("clients[{}]", c);
    validate(clients_[c], what.c_str());
    if (clients_[c].dim() != features_ || clients_[c].classes != classes_) {
      throw InputError(fmt::format("{}: {} features and {} classes, client 0 has {} and {}", what,
                                   clients_[c].dim(), clients_[c].classes, features_, classes_));
    }
    if (clients_[c].samples() == 0) throw InputError(fmt::format("{}: holds no sample", what));
  }
}

double MultinomialProblem::value(int client, const Vector& x) const {
  return softmax_loss(clients_[client], x, l2_);
}
Vector MultinomialProblem::gradient(int client, const Vector& x) const {
  return softmax_gradient(clients_[client], x, l2_);
}
Matrix MultinomialProblem::hessian(int client, const Vector& x) const {
  return softmax_hessian(clients_[client], x, l2_);
}
Matrix MultinomialProblem::noise_covariance(int client, const Vector& x) const {
  return softmax_noise_covariance(clients_[client], x, batch_size_);
}
Vector MultinomialProblem::minibatch_gradient(int client, const Vector& x,
                                              std::span<const int> rows) const {
  return softmax_gradient(clients_[client], x, l2_, rows);
}

}  // namespace fedverify::theory
