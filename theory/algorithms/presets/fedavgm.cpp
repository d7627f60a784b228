// FedAvgM (THEORY O2): fedopt with server momentum β and server step η (default 1) over plain
// client SGD, run as `--algo fedavgm --momentum β [--server-lr η]` (algorithm_preset.hpp).
#include "theory/problems/algorithm_preset.hpp"

namespace fedverify::theory {
namespace {

[[maybe_unused]] const bool registered = register_preset(
    {.name = "fedavgm",
     .base = Algorithm{"fedopt"},
     .summary = "FedAvgM: fedopt with server sgd momentum (--momentum, --server-lr) (THEORY O2)",
     .theory_labels = {"O2"},
     .server = "sgd",
     .client = "sgd",
     .parameters = {{.key = "momentum",
                     .role = OptimiserRole::server,
                     .optimiser_key = "momentum",
                     .required = true},
                    {.key = "server_lr", .role = OptimiserRole::server, .optimiser_key = "lr"}}});

}  // namespace
}  // namespace fedverify::theory
