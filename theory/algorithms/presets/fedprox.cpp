// FedProx (THEORY O3): fedopt with the client optimiser fedprox:mu=μ and the server's plain
// average, run as `--algo fedprox --mu μ` (algorithm_preset.hpp).
#include "theory/problems/algorithm_preset.hpp"

namespace fedverify::theory {
namespace {

[[maybe_unused]] const bool registered = register_preset(
    {.name = "fedprox",
     .base = Algorithm{"fedopt"},
     .summary = "FedProx: fedopt with client fedprox:mu (--mu), server sgd (THEORY O3)",
     .theory_labels = {"O3"},
     .server = "sgd",
     .client = "fedprox",
     .parameters = {
         {.key = "mu", .role = OptimiserRole::client, .optimiser_key = "mu", .required = true}}});

}  // namespace
}  // namespace fedverify::theory
