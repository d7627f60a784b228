// Claim optimisers.study-adam-momentum-family (THEORY O6): a finding of the thesis's §2.6.1 on the
// convex proxies of the optimiser study (study_common.*). Its card (kCard, format in
// verify/claims/card.hpp) is what the report prints.
#include "verify/claims/optimisers/study_common.hpp"

namespace fedverify::claims::optimisers::study {
namespace {

constexpr const char* kId = "optimisers.study-adam-momentum-family";

constexpr const char* kCard = R"(
Summary: Thesis finding: Adam beats NAdam, RAdam, AMSGrad and Adamax in every Table 2.2 family.
Statement: Among the adaptive-momentum methods Adam achieves the best performance ([Thesis]
  §2.6.1, finding 3; NAdam won on CIFAR-10): in every Table 2.2 family, the configuration with
  Adam has a lower test loss than the one with NAdam, RAdam, AMSGrad or Adamax in its place.
Formula: D_i = loss(Adam configuration) − loss(same configuration with NAdam, RAdam, AMSGrad or
  Adamax), paired over seeds; finding: E[D_i] < 0 for all i
THEORY: (O6)
Setting: ${study}; 4 families × 4 = 16 pairs (symmetric 4 vs 5–8; server 15 vs 16–19; client 26 vs
  27–30; FedExP 38 vs 39–42).
Decision: ${decision}
Sample row:
  | digits: 16 pairs | all D < 0 | fails: 8 of 16 significantly < 0, 1 > 0 | ❌ |
Margin: ${margin}
)";

const bool registered = register_finding(kId, 4, kCard);

}  // namespace
}  // namespace fedverify::claims::optimisers::study
