// High-dimensional instrumental-variable scenarios (THEORY M6; [Thesis] §3.4 (b), Table 3.1's
// FEMNIST/CIFAR10 rows): the treatment X and/or the instrument Z of a low-dimensional data set
// (iv_data.hpp) replaced by images, Image(v) = a random image of digit class
// c(v) = round(min(max(1.5v + 5, 0), 9)). The images are python3-sklearn's 8 × 8 digits (1797,
// pixels scaled to [0, 1]): a PROXY for FEMNIST's 28 × 28 and CIFAR10's 32 × 32 × 3, which Debian
// does not ship. As in the [DeepGMM] authors' image scenarios, the instrument image shows the first
// instrument Z₁ (Z₂ then acts as noise in X), and with an image treatment the causal target is
// g₀ at the image's class, g₀((c − 5)/1.5) (Y keeps the continuous X of the process).
//
//   x:  X = Image(X), Z low-dimensional;   z: Z = Image(Z₁), X low-dimensional;   xz: both.
//
// Randomness: Stream(seed, problem_generator, kImageRole, split) picks the images, so a data set
// is a pure function of (low-dimensional data, variant, table, seed).
#pragma once

#include <cstdint>
#include <string>

#include "theory/problems/iv_data.hpp"
#include "theory/problems/multinomial_problem.hpp"

namespace fedverify::theory {

enum class IvImages { none, x, z, xz };
// "low", "x", "z", "xz" (Table 3.1's subscripts; "low" for the low-dimensional rows).
std::string to_string(IvImages images);

// The digit class of a low-dimensional value, round(min(max(1.5v + 5, 0), 9)).
int image_class(double v);

// `low` with X and/or Z replaced by images from `digits` (labels 0–9, 64 pixel columns in 0–16);
// y and the standardisation are kept, g₀ of an image treatment is
// (g₀((c − 5)/1.5) − y_mean)/y_sd. Throws InputError naming `digits` when a class has no image.
IvData with_images(const IvData& low, IvImages images, IvFunction function, IvProcess process,
                   const ClassificationData& digits, std::uint64_t seed);

}  // namespace fedverify::theory
