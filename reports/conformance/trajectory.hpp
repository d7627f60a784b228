// Trajectory mode of `fedverify conformance --trajectory PRECISION` (issue 28 item 2;
// docs/DESIGN-EXTENSIONS.md, "Conformance").
//
// Same seed ⇒ same noise: the oracle's draws are addressed by (seed, chain, client, request j of
// that chain and client), so an implementation that makes the algorithm's requests receives
// exactly the gradients fedverify's own run would, however it interleaves clients and chains.
// Trajectory mode therefore replays every request and every round of K chains over T rounds
// against the algorithm's rule — an exact check, no statistics, with a handful of chains —
// re-synchronised on the implementation's own numbers at each step, so round-off does not
// accumulate (THEORY O3, S1; full participation):
//   request 0 of client i in round t is at x_t (the round's global model);
//   request j + 1 at y_{j+1} = y_j − γ (g_j + μ (y_j − x_t) + c − c_i)   (g_j returned at y_j;
//     μ: FedProx's, else 0; c, c_i: Scaffold's control variates, else 0);
//   x_{t+1} = ȳ = (1/N) Σ_i y_{i,H}, y_{i,H} the step after client i's H-th request; with a
//     server rule (ReplaySetting::server, THEORY O2) Δ = x_t − ȳ, m ← βm + Δ (m = 0 at the start),
//     x_{t+1} = x_t − η_g m (heavy ball) or x_t − η_g(Δ + βm) (Nesterov);
//   Scaffold: c_i⁺ = c_i − c + (x_t − y_{i,H})/(Hγ), c⁺ = c + (1/N) Σ_i (c_i⁺ − c_i), from 0.
// The first request or round that differs is reported: round, chain, client, step, by how much.
//
// Tolerance: each comparison recomputes a few elementwise operations (a step) or an N-term
// average from the exact numbers exchanged (JSON carries doubles to the last bit), so an honest
// implementation computing in precision ε (unit round-off: 2⁻⁵³ for float64, 2⁻²⁴ for float32)
// differs by at most a few ε per operation: the tolerance is kTrajectoryRoundoffs (N + 2) ε times
// the scale of the numbers compared (max |y_j|, γ|g_j|, γ|c − c_i|, γμ|y_j − x_t|, |y_{j+1}| for
// a step; max |x| and |y_{i,H}| for an average). A weight decay λ moves a step by γλ|y|: λ = 1e-4
// at γ = 0.05 is 5e-6 |y|, ≈ 10⁹ float64 tolerances and ≈ 10 float32 ones (N = 3).
#pragma once

#include <string>
#include <vector>

#include "reports/conformance/localise.hpp"
#include "theory/base/linalg.hpp"

namespace fedverify::reports {

enum class Precision { float64, float32 };

// "float64" | "float32"; throws InputError naming `field` otherwise.
Precision parse_precision(const std::string& text, const std::string& field);
std::string to_string(Precision precision);

inline constexpr double kTrajectoryRoundoffs = 8;

// The command line's chains and rounds in trajectory mode: an exact check needs few.
inline constexpr int kTrajectoryChains = 8;
inline constexpr int kTrajectoryRounds = 5;

// The unit round-off of `precision`: 2⁻⁵³ or 2⁻²⁴.
double unit_roundoff(Precision precision);

struct TrajectoryComparison {
  bool agrees = true;
  int rounds_replayed =
      0;                   // rounds of every chain checked, request by request, before a difference
  double worst_ratio = 0;  // the largest difference over its tolerance, over what was compared
  std::string difference;  // the first difference, in words (empty when agrees)
};

// Replays `calls` (every gradient request of every chain, in the order made, with its round) and
// `rounds` (the reported x_t, d × K, t = 1 … T) from x0 (d × K), in the implementation's
// `precision`; full participation (setting.participating is not read).
TrajectoryComparison compare_trajectory(const std::vector<TracedGradient>& calls, const Matrix& x0,
                                        const std::vector<Matrix>& rounds,
                                        const ReplaySetting& setting, Precision precision);

}  // namespace fedverify::reports
