// FedDyn's round (docs/THEORY-FedDyn.md (FD0)): FeddynRound<StandardFeddyn>, feddyn.hpp.
#include "estimators/samplers/algorithms/feddyn.hpp"

#include <memory>

namespace fedverify::estimators {
namespace {

[[maybe_unused]] const bool registered =
    RoundRegistry::add("feddyn", std::make_shared<FeddynRound<StandardFeddyn>>());

}  // namespace
}  // namespace fedverify::estimators
