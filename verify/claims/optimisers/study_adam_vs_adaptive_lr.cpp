// Claim optimisers.study-adam-vs-adaptive-lr (THEORY O6): a finding of the thesis's §2.6.1 on the
// convex proxies of the optimiser study (study_common.*). Its card (kCard, format in
// verify/claims/card.hpp) is what the report prints.
#include "verify/claims/optimisers/study_common.hpp"

namespace fedverify::claims::optimisers::study {
namespace {

constexpr const char* kId = "optimisers.study-adam-vs-adaptive-lr";

constexpr const char* kCard = R"(
Summary: Thesis finding: Adam beats RMSProp, Adadelta and Adagrad in every Table 2.2 family.
Statement: Adam outperforms RMSProp, Adadelta and Adagrad in nearly all cases ([Thesis] §2.6.1,
  finding 2): in every Table 2.2 family, the configuration with Adam has a lower test loss than
  the one with RMSProp, Adadelta or Adagrad in its place.
Formula: D_i = loss(Adam configuration) − loss(same configuration with RMSProp, Adadelta or
  Adagrad), paired over seeds; finding: E[D_i] < 0 for all i
THEORY: (O6)
Setting: ${study}; 4 families × 3 = 12 pairs (symmetric 4 vs 9, 10, 11; server 15 vs 20, 21, 22;
  client 26 vs 31, 32, 33; FedExP 38 vs 43, 44, 45).
Decision: ${decision}
Sample row:
  | digits: 12 pairs | all D < 0 | inconclusive: 3 of 12 significantly < 0, 0 > 0 | ✅ |
Margin: ${margin}
)";

const bool registered = register_finding(kId, 3, kCard);

}  // namespace
}  // namespace fedverify::claims::optimisers::study
