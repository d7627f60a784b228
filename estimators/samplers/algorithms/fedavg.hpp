// FedAvg (THEORY F0): every client runs H local SGD steps from the global iterate, the server
// averages,
//
//   y_c ← x_t;  y_c ← y_c − γ g_c(y_c)  (H times);  x_{t+1} = (1/N) Σ_c y_c.      THEORY (F0)
//
// SGD (G0) is FedAvg with H = 1 (theory::validate enforces it); both names are registered with
// this round (algorithms/fedavg.cpp). FedRR (algorithms/fedrr.cpp) runs it twice.
#pragma once

#include "estimators/samplers/round.hpp"

namespace fedverify::estimators {

class FedAvgRound : public RoundSampler {
 public:
  void round(const RoundBlock& block) const override;
};

}  // namespace fedverify::estimators
