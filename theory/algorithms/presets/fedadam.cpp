// FedAdam (THEORY O1, O0): fedopt with Adam on the server over plain client SGD, run as
// `--algo fedadam [--server-lr η] [--beta1 β₁] [--beta2 β₂] [--eps ε]` (algorithm_preset.hpp);
// keys not given take the adam row's defaults (theory/problems/optimiser.cpp).
#include "theory/problems/algorithm_preset.hpp"

namespace fedverify::theory {
namespace {

[[maybe_unused]] const bool registered = register_preset(
    {.name = "fedadam",
     .base = Algorithm{"fedopt"},
     .summary =
         "FedAdam: fedopt with server adam (--server-lr, --beta1, --beta2, --eps) (THEORY O1)",
     .theory_labels = {"O0", "O1"},
     .server = "adam",
     .client = "sgd",
     .parameters = adaptive_server_parameters()});

}  // namespace
}  // namespace fedverify::theory
