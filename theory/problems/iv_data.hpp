// The low-dimensional instrumental-variable scenarios of Table 3.1 (THEORY M6; thesis (3.21)–
// (3.22)) and the [DeepGMM] authors' process, as seeded generators, with the Dirichlet client
// split of the optimiser study (logistic_data.hpp's dirichlet_class_assignment, reused).
//
// thesis:  Y = g₀(X) + e + δ,  X = Z₁ + Z₂ + e + γ,  (Z₁, Z₂) ~ U([−3, 3]²), e ~ N(0, 1),
//          γ, δ ~ N(0, 0.1);  g₀ ∈ {|x|, 1{x ≥ 0}, x}.
// deepgmm: X = Z₁ + e + γ, Y = g₀(X) + 2e + δ, Z ~ U([−3, 3]²) (Z₂ unused), γ, δ ~ N(0, 0.1²),
//          step g₀ = 1 + 1.5·1{x ≥ 0} (their AGMMZoo scenario with one instrument, iv_strength ½).
//
// "N(0, 0.1)": read as standard deviation 0.1 by default (noise_scale = sd), because the
// [DeepGMM] authors' code and the thesis authors' fork of it draw np.random.normal(0, .1), whose
// second argument is the standard deviation; noise_scale = variance reads it as variance 0.1
// (sd 0.316). The deepgmm process always uses sd 0.1.
//
// Y is standardised with the TRAINING split's mean and (population) standard deviation, and g₀
// with the same affine map (as the authors' Standardizer), so test MSEs are on the scale of the
// standardised Y. Clients: the training split only is divided, by Dirichlet(α) over `bins`
// equal-count bins of X (a regression has no labels; binning the treatment gives each client a
// different region of X — a covariate shift, the heterogeneity a shared g must bridge). The
// thesis does not say how its Dirichlet split treats a continuous outcome; this is our choice.
//
// Randomness: Stream(seed, problem_generator, role, split) with the roles of iv_data.cpp, so a
// data set is a pure function of its options, and each split of the others.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "theory/problems/deepgmm_game.hpp"

namespace fedverify::theory {

enum class IvFunction { absolute, step, linear };
enum class IvProcess { thesis, deepgmm };
enum class NoiseScale { sd, variance };

// "absolute" / "step" / "linear" (Table 3.1's row names, lower case); parse throws InputError
// naming `field` for another name.
std::string to_string(IvFunction function);
IvFunction parse_iv_function(const std::string& name, const std::string& field);

struct IvOptions {
  IvFunction function = IvFunction::absolute;
  IvProcess process = IvProcess::thesis;
  NoiseScale noise_scale = NoiseScale::sd;
  int samples = 20000;  // per split (train, validation, test); the deepgmm process used 2000
  int clients = 10;
  double dirichlet = 0.3;
  int bins = 10;
  std::uint64_t seed = 1;
};

// One split: the batch (z: 2 × n, x: 1 × n, y: 1 × n; y standardised as above) and g₀(X)
// on the same scale.
struct IvSample {
  IvBatch data;
  RowVector g0;
};

struct IvData {
  IvSample train, validation, test;
  std::vector<std::vector<int>> clients;  // training columns of each client (increasing)
  double y_mean = 0, y_sd = 1;            // the standardisation (training Y)
};

// g₀(x) of the process, unstandardised.
double true_function(IvFunction function, IvProcess process, double x);

// Throws InputError naming the field for samples < max(clients, bins) or < 2, clients < 1,
// bins < 1, or dirichlet ≤ 0 / not finite.
IvData generate_iv(const IvOptions& options);

// The columns `columns` of `batch`.
IvBatch select_columns(const IvBatch& batch, const std::vector<int>& columns);

}  // namespace fedverify::theory
