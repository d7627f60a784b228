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
#include "verify/claims/logistic/richardson_rows.hpp"
#include "verify/claims/optimisers/common.hpp"
#include "verify/claims/optimisers/optimisers.hpp"
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
THEORY: (O2), (F2), (F3), (L3)
Setting: lr-hetero (d = 3, N = 10, B = 1), H = ${h}, γL = ${gamma_l} and twice that; FedAvg (--algo
  fedavg) and --algo fedopt with --server ${servers}; each measured with the linearised control
  variate (THEORY (L3)): ${replications} replications of 8 chains, 384 autocorrelation times each
  (logistic/measurement.hpp), chains started at x*.
Decision: per server setting, (i) mean: the Richardson combinations 2β(γ) − β(2γ) of FedOpt minus
  FedAvg's, replication by replication (independent runs), agree with (s − 1)b_s within 5 % of ‖b_s‖
  on every coordinate (decide.hpp (e), Bonferroni over d, Student's t), and every twin's mean agrees
  with its exact mean (α = 1e-4); (ii) covariance at γ: entrywise agreement (decide.hpp (d)) of the
  pooled covariance with (sγ/N)𝒜C̄ within s·γHL·max |P| + z·MCSE; family α = ${alpha}, Bonferroni
  over the tests
Sample row:
  | lr-hetero, H = 2, γL = 0.05 and 0.1, sgd:lr=1,momentum=0.5 (s = 2) | (s − 1)b_s ± 5 % of ‖b_s‖
  per coordinate; cov (sγ/N)𝒜C̄ ± 20 % | [0.0080±0.0001, -0.0105±0.0001, 0.0052±0.0001] vs [0.0081,
  -0.0106, 0.0053] (worst coordinate off by 0.7 % of ‖b_s‖); cov rel. diff 0.003 | ✅ holds |
Notes: The deterministic fixed point of x ↦ x − η_g(x − T(x)) is T's, so only the noise-driven parts
  (b_s and the covariance) see the server step; the planted covariance × η_g (no 1/(1 − β))
  misses the momentum rows' covariance by the factor 1 − β = 0.5.
Margin: the mean difference, δ = 5 % of ‖b_s‖ per coordinate (the control-variate margin of
  logistic/common.hpp; measured 0.6–0.7 %); the covariance entries, δ = s·γHL of max |P|, the
  first-order remainder allowance at the effective step sγ (THEORY §8: relative remainder ≈ γHL).
)";

constexpr int kH = 2;
constexpr double kGammaL = 0.05;
const std::vector<std::string> kServers = {"sgd:lr=1.5", "sgd:lr=1,momentum=0.5"};
// Control-variate budget (logistic/measurement.hpp): 16 times the standard one, affordable on d = 3
// (≈ 12 s on 2 cores): the extrapolated difference's standard error is then ≈ 0.6 % of ‖b_s‖.
constexpr double kBudgetFactor = 16.0;

}  // namespace

ClaimResult run_server_step_logistic(const Context& ctx, const ServerStepGrid& grid) {
  ClaimResult out;
  const NamedProblem& np = *grid.problem;
  const auto k = theory::expansion_coefficients(*np.problem);
  // One Richardson pair with the control variate (logistic/measurement.hpp) at `step` and `step2`.
  const auto extrapolate = [&](theory::Algorithm algorithm, const theory::RunSetting& step,
                               const theory::RunSetting& step2, const std::string& setting) {
    return logistic::richardson_pair(np, k, algorithm, step, step2, setting, ctx, grid.claim_id,
                                     logistic::control_variate_budget(grid.budget_factor));
  };
  const theory::RunSetting fedavg_step{grid.gamma_l / k.constants.l, kH};
  const theory::RunSetting fedavg_step2{2.0 * fedavg_step.gamma, kH};
  const double ghl = grid.gamma_l * kH;
  // Tests: the mean difference (one Bonferroni family over d) and one covariance test per server.
  const double alpha = kFamilyAlpha / static_cast<double>(2 * kServers.size());
  const logistic::RichardsonPair fedavg =
      extrapolate(theory::Algorithm::fedavg, fedavg_step, fedavg_step2, "fedavg reference");
  if (fedavg.diverged()) {
    out.rows.push_back(kit::diverged_row("FedAvg reference", fedavg.divergence()));
    return out;
  }
  const Vector& fedavg_first = fedavg.predicted;
  const auto g = static_cast<int>(fedavg.first.cols());
  std::vector<std::string> notes;
  for (const std::string& server : kServers) {
    const theory::RunSetting step = fedopt_setting(fedavg_step.gamma, kH, server);
    const theory::RunSetting step2 = fedopt_setting(fedavg_step2.gamma, kH, server);
    const theory::ServerSgd sgd = theory::server_sgd(step);
    const double s = sgd.lr / (1.0 - sgd.momentum);  // η_g/(1 − β), THEORY (O2)
    const std::string setting = fmt::format("{}, H = {}, γL = {} and {}, {} (s = {:g})", np.name,
                                            kH, grid.gamma_l, 2 * grid.gamma_l, server, s);
    const logistic::RichardsonPair m = extrapolate(kFedopt, step, step2, setting);
    if (m.diverged()) {
      out.rows.push_back(kit::diverged_row(setting, m.divergence()));
      continue;
    }
    const theory::FirstOrderMoments fo = kit::first_order(ctx, k, kFedopt, step);
    // (i) The difference of the extrapolated scaled biases against its first-order value
    // (s − 1)b_s, replication by replication (independent runs: the differences are i.i.d.).
    const Vector predicted = m.predicted - fedavg_first;
    const auto difference = estimators::replicated_mean(Matrix(m.first - fedavg.first));
    Row row;
    const auto mean_test =
        kit::agreement_within(row, logistic::kControlVariateMargin, "β − β_FedAvg (scale ‖b_s‖)",
                              difference, g, predicted, k.b_stochastic.norm(), alpha);
    const bool twin_ok = m.twin_consistent() && fedavg.twin_consistent();
    // (ii) The covariance of x at γ against (sγ/N)𝒜C̄ within s·γHL·max |P| plus MCSE.
    const logistic::ScaledBias& at = m.at_gamma;
    const double cov_allowance = s * ghl * fo.cov.cwiseAbs().maxCoeff();
    const Matrix cov_mcse = logistic::replica_cov_mcse(at.run);
    const auto cov_test = estimators::matrix_agreement(
        at.run.pooled.cov, fo.cov, cov_mcse,
        Matrix::Constant(fo.cov.rows(), fo.cov.cols(), cov_allowance), alpha);
    const double rel_cov = (at.run.pooled.cov - fo.cov).norm() / fo.cov.norm();
    row.setting = setting;
    row.predicted = fmt::format(
        "2β(γ) − β(2γ), minus FedAvg's: (s − 1)b_s ± {:g} % of ‖b_s‖ per coordinate; cov (sγ/N)𝒜C̄ "
        "± "
        "{:.0f} %",
        100 * logistic::kControlVariateMargin, 100 * s * ghl);
    row.measured = fmt::format(
        "{} vs {} (agreement p = {:.3f}, worst coordinate off by {:.1f} % of ‖b_s‖); cov rel. "
        "diff {:.3f} (agreement p = {:.3f}){}",
        kit::vec_pm(difference.mean, difference.mean_cov), kit::vec_str(predicted),
        mean_test.p_value,
        100 * (difference.mean - predicted).cwiseAbs().maxCoeff() / k.b_stochastic.norm(), rel_cov,
        cov_test.p_value, twin_ok ? "" : "; the twin's mean disagrees with its exact mean");
    row.passed = mean_test.passed && cov_test.passed && twin_ok;
    logistic::covariance_equivalence(row, at.run, fo.cov, s * ghl, cov_test, alpha);
    row.data = {{"problem", np.name},
                {"server", server},
                {"scale", s},
                {"gamma", step.gamma},
                {"extrapolated_difference", kit::to_std(difference.mean)},
                {"extrapolated_difference_se", kit::to_std(difference.se())},
                {"difference_predicted", kit::to_std(predicted)},
                {"mean_p_value", mean_test.p_value},
                {"cov", kit::rows_of(at.run.pooled.cov)},
                {"cov_predicted", kit::rows_of(fo.cov)},
                {"cov_relative_difference", rel_cov},
                {"cov_p_value", cov_test.p_value},
                {"alpha", alpha},
                {"runs", {logistic::run_json(m.at_gamma), logistic::run_json(m.at_2gamma)}}};
    kit::gate_simulated(row, "difference", difference.mean, difference.se());
    kit::gate_simulated(row, "cov", vech(at.run.pooled.cov), vech(cov_mcse));
    notes.push_back(
        fmt::format("{}: cov/first order {:.3f} (rel. diff), extrapolated difference "
                    "{} against (s − 1)b_s = {}",
                    server, rel_cov, kit::vec_str(difference.mean), kit::vec_str(predicted)));
    out.rows.push_back(std::move(row));
  }
  out.note = fmt::format("FedAvg's extrapolated scaled bias {} (first order {}). {}.",
                         kit::vec_str(estimators::replicated_mean(fedavg.first).mean),
                         kit::vec_str(fedavg_first), fmt::join(notes, "; "));
  return out;
}

namespace {

ClaimResult run(const Context& ctx) {
  return run_server_step_logistic(
      ctx, {&default_logistic_problems().heterogeneous, kGammaL, kBudgetFactor, kId});
}

const bool registered =
    register_claim({.id = kId,
                    .order = {Section::optimisers, 7},
                    .card = kCard,
                    .values = {{"h", kH},
                               {"gamma_l", kGammaL},
                               {"servers", "sgd:lr=1.5 and sgd:lr=1,momentum=0.5"},
                               {"replications", logistic::control_variate_budget().replications},
                               {"alpha", kFamilyAlpha}},
                    .sweep = true,
                    .run = run});

}  // namespace
}  // namespace fedverify::claims::optimisers
