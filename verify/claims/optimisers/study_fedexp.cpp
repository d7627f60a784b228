// Claim optimisers.study-fedexp (THEORY O6): a finding of the thesis's §2.6.1 on the
// convex proxies of the optimiser study (study_common.*). Its card (kCard, format in
// verify/claims/card.hpp) is what the report prints.
#include "verify/claims/optimisers/study_common.hpp"

namespace fedverify::claims::optimisers::study {
namespace {

constexpr const char* kId = "optimisers.study-fedexp";

constexpr const char* kCard = R"(
Summary: Thesis finding: FedExP + X beats FedAvg's server + X for every client optimiser X.
Statement: FedExP's server extrapolation dominates across datasets ([Thesis] §2.6): for every
  client optimiser X of Table 2.2, FedExP + X has a lower test loss than SGD (η_g = 1, i.e.
  FedAvg's server) + X.
Formula: D_X = loss(FedExP + X) − loss(SGD + X), paired over seeds; finding: E[D_X] < 0 for every
  client X
THEORY: (O6)
Setting: ${study}; 12 pairs: 37 vs 1 (client SGD) and 38–48 vs 26–36
  (adaptive clients).
Decision: ${decision}
Sample row:
  | digits: 12 pairs | all D < 0 | fails: 9 of 12 significantly < 0, 3 > 0 | ❌ |
Margin: ${margin}
)";

const bool registered = register_finding(kId, 6, kCard);

}  // namespace
}  // namespace fedverify::claims::optimisers::study
