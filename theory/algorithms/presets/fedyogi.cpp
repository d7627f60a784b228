// FedYogi (THEORY O1, O0; Reddi et al. 2021): fedopt with Yogi on the server over plain client
// SGD, run as `--algo fedyogi [--server-lr η] [--beta1 β₁] [--beta2 β₂] [--eps ε]`
// (algorithm_preset.hpp); keys not given take the yogi row's defaults
// (theory/problems/optimiser.cpp).
#include "theory/problems/algorithm_preset.hpp"

namespace fedverify::theory {
namespace {

[[maybe_unused]] const bool registered = register_preset(
    {.name = "fedyogi",
     .base = Algorithm{"fedopt"},
     .summary =
         "FedYogi: fedopt with server yogi (--server-lr, --beta1, --beta2, --eps) (THEORY O1)",
     .theory_labels = {"O0", "O1"},
     .server = "yogi",
     .client = "sgd",
     .parameters = adaptive_server_parameters()});

}  // namespace
}  // namespace fedverify::theory
