// FedAvg (THEORY F0): every client runs H local SGD steps from the global iterate, the server
// averages,
//
//   y_c ← x_t;  y_c ← y_c − γ g_c(y_c)  (H times);  x_{t+1} = (1/N) Σ_c y_c.      THEORY (F0)
//
// With client weights the average is Σ_c p_c y_c (THEORY (A1)).
//
// SGD (G0) is FedAvg with H = 1 (theory::validate enforces it); both names are registered with
// this round (algorithms/fedavg.cpp). FedRR (algorithms/fedrr.cpp) runs it twice.
#pragma once

#include "estimators/samplers/round.hpp"

namespace fedverify::estimators {

class FedAvgRound : public RoundSampler {
 public:
  void round(const RoundBlock& block) const override;

 protected:
  // The server's average divides the sum of the client iterates by this: N (THEORY F0), i.e.
  // weights 1/N that sum to one. The one variation point of the round, called once per block and
  // round; a test plants wrong weights by overriding it (verify/planted/fedavg_bugs.hpp).
  virtual double aggregation_divisor(int clients) const { return clients; }
  // The weights p_c of the average, nullptr for equal ones: the block's (THEORY (A1)). A planted
  // server that ignores them (FedLab #305) returns nullptr.
  virtual const double* aggregation_weights(const RoundBlock& block) const { return block.weights; }
};

}  // namespace fedverify::estimators
