// Unbiased compressors 𝒬 of THEORY (P5): E𝒬(x) = x, E‖𝒬(x) − x‖² ≤ ω‖x‖² (ω in
// theory/closed_forms/personalised.hpp, compressor_omega). Randomness only through a Stream.
#pragma once

#include <cstdint>

#include "theory/base/linalg.hpp"
#include "theory/base/rng.hpp"
#include "theory/problems/personalised_objective.hpp"

namespace fedverify::estimators {

// Random-k sparsification: keep k coordinates drawn uniformly without replacement, scaled by
// d/k. E‖𝒬(x) − x‖² = (d/k − 1)‖x‖² for every x (the bound is an equality).
Vector random_k(const Vector& x, int k, Stream& stream);

// Random dithering / QSGD with s levels: 𝒬(x)_i = ‖x‖ sign(x_i) ℓ_i / s, where ℓ_i is
// ⌊s|x_i|/‖x‖⌋ + 1 with probability equal to the fractional part q_i of s|x_i|/‖x‖, and ⌊·⌋
// otherwise. E‖𝒬(x) − x‖² = (‖x‖²/s²) Σ_i q_i (1 − q_i)   (dithering_variance).
Vector random_dithering(const Vector& x, int levels, Stream& stream);
double dithering_variance(const Vector& x, int levels);

// Natural compression: each coordinate rounded at random to one of the two neighbouring powers
// of two, 2^a ≤ |t| ≤ 2^{a+1}, unbiasedly. Per coordinate E(𝒬 − t)² = (2^{a+1} − |t|)(|t| − 2^a),
// at most t²/8 (equality at |t| = (4/3)·2^a).
Vector natural_compression(const Vector& x, Stream& stream);
double natural_variance(const Vector& x);

// Dispatch on a theory::CompressorSpec (identity returns x).
Vector compress(const theory::CompressorSpec& spec, const Vector& x, Stream& stream);

// Bits needed to transmit one compressed d-vector (64-bit floats, no entropy coding):
// identity 64d; random-k k(64 + ⌈log₂ d⌉); dithering 64 + d(1 + ⌈log₂(s + 1)⌉) (norm, then sign
// and level per coordinate); natural 9d (sign and 8-bit exponent, as in [CL2GD]).
std::int64_t compressed_bits(const theory::CompressorSpec& spec, int dim);

}  // namespace fedverify::estimators
