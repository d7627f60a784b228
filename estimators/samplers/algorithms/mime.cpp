// Mime's round (docs/THEORY-Mime.md (MI0)): MimeRound<StandardMime>, mime.hpp.
#include "estimators/samplers/algorithms/mime.hpp"

#include <memory>

namespace fedverify::estimators {
namespace {

[[maybe_unused]] const bool registered =
    RoundRegistry::add("mime", std::make_shared<MimeRound<StandardMime>>());

}  // namespace
}  // namespace fedverify::estimators
