// The rows of the logistic bias claims (kit/verdict.hpp): a Richardson row (measured β₁ against
// the prediction), a linear combination of Richardson pairs, a covariance row and a confirmed
// rejection, each with its rule, equivalence and MDE.
#pragma once

#include <string>
#include <vector>

#include "estimators/statistics/decide.hpp"
#include "verify/claims/claim.hpp"
#include "verify/claims/logistic/measurement.hpp"

namespace fedverify::claims::logistic {

// The equivalence part (kit/verdict.hpp) of a covariance row decided by `rule`
// (decide.hpp (d), entrywise agreement within δ·max |predicted| plus MCSE): TOST of every distinct
// entry of the pooled covariance within ±δ·max |predicted| at α (standard errors from the spread of
// the kReplications replications), and the rule's MDE relative to max |predicted|.
void covariance_equivalence(Row& row, const StationaryRun& run, const Matrix& predicted,
                            double delta, const estimators::Decision& rule, double alpha);

// A row whose claim is that the data REJECT a value, by `test` (Hotelling's T² on kReplications
// replications whose mean has covariance `mean_cov`): the rule confirms the claim itself, one-
// sided (margin 0, kit/verdict.hpp), and its MDE is the Hotelling test's over |scale|.
void confirm_rejection(Row& row, const std::string& what, const estimators::Decision& test,
                       const Matrix& mean_cov, double scale, int replications = kReplications);

// One Richardson row: measured 2β(γ) − β(2γ) against the predicted first-order coefficient,
// and (when `rejected` is given) a second prediction that the measurement must REJECT.
// The two runs' seeds are kit::row_seed(ctx, claim_id, "<row setting>, γ" and "…, 2γ").
// Plain measurements: Hotelling's T² of "= β₁" decides, with the equivalence margin
// kRichardsonMargin. Control-variate measurements resolve the o(γ) remainder of the combination,
// so a point null would reject a true theorem: the rule is agreement within the margin
// kControlVariateMargin of ‖β₁‖ on every coordinate (decide.hpp (e), Bonferroni over d), and the
// TOST confirms the same margin.
Row richardson_row(const NamedProblem& np, theory::Algorithm algorithm, double gamma_l, int h,
                   const Context& ctx, const char* claim_id, double alpha,
                   const Vector* rejected = nullptr, const char* rejected_name = "",
                   const MeasureOptions& options = {});

// One term c·(pair) of a combination of first-order coefficients.
struct RichardsonTerm {
  double coefficient = 1.0;
  const RichardsonPair* pair = nullptr;
};

// A linear combination Σ c_i·(pair i) of first-order coefficients (Richardson combinations,
// replication by replication: the pairs are independent runs, so the combinations are i.i.d. over
// the replications), tested against the same combination of the predictions, e.g. β₁(N) − 2β₁(2N)
// (b_s ∝ 1/N) or β₁ itself. `alternative` is the combination under the hypothesis the row is meant
// to exclude; the margin is relative to its distance from the prediction, on every coordinate.
// Control-variate pairs: agreement within the margin decides (decide.hpp (e), as richardson_row);
// plain pairs: Hotelling's point null, with the margin's TOST beside it. Every pair's twin must
// agree with its exact mean.
Row combination_row(const std::string& setting, double margin,
                    const std::vector<RichardsonTerm>& terms, const Vector& alternative,
                    const std::string& alternative_name, double alpha);

}  // namespace fedverify::claims::logistic
