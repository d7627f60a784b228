#include "theory/problems/logistic_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "theory/base/input_error.hpp"

namespace fedverify::theory {

using estimators::Purpose;
using estimators::Stream;

namespace {

// The `chain` slot of a problem_generator stream says which part of the data it draws, so the
// parts never share numbers and each is a function of (seed, role, client) only.
enum Role : std::uint64_t {
  kTrueDirection = 0,  // u, shared by all clients
  kClientData = 1,     // m_c, then the features of client c
  kShuffle = 2,        // permutations of pooled rows
  kDirichlet = 3,      // Dirichlet proportions; the client slot holds the class (binary: 0 is −1)
};

void require_finite(double value, const char* field) {
  if (!std::isfinite(value))
    throw InputError(fmt::format("{}: must be finite, got {}", field, value));
}

void validate_split(int samples, int clients) {
  if (clients < 1) throw InputError(fmt::format("clients: must be >= 1, got {}", clients));
  if (samples < clients) {
    throw InputError(fmt::format("clients: {} clients cannot each receive a sample from {} rows",
                                 clients, samples));
  }
}

}  // namespace

void shuffle(std::vector<int>& v, Stream& stream) {
  for (std::size_t i = v.size(); i > 1; --i) {
    const auto j = static_cast<std::size_t>(stream.below(i));
    std::swap(v[i - 1], v[j]);
  }
}

// --- Synthetic generator -----------------------------------------------------------------------

void validate(const LogisticGeneratorOptions& o) {
  if (o.dim < 1) throw InputError(fmt::format("dim: must be >= 1, got {}", o.dim));
  if (o.clients < 1) throw InputError(fmt::format("clients: must be >= 1, got {}", o.clients));
  if (o.samples_per_client < 1) {
    throw InputError(fmt::format("samples_per_client: must be >= 1, got {}", o.samples_per_client));
  }
  require_finite(o.l2, "l2");
  if (o.l2 < 0) throw InputError(fmt::format("l2: must be >= 0, got {}", o.l2));
  if (o.batch_size < 1) {
    throw InputError(fmt::format("batch_size: must be >= 1, got {}", o.batch_size));
  }
  require_finite(o.feature_shift, "feature_shift");
  if (o.feature_shift < 0) {
    throw InputError(fmt::format("feature_shift: must be >= 0, got {}", o.feature_shift));
  }
  if (!(o.label_skew >= 0 && o.label_skew <= 1)) {
    throw InputError(fmt::format("label_skew: must lie in [0, 1], got {}", o.label_skew));
  }
  require_finite(o.separation, "separation");
  if (o.separation < 0) {
    throw InputError(fmt::format("separation: must be >= 0, got {}", o.separation));
  }
}

Vector true_parameter(const LogisticGeneratorOptions& o) {
  validate(o);
  // u uniform on the sphere: a normalised standard Gaussian vector (redrawn if it is 0).
  Stream stream(o.seed, Purpose::problem_generator, kTrueDirection);
  Vector u(o.dim);
  do {
    for (int i = 0; i < o.dim; ++i) u(i) = stream.normal();
  } while (u.norm() == 0.0);
  return o.separation * u.normalized();
}

LogisticProblem generate_logistic(const LogisticGeneratorOptions& o) {
  const Vector half_signal = 0.5 * true_parameter(o);  // validates o
  const int d = o.dim;
  const int n = o.samples_per_client;

  std::vector<LogisticClient> clients(static_cast<std::size_t>(o.clients));
  for (int c = 0; c < o.clients; ++c) {
    Stream stream(o.seed, Purpose::problem_generator, kClientData, static_cast<std::uint64_t>(c));
    Vector shift(d);
    for (int i = 0; i < d; ++i) shift(i) = o.feature_shift * stream.normal();

    // π_c = ½ + ½ · label_skew · s_c, n⁺_c = ⌊n π_c + ½⌋.
    const double majority_sign = (c % 2 == 0) ? 1.0 : -1.0;
    const double positive_fraction = 0.5 + 0.5 * o.label_skew * majority_sign;
    const int positives =
        std::clamp(static_cast<int>(std::floor(n * positive_fraction + 0.5)), 0, n);

    LogisticClient& client = clients[static_cast<std::size_t>(c)];
    client.features.resize(n, d);
    client.labels.resize(n);
    for (int j = 0; j < n; ++j) {
      const double y = j < positives ? 1.0 : -1.0;
      client.labels(j) = y;
      for (int i = 0; i < d; ++i) {
        client.features(j, i) = shift(i) + y * half_signal(i) + stream.normal();
      }
    }
  }
  return LogisticProblem(std::move(clients), o.l2, o.batch_size);
}

// --- Gamma and Dirichlet -----------------------------------------------------------------------

double log_gamma_variate(double shape, Stream& stream) {
  if (!(shape > 0) || !std::isfinite(shape)) {
    throw InputError(fmt::format("alpha: Gamma shape must be finite and > 0, got {}", shape));
  }
  if (shape < 1.0) {
    // Gamma(a) = Gamma(a + 1) · U^{1/a}   (Marsaglia & Tsang 2000, §6).
    const double log_g = log_gamma_variate(shape + 1.0, stream);
    return log_g + std::log(stream.uniform()) / shape;
  }
  const double dd = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * dd);
  for (;;) {
    const double z = stream.normal();
    const double t = 1.0 + c * z;
    if (t <= 0.0) continue;
    const double v = t * t * t;
    const double log_u = std::log(stream.uniform());
    // Acceptance test log U < ½z² + d − d v + d log v.
    if (log_u < 0.5 * z * z + dd - dd * v + dd * std::log(v)) return std::log(dd) + std::log(v);
  }
}

std::vector<std::vector<int>> iid_assignment(int samples, int clients, std::uint64_t seed) {
  validate_split(samples, clients);
  std::vector<int> order(static_cast<std::size_t>(samples));
  std::iota(order.begin(), order.end(), 0);
  Stream stream(seed, Purpose::problem_generator, kShuffle);
  shuffle(order, stream);
  std::vector<std::vector<int>> out(static_cast<std::size_t>(clients));
  // Client c receives rows [⌊c n / N⌋, ⌊(c + 1) n / N⌋) of the permutation.
  for (int c = 0; c < clients; ++c) {
    const auto begin = static_cast<std::int64_t>(c) * samples / clients;
    const auto end = static_cast<std::int64_t>(c + 1) * samples / clients;
    auto& rows = out[static_cast<std::size_t>(c)];
    rows.assign(order.begin() + begin, order.begin() + end);
    std::sort(rows.begin(), rows.end());
  }
  return out;
}

std::vector<std::vector<int>> dirichlet_assignment(const Vector& labels, int clients, double alpha,
                                                   std::uint64_t seed) {
  std::vector<int> classes(static_cast<std::size_t>(labels.size()));
  for (Eigen::Index j = 0; j < labels.size(); ++j) {
    if (labels(j) != 1.0 && labels(j) != -1.0) {
      throw InputError(fmt::format("labels[{}]: must be 1 or -1, got {}", j, labels(j)));
    }
    classes[static_cast<std::size_t>(j)] = labels(j) == 1.0 ? 1 : 0;
  }
  return dirichlet_class_assignment(classes, 2, clients, alpha, seed);
}

std::vector<std::vector<int>> dirichlet_class_assignment(const std::vector<int>& classes,
                                                         int num_classes, int clients, double alpha,
                                                         std::uint64_t seed) {
  const int samples = static_cast<int>(classes.size());
  validate_split(samples, clients);
  if (!(alpha > 0) || !std::isfinite(alpha)) {
    throw InputError(fmt::format("alpha: must be finite and > 0, got {}", alpha));
  }
  for (int j = 0; j < samples; ++j) {
    if (classes[static_cast<std::size_t>(j)] < 0 ||
        classes[static_cast<std::size_t>(j)] >= num_classes) {
      throw InputError(fmt::format("labels[{}]: must be a class in [0, {}), got {}", j, num_classes,
                                   classes[static_cast<std::size_t>(j)]));
    }
  }
  std::vector<std::vector<int>> out(static_cast<std::size_t>(clients));
  Stream shuffle_stream(seed, Purpose::problem_generator, kShuffle);
  for (int k = 0; k < num_classes; ++k) {
    std::vector<int> rows;
    for (int j = 0; j < samples; ++j) {
      if (classes[static_cast<std::size_t>(j)] == k) rows.push_back(j);
    }
    shuffle(rows, shuffle_stream);

    // p ~ Dirichlet(α 1_N) as normalised Gamma(α) variates, normalised in log space.
    Stream stream(seed, Purpose::problem_generator, kDirichlet, static_cast<std::uint64_t>(k));
    std::vector<double> log_g(static_cast<std::size_t>(clients));
    for (auto& lg : log_g) lg = log_gamma_variate(alpha, stream);
    const double top = *std::max_element(log_g.begin(), log_g.end());
    std::vector<double> p(log_g.size());
    for (std::size_t c = 0; c < p.size(); ++c) p[c] = std::exp(log_g[c] - top);
    const double total = std::accumulate(p.begin(), p.end(), 0.0);

    // Client c receives the class-k rows [cut_{c−1}, cut_c), cut_c = ⌊n_k Σ_{c'≤c} p_c' + ½⌋.
    const auto nk = static_cast<double>(rows.size());
    double cumulative = 0.0;
    std::size_t begin = 0;
    for (int c = 0; c < clients; ++c) {
      cumulative += p[static_cast<std::size_t>(c)] / total;
      const std::size_t end =
          c + 1 == clients
              ? rows.size()
              : std::min(rows.size(), static_cast<std::size_t>(std::floor(nk * cumulative + 0.5)));
      auto& mine = out[static_cast<std::size_t>(c)];
      mine.insert(mine.end(), rows.begin() + static_cast<std::ptrdiff_t>(begin),
                  rows.begin() + static_cast<std::ptrdiff_t>(std::max(begin, end)));
      begin = std::max(begin, end);
    }
  }

  // Non-emptiness repair: an empty client takes one row from the largest client (lowest index
  // on ties), which holds ≥ 2 rows because rows ≥ clients.
  for (auto& mine : out) {
    if (!mine.empty()) continue;
    auto donor = std::max_element(out.begin(), out.end(),
                                  [](const auto& a, const auto& b) { return a.size() < b.size(); });
    mine.push_back(donor->back());
    donor->pop_back();
  }
  for (auto& mine : out) std::sort(mine.begin(), mine.end());
  return out;
}

LogisticProblem split_by_assignment(const Matrix& features, const Vector& labels,
                                    const std::vector<std::vector<int>>& assignment, double l2,
                                    int batch_size) {
  if (labels.size() != features.rows()) {
    throw InputError(
        fmt::format("labels: {} labels for {} feature rows", labels.size(), features.rows()));
  }
  std::vector<LogisticClient> clients;
  clients.reserve(assignment.size());
  for (std::size_t c = 0; c < assignment.size(); ++c) {
    const auto& rows = assignment[c];
    LogisticClient client;
    client.features.resize(static_cast<Eigen::Index>(rows.size()), features.cols());
    client.labels.resize(static_cast<Eigen::Index>(rows.size()));
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (rows[r] < 0 || rows[r] >= features.rows()) {
        throw InputError(fmt::format("assignment[{}][{}]: row {} out of range [0, {})", c, r,
                                     rows[r], features.rows()));
      }
      client.features.row(static_cast<Eigen::Index>(r)) = features.row(rows[r]);
      client.labels(static_cast<Eigen::Index>(r)) = labels(rows[r]);
    }
    if (rows.empty()) throw InputError(fmt::format("assignment[{}]: client has no samples", c));
    clients.push_back(std::move(client));
  }
  return LogisticProblem(std::move(clients), l2, batch_size);
}

LogisticProblem partition_iid(const Matrix& features, const Vector& labels, int clients,
                              std::uint64_t seed, double l2, int batch_size) {
  return split_by_assignment(features, labels,
                             iid_assignment(static_cast<int>(features.rows()), clients, seed), l2,
                             batch_size);
}

LogisticProblem partition_dirichlet(const Matrix& features, const Vector& labels, int clients,
                                    double alpha, std::uint64_t seed, double l2, int batch_size) {
  if (labels.size() != features.rows()) {
    throw InputError(
        fmt::format("labels: {} labels for {} feature rows", labels.size(), features.rows()));
  }
  return split_by_assignment(features, labels, dirichlet_assignment(labels, clients, alpha, seed),
                             l2, batch_size);
}

}  // namespace fedverify::theory
