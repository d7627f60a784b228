#include "theory/problems/game_generator.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"
#include "theory/problems/generators.hpp"

namespace fedverify::theory {
namespace {

// Stream parts of the coupling, past the quadratic generator's (1–5).
constexpr std::uint64_t kSharedCoupling = 11;
constexpr std::uint64_t kClientCoupling = 12;
// The τ-player's problem is the quadratic generator's at seed + this offset.
constexpr std::uint64_t kTauSeedOffset = 0x9e3779b97f4a7c15ULL;

Matrix gaussian(estimators::Stream s, int rows, int cols) {
  Matrix m(rows, cols);
  for (int j = 0; j < cols; ++j) {
    for (int i = 0; i < rows; ++i) m(i, j) = s.normal();
  }
  return m;
}

QuadraticProblem player(const QuadraticGameGeneratorOptions& o, int dim, std::uint64_t seed) {
  QuadraticGeneratorOptions q;
  q.dim = dim;
  q.clients = o.clients;
  q.condition = o.condition;
  q.optimum_spread = o.optimum_spread;
  q.hessian_spread = o.hessian_spread;
  q.noise = o.noise;
  q.seed = seed;
  return generate_quadratic(q);
}

}  // namespace

QuadraticGame generate_quadratic_game(const QuadraticGameGeneratorOptions& o) {
  if (o.theta_dim < 1) {
    throw InputError(fmt::format("generator.theta_dim: must be >= 1, got {}", o.theta_dim));
  }
  if (o.tau_dim < 1) {
    throw InputError(fmt::format("generator.tau_dim: must be >= 1, got {}", o.tau_dim));
  }
  if (!(std::isfinite(o.coupling) && o.coupling >= 0.0)) {
    throw InputError(
        fmt::format("generator.coupling: must be a finite number >= 0, got {}", o.coupling));
  }
  const QuadraticProblem theta = player(o, o.theta_dim, o.seed);  // validates the shared knobs
  const QuadraticProblem tau = player(o, o.tau_dim, o.seed + kTauSeedOffset);
  const int p = o.theta_dim, q = o.tau_dim;
  const double scale = o.coupling / std::sqrt(std::sqrt(static_cast<double>(p) * q));
  const Matrix shared = gaussian(
      estimators::Stream(o.seed, estimators::Purpose::problem_generator, kSharedCoupling), p, q);
  std::vector<QuadraticGameClient> clients;
  for (int i = 0; i < o.clients; ++i) {
    const auto& th = theta.client(i);
    const auto& ta = tau.client(i);
    QuadraticGameClient c;
    c.a = th.hessian;
    c.c = ta.hessian;
    c.a_linear = -th.hessian * th.optimum;
    c.c_linear = -ta.hessian * ta.optimum;
    const Matrix own = gaussian(estimators::Stream(o.seed, estimators::Purpose::problem_generator,
                                                   kClientCoupling, static_cast<std::uint64_t>(i)),
                                p, q);
    c.b = scale * (shared + o.hessian_spread * own);
    c.noise_cov = Matrix::Zero(p + q, p + q);
    c.noise_cov.topLeftCorner(p, p) = th.noise_cov;
    c.noise_cov.bottomRightCorner(q, q) = ta.noise_cov;
    clients.push_back(std::move(c));
  }
  return QuadraticGame(std::move(clients));
}

}  // namespace fedverify::theory
