#include "estimators/samplers/algorithms/robust_round.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "theory/base/input_error.hpp"
#include "theory/problems/robust_aggregation.hpp"

namespace fedverify::estimators {

std::vector<AuxiliaryState> RobustRound::auxiliary_states(const SamplerOptions& options,
                                                          int clients) const {
  const int m = theory::corrupted_clients(options.step);
  if (m >= clients) {
    throw InputError(fmt::format(
        "--corrupted: {} corrupted clients of N = {}: at least one must be honest", m, clients));
  }
  return {};
}

void RobustRound::round(const RoundBlock& b) const {
  const std::size_t size = b.size();
  const auto n = static_cast<std::size_t>(b.clients);
  double* all = b.scratch.buffer(RoundScratch::kFirstFree, n * size);  // y_c, client after client
  for_each_client(
      b, [](int /*client*/, double* /*buffer*/) -> const double* { return nullptr; },
      [&](int client, const double* yc) {
        std::copy(yc, yc + size, all + static_cast<std::size_t>(client) * size);
      });
  const int m = theory::corrupted_clients(b.step);
  const double s = theory::corruption_scale(b.step);
  Matrix points(b.dim, b.clients);
  for (int lane = 0; lane < b.active; ++lane) {
    for (int c = 0; c < b.clients; ++c) {
      const double* yc = all + static_cast<std::size_t>(c) * size;
      if (c < b.clients - m) {
        for (int i = 0; i < b.dim; ++i)
          points(i, c) = yc[static_cast<std::size_t>(i) * kLanes + lane];
        continue;
      }
      // A corrupted client: x_t + s·ζ from its own stream.                        THEORY (A6)
      Stream stream(b.address.seed, Purpose::server_noise, b.address.chain + lane,
                    static_cast<std::uint32_t>(c + 1), b.address.round);
      for (int i = 0; i < b.dim; ++i) {
        points(i, c) = b.x[static_cast<std::size_t>(i) * kLanes + lane] + s * stream.normal();
      }
    }
    const Vector next = rule_(points, b.step);
    for (int i = 0; i < b.dim; ++i) b.x[static_cast<std::size_t>(i) * kLanes + lane] = next(i);
  }
}

}  // namespace fedverify::estimators
