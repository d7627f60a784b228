// Planted Scaffold bugs (test-only): bugs that real federated-learning frameworks shipped,
// written as Scaffold rounds (estimators/samplers/algorithms/scaffold.hpp) to inject through
// SamplerOptions::round, SimulationSpec::round or claims::Context::round_for. The engine
// tests check that each one changes the trajectory; the detection-power table
// (verify/power/power_table.cpp) measures how often each claim of the catalogue catches each one.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "estimators/samplers/round.hpp"

namespace fedverify::verify::planted {

enum class ScaffoldBug {
  random_control_init,       // client variates c_i start at N(0, I) instead of 0
  correction_sign_flipped,   // local step y ← y − γ(g − c + c_i)
  server_adds_new_variate,   // server c ← c + (1/N) Σ c_i⁺ instead of the increments
  variate_steps_one,         // c_i⁺ = c_i − c + (x − y_i)/γ: K = 1 local step instead of H
                             //   (the epoch count where the step count belongs)
  variate_steps_h_plus_one,  // c_i⁺ = c_i − c + (x − y_i)/((H + 1)γ): an off-by-one in K
};

// Every bug, in the order above.
std::vector<ScaffoldBug> scaffold_bugs();
std::string to_string(ScaffoldBug bug);
std::string describe(ScaffoldBug bug);  // what the bug does, in one line

// The Scaffold round with `bug` planted.
std::shared_ptr<const estimators::RoundSampler> scaffold_round_with(ScaffoldBug bug);

// Scaffold with client sampling (the engine's Scaffold has full participation; issue 14 adds
// sampling to it): each round, chain k draws a uniformly random set S of m = max(1, ⌊fraction·N⌋)
// of the N clients (Stream(seed, Purpose::test, k, 0, t), a partial Fisher–Yates shuffle); the
// clients of S run their H local steps with ξ_c = c − c_c, x_{t+1} = (1/|S|) Σ_{c∈S} y_c, c_c⁺ as
// in (S0) for c ∈ S only, and the server variate c ← c + (1/N) Σ_{c∈S} (c_c⁺ − c_c) (Karimireddy et
// al. 2020, Algorithm 1), which keeps c = (1/N) Σ_c c_c, i.e. Σ_c ξ_c = 0. With
// `average_over_sampled` the server divides by |S| instead of N — the bug frameworks shipped,
// invisible at full participation (|S| = N) and breaking Σ_c ξ_c = 0 otherwise. `fraction` in
// (0, 1].
std::shared_ptr<const estimators::RoundSampler> sampled_scaffold_round(double fraction,
                                                                       bool average_over_sampled);

}  // namespace fedverify::verify::planted
