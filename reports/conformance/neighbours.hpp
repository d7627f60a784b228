// Diagnosis by neighbouring laws (issue 28 item 3): when an implementation's stationary law
// differs from the algorithm's, the measured moments are tested against the exact stationary laws
// of the algorithms and settings a real bug turns it into, and those that fit are named:
//   Scaffold → FedAvg's law              the correction is never applied (local steps plain SGD;
//                                        FedLab's Scaffold since 2023)
//   FedProx  → FedAvg's law              the proximal term is missing
//   H → H − 1, H + 1                     the local-step count is off by one
//   all N clients → one per round        one client trained per round (FedLab #320)
//   server step 1 → η_g ∈ {0.5, 1.5, 2}  x ← x + η_g · mean(y_i − x)   (FedAvg, FedProx, Scaffold)
//   Scaffold's η_g → 1                   the declared global step ignored (THEORY S9)
// Each law comes from theory (exact_moments: THEORY O0–O5, S1–S9); a neighbour "fits" when the
// same two stationary tests as the conformance check (Hotelling on the batch means, entrywise
// covariance) do not reject it at the same level. This says what the implementation behaves like,
// not a proof: several neighbours may fit, or none (the bug is something else).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "reports/conformance/conformance.hpp"
#include "reports/conformance/diagnosis.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::reports {

struct NeighbourLaw {
  std::string what;  // what the implementation then does, in words
  theory::Algorithm algorithm = theory::Algorithm::fedavg;
  theory::RunSetting step;
  bool without_weight_decay = false;  // the law on the problem without the declared decay
};

// The neighbours of the checked algorithm and setting (the table above).
std::vector<NeighbourLaw> neighbour_laws(const ConformanceProtocol& protocol,
                                         const ConformanceSpec& spec);

// The `what` of every neighbour whose exact stationary law `fits` accepts, on `problem` (the
// checked one, with its weight decay) or `without_decay` (without_weight_decay neighbours); a
// neighbour without exact moments there (its round map does not contract) is skipped.
std::vector<std::string> fitting_neighbours(
    const theory::QuadraticProblem& problem, const theory::QuadraticProblem& without_decay,
    const std::vector<NeighbourLaw>& neighbours,
    const std::function<bool(const theory::ExactMoments&)>& fits);

}  // namespace fedverify::reports
