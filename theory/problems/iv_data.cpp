#include "theory/problems/iv_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "theory/base/input_error.hpp"
#include "theory/problems/logistic_data.hpp"

namespace fedverify::theory {
namespace {

using estimators::Purpose;
using estimators::Stream;

// The `chain` slot of the problem_generator streams, numbered apart from logistic_data's (0–3),
// multinomial_data's (10–13) and game_generator's (11–12); the client slot holds the split.
enum Role : std::uint64_t {
  kSamples = 20,    // Z, e, γ, δ of one split
  kSplitSeed = 21,  // the seed handed to dirichlet_class_assignment
};

enum Split : std::uint64_t { kTrain = 0, kValidation = 1, kTest = 2 };

struct Raw {
  Matrix z;
  RowVector x, y, g0;
};

Raw draw(const IvOptions& o, Split split) {
  Stream s(o.seed, Purpose::problem_generator, kSamples, split);
  const int n = o.samples;
  const double noise = o.process == IvProcess::deepgmm   ? 0.1
                       : o.noise_scale == NoiseScale::sd ? 0.1
                                                         : std::sqrt(0.1);
  Raw r{Matrix(2, n), RowVector(n), RowVector(n), RowVector(n)};
  for (int k = 0; k < n; ++k) {
    const double z1 = -3.0 + 6.0 * s.uniform();
    const double z2 = -3.0 + 6.0 * s.uniform();
    const double e = s.normal();
    const double gamma = noise * s.normal();
    const double delta = noise * s.normal();
    const bool thesis = o.process == IvProcess::thesis;
    const double x = thesis ? z1 + z2 + e + gamma : z1 + e + gamma;
    const double g = true_function(o.function, o.process, x);
    r.z(0, k) = z1;
    r.z(1, k) = z2;
    r.x[k] = x;
    r.g0[k] = g;
    r.y[k] = g + (thesis ? e : 2.0 * e) + delta;
  }
  return r;
}

IvSample standardised(const Raw& r, double mean, double sd) {
  IvSample s;
  s.data.z = r.z;
  s.data.x = r.x;
  s.data.y = (r.y.array() - mean) / sd;
  s.g0 = (r.g0.array() - mean) / sd;
  return s;
}

}  // namespace

std::string to_string(IvFunction function) {
  switch (function) {
    case IvFunction::absolute:
      return "absolute";
    case IvFunction::step:
      return "step";
    case IvFunction::linear:
      return "linear";
  }
  return "?";
}

IvFunction parse_iv_function(const std::string& name, const std::string& field) {
  for (IvFunction f : {IvFunction::absolute, IvFunction::step, IvFunction::linear}) {
    if (name == to_string(f)) return f;
  }
  throw InputError(
      fmt::format("{}: unknown function '{}' (expected absolute, step or linear)", field, name));
}

double true_function(IvFunction function, IvProcess process, double x) {
  switch (function) {
    case IvFunction::absolute:
      return std::abs(x);
    case IvFunction::step:
      return process == IvProcess::thesis ? (x >= 0 ? 1.0 : 0.0) : (x >= 0 ? 2.5 : 1.0);
    case IvFunction::linear:
      return x;
  }
  return x;
}

IvData generate_iv(const IvOptions& o) {
  if (o.clients < 1) throw InputError(fmt::format("clients: must be ≥ 1, got {}", o.clients));
  if (o.bins < 1) throw InputError(fmt::format("bins: must be ≥ 1, got {}", o.bins));
  if (o.samples < std::max({2, o.clients, o.bins})) {
    throw InputError(fmt::format("samples: must be ≥ 2, ≥ clients and ≥ bins, got {}", o.samples));
  }
  if (!(o.dirichlet > 0) || !std::isfinite(o.dirichlet)) {
    throw InputError(fmt::format("dirichlet: must be finite and > 0, got {}", o.dirichlet));
  }
  const Raw train = draw(o, kTrain);
  const double mean = train.y.mean();
  const double sd = std::sqrt((train.y.array() - mean).square().mean());
  IvData d;
  d.y_mean = mean;
  d.y_sd = sd;
  d.train = standardised(train, mean, sd);
  d.validation = standardised(draw(o, kValidation), mean, sd);
  d.test = standardised(draw(o, kTest), mean, sd);

  // Classes: equal-count bins of the training X (rank r goes to bin ⌊r·bins/n⌋).
  const int n = o.samples;
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return train.x[a] < train.x[b]; });
  std::vector<int> classes(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    classes[static_cast<std::size_t>(order[static_cast<std::size_t>(r)])] =
        static_cast<int>(static_cast<std::int64_t>(r) * o.bins / n);
  }
  Stream seed_stream(o.seed, Purpose::problem_generator, kSplitSeed, kTrain);
  d.clients =
      dirichlet_class_assignment(classes, o.bins, o.clients, o.dirichlet, seed_stream.bits());
  return d;
}

IvBatch select_columns(const IvBatch& batch, const std::vector<int>& columns) {
  const auto m = static_cast<Eigen::Index>(columns.size());
  IvBatch out{Matrix(batch.z.rows(), m), Matrix(batch.x.rows(), m), RowVector(m)};
  for (Eigen::Index j = 0; j < m; ++j) {
    const int c = columns[static_cast<std::size_t>(j)];
    out.z.col(j) = batch.z.col(c);
    out.x.col(j) = batch.x.col(c);
    out.y[j] = batch.y[c];
  }
  return out;
}

}  // namespace fedverify::theory
