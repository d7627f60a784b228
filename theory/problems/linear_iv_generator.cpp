#include "theory/problems/linear_iv_generator.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"
#include "theory/problems/limits.hpp"

namespace fedverify::theory {
namespace {

constexpr double kFirstStageNoise = 0.1;  // sd of v
constexpr double kMeanSpread = 2.0;       // μ_i = heterogeneity · kMeanSpread · u_i
// The stream part of this generator (the quadratic and game generators use parts 1–12).
constexpr std::uint64_t kLinearIvPart = 16;

void validate(const LinearIvGeneratorOptions& o) {
  limits::require_range("generator.clients", o.clients, 1, limits::kMaxClients);
  limits::require_range("generator.samples", o.samples, 2, std::int64_t{1} << 24);
  limits::require_range("generator.instruments", o.instruments, 1, limits::kMaxDimension);
  for (const auto& [name, value] :
       {std::pair{"heterogeneity", o.heterogeneity}, std::pair{"confounding", o.confounding},
        std::pair{"slope_spread", o.slope_spread}}) {
    if (!(std::isfinite(value) && value >= 0)) {
      throw InputError(fmt::format("generator.{}: must be finite and >= 0, got {}", name, value));
    }
  }
  if (!std::isfinite(o.intercept) || !std::isfinite(o.slope)) {
    throw InputError("generator.intercept, generator.slope: must be finite");
  }
}

}  // namespace

Vector linear_iv_truth(const LinearIvGeneratorOptions& o) {
  Vector theta(2);
  theta << o.intercept, o.slope;
  return theta;
}

LinearIvGame generate_linear_iv(const LinearIvGeneratorOptions& o) {
  validate(o);
  const int dz = o.instruments;
  std::vector<LinearIvClient> clients;
  for (int i = 0; i < o.clients; ++i) {
    // Client i's stream: its heterogeneity draws first, then its samples in order.
    estimators::Stream s(o.seed, estimators::Purpose::problem_generator, kLinearIvPart,
                         static_cast<std::uint64_t>(i));
    Vector mu(dz), pi(dz);
    for (int j = 0; j < dz; ++j) mu(j) = o.heterogeneity * kMeanSpread * s.normal();
    for (int j = 0; j < dz; ++j) pi(j) = (j == 0 ? 1.0 : 0.5) + o.heterogeneity * s.normal();
    const double slope = o.slope + o.slope_spread * s.normal();
    LinearIvClient c{Matrix(o.samples, 1), Matrix(o.samples, dz), Vector(o.samples)};
    for (int k = 0; k < o.samples; ++k) {
      for (int j = 0; j < dz; ++j) c.z(k, j) = mu(j) + s.normal();
      const double e = s.normal();
      const double v = kFirstStageNoise * s.normal();
      c.x(k, 0) = c.z.row(k).dot(pi) + o.confounding * e + v;
      c.y(k) = o.intercept + slope * c.x(k, 0) + e;
    }
    clients.push_back(std::move(c));
  }
  return LinearIvGame(std::move(clients), o.phi, o.psi);
}

}  // namespace fedverify::theory
