// Claim optimisers.server-step-logistic (THEORY O2, simulated on logistic regression).
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "estimators/statistics/decide.hpp"
#include "theory/problems/fedopt_setting.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/kit/stationary_run.hpp"
#include "verify/claims/kit/verdict.hpp"
#include "verify/claims/logistic/common.hpp"
#include "verify/claims/optimisers/common.hpp"
#include "verify/claims/problems/default_logistic_problems.hpp"

namespace fedverify::claims::optimisers {
namespace {

constexpr const char* kId = "optimisers.server-step-logistic";

constexpr const char* kCard = R"(
Summary: On logistic regression a server step and momentum scale FedAvg's stochasticity bias and
  covariance by η_g/(1 − β).
Statement: On logistic regression a server step η_g and server heavy-ball momentum β leave
  FedAvg's heterogeneity bias unchanged, scale its stochasticity bias and its stationary covariance
  by s = η_g/(1 − β) at first order (derived; simulated here, exact on quadratics in
  optimisers.server-step-momentum).
Formula: (E_π[x] − x*)/γ = (H−1)b_h + s·b_s + O(γ) (so the FedOpt − FedAvg difference of the
  scaled biases is (s − 1)b_s);  Cov_π(x) = (sγ/N) 𝒜C̄ + O(γ²)
THEORY: (O2), (F2), (F3)
Setting: lr-hetero (d = 3, N = 10, B = 1), H = ${h}, γL = ${gamma_l}; FedAvg (--algo fedavg) and
  --algo fedopt with --server ${servers}; ${replications} independent replications each
  (logistic/common.hpp), chains started at x*.
Decision: per server setting, (i) mean: per coordinate, z test (decide.hpp (e)) of the difference
  of the replicated scaled biases β(FedOpt) − β(FedAvg) (independent runs: variances add) against
  (s − 1)b_s within the allowance s·γHL·‖(H−1)b_h + b_s‖ (the O(γ) remainder of a scaled bias,
  relative ≈ γHL at the effective step sγ, THEORY §8); (ii) covariance: entrywise agreement
  (decide.hpp (d)) of the pooled covariance with (sγ/N)𝒜C̄ within s·γHL·max |P| + z·MCSE;
  family α = ${alpha}, Bonferroni over every coordinate and test
Sample row:
  | lr-hetero, H = 2, γL = 0.05, sgd:lr=1,momentum=0.5 (s = 2) | β − β_FedAvg = (s − 1)b_s ± 0.0045;
  cov (sγ/N)𝒜C̄ ± 20 % | β − β_FedAvg = [0.0050, -0.0079, 0.0065] vs [0.0081, -0.0106, 0.0053]: max z
  0.00 (reject above 3.23); cov rel. diff 0.009 (agreement p = 1.000) | ✅ |
Notes: The deterministic fixed point of x ↦ x − η_g(x − T(x)) is T's, so only the noise-driven parts
  (b_s and the covariance) see the server step; the planted covariance × η_g (no 1/(1 − β))
  misses the momentum rows' covariance by the factor 1 − β = 0.5.
Margin: δ = s·γHL, the first-order remainder allowance at the effective step sγ (THEORY §8:
  relative remainder ≈ γHL): of ‖(H−1)b_h + b_s‖ for the mean difference, of max |P| for the
  covariance entries.
)";

constexpr int kH = 2;
constexpr double kGammaL = 0.05;
const std::vector<std::string> kServers = {"sgd:lr=1.5", "sgd:lr=1,momentum=0.5"};

ClaimResult run(const Context& ctx) {
  ClaimResult out;
  const auto& np = default_logistic_problems().heterogeneous;
  const auto k = theory::expansion_coefficients(*np.problem);
  const int d = np.problem->dim();
  const theory::StepSetting fedavg_step{kGammaL / k.constants.l, kH};
  const double ghl = kGammaL * kH;
  // Tests: d coordinates of the mean and one covariance test per server setting.
  const double alpha = kFamilyAlpha / static_cast<double>((d + 1) * kServers.size());
  const logistic::ScaledBias fedavg =
      logistic::measure(np, k, theory::Algorithm::fedavg, fedavg_step, ctx,
                        kit::row_seed(ctx, kId, "fedavg reference"));
  if (fedavg.diverged()) {
    out.rows.push_back(kit::diverged_row("FedAvg reference", fedavg.run.divergence));
    return out;
  }
  const Vector fedavg_first =
      logistic::predicted_coefficient(k, theory::Algorithm::fedavg, fedavg_step, ctx);
  std::vector<std::string> notes;
  for (const std::string& server : kServers) {
    const theory::StepSetting step = fedopt_setting(fedavg_step.gamma, kH, server);
    const theory::ServerSgd sgd = theory::server_sgd(step);
    const double s = sgd.lr / (1.0 - sgd.momentum);  // η_g/(1 − β), THEORY (O2)
    const std::string setting =
        fmt::format("{}, H = {}, γL = {}, {} (s = {:g})", np.name, kH, kGammaL, server, s);
    const logistic::ScaledBias m =
        logistic::measure(np, k, kFedopt, step, ctx, kit::row_seed(ctx, kId, setting));
    if (m.diverged()) {
      out.rows.push_back(kit::diverged_row(setting, m.run.divergence));
      continue;
    }
    const theory::FirstOrderMoments fo = kit::first_order(ctx, k, kFedopt, step);
    // (i) The scaled-bias difference against its first-order value (s − 1)b_s.
    const Vector predicted = logistic::predicted_coefficient(k, kFedopt, step, ctx) - fedavg_first;
    const Vector difference = m.mean - fedavg.mean;
    const Vector se = (m.mean_cov.diagonal() + fedavg.mean_cov.diagonal()).cwiseSqrt();
    const double mean_allowance = s * ghl * fedavg_first.norm();
    double worst_z = 0;
    bool mean_passed = true;
    for (int i = 0; i < d; ++i) {
      const auto test =
          estimators::z_agreement({difference(i), se(i)}, predicted(i), mean_allowance, alpha);
      worst_z = std::max(worst_z, test.statistic);
      mean_passed = mean_passed && test.passed;
    }
    // (ii) The covariance against (sγ/N)𝒜C̄ within s·γHL·max |P| plus MCSE.
    const double cov_allowance = s * ghl * fo.cov.cwiseAbs().maxCoeff();
    const Matrix cov_mcse = logistic::replica_cov_mcse(m.run);
    const auto cov_test = estimators::matrix_agreement(
        m.run.pooled.cov, fo.cov, cov_mcse,
        Matrix::Constant(fo.cov.rows(), fo.cov.cols(), cov_allowance), alpha);
    const double rel_cov = (m.run.pooled.cov - fo.cov).norm() / fo.cov.norm();
    Row row;
    row.setting = setting;
    row.predicted = fmt::format("β − β_FedAvg = (s − 1)b_s ± {:.2g}; cov (sγ/N)𝒜C̄ ± {:.0f} %",
                                mean_allowance, 100 * s * ghl);
    row.measured = fmt::format(
        "β − β_FedAvg = {} vs {}: max z {:.2f} (reject above {:.2f}); cov rel. diff {:.3f} "
        "(agreement p = {:.3f})",
        kit::vec_str(difference), kit::vec_str(predicted), worst_z, estimators::z_two_sided(alpha),
        rel_cov, cov_test.p_value);
    row.passed = mean_passed && cov_test.passed;
    const estimators::ReplicatedMeanVector diff{difference, m.mean_cov + fedavg.mean_cov};
    kit::agreement(row, s * ghl, "β − β_FedAvg (scale ‖β₁(FedAvg)‖)", diff, logistic::kReplications,
                   predicted, fedavg_first.norm(), alpha);
    logistic::covariance_equivalence(row, m.run, fo.cov, s * ghl, cov_test, alpha);
    row.data = {{"problem", np.name},
                {"server", server},
                {"scale", s},
                {"gamma", step.gamma},
                {"scaled_bias", kit::to_std(m.mean)},
                {"scaled_bias_fedavg", kit::to_std(fedavg.mean)},
                {"difference_predicted", kit::to_std(predicted)},
                {"mean_allowance", mean_allowance},
                {"cov", kit::rows_of(m.run.pooled.cov)},
                {"cov_predicted", kit::rows_of(fo.cov)},
                {"cov_relative_difference", rel_cov},
                {"cov_p_value", cov_test.p_value},
                {"alpha", alpha},
                {"run", logistic::run_json(m)}};
    kit::gate_simulated(row, "difference", difference, se);
    kit::gate_simulated(row, "cov", vech(m.run.pooled.cov), vech(cov_mcse));
    notes.push_back(
        fmt::format("{}: cov/first order {:.3f} (rel. diff), scaled-bias difference "
                    "{} against (s − 1)b_s = {}",
                    server, rel_cov, kit::vec_str(difference), kit::vec_str(predicted)));
    out.rows.push_back(std::move(row));
  }
  out.note = fmt::format("FedAvg's scaled bias {} (first order {}). {}.", kit::vec_str(fedavg.mean),
                         kit::vec_str(fedavg_first), fmt::join(notes, "; "));
  return out;
}

const bool registered =
    register_claim({.id = kId,
                    .order = {Section::optimisers, 7},
                    .card = kCard,
                    .values = {{"h", kH},
                               {"gamma_l", kGammaL},
                               {"servers", "sgd:lr=1.5 and sgd:lr=1,momentum=0.5"},
                               {"replications", logistic::kReplications},
                               {"alpha", kFamilyAlpha}},
                    .sweep = true,
                    .run = run});

}  // namespace
}  // namespace fedverify::claims::optimisers
