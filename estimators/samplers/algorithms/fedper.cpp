// FedPer's round (docs/THEORY.md (A7)): FedperRound<StandardFedper>, fedper.hpp.
#include "estimators/samplers/algorithms/fedper.hpp"

#include <memory>

namespace fedverify::estimators {
namespace {

[[maybe_unused]] const bool registered =
    RoundRegistry::add("fedper", std::make_shared<FedperRound<StandardFedper>>());

}  // namespace
}  // namespace fedverify::estimators
