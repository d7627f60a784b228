#include "theory/problems/logistic_problem.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "theory/base/input_error.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::theory {

namespace {
double sigmoid(double s) {
  return s >= 0 ? 1.0 / (1.0 + std::exp(-s)) : std::exp(s) / (1.0 + std::exp(s));
}
}  // namespace

double logistic_loss(double s) {
  return s > 0 ? std::log1p(std::exp(-s)) : -s + std::log1p(std::exp(s));
}
double logistic_d1(double s) { return -sigmoid(-s); }  // −(1 − p), 1 − p = σ(−s)
double logistic_d2(double s) {
  const double p = sigmoid(s);
  return p * sigmoid(-s);
}
double logistic_d3(double s) {
  const double p = sigmoid(s);
  return p * sigmoid(-s) * (1.0 - 2.0 * p);
}

LogisticProblem::LogisticProblem(std::vector<LogisticClient> clients, double l2, int batch_size)
    : clients_(std::move(clients)), l2_(l2), batch_size_(batch_size) {
  if (!std::isfinite(l2) || l2 < 0.0) {
    throw InputError(fmt::format("l2: must be a finite number >= 0, got {}", l2));
  }
  if (batch_size < 1) throw InputError(fmt::format("batch_size: must be >= 1, got {}", batch_size));
  if (clients_.empty()) throw InputError("clients: need at least one client");
  dim_ = static_cast<int>(clients_[0].features.cols());
  if (dim_ < 1) throw InputError("clients[0].features: rows are empty");
  for (std::size_t c = 0; c < clients_.size(); ++c) {
    const auto& cl = clients_[c];
    const std::string at = fmt::format("clients[{}]", c);
    if (cl.features.cols() != dim_) {
      throw InputError(fmt::format("{}.features: rows have {} entries, clients[0] has {}", at,
                                   cl.features.cols(), dim_));
    }
    if (cl.labels.size() != cl.features.rows()) {
      throw InputError(fmt::format("{}.labels: {} labels for {} feature rows", at, cl.labels.size(),
                                   cl.features.rows()));
    }
    if (!cl.features.allFinite()) throw InputError(at + ".features: contains a non-finite entry");
    for (Eigen::Index j = 0; j < cl.labels.size(); ++j) {
      if (cl.labels(j) != 1.0 && cl.labels(j) != -1.0) {
        throw InputError(
            fmt::format("{}.labels[{}]: must be 1 or -1, got {}", at, j, cl.labels(j)));
      }
    }
    // φ'' ≤ 1/4, so ∇²f_c ≼ (1/4)(1/n_c) Σ_j a_j a_jᵀ + λI.
    const Matrix gram =
        cl.features.transpose() * cl.features / static_cast<double>(cl.features.rows());
    const double top = Eigen::SelfAdjointEigenSolver<Matrix>(gram).eigenvalues().maxCoeff();
    smoothness_ = std::max(smoothness_, 0.25 * top + l2_);
  }
}

double LogisticProblem::value(int c, const Vector& x) const {
  const auto& cl = clients_[c];
  const Vector s = (cl.features * x).cwiseProduct(cl.labels);
  double sum = 0.0;
  for (Eigen::Index j = 0; j < s.size(); ++j) sum += logistic_loss(s(j));
  return sum / static_cast<double>(s.size()) + 0.5 * l2_ * x.squaredNorm();
}

Matrix LogisticProblem::sample_gradients(int c, const Vector& x) const {
  const auto& cl = clients_[c];
  const Vector s = (cl.features * x).cwiseProduct(cl.labels);
  Matrix g(dim_, s.size());
  for (Eigen::Index j = 0; j < s.size(); ++j) {
    g.col(j) = logistic_d1(s(j)) * cl.labels(j) * cl.features.row(j).transpose() + l2_ * x;
  }
  return g;
}

Vector LogisticProblem::gradient(int c, const Vector& x) const {
  return sample_gradients(c, x).rowwise().mean();
}

Matrix LogisticProblem::hessian(int c, const Vector& x) const {
  const auto& cl = clients_[c];
  const Vector s = (cl.features * x).cwiseProduct(cl.labels);
  Vector w(s.size());
  for (Eigen::Index j = 0; j < s.size(); ++j) w(j) = logistic_d2(s(j));
  Matrix h = cl.features.transpose() * w.asDiagonal() * cl.features / static_cast<double>(s.size());
  h.diagonal().array() += l2_;
  return h;
}

Vector LogisticProblem::third_derivative(int c, const Vector& x, const Matrix& m) const {
  const auto& cl = clients_[c];
  const Vector s = (cl.features * x).cwiseProduct(cl.labels);
  Vector out = Vector::Zero(dim_);
  for (Eigen::Index j = 0; j < s.size(); ++j) {
    const Vector a = cl.features.row(j).transpose();
    out += logistic_d3(s(j)) * cl.labels(j) * a.dot(m * a) * a;
  }
  return out / static_cast<double>(s.size());
}

Matrix LogisticProblem::noise_covariance(int c, const Vector& x) const {
  const Matrix g = sample_gradients(c, x);
  const Matrix centred = g.colwise() - g.rowwise().mean();
  return centred * centred.transpose() / (static_cast<double>(g.cols()) * batch_size_);
}

// --- JSON (hooks declared in problem_io.cpp) -------------------------------------------------

std::unique_ptr<Problem> parse_logistic(const nlohmann::json& j, const std::string& at) {
  auto field = [&](const char* name) -> const nlohmann::json& {
    const auto it = j.find(name);
    if (it == j.end()) throw InputError(fmt::format("{}{}: missing", at, name));
    return *it;
  };
  const auto& l2 = field("l2");
  if (!l2.is_number()) throw InputError(at + "l2: expected a number");
  const auto& batch = field("batch_size");
  if (!batch.is_number_integer()) throw InputError(at + "batch_size: expected an integer");
  const bool batch_fits_int =
      batch.is_number_unsigned() ? batch.get<std::uint64_t>() <=
                                       static_cast<std::uint64_t>(std::numeric_limits<int>::max())
                                 : batch.get<std::int64_t>() >= std::numeric_limits<int>::min() &&
                                       batch.get<std::int64_t>() <= std::numeric_limits<int>::max();
  if (!batch_fits_int) {
    throw InputError(fmt::format("{}batch_size: {} is out of range", at, batch.dump()));
  }
  const auto& clients = field("clients");
  if (!clients.is_array() || clients.empty()) {
    throw InputError(at + "clients: expected a non-empty array of client objects");
  }
  std::vector<LogisticClient> parsed;
  for (std::size_t c = 0; c < clients.size(); ++c) {
    const std::string cat = fmt::format("{}clients[{}].", at, c);
    const auto& cj = clients[c];
    if (!cj.is_object()) throw InputError(cat.substr(0, cat.size() - 1) + ": expected an object");
    require_known_fields(cj, {"features", "labels", "weight"}, cat);
    for (const char* name : {"features", "labels"}) {
      if (!cj.contains(name)) throw InputError(fmt::format("{}{}: missing", cat, name));
    }
    LogisticClient lc;
    lc.features = matrix_from_json(cj["features"], cat + "features");
    lc.labels = vector_from_json(cj["labels"], cat + "labels");
    parsed.push_back(std::move(lc));
  }
  try {
    return std::make_unique<LogisticProblem>(std::move(parsed), l2.get<double>(), batch.get<int>());
  } catch (const InputError& e) {
    throw InputError(at + e.what());
  }
}

nlohmann::json logistic_to_json(const Problem& problem) {
  const auto& p = dynamic_cast<const LogisticProblem&>(problem);
  nlohmann::json clients = nlohmann::json::array();
  for (int c = 0; c < p.num_clients(); ++c) {
    clients.push_back(
        {{"features", to_json(p.client(c).features)}, {"labels", to_json(p.client(c).labels)}});
  }
  return {
      {"kind", "logistic"}, {"l2", p.l2()}, {"batch_size", p.batch_size()}, {"clients", clients}};
}

}  // namespace fedverify::theory
