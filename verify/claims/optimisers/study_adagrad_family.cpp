// Claim optimisers.study-adagrad-family (THEORY O6): a finding of the thesis's §2.6.1 on the
// convex proxies of the optimiser study (study_common.*). Its card (kCard, format in
// verify/claims/card.hpp) is what the report prints.
#include "verify/claims/optimisers/study_common.hpp"

namespace fedverify::claims::optimisers::study {
namespace {

constexpr const char* kId = "optimisers.study-adagrad-family";

constexpr const char* kCard = R"(
Summary: Thesis finding: Adagrad beats RMSProp and Adadelta in every Table 2.2 family.
Statement: Among the adaptive-learning-rate methods Adagrad achieves the best performance
  ([Thesis] §2.6.1, finding 4): in every Table 2.2 family, the configuration with Adagrad has a
  lower test loss than the one with RMSProp or Adadelta in its place.
Formula: D_i = loss(Adagrad configuration) − loss(same configuration with RMSProp or Adadelta),
  paired over seeds; finding: E[D_i] < 0 for all i
THEORY: (O6)
Setting: ${study}; 4 families × 2 = 8 pairs (symmetric 11 vs 9, 10; server 22 vs 20, 21; client 33
  vs 31, 32; FedExP 45 vs 43, 44).
Decision: ${decision}
Sample row:
  | digits: 8 pairs | all D < 0 | fails: 0 of 8 significantly < 0, 5 > 0 | ❌ |
Margin: ${margin}
)";

const bool registered = register_finding(kId, 5, kCard);

}  // namespace
}  // namespace fedverify::claims::optimisers::study
