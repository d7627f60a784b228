// Sampler options of the engine's unit tests (tests only).
#pragma once

#include <cstdint>

#include "estimators/samplers/chains.hpp"
#include "theory/problems/algorithm.hpp"

namespace fedverify::verify {

// Algorithm `algorithm` at step γ with H local steps, seed `seed`; every other option default.
inline estimators::SamplerOptions options(theory::Algorithm algorithm, double gamma, int h,
                                          std::uint64_t seed = 3) {
  estimators::SamplerOptions o;
  o.algorithm = algorithm;
  o.step = {gamma, h};
  o.seed = seed;
  return o;
}

}  // namespace fedverify::verify
