#include "verify/planted/scaffold_bugs.hpp"

#include <algorithm>
#include <array>
#include <numeric>

#include "estimators/samplers/algorithms/scaffold.hpp"
#include "theory/base/normals.hpp"
#include "verify/planted/entries.hpp"

namespace fedverify::verify::planted {

namespace {

using estimators::AuxiliaryStart;
using estimators::RoundBlock;
using estimators::RoundScratch;
using estimators::ScaffoldRound;
using estimators::StandardScaffold;
namespace layout = estimators::scaffold_layout;

// c_i(0) ~ N(0, I): chain k, client i draws its d normals from the stream
// (seed, initial_state, k, i, round 0).
struct RandomControlInit : StandardScaffold {
  static void initialise(const AuxiliaryStart& start, std::vector<Matrix>& auxiliary) {
    std::vector<double> draws(start.dim);
    for (int c = 0; c < start.clients; ++c) {
      Matrix& variate = auxiliary[layout::client(c)];
      for (int chain = 0; chain < start.chains; ++chain) {
        estimators::normals_into(
            {start.seed, estimators::Purpose::initial_state, static_cast<std::uint32_t>(chain),
             static_cast<std::uint32_t>(c), 0},
            draws.data(), start.dim);
        for (int i = 0; i < start.dim; ++i) variate(i, chain) = draws[i];
      }
    }
  }
};

// ξ_c = −(c − c_i): the local step y ← y − γ(g − c + c_i).
struct CorrectionSignFlipped : StandardScaffold {
  static double correction(double server, double client) {
    return -StandardScaffold::correction(server, client);
  }
};

// The server adds c_i⁺ instead of c_i⁺ − c_i.
struct ServerAddsNewVariate : StandardScaffold {
  static double server_increment(double updated, double /*previous*/) { return updated; }
};

// c_i⁺ = c_i − c + (x − y_i)/(Kγ) with K = 1.
struct VariateStepsOne : StandardScaffold {
  static int variate_steps(int /*local_steps*/) { return 1; }
};

// c_i⁺ = c_i − c + (x − y_i)/(Kγ) with K = H + 1.
struct VariateStepsHPlusOne : StandardScaffold {
  static int variate_steps(int local_steps) { return local_steps + 1; }
};

// Scaffold with client sampling (scaffold_bugs.hpp). It keeps the auxiliary states, their start
// and the stacked state of the engine's round; every client still runs its local steps (its
// noise is then that of full participation), and the round uses only those of S.
class SampledScaffold final : public ScaffoldRound<StandardScaffold> {
 public:
  SampledScaffold(double fraction, bool average_over_sampled)
      : fraction_(fraction), average_over_sampled_(average_over_sampled) {}

  void round(const RoundBlock& b) const override {
    const std::size_t size = b.size();
    const int m = std::max(1, static_cast<int>(fraction_ * b.clients));
    // member[c·kLanes + lane] = 1 when client c is in the lane's S this round.
    double* member = b.scratch.buffer(RoundScratch::kFirstFree + 2,
                                      static_cast<std::size_t>(b.clients) * estimators::kLanes);
    std::fill(member, member + static_cast<std::size_t>(b.clients) * estimators::kLanes, 1.0);
    std::vector<int> order(b.clients);
    for (int lane = 0; lane < b.active; ++lane) {
      estimators::Stream s(b.address.seed, estimators::Purpose::test, b.address.chain + lane, 0,
                           b.address.round);
      std::iota(order.begin(), order.end(), 0);
      for (int i = 0; i < m; ++i) {  // partial Fisher–Yates: order[0 … m − 1] is S
        const auto j = i + static_cast<int>(s.below(static_cast<std::uint64_t>(b.clients - i)));
        std::swap(order[i], order[j]);
      }
      for (int i = 0; i < b.clients; ++i)
        member[order[i] * estimators::kLanes + lane] = i < m ? 1.0 : 0.0;
    }
    double* server = b.auxiliary[layout::kServer];
    double* total = b.scratch.buffer(RoundScratch::kFirstFree, size);      // Σ_{c∈S} y_c
    double* delta = b.scratch.buffer(RoundScratch::kFirstFree + 1, size);  // Σ_{c∈S} Δc_c
    std::fill(total, total + size, 0.0);
    std::fill(delta, delta + size, 0.0);
    const double* x = b.x;
    const double inv = 1.0 / (b.local_steps * b.gamma);
    estimators::for_each_client(
        b,
        [&](int c, double* xi) -> const double* {
          const double* client = b.auxiliary[layout::client(c)];
          for (std::size_t j = 0; j < size; ++j) xi[j] = server[j] - client[j];
          return xi;
        },
        [&](int c, const double* yc) {
          double* client = b.auxiliary[layout::client(c)];
          const double* in = member + static_cast<std::size_t>(c) * estimators::kLanes;
          for (std::size_t j = 0; j < size; ++j) {
            if (in[j % estimators::kLanes] == 0.0) continue;
            total[j] += yc[j];
            const double updated = client[j] - server[j] + (x[j] - yc[j]) * inv;  // c_c⁺
            delta[j] += updated - client[j];
            client[j] = updated;
          }
        });
    const double server_divisor = average_over_sampled_ ? m : b.clients;
    for (std::size_t j = 0; j < size; ++j) b.x[j] = total[j] / m;
    for (std::size_t j = 0; j < size; ++j) server[j] += delta[j] / server_divisor;
  }

 private:
  double fraction_;
  bool average_over_sampled_;
};

}  // namespace

namespace {

// Every bug once: its name, what it does, its round.
struct Entry {
  ScaffoldBug key;
  const char* name;
  const char* description;
  std::shared_ptr<const estimators::RoundSampler> (*round)();
};

template <class Variant>
std::shared_ptr<const estimators::RoundSampler> round_of() {
  return std::make_shared<ScaffoldRound<Variant>>();
}

const std::array<Entry, 5> kBugs = {{
    {ScaffoldBug::random_control_init, "random_control_init",
     "client variates c_i start at N(0, I) instead of 0", &round_of<RandomControlInit>},
    {ScaffoldBug::correction_sign_flipped, "correction_sign_flipped",
     "local step y ← y − γ(g − c + c_i): the correction with the wrong sign",
     &round_of<CorrectionSignFlipped>},
    {ScaffoldBug::server_adds_new_variate, "server_adds_new_variate",
     "server c ← c + (1/N) Σ c_i⁺ instead of c + (1/N) Σ (c_i⁺ − c_i)",
     &round_of<ServerAddsNewVariate>},
    {ScaffoldBug::variate_steps_one, "variate_steps_one",
     "c_i⁺ = c_i − c + (x − y_i)/(Kγ) with K = 1 instead of H (epochs for steps)",
     &round_of<VariateStepsOne>},
    {ScaffoldBug::variate_steps_h_plus_one, "variate_steps_h_plus_one",
     "c_i⁺ = c_i − c + (x − y_i)/(Kγ) with K = H + 1 instead of H (off by one)",
     &round_of<VariateStepsHPlusOne>},
}};

}  // namespace

std::vector<ScaffoldBug> scaffold_bugs() { return keys_of(kBugs); }

std::string to_string(ScaffoldBug bug) { return entry_of(kBugs, bug).name; }

std::string describe(ScaffoldBug bug) { return entry_of(kBugs, bug).description; }

std::shared_ptr<const estimators::RoundSampler> scaffold_round_with(ScaffoldBug bug) {
  return entry_of(kBugs, bug).round();
}

std::shared_ptr<const estimators::RoundSampler> sampled_scaffold_round(double fraction,
                                                                       bool average_over_sampled) {
  return std::make_shared<SampledScaffold>(fraction, average_over_sampled);
}

}  // namespace fedverify::verify::planted
