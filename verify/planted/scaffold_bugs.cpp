#include "verify/planted/scaffold_bugs.hpp"

#include "estimators/samplers/algorithms/scaffold.hpp"
#include "theory/base/rng.hpp"

namespace fedverify::verify::planted {

namespace {

using estimators::AuxiliaryStart;
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

constexpr Named<ScaffoldBug> kBugs[] = {
    {ScaffoldBug::random_control_init, "random_control_init"},
    {ScaffoldBug::correction_sign_flipped, "correction_sign_flipped"},
    {ScaffoldBug::server_adds_new_variate, "server_adds_new_variate"},
};

}  // namespace

std::span<const Named<ScaffoldBug>> scaffold_bugs() { return kBugs; }

std::shared_ptr<const estimators::RoundSampler> scaffold_round_with(ScaffoldBug bug) {
  switch (bug) {
    case ScaffoldBug::random_control_init:
      return std::make_shared<ScaffoldRound<RandomControlInit>>();
    case ScaffoldBug::correction_sign_flipped:
      return std::make_shared<ScaffoldRound<CorrectionSignFlipped>>();
    case ScaffoldBug::server_adds_new_variate:
      return std::make_shared<ScaffoldRound<ServerAddsNewVariate>>();
  }
  return nullptr;
}

}  // namespace fedverify::verify::planted
