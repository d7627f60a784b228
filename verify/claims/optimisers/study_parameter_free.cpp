// Claim optimisers.study-dowg (THEORY O6): a finding of the thesis's §2.6.1 on the
// convex proxies of the optimiser study (study_common.*). Its card (kCard, format in
// verify/claims/card.hpp) is what the report prints.
#include "verify/claims/optimisers/study_common.hpp"

namespace fedverify::claims::optimisers::study {
namespace {

constexpr const char* kId = "optimisers.study-dowg";

constexpr const char* kCard = R"(
Summary: Thesis finding: DoWG beats the other parameter-free optimisers (DoG, Prodigy).
Statement: DoWG consistently outperforms the other parameter-free optimisers (DoG, Prodigy) across
  all evaluated scenarios ([Thesis] §2.6.1, finding 1): in every Table 2.2 family that has both,
  the configuration with DoWG has a lower test loss than the one with DoG or Prodigy in its place.
Formula: D_i = loss(DoWG configuration) − loss(same configuration with DoG or Prodigy), paired
  over seeds; finding: E[D_i] < 0 for all i
THEORY: (O6)
Setting: ${study}; 4 families (symmetric 12 vs 13, 14; server 23 vs 24, 25; client 34 vs 35, 36;
  FedExP 46 vs 47, 48) × 2 = 8 pairs.
Decision: ${decision}
Sample row:
  | digits: 8 pairs | all D < 0 | fails: 5 of 8 significantly < 0, 2 > 0 | ❌ |
Margin: ${margin}
)";

const bool registered = register_finding(kId, 2, kCard);

}  // namespace
}  // namespace fedverify::claims::optimisers::study
