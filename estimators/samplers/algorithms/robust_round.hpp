// The round of FedAvg with a robust aggregation rule (THEORY (A6)): every client runs FedAvg's H
// local steps from x_t; the last m clients (--corrupted m) instead send x_t + s·ζ, ζ ~ N(0, I)
// (--corruption s), drawn from the server-noise streams (Purpose::server_noise, stream client
// index c + 1: index 0 is the server's own noise, DP-FedAvg's); then, chain by chain, x_{t+1} is
// the rule applied to the N client vectors. The rule is the only variation point: rfa.cpp (the
// smoothed geometric median) and trimmed_mean.cpp register a RobustRound with theirs.
#pragma once

#include <functional>

#include "estimators/samplers/round.hpp"
#include "theory/base/linalg.hpp"

namespace fedverify::estimators {

class RobustRound : public RoundSampler {
 public:
  // The rule: x_{t+1} from the clients' vectors (d × N, one column per client) and the setting.
  using Rule = std::function<Vector(const Matrix& points, const theory::RunSetting& setting)>;
  explicit RobustRound(Rule rule) : rule_(std::move(rule)) {}

  void round(const RoundBlock& block) const override;
  // Validates the threat model against the problem before any chain runs: InputError naming
  // --corrupted unless m < N (no auxiliary state otherwise).
  std::vector<AuxiliaryState> auxiliary_states(const SamplerOptions& options,
                                               int clients) const override;

 private:
  Rule rule_;
};

}  // namespace fedverify::estimators
