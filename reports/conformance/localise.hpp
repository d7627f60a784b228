// Where a conformance failure comes from (issue 31 item 6): the local steps or the aggregation.
//
// The statistical tests of conformance.hpp say *which law* differs (one-round or stationary, mean
// or covariance); they cannot say whether a client's local steps or the server's aggregation is
// wrong — a stale gradient in the local steps and weights that do not sum to one both move the
// one-round mean. fedverify is the gradient oracle, so it sees every point the implementation
// asks a gradient at and every gradient it returns. In the first round (from x₀, where Scaffold's
// control variates are still 0) each client's local steps are then determined exactly:
//     y₀ = x₀,   y_{j+1} = y_j − γ (g_j + λ y_j + μ (y_j − x₀))
//     (μ: FedProx's, 0 otherwise, THEORY O3; λ: the weight decay, 0 unless declared, THEORY C1)
// so the j-th request must be at y_j, each client of the round makes exactly H requests, and the
// reported x₁ must be x₀ + a(ȳ − x₀), ȳ the average of the clients' endpoints y_H over the
// clients that took part (the requests say which) and a = η_g·ServerSgd::gain() the server's
// first step (its momentum buffer starts at 0; a = 1: x₁ = ȳ). localise_first_round replays this
// for the traced chains and reports the first disagreement of each kind, naming the pattern when it
// recognises one: a local step that used the previous step's gradient (stale gradient), a constant
// term added to every step (Scaffold: a non-zero correction c − c_i in the first round, i.e.
// control variates that do not start at 0), a wrong proximal term, a wrong number of local steps;
// and for the aggregation the factor w in x₁ − x₀ = w · (mean endpoint − x₀) when there is one
// (weights summing to w, or N in place of |S|: w = |S|/N).
//
// Tolerance: the replay recomputes the implementation's own arithmetic from the exact numbers
// exchanged (JSON carries doubles to the last bit), so an honest implementation differs only by
// round-off, a few ε · (|y| + γ|g|) per step, and ≤ N ε · max|y| in the average; kReplayTolerance
// = 1e-9 relative to those scales is far above that (H, N ≤ 10⁶) and far below what any real bug
// moves (γ|g| per step, a fraction of the update in the average).
#pragma once

#include <string>
#include <vector>

#include "theory/base/linalg.hpp"
#include "theory/problems/fedopt_setting.hpp"

namespace fedverify::reports {

inline constexpr double kReplayTolerance = 1e-9;

// One gradient request of one chain, as the oracle served it.
struct TracedGradient {
  int chain = 0;
  int client = 0;
  Vector x;       // the point asked at
  Vector g;       // the stochastic gradient returned
  int round = 1;  // the round in progress (1-based)
};

// The algorithm a replay checks the requests against (here and in trajectory.hpp).
struct ReplaySetting {
  std::string algorithm;  // "fedavg", "scaffold" or "fedprox"
  double gamma = 0;
  int local_steps = 1;
  double mu = 0;  // fedprox
  int participating = 0;
  int clients = 0;
  // The server's rule (THEORY O2): m' = βm + Δ, x' = x − η_g m' (heavy ball) or
  // x − η_g(Δ + βm') (Nesterov), Δ = x − mean endpoint, m = 0 before the first round; the
  // default is FedAvg's x' = mean endpoint.
  theory::ServerSgd server;
  double weight_decay = 0;  // λ: every local step adds λy to the gradient (THEORY C1)
  // p_c of the average x' = Σ_c p_c y_c (THEORY (A1)); empty: 1/N each (and 1/S of the sampled).
  std::vector<double> weights;
};

// The weights of `s` when they are unequal (THEORY (A1)), else nullptr: the average is then the
// plain mean of the endpoints.
const std::vector<double>* unequal_weights(const ReplaySetting& s);

struct Localisation {
  bool traced = false;         // at least one chain's first round was replayed
  bool local_steps_ok = true;  // every replayed local step agrees
  bool aggregation_ok = true;  // every replayed average agrees
  std::string local_steps;     // the first disagreement, in words (empty when ok)
  std::string aggregation;     // the same for the aggregation
};

// Replays the first round of the chains 0 … x1.cols() − 1 from their calls (in the order made),
// the start x0 (d × chains) and the reported x1 (d × chains).
Localisation localise_first_round(const std::vector<TracedGradient>& calls, const Matrix& x0,
                                  const Matrix& x1, const ReplaySetting& setting);

}  // namespace fedverify::reports
