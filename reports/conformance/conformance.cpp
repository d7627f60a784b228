#include "reports/conformance/conformance.hpp"

#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <cmath>
#include <functional>
#include <limits>

#include "estimators/statistics/moments.hpp"
#include "reports/conformance/process_implementation.hpp"
#include "theory/algorithms/fedopt.hpp"
#include "theory/algorithms/scaffold_sampled.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/problems/fedopt_setting.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::reports {
namespace {

// What the implementation is told it runs, and the FedOpt setting whose law it must follow.
struct Protocol {
  std::string algorithm;  // "fedavg", "scaffold" or "fedprox"
  double mu = 0;
  int participating = 0;  // S (N when all)
  int clients = 0;        // N
};

}  // namespace

bool conformance_checks(theory::Algorithm algorithm) {
  return algorithm == theory::Algorithm::fedavg || algorithm == theory::Algorithm::scaffold ||
         algorithm == theory::Algorithm{"fedopt"};
}

namespace {

Protocol protocol_of(const theory::QuadraticProblem& q, const ConformanceSpec& spec) {
  const int n = q.num_clients();
  Protocol p;
  p.participating = theory::participating_clients(spec.step, n);  // names --participating
  p.clients = n;
  if (spec.algorithm == theory::Algorithm::fedavg) {
    if (spec.step.participating != 0) {
      throw InputError("--participating: FedAvg with client sampling is --algo fedopt");
    }
    p.algorithm = "fedavg";
  } else if (spec.algorithm == theory::Algorithm::scaffold) {
    p.algorithm = "scaffold";
  } else if (spec.algorithm == theory::Algorithm{"fedopt"}) {
    const auto& server = spec.step.server;
    if (!server.is("sgd") || server.value("lr") != 1.0 || server.value("momentum") != 0.0) {
      throw InputError("--server: conformance checks server sgd with lr 1 and no momentum only");
    }
    if (spec.step.client.is("fedprox")) {
      p.algorithm = "fedprox";
      p.mu = spec.step.client.value("mu");
    } else if (spec.step.client.is("sgd") && spec.step.client.value("momentum") == 0.0) {
      p.algorithm = "fedavg";
    } else {
      throw InputError("--client: conformance checks client sgd (FedAvg) or fedprox only");
    }
  } else {  // every algorithm of conformance_checks is handled above
    throw InputError(fmt::format("--algo: conformance checks fedavg, scaffold or fedopt, not {}",
                                 theory::to_string(spec.algorithm)));
  }
  return p;
}

struct Diverged {
  int round;
};

// Chains whose first round is replayed step by step (localise.hpp): a bug shows on every chain,
// and 64 keep the trace small (64 × H × N requests of 2d numbers).
constexpr int kTracedChains = 64;

// One run of the implementation: K chains from x0 for `rounds` rounds; record(round, d × K) after
// each. Throws Diverged when the reported iterates diverge.
void run_session(const theory::QuadraticProblem& q, const ConformanceSpec& spec,
                 const Protocol& protocol, const Implementation& implementation, int chains,
                 int rounds, const Vector& x0, std::uint64_t seed,
                 const std::function<void(int, const Matrix&)>& record,
                 std::vector<TracedGradient>* trace = nullptr) {
  ConformanceRun run{.algorithm = protocol.algorithm,
                     .gamma = spec.step.gamma,
                     .local_steps = spec.step.local_steps,
                     .participating = protocol.participating,
                     .mu = protocol.mu,
                     .chains = chains,
                     .rounds = rounds,
                     .seed = seed,
                     .x0 = x0.replicate(1, chains)};
  ConformanceOracle oracle(q, std::move(run), implementation.source, record);
  if (trace != nullptr) oracle.trace_chains(kTracedChains);
  implementation.run(oracle);
  oracle.require_complete("returned");
  if (trace != nullptr) *trace = oracle.traced();
  if (oracle.diverged_round() > 0) throw Diverged{oracle.diverged_round()};
}

// Hotelling's test of the mean, or a failed decision when the measured spread is degenerate (the
// covariance of the mean estimate is not positive definite, e.g. an implementation that does not
// pass fedverify's gradient noise on to its iterates), where the test is undefined and the exact
// law (positive definite here: every client's noise covariance enters it) is certainly not met.
estimators::Decision mean_test(const Vector& mean, const Matrix& mean_cov, std::int64_t batches,
                               const Vector& exact, double alpha) {
  if (mean_cov.allFinite() && mean_cov.llt().info() == Eigen::Success) {
    return estimators::hotelling_mean_test(mean, mean_cov, batches, exact, alpha);
  }
  estimators::Decision failed;
  failed.alpha = alpha;
  failed.description = "the iterates' spread is degenerate (no noise reaches them)";
  failed.statistic = std::numeric_limits<double>::infinity();
  return failed;
}

// MCSE of the entries of a Gaussian sample covariance of K draws with covariance P:
// Var(S_ij) ≈ (P_ij² + P_ii P_jj)/K.
Matrix sample_cov_mcse(const Matrix& p, int k) {
  Matrix m(p.rows(), p.cols());
  for (Eigen::Index i = 0; i < p.rows(); ++i) {
    for (Eigen::Index j = 0; j < p.cols(); ++j) {
      m(i, j) = std::sqrt((p(i, j) * p(i, j) + p(i, i) * p(j, j)) / k);
    }
  }
  return m;
}

std::string diagnose(const ConformanceResult& r, const Protocol& p, const Localisation& where,
                     double mean_gap, double trace_ratio) {
  const bool one_mean = r.checks[0].decision.passed, one_cov = r.checks[1].decision.passed;
  const bool st_mean = r.checks[2].decision.passed, st_cov = r.checks[3].decision.passed;
  if (one_mean && one_cov && st_mean && st_cov) {
    return "conforms: the one-round law and the stationary law agree with the exact ones";
  }
  // The first round replayed request by request (localise.hpp) says whether the local steps or
  // the aggregation is wrong; it comes first, being exact where the tests are statistical.
  std::string out;
  if (!where.local_steps_ok) out += fmt::format("Local steps: {}. ", where.local_steps);
  if (!where.aggregation_ok) out += fmt::format("Aggregation: {}. ", where.aggregation);
  const bool first_round_exact = where.traced && where.local_steps_ok && where.aggregation_ok;
  if (first_round_exact) {
    out += p.algorithm == "scaffold"
               ? "The first round is exact request by request (local steps and average), so the "
                 "difference comes from what carries over between rounds: the control variates. "
               : "The first round is exact request by request (local steps and average), so the "
                 "difference comes from state carried between rounds (each round must start "
                 "afresh from x_t; client state, e.g. an optimiser's, must be reset). ";
  }
  if (!st_mean) {
    if (p.algorithm == "scaffold") {
      out += fmt::format(
          "the stationary mean is off by {:.3g} (Scaffold's is x*, free of heterogeneity bias): "
          "the control-variate update is suspect (sign of the correction, the server adding c_i "
          "instead of Δc_i, the local-step count in (x − y)/(Kγ), the server averaging the "
          "sampled Δc_i over |S| instead of N). ",
          mean_gap);
    } else if (p.algorithm == "fedprox") {
      out += fmt::format(
          "the stationary mean is off by {:.3g}: the proximal term is suspect (its gradient must "
          "be μ(y − x_t)), or the aggregation. ",
          mean_gap);
    } else {
      out += fmt::format("the stationary mean is off by {:.3g}{}. ", mean_gap,
                         where.traced && (!where.local_steps_ok || !where.aggregation_ok)
                             ? " (from the first-round difference above)"
                             : ": the aggregation is suspect (weights that do not sum to one, |S| "
                               "in place of N or N in place of |S|)");
    }
  }
  if (!st_cov) {
    out += fmt::format(
        "The stationary spread differs (trace ratio measured/exact {:.3g}): the step size, the "
        "local-step count, the noise handling or the aggregation weights are suspect{}. ",
        trace_ratio,
        p.algorithm == "scaffold" && p.participating < p.clients
            ? "; with client sampling, also the server's control-variate update (the sampled "
              "Δc_i averaged over |S| instead of N lets c drift from the mean of the c_i)"
            : "");
  }
  if ((!one_mean || !one_cov) && st_mean && st_cov) {
    out += p.algorithm == "scaffold"
               ? "The first round differs but the stationary law agrees: the initial state is "
                 "suspect (control variates must start at 0; the run starts at the given x0)."
               : "The first round differs but the stationary law agrees: the start is suspect "
                 "(the run starts at the given x0).";
  } else if (!one_mean || !one_cov) {
    out += "The first round from x0 differs as well.";
  }
  return out;
}

// The stationary law of x the implementation must follow: the algorithm's exact moments, or for
// Scaffold with S < N those of THEORY (S8) (x block of the (x, c_1, …, c_N) chain).
theory::ExactMoments stationary_law(const theory::QuadraticProblem& q, const ConformanceSpec& spec,
                                    const Protocol& protocol) {
  if (protocol.algorithm == "scaffold" && protocol.participating < q.num_clients()) {
    const theory::ExactMoments state = theory::scaffold_sampled_exact(q, spec.step);
    const int d = q.dim();
    return {state.mean.head(d), state.cov.topLeftCorner(d, d), state.spectral_radius};
  }
  return theory::exact_moments(q, spec.algorithm, spec.step);
}

}  // namespace

ConformanceResult run_conformance(const theory::QuadraticProblem& q, const ConformanceSpec& spec) {
  return run_conformance(q, spec, process_implementation(spec.command));
}

ConformanceResult run_conformance(const theory::QuadraticProblem& q, const ConformanceSpec& spec,
                                  const Implementation& implementation) {
  const Protocol protocol = protocol_of(q, spec);
  theory::validate(spec.algorithm, spec.step);
  for (const auto& [flag, value, lo] :
       {std::tuple{"--one-round-chains", spec.one_round_chains, 16},
        std::tuple{"--chains", spec.chains, 2}, std::tuple{"--rounds", spec.rounds, 8}}) {
    theory::limits::require_range(flag, value, lo, 1 << 20);
  }
  if (spec.burn_in < 0 || spec.burn_in + 4 > spec.rounds) {
    throw InputError(fmt::format("--burn-in: must be in [0, rounds − 4 = {}], got {}",
                                 spec.rounds - 4, spec.burn_in));
  }
  if (!(spec.alpha > 0 && spec.alpha < 1)) {
    throw InputError(fmt::format("--alpha: must be in (0, 1), got {}", spec.alpha));
  }
  const double alpha = spec.alpha / 4;  // four tests
  const int d = q.dim();
  const Vector x_star = theory::minimizer(q);
  // The FedOpt setting of the first round (FedAvg: client sgd; Scaffold's first round from c = 0
  // is FedAvg's, with the same clients sampled).
  theory::StepSetting law_step = spec.step;
  if (spec.algorithm != theory::Algorithm{"fedopt"}) {
    law_step = theory::StepSetting{spec.step.gamma, spec.step.local_steps};
    law_step.participating = spec.step.participating;
  }
  ConformanceResult result;
  Localisation where;  // the first round replayed (localise.hpp)
  {                    // One round from x0 = x* + 1.
    const Vector x0 = x_star + Vector::Ones(d);
    const theory::OneRoundLaw law = theory::fedopt_one_round(q, law_step, x0);
    Matrix x1;
    std::vector<TracedGradient> trace;
    try {
      run_session(
          q, spec, protocol, implementation, spec.one_round_chains, 1, x0, spec.seed,
          [&](int, const Matrix& s) { x1 = s; }, &trace);
      const int traced = std::min(kTracedChains, spec.one_round_chains);
      where = localise_first_round(trace, x0.replicate(1, traced), x1.leftCols(traced),
                                   {protocol.algorithm, spec.step.gamma, spec.step.local_steps,
                                    protocol.mu, protocol.participating, protocol.clients});
    } catch (const Diverged&) {
      x1 = Matrix::Constant(d, spec.one_round_chains, kConformanceDivergence);
    }
    const int k = spec.one_round_chains;
    const Vector mean = x1.rowwise().mean();
    const Matrix centred = x1.colwise() - mean;
    const Matrix cov = centred * centred.transpose() / (k - 1.0);
    const estimators::Decision dm = mean_test(mean, cov / k, k, law.mean, alpha);
    result.checks.push_back(
        {"one-round mean", dm,
         fmt::format("max |Δ| = {:.3g} (sd of the mean {:.3g}), T² p = {:.3g}",
                     (mean - law.mean).cwiseAbs().maxCoeff(),
                     std::sqrt(law.cov.diagonal().maxCoeff() / k), dm.p_value)});
    const estimators::Decision dc =
        estimators::matrix_agreement(cov, law.cov, sample_cov_mcse(law.cov, k), Matrix(), alpha);
    result.checks.push_back(
        {"one-round covariance", dc,
         fmt::format("trace measured/exact {:.4g}, max z {:.3g} (threshold {:.3g})",
                     cov.trace() / law.cov.trace(), dc.statistic, dc.threshold)});
  }
  const theory::ExactMoments exact = stationary_law(q, spec, protocol);
  double mean_gap = 0, trace_ratio = 0;
  {  // Stationary law.
    estimators::StationaryMomentsAccumulator acc(d, spec.chains, spec.rounds - spec.burn_in);
    int diverged = 0;
    try {
      run_session(q, spec, protocol, implementation, spec.chains, spec.rounds, x_star,
                  spec.seed + 1, [&](int round, const Matrix& s) {
                    if (spec.progress) spec.progress(round, spec.rounds);
                    if (round > spec.burn_in) acc.add(s);
                  });
    } catch (const Diverged& e) {
      diverged = e.round;
    }
    estimators::MomentEstimate est;
    if (diverged == 0) {
      est = acc.result();
      if (!est.mean.allFinite() || !est.cov.allFinite() || !est.mean_mcse.allFinite() ||
          !est.cov_mcse.allFinite()) {
        diverged = spec.rounds;  // finite iterates whose moments overflow
      }
    }
    if (diverged > 0) {
      estimators::Decision failed;
      failed.alpha = alpha;
      failed.description = "the chains diverged";
      const std::string detail = fmt::format(
          "the chains diverged (|x| > 1e100 or not finite at round {}); the exact law is "
          "stationary (spectral radius {:.4g})",
          diverged, exact.spectral_radius);
      result.checks.push_back({"stationary mean", failed, detail});
      result.checks.push_back({"stationary covariance", failed, detail});
      result.diagnosis =
          (protocol.algorithm == "scaffold"
               ? "the chains diverge where Scaffold's exact chain is stationary: the "
                 "control-variate update is suspect (sign of the correction, the "
                 "server update, the local-step count). "
               : "the chains diverge where the exact chain is stationary: the "
                 "local step or the aggregation is suspect. ");
      result.passed = false;
      return result;
    }
    const estimators::Decision dm =
        mean_test(est.mean, est.mean_cov, est.batches(), exact.mean, alpha);
    mean_gap = (est.mean - exact.mean).norm();
    result.checks.push_back({"stationary mean", dm,
                             fmt::format("‖m − exact‖ = {:.3g} (MCSE {:.3g}), T² p = {:.3g}",
                                         mean_gap, est.mean_mcse.norm(), dm.p_value)});
    trace_ratio = est.cov.trace() / exact.cov.trace();
    const estimators::Decision dc =
        estimators::matrix_agreement(est.cov, exact.cov, est.cov_mcse, Matrix(), alpha);
    result.checks.push_back(
        {"stationary covariance", dc,
         fmt::format("trace measured/exact {:.4g}, max z {:.3g} (threshold {:.3g})", trace_ratio,
                     dc.statistic, dc.threshold)});
  }
  result.passed = true;
  for (const auto& c : result.checks) result.passed = result.passed && c.decision.passed;
  result.diagnosis = diagnose(result, protocol, where, mean_gap, trace_ratio);
  return result;
}

nlohmann::json conformance_to_json(const ConformanceSpec& spec, const ConformanceResult& r) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : r.checks) {
    checks.push_back({{"name", c.name},
                      {"passed", c.decision.passed},
                      {"statistic", c.decision.statistic},
                      {"threshold", c.decision.threshold},
                      {"p_value", c.decision.p_value},
                      {"detail", c.detail}});
  }
  return {{"algorithm", theory::to_string(spec.algorithm)},
          {"gamma", spec.step.gamma},
          {"local_steps", spec.step.local_steps},
          {"seed", spec.seed},
          {"alpha", spec.alpha},
          {"conforms", r.passed},
          {"checks", std::move(checks)},
          {"diagnosis", r.diagnosis}};
}

}  // namespace fedverify::reports
