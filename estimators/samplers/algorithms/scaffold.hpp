// Scaffold (THEORY S0), in the control-variate form of Karimireddy et al. (2020, option II):
// server variate c and client variates c_i (auxiliary per-chain states, all 0 at t = 0), and
//
//   y_c ← x_t;  y_c ← y_c − γ (g_c(y_c) + ξ_c)  (H times),  ξ_c = c − c_c,
//   c_c⁺ = c_c − c + (x_t − y_c)/(Hγ),
//   x_{t+1} = (1/N) Σ_c y_c,   c ← c + (1/N) Σ_c (c_c⁺ − c_c).                   THEORY (S0)
// and with a global step η_g (--server-lr) x_{t+1} = x_t + η_g((1/N) Σ_c y_c − x_t).   (S9)
//
// The variation points (the correction ξ_c, the server's increment c_c⁺ − c_c, the number of local
// steps the variate update divides by, the start of the client variates) are the static members of
// a Variant policy, inlined into the round: a test can plant a bug by deriving from
// StandardScaffold and hiding one member (verify/planted), without any cost or switch in the
// shipped ScaffoldRound<StandardScaffold> (registered as "scaffold").
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "estimators/samplers/chains.hpp"
#include "estimators/samplers/round.hpp"
#include "theory/problems/scaffold_setting.hpp"

namespace fedverify::estimators {

// The auxiliary states of Scaffold, in order: the server variate c, then c_i of client i.
namespace scaffold_layout {
inline constexpr int kServer = 0;
inline constexpr int client(int i) { return 1 + i; }
}  // namespace scaffold_layout

// The Scaffold of THEORY (S0).
struct StandardScaffold {
  // ξ_c = c − c_c, the correction of client c's local steps.                    THEORY (S0)
  static double correction(double server, double client) { return server - client; }
  // c_c⁺ = c_c − c + (x_t − y_c)/(Kγ), given 1/(Kγ) (the study's trainer applies it too).  (S0)
  static double updated_variate(double client, double server, double x, double y,
                                double inverse_steps_gamma) {
    return client - server + (x - y) * inverse_steps_gamma;
  }
  // What client c adds to the server's sum: c_c⁺ − c_c.                         THEORY (S0)
  static double server_increment(double updated, double previous) { return updated - previous; }
  // The number of local steps K in c_c⁺ = c_c − c + (x_t − y_c)/(Kγ): K = H.        THEORY (S0)
  static int variate_steps(int local_steps) { return local_steps; }
  // The variates at t = 0 (auxiliary in scaffold_layout order, each d×K and already 0): 0.
  static void initialise(const AuxiliaryStart& /*start*/, std::vector<Matrix>& /*auxiliary*/) {}
};

// (Not final: verify/planted derives a round with client sampling from it, which keeps its
// auxiliary states and stacked state.)
template <class Variant = StandardScaffold>
class ScaffoldRound : public RoundSampler {
 public:
  void round(const RoundBlock& b) const override {
    const std::size_t size = b.size();
    double* server = b.auxiliary[scaffold_layout::kServer];
    double* total = b.scratch.buffer(RoundScratch::kFirstFree, size);      // Σ_c y_c
    double* delta = b.scratch.buffer(RoundScratch::kFirstFree + 1, size);  // Σ_c (c_c⁺ − c_c)
    std::fill(total, total + size, 0.0);
    std::fill(delta, delta + size, 0.0);
    const double* x = b.x;
    for_each_client(
        b,
        [&](int c, double* xi) -> const double* {
          const double* client = b.auxiliary[scaffold_layout::client(c)];
          for (std::size_t j = 0; j < size; ++j) xi[j] = Variant::correction(server[j], client[j]);
          return xi;
        },
        [&](int c, const double* yc) {
          for (std::size_t j = 0; j < size; ++j) total[j] += yc[j];
          double* client = b.auxiliary[scaffold_layout::client(c)];
          const double inv = 1.0 / (Variant::variate_steps(b.local_steps) * b.gamma);
          for (std::size_t j = 0; j < size; ++j) {
            const double updated =
                Variant::updated_variate(client[j], server[j], x[j], yc[j], inv);  // c_c⁺
            delta[j] += Variant::server_increment(updated, client[j]);
            client[j] = updated;
          }
        });
    // x_{t+1} = x_t + η_g((1/N) Σ_c y_c − x_t); η_g = 1 (averaging) unless --server-lr.  (S9)
    const double eta = theory::scaffold_server_lr(b.step);
    if (eta == 1.0) {
      for (std::size_t j = 0; j < size; ++j) b.x[j] = total[j] / b.clients;
    } else {
      for (std::size_t j = 0; j < size; ++j) b.x[j] += eta * (total[j] / b.clients - b.x[j]);
    }
    for (std::size_t j = 0; j < size; ++j) server[j] += delta[j] / b.clients;
  }

  // The server variate is checked for divergence (the client variates follow x and c).
  std::vector<AuxiliaryState> auxiliary_states(const SamplerOptions& /*options*/,
                                               int clients) const override {
    std::vector<AuxiliaryState> states{{"server control variate c", true}};
    for (int i = 0; i < clients; ++i) states.push_back({"client control variate c_i", false});
    return states;
  }

  void initialise_auxiliary(const AuxiliaryStart& start,
                            std::vector<Matrix>& auxiliary) const override {
    Variant::initialise(start, auxiliary);
  }

  // (x, ξ_1, …, ξ_N), ξ_i = c − c_i: the order of theory::scaffold_exact.
  Matrix stacked_state(const Matrix& x, const std::vector<Matrix>& auxiliary) const override {
    const auto d = x.rows();
    const int n = static_cast<int>(auxiliary.size()) - 1;
    Matrix z(d * (n + 1), x.cols());
    z.topRows(d) = x;
    for (int i = 0; i < n; ++i) {
      z.middleRows(d * (1 + i), d) =
          auxiliary[scaffold_layout::kServer] - auxiliary[scaffold_layout::client(i)];
    }
    return z;
  }
};

// ξ_i = c − c_i of every chain (d×K) of a Scaffold ensemble; throws InputError for another
// algorithm.
Matrix scaffold_correction(const ChainEnsemble& ensemble, int client);

}  // namespace fedverify::estimators
