// DP-FedAvg's round (THEORY (A5)): every client runs FedAvg's H local steps from x_t; its update
// u_c = y_c − x_t is clipped to norm S when --clip is given, u_c ← u_c · min(1, S/‖u_c‖); the
// server averages, x_{t+1} = x_t + Σ_c p_c u_c (1/N each for equal weights), and adds Gaussian
// noise σ_dp·z, z ~ N(0, I), from the server's own stream (Purpose::server_noise, one per chain
// and round).
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <optional>

#include "estimators/samplers/round.hpp"
#include "theory/problems/dpfedavg_setting.hpp"

namespace fedverify::estimators {
namespace {

class DpFedAvgRound final : public RoundSampler {
 public:
  void round(const RoundBlock& b) const override {
    const std::size_t size = b.size();
    double* total = b.scratch.buffer(RoundScratch::kFirstFree, size);  // Σ_c p_c u_c (or Σ_c u_c)
    std::fill(total, total + size, 0.0);
    const std::optional<double> clip = theory::clip_norm(b.step);
    for_each_client(
        b, [](int /*client*/, double* /*buffer*/) -> const double* { return nullptr; },
        [&](int client, const double* yc) {
          std::array<double, kLanes> scale{};
          scale.fill(1.0);
          if (clip) {
            std::array<double, kLanes> norm2{};
            for (int i = 0; i < b.dim; ++i) {
              for (int lane = 0; lane < kLanes; ++lane) {
                const std::size_t j = static_cast<std::size_t>(i) * kLanes + lane;
                norm2[lane] += (yc[j] - b.x[j]) * (yc[j] - b.x[j]);
              }
            }
            for (int lane = 0; lane < kLanes; ++lane) {
              const double norm = std::sqrt(norm2[lane]);
              if (norm > *clip) scale[lane] = *clip / norm;  // THEORY (A5): clipping
            }
          }
          const double p = b.weights == nullptr ? 1.0 : b.weights[client];
          for (int i = 0; i < b.dim; ++i) {
            for (int lane = 0; lane < kLanes; ++lane) {
              const std::size_t j = static_cast<std::size_t>(i) * kLanes + lane;
              total[j] += p * scale[lane] * (yc[j] - b.x[j]);
            }
          }
        });
    const double divisor = b.weights == nullptr ? b.clients : 1.0;
    for (std::size_t j = 0; j < size; ++j) b.x[j] += total[j] / divisor;  // x_t + Σ_c p_c u_c
    const double sigma = theory::dp_noise(b.step);
    if (sigma == 0.0) return;
    for (int lane = 0; lane < b.active; ++lane) {  // THEORY (A5): the server's N(0, σ_dp² I)
      Stream stream(b.address.seed, Purpose::server_noise, b.address.chain + lane, 0,
                    b.address.round);
      for (int i = 0; i < b.dim; ++i) {
        b.x[static_cast<std::size_t>(i) * kLanes + lane] += sigma * stream.normal();
      }
    }
  }
};

const bool registered = RoundRegistry::add("dpfedavg", std::make_shared<DpFedAvgRound>());

}  // namespace
}  // namespace fedverify::estimators
