// The algorithms of THEORY §1 and the step-size setting a prediction or simulation is made in.
#pragma once

#include <string>

namespace fedverify::theory {

enum class Algorithm { sgd, fedavg, scaffold, fedrr };

// FedRR's two runs at γ and 2γ: independent noise (default, THEORY R2) or the same noise.
enum class NoiseCoupling { independent, shared };

struct StepSetting {
  double gamma = 0;     // γ > 0
  int local_steps = 1;  // H ≥ 1
};

// "sgd" | "fedavg" | "scaffold" | "fedrr"; throws InputError naming `field` otherwise.
Algorithm parse_algorithm(const std::string& name, const std::string& field = "--algo");
std::string to_string(Algorithm algorithm);

// Throws InputError naming the field when γ ≤ 0 or not finite, or H < 1; SGD requires H = 1.
void validate(Algorithm algorithm, const StepSetting& setting);

}  // namespace fedverify::theory
