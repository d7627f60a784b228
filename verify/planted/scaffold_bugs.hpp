// Planted Scaffold bugs (test-only): bugs that real federated-learning frameworks shipped,
// written as Scaffold rounds (estimators/samplers/algorithms/scaffold.hpp) to inject through
// SamplerOptions::round, SimulationSpec::round or claims::Context::round_for. The engine
// tests check that each one changes the trajectory; verify/planted_errors_slowtest.cpp checks that
// the claim catalogue catches each one.
#pragma once

#include <memory>
#include <span>

#include "estimators/samplers/round.hpp"
#include "verify/planted/named.hpp"

namespace fedverify::verify::planted {

enum class ScaffoldBug {
  random_control_init,      // client variates c_i start at N(0, I) instead of 0
  correction_sign_flipped,  // local step y ← y − γ(g − c + c_i)
  server_adds_new_variate,  // server c ← c + (1/N) Σ c_i⁺ instead of the increments
};

// Every bug with its name, in the order above.
std::span<const Named<ScaffoldBug>> scaffold_bugs();

// The Scaffold round with `bug` planted.
std::shared_ptr<const estimators::RoundSampler> scaffold_round_with(ScaffoldBug bug);

}  // namespace fedverify::verify::planted
