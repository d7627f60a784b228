// The diagnosis of a failed statistical conformance check (conformance.hpp): which law differs
// (one-round or stationary, mean or covariance), what the first-round replay found
// (localise.hpp), and what that points to, naming only what the algorithm has (FedAvg's never
// mentions control variates).
#pragma once

#include <string>
#include <vector>

#include "reports/conformance/conformance.hpp"
#include "reports/conformance/localise.hpp"
#include "theory/problems/fedopt_setting.hpp"
#include "theory/problems/optimiser.hpp"

namespace fedverify::reports {

// What the implementation is told it runs, and the FedOpt setting whose law it must follow.
struct ConformanceProtocol {
  std::string algorithm;  // "fedavg", "scaffold" or "fedprox"
  double mu = 0;
  int participating = 0;     // S (N when all)
  int clients = 0;           // N
  theory::ServerSgd server;  // η_g, β, Nesterov (Scaffold: its η_g of THEORY S9, β = 0)
  // A round without closed forms (an adaptive server, client momentum): the simulated reference
  // (simulated_reference.hpp) instead of the exact laws.
  bool simulated = false;
  double weight_decay = 0;  // λ of the local steps (THEORY C1)
  theory::OptimiserSpec server_optimiser = theory::default_server();
  double client_momentum = 0;
  // The client weights p_c of the server's average (THEORY (A1)), Σ_c p_c = 1: 1/N each unless
  // the problem file weighs its clients (fedavg only).
  std::vector<double> client_weights;
};

// One paragraph. `r` holds the four checks in order (one-round mean, one-round covariance,
// stationary mean, stationary covariance); mean_gap = ‖m − exact‖, trace_ratio = tr measured /
// tr exact of the stationary run.
std::string diagnose(const ConformanceResult& r, const ConformanceProtocol& p,
                     const Localisation& where, double mean_gap, double trace_ratio);

// The diagnosis of a stationary run that diverged (where the exact chain is stationary): what the
// first-round replay found, then what a divergence points to.
std::string diagnose_divergence(const ConformanceProtocol& p, const Localisation& where);

}  // namespace fedverify::reports
