// RFA's robust aggregation rules (Pillutla, Kakade & Harchaoui 2022; the thesis §2.1: "geometric
// median or trimmed mean … resilience to noisy updates"), THEORY (A6): the formulas, used by the
// samplers (estimators/samplers/algorithms/rfa.cpp, trimmed_mean.cpp) per chain and by the closed
// forms (theory/closed_forms/rfa_fixed_point.hpp), and their parameters, declared once for the
// registrations (theory/algorithms/rfa.cpp, trimmed_mean.cpp) and the samplers, which read them:
//   rfa           the smoothed geometric median: --weiszfeld-steps R, --smoothing ν;
//   trimmed-mean  the coordinate-wise trimmed mean: --trim β (0: the plain mean);
// and, for both, the threat model of the resilience claim: the last m clients (--corrupted m) send
// x_t + s·ζ (--corruption s, ζ ~ N(0, I) fresh every round) instead of their local iterate.
#pragma once

#include <string_view>

#include "theory/base/linalg.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/algorithm_parameter.hpp"

namespace fedverify::theory {

inline constexpr std::string_view kWeiszfeldStepsKey = "weiszfeld_steps";
inline constexpr std::string_view kSmoothingKey = "smoothing";
inline constexpr std::string_view kTrimKey = "trim";
inline constexpr std::string_view kCorruptedKey = "corrupted";
inline constexpr std::string_view kCorruptionKey = "corruption";

inline AlgorithmParameter weiszfeld_steps_parameter() {
  return {.key = kWeiszfeldStepsKey,
          .meaning = "Smoothed Weiszfeld iterations R of the geometric median, from the mean",
          .theory_label = "A6",
          .min = 1,
          .max = 1000,
          .integer = true,
          .default_value = {3.0}};
}

inline AlgorithmParameter smoothing_parameter() {
  return {.key = kSmoothingKey,
          .meaning = "Smoothing ν of the geometric median (distances below ν count as ν)",
          .theory_label = "A6",
          .min = 0,
          .open_min = true,
          .default_value = {1e-6}};
}

inline AlgorithmParameter trim_parameter() {
  return {.key = kTrimKey,
          .meaning = "Fraction β trimmed from each side per coordinate (0: the plain mean)",
          .theory_label = "A6",
          .min = 0,
          .max = 0.5,
          .open_max = true,
          .default_value = {0.1}};
}

inline AlgorithmParameter corrupted_parameter() {
  return {.key = kCorruptedKey,
          .meaning = "Number m of corrupted clients (the last m send x_t + s·ζ)",
          .theory_label = "A6",
          .min = 0,
          .integer = true,
          .default_value = {0.0}};
}

inline AlgorithmParameter corruption_parameter() {
  return {.key = kCorruptionKey,
          .meaning = "Scale s of the corrupted clients' Gaussian updates",
          .theory_label = "A6",
          .min = 0,
          .default_value = {0.0}};
}

inline int weiszfeld_steps(const RunSetting& s) {
  return static_cast<int>(parameter_value(s, kWeiszfeldStepsKey));
}
inline double smoothing(const RunSetting& s) { return parameter_value(s, kSmoothingKey); }
inline double trim(const RunSetting& s) { return parameter_value(s, kTrimKey); }
inline int corrupted_clients(const RunSetting& s) {
  return static_cast<int>(parameter_value(s, kCorruptedKey));
}
inline double corruption_scale(const RunSetting& s) { return parameter_value(s, kCorruptionKey); }

// The smoothed geometric median of the columns y_c of `points` (d × N) with weights w_c > 0 by
// `iterations` smoothed Weiszfeld steps from the weighted mean (RFA's Algorithm 2):
//   z ← Σ_c β_c y_c / Σ_c β_c,   β_c = w_c / max(ν, ‖z − y_c‖).                     THEORY (A6)
// Its fixed point minimises Σ_c w_c g_ν(‖z − y_c‖), g_ν the Huber-like smoothing of ‖·‖ below ν.
Vector geometric_median(const Matrix& points, const Vector& weights, int iterations, double nu);

// The coordinate-wise trimmed mean: per coordinate, the mean of the N − 2k middle values, k =
// ⌊βN⌋ (β = trim ∈ [0, ½); k = 0: the plain mean, unweighted).                       THEORY (A6)
Vector trimmed_mean(const Matrix& points, double trim);

}  // namespace fedverify::theory
