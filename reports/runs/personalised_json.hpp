// `fedverify predict|simulate --algo l2gd|l2sgd|l2sgd+`: the JSON objects the CLI prints for the
// personalised family of algorithms (THEORY §7; AlgorithmFamily::personalised in
// theory/problems/algorithm_registry.hpp, which is how reports/cli/main.cpp routes here):
//   fedverify predict  --algo l2gd --lambda Λ [--p P] --gamma α --problem FILE
//   fedverify simulate --algo l2gd --lambda Λ [--p P] --gamma α --problem FILE
//                      --chains K --rounds T --seed S [--threads P]
//                      [--uplink C] [--downlink C]      (C as in parse_compressor)
//                      [--participating TAU]            (partial participation, 2 ≤ τ ≤ n)
//   fedverify simulate --algo l2sgd+|l2sgd|l2gd+ …     (L2SGD+ / L2SGD / L2GD+, no compressors)
//   fedverify simulate --algo l2sgd++ [--participating TAU]  (L2SGD++: τ working clients)
// When --p is omitted, p = p* = λ/(λ + L).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "theory/algorithms/l2gd.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/problem.hpp"

namespace fedverify::reports {

// Number of iterations of `mse_exact` / `mse_bound` in predict: k = 0, …, 100.
inline constexpr int kL2gdPredictIterations = 100;

// Fields: algorithm, lambda, p, p_star, alpha, x_lambda (n rows of d numbers), alpha_max,
// L_cal, rate, sigma2, neighbourhood, mu, L, communications_per_iteration (p(1 − p)),
// communications_coefficient ((2λ/(λ+L))(L/μ), multiply by log(1/ε)), gd_communications_coefficient
// (L/μ), mse_bound (the (P3) bound for k = 0..100 from x⁰ = 0); for quadratic problems also
// mse_exact = E‖x^k − x(λ)‖², k = 0..100, from x⁰ = 0 (101 values).
// The setting is theory::l2gd_setting's view of the run (p resolved: given or p*). Throws
// InputError naming the field for invalid λ, p, α (theory::validate).
nlohmann::json predict_l2gd(const theory::Problem& problem, const theory::L2gdSetting& setting);

struct L2gdSimulateOptions {
  theory::L2gdSetting setting;  // theory::l2gd_setting(run, problem): λ, p (given or p*), α
  int chains = 256;
  int iterations = 100;  // --rounds: L2GD iterations k = 0..T
  std::uint64_t seed = 1;
  int threads = 0;
  theory::CompressorSpec uplink;
  theory::CompressorSpec downlink;
  int participating = 0;  // --participating τ: clients per averaging step (0: all n)
  std::int64_t memory_budget = theory::limits::kDefaultMemoryBudget;  // --memory-budget BYTES
  std::string algorithm = "l2gd";  // --algo: l2gd | l2gd+ | l2sgd | l2sgd+ | l2sgd++ (THEORY P7)
};

// Fields: algorithm, lambda, p, p_star, alpha, chains, iterations, seed, x_lambda, mse (mean
// over chains of ‖x^k − x(λ)‖², k = 0..T), mse_se, mse_bound, final_mean, final_se (n rows),
// rounds, averaging_steps, bits, participations (means per chain), participating (τ),
// uplink/downlink (with ω), diverged, seconds. A diverged run (estimators: a chain left the finite
// numbers or a statistic overflowed) has no mse, mse_se, final_mean, final_se, and a
// `divergence` message instead. Every other number is finite or the input is refused naming the
// flag (InputError). l2gd+, l2sgd+ and l2sgd++ add `variance_reduced` (THEORY (P7): L_tilde,
// L_cal, alpha_max, mu_term, memory_refresh, coin_refresh, terms, working_fraction); l2gd with a
// compressor (all clients) adds `compressed` (THEORY (P8): kappa, L_cal, alpha_max, rate, sigma2,
// neighbourhood, mse_bound, derived_for). l2gd+, l2sgd, l2sgd+, l2sgd++
// (estimators::simulate_l2sgd_plus) take no compressors, and only l2sgd++ takes --participating
// (its τ working clients per local step): InputError naming --uplink, --downlink or
// --participating; an unknown algorithm names --algo.
nlohmann::json simulate_l2gd(const theory::Problem& problem, const L2gdSimulateOptions& options);

// "none" | "random-k:K" | "qsgd:S" (random dithering, S levels, 1 ≤ S ≤
// theory::limits::kMaxCompressorLevels) | "natural". Throws InputError naming `field` otherwise
// (random-k's 1 ≤ K ≤ d is checked against the problem later).
theory::CompressorSpec parse_compressor(const std::string& text, const std::string& field);
std::string to_string(const theory::CompressorSpec& spec);

}  // namespace fedverify::reports
