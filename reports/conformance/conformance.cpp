#include "reports/conformance/conformance.hpp"

#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>

#include "estimators/statistics/gaussian_covariance.hpp"
#include "estimators/statistics/moments.hpp"
#include "reports/conformance/diagnosis.hpp"
#include "reports/conformance/neighbours.hpp"
#include "reports/conformance/per_model.hpp"
#include "reports/conformance/process_implementation.hpp"
#include "reports/conformance/simulated_reference.hpp"
#include "reports/conformance/trajectory.hpp"
#include "theory/algorithms/fedopt.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/problems/algorithm_registry.hpp"
#include "theory/problems/fedopt_setting.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/optimiser.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/problem_io.hpp"
#include "theory/problems/scaffold_setting.hpp"
#include "theory/problems/weight_decay.hpp"

namespace fedverify::reports {
namespace {
// FedOpt, named once: Debian's clang 14.0.6 crashes (IR generation) on a consteval
// theory::Algorithm{"fedopt"} temporary passed to operator== in a condition.
const theory::Algorithm kFedOpt{"fedopt"};
}  // namespace

bool conformance_checks(theory::Algorithm algorithm) {
  return algorithm == theory::Algorithm::fedavg || algorithm == theory::Algorithm::scaffold ||
         algorithm == kFedOpt;
}

namespace {

ConformanceProtocol protocol_of(const theory::QuadraticProblem& q, const ConformanceSpec& spec) {
  const int n = q.num_clients();
  // Unequal client weights: FedAvg's laws only (THEORY (A1)); other algorithms refuse them.
  theory::require_client_weights(theory::describe(spec.algorithm), q.equal_weights());
  ConformanceProtocol p;
  p.participating = theory::participating_clients(spec.step, n);  // names --participating
  p.clients = n;
  for (int c = 0; c < n; ++c) p.client_weights.push_back(q.weight(c));
  p.weight_decay = spec.weight_decay;
  if (spec.algorithm == theory::Algorithm::fedavg) {
    if (spec.step.participating != 0) {
      throw InputError("--participating: FedAvg with client sampling is --algo fedopt");
    }
    p.algorithm = "fedavg";
  } else if (spec.algorithm == theory::Algorithm::scaffold) {
    p.algorithm = "scaffold";
    // THEORY (S9): the global step η_g, a server sgd without momentum in the run message.
    const double eta = theory::scaffold_server_lr(spec.step);
    p.server_optimiser =
        theory::make_optimiser(theory::OptimiserRole::server, "sgd", {{"lr", eta}},
                               [](std::string_view key) { return std::string(key); });
    p.server.lr = eta;
  } else if (spec.algorithm == kFedOpt) {
    if (spec.step.server.is("fedexp")) {  // a round of its own, not a rule of (O0)-(O2)
      throw InputError(
          "--server: conformance checks server sgd or a rule of THEORY (O1), not "
          "fedexp");
    }
    p.server_optimiser = spec.step.server;
    if (spec.step.server.is("sgd")) p.server = theory::server_sgd(spec.step);
    if (spec.step.client.is("fedprox")) {
      p.algorithm = "fedprox";
      p.mu = spec.step.client.value("mu");
    } else if (spec.step.client.is("sgd")) {
      p.algorithm = "fedavg";
      p.client_momentum = spec.step.client.value("momentum");
    } else {
      throw InputError(
          "--client: conformance checks client sgd (with or without momentum) or "
          "fedprox only");
    }
    // Adam, …, on the server or client momentum: no closed forms, the simulated reference.
    p.simulated = uses_simulated_reference(spec.algorithm, spec.step);
  } else {  // every algorithm of conformance_checks is handled above
    throw InputError(fmt::format("--algo: conformance checks fedavg, scaffold or fedopt, not {}",
                                 theory::to_string(spec.algorithm)));
  }
  return p;
}

// The rule the first round and the trajectory are replayed against (localise.hpp).
ReplaySetting replay_setting(const ConformanceProtocol& p, const ConformanceSpec& spec) {
  return {p.algorithm, spec.step.gamma, spec.step.local_steps, p.mu, p.participating, p.clients,
          p.server,    p.weight_decay,  p.client_weights};
}

struct Diverged {
  int round;
};

// The scale guard of the stationary run: the chains fail as diverged when the mean of ‖x − x*‖²
// over the rounds after burn-in exceeds kScaleGuardFactor times its exact stationary value
// s∞ = tr Σ + ‖m − x*‖², whatever the MCSEs estimated from the same series say (a diverging chain
// inflates them as fast as the error: the batch-means tests alone passed |x| = 1e17). For a
// correct implementation Markov's inequality bounds the false alarm by κ/kScaleGuardFactor, κ the
// window's expected second moment over s∞: κ → 1 after burn-in, and κ ≤ 4 for FedAvg and FedProx
// with all clients started at x* (a symmetric contraction A: the covariance grows monotonically to
// Σ from 0 and ‖m_t − x*‖ ≤ (1 + ‖Aᵗ‖)‖m − x*‖ ≤ 2‖m − x*‖). So ≤ 4e-4, beside α. With server
// momentum the map of (x, m) is not symmetric: the covariance still grows monotonically from 0
// (a sum of PSD terms), and the mean's transient ‖Mᵗ‖ has decayed by the end of the burn-in.
constexpr double kScaleGuardFactor = 1e4;

// Chains whose first round is replayed step by step (localise.hpp): a bug shows on every chain,
// and 64 keep the trace small (64 × H × N requests of 2d numbers).
constexpr int kTracedChains = 64;

// One run of the implementation: K chains from x0 for `rounds` rounds; record(round, d × K) after
// each. Throws Diverged when the reported iterates diverge.
void run_session(const theory::QuadraticProblem& q, const ConformanceSpec& spec,
                 const ConformanceProtocol& protocol, const Implementation& implementation,
                 int chains, int rounds, const Vector& x0, std::uint64_t seed,
                 const std::function<void(int, const Matrix&)>& record,
                 std::vector<TracedGradient>* trace = nullptr, int traced_chains = kTracedChains) {
  ConformanceRun run{.algorithm = protocol.algorithm,
                     .gamma = spec.step.gamma,
                     .local_steps = spec.step.local_steps,
                     .participating = protocol.participating,
                     .mu = protocol.mu,
                     .server = protocol.server,
                     .server_optimiser = protocol.server_optimiser,
                     .client_momentum = protocol.client_momentum,
                     .weight_decay = protocol.weight_decay,
                     .client_weights = protocol.client_weights,
                     .chains = chains,
                     .rounds = rounds,
                     .seed = seed,
                     .x0 = x0.replicate(1, chains)};
  if (spec.per_model) {
    const int diverged =
        run_per_model(q, spec.workers, run, implementation, record, trace, traced_chains);
    if (diverged > 0) throw Diverged{diverged};
    return;
  }
  ConformanceOracle oracle(q, std::move(run), implementation.source, record);
  if (trace != nullptr) oracle.trace_chains(traced_chains);
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

// Trajectory mode (trajectory.hpp): K chains for T rounds from x0 = x* + 1, every request and
// round of every chain replayed against the algorithm's rule; one exact check.
ConformanceResult trajectory_mode(const theory::QuadraticProblem& q, const Vector& x0,
                                  const ConformanceSpec& spec, const ConformanceProtocol& protocol,
                                  const Implementation& implementation) {
  std::vector<Matrix> rounds;
  std::vector<TracedGradient> trace;
  estimators::Decision decision;
  decision.threshold = 1;
  decision.p_value = std::numeric_limits<double>::quiet_NaN();  // exact: no p-value (JSON null)
  decision.description = "every request and round within the round-off tolerance";
  std::string detail;
  try {
    run_session(
        q, spec, protocol, implementation, spec.chains, spec.rounds, x0, spec.seed,
        [&](int, const Matrix& x) { rounds.push_back(x); }, &trace, spec.chains);
    const TrajectoryComparison c =
        compare_trajectory(trace, x0.replicate(1, spec.chains), rounds,
                           replay_setting(protocol, spec), *spec.trajectory);
    decision.passed = c.agrees;
    decision.statistic = c.worst_ratio;
    detail = c.agrees
                 ? fmt::format(
                       "{} rounds of {} chains replayed request by request; largest "
                       "difference {:.3g} of the {} round-off tolerance",
                       c.rounds_replayed, spec.chains, c.worst_ratio, to_string(*spec.trajectory))
                 : c.difference;
  } catch (const Diverged& e) {
    decision.statistic = std::numeric_limits<double>::infinity();
    detail = fmt::format("the chains diverged (non-finite or beyond 1e100 in round {})", e.round);
  }
  ConformanceResult result;
  result.checks.push_back({"trajectory", decision, detail});
  result.passed = decision.passed;
  result.diagnosis =
      decision.passed
          ? "conforms: every gradient request and every round agrees with the algorithm's rule "
            "on the same gradients, to round-off"
          : "the trajectory differs from the algorithm's on the same gradients: " + detail +
                ". (An implementation that asks for gradients the algorithm does not, e.g. for "
                "logging, cannot be compared this way: use the statistical checks, without "
                "--trajectory.)";
  return result;
}

}  // namespace

ConformanceResult run_conformance(const theory::QuadraticProblem& q, const ConformanceSpec& spec) {
  if (!(spec.timeout_seconds > 0 && spec.timeout_seconds <= kMaxMessageTimeout)) {
    throw InputError(fmt::format("--timeout: must be in (0, {:g}] seconds, got {}",
                                 kMaxMessageTimeout, spec.timeout_seconds));
  }
  return run_conformance(q, spec,
                         process_implementation(spec.command, spec.timeout_seconds, spec.pipes));
}

ConformanceResult run_conformance(const theory::QuadraticProblem& q, const ConformanceSpec& spec,
                                  const Implementation& implementation) {
  const ConformanceProtocol protocol = protocol_of(q, spec);
  theory::validate(spec.algorithm, spec.step);
  // The problem the laws are those of (THEORY C1; the oracle serves q's gradients, the
  // implementation adds λy); names --weight-decay for a bad λ.
  const theory::QuadraticProblem laws = theory::with_weight_decay(q, spec.weight_decay);
  if (spec.trajectory && protocol.simulated) {
    throw InputError(fmt::format(
        "--trajectory: replays the linear rules only (server sgd; client sgd without momentum, "
        "fedprox), not server {} with client momentum {:g}: use the statistical checks",
        spec.step.server.name, protocol.client_momentum));
  }
  if (spec.trajectory) {
    if (protocol.participating < protocol.clients) {
      throw InputError(
          "--trajectory: needs all clients in every round (with --participating S < N the "
          "implementation samples clients with its own randomness); use the statistical checks");
    }
    theory::limits::require_range("--chains", spec.chains, 1, 1 << 16);
    theory::limits::require_range("--rounds", spec.rounds, 1, 1 << 16);
    return trajectory_mode(q, theory::minimizer(laws) + Vector::Ones(q.dim()), spec, protocol,
                           implementation);
  }
  if (spec.workers < 0 || spec.workers > 256) {
    throw InputError(fmt::format("--workers: must be in [0, 256], got {}", spec.workers));
  }
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
  const Vector x_star = theory::minimizer(laws);
  // The FedOpt setting of the first round (FedAvg: client sgd; Scaffold's first round from c = 0
  // is FedAvg's, with the same clients sampled and its server step η_g, THEORY S9).
  theory::RunSetting law_step = spec.step;
  if (spec.algorithm != kFedOpt) {
    law_step = theory::RunSetting{spec.step.gamma, spec.step.local_steps};
    law_step.participating = spec.step.participating;
    law_step.server = protocol.server_optimiser;
  }
  ConformanceResult result;
  Localisation where;  // the first round replayed (localise.hpp)
  {                    // One round from x0 = x* + 1.
    const Vector x0 = x_star + Vector::Ones(d);
    Matrix x1;
    std::vector<TracedGradient> trace;
    try {
      run_session(
          q, spec, protocol, implementation, spec.one_round_chains, 1, x0, spec.seed,
          [&](int, const Matrix& s) { x1 = s; }, protocol.simulated ? nullptr : &trace);
      const int traced = std::min(kTracedChains, spec.one_round_chains);
      if (!protocol.simulated) {  // the replay knows the linear rules only
        where = localise_first_round(trace, x0.replicate(1, traced), x1.leftCols(traced),
                                     replay_setting(protocol, spec));
      }
    } catch (const Diverged&) {
      x1 = Matrix::Constant(d, spec.one_round_chains, kConformanceDivergence);
    }
    const int k = spec.one_round_chains;
    if (protocol.simulated) {
      result.checks = two_sample_checks(
          "one-round", sample_moments(x1),
          sample_moments(reference_one_round(laws, spec.step, x0, k, spec.seed)), alpha, 0);
    } else {
      const theory::OneRoundLaw law = theory::fedopt_one_round(laws, law_step, x0);
      const Vector mean = x1.rowwise().mean();
      const Matrix centred = x1.colwise() - mean;
      const Matrix cov = centred * centred.transpose() / (k - 1.0);
      const estimators::Decision dm = mean_test(mean, cov / k, k, law.mean, alpha);
      result.checks.push_back(
          {"one-round mean", dm,
           fmt::format("max |Δ| = {:.3g} (sd of the mean {:.3g}), T² p = {:.3g}",
                       (mean - law.mean).cwiseAbs().maxCoeff(),
                       std::sqrt(law.cov.diagonal().maxCoeff() / k), dm.p_value)});
      // x₁ is exactly Gaussian: the threshold is calibrated on the exact Wishart null at this K.
      const estimators::Decision dc =
          estimators::gaussian_covariance_agreement(cov, law.cov, k, alpha, spec.seed);
      result.checks.push_back(
          {"one-round covariance", dc,
           fmt::format(
               "trace measured/exact {:.4g}, max z {:.3g} (threshold {:.3g}; detects "
               "entry shifts ≥ {:.3g})",
               cov.trace() / law.cov.trace(), dc.statistic, dc.threshold,
               dc.threshold * estimators::gaussian_sample_cov_mcse(law.cov, k).maxCoeff())});
    }
  }
  // The law the stationary run must follow: exact, or fedverify's own simulation of it.
  std::optional<estimators::MomentEstimate> reference;
  theory::ExactMoments exact;
  if (protocol.simulated) {
    reference =
        reference_stationary(laws, spec.step, spec.chains, spec.rounds, spec.burn_in, spec.seed);
    exact = {reference->mean, reference->cov, std::numeric_limits<double>::quiet_NaN()};
  } else {
    // The algorithm's exact law of x (for Scaffold with S < N, THEORY S8's x block).
    exact = theory::exact_moments(laws, spec.algorithm, spec.step);
  }
  double mean_gap = 0, trace_ratio = 0;
  {  // Stationary law.
    estimators::StationaryMomentsAccumulator acc(d, spec.chains, spec.rounds - spec.burn_in);
    int diverged = 0;
    double window_square_sum = 0;  // Σ ‖x − x*‖² over the rounds after burn-in and the chains
    try {
      run_session(q, spec, protocol, implementation, spec.chains, spec.rounds, x_star,
                  spec.seed + 1, [&](int round, const Matrix& s) {
                    if (spec.progress) spec.progress(round, spec.rounds);
                    if (round <= spec.burn_in) return;
                    acc.add(s);
                    window_square_sum += (s.colwise() - x_star).squaredNorm();
                  });
    } catch (const Diverged& e) {
      diverged = e.round;
    }
    estimators::MomentEstimate est;
    std::string why = fmt::format("|x| > 1e100 or not finite at round {}", diverged);
    if (diverged == 0) {
      est = acc.result();
      const double exact_square = exact.cov.trace() + (exact.mean - x_star).squaredNorm();
      const double window_square =
          window_square_sum / (static_cast<double>(spec.chains) * (spec.rounds - spec.burn_in));
      if (!est.mean.allFinite() || !est.cov.allFinite() || !est.mean_mcse.allFinite() ||
          !est.cov_mcse.allFinite() || !std::isfinite(window_square)) {
        diverged = spec.rounds;  // finite iterates whose moments overflow
        why = "finite iterates whose moments overflow";
      } else if (window_square > kScaleGuardFactor * exact_square) {
        diverged = spec.rounds;
        why = fmt::format(
            "after burn-in the mean of |x - x*|^2 is {:.3g}, {:.3g} times its exact stationary "
            "value {:.3g}: more than the scale guard's {:g} times",
            window_square, window_square / exact_square, exact_square, kScaleGuardFactor);
      }
    }
    if (diverged > 0) {
      estimators::Decision failed;
      failed.alpha = alpha;
      failed.description = "the chains diverged";
      const std::string detail =
          protocol.simulated
              ? fmt::format("the chains diverged ({}); fedverify's own simulation is stationary",
                            why)
              : fmt::format(
                    "the chains diverged ({}); the exact law is stationary (spectral radius "
                    "{:.4g})",
                    why, exact.spectral_radius);
      result.checks.push_back({"stationary mean", failed, detail});
      result.checks.push_back({"stationary covariance", failed, detail});
      result.diagnosis = diagnose_divergence(protocol, where);
      result.passed = false;
      return result;
    }
    mean_gap = (est.mean - exact.mean).norm();
    trace_ratio = est.cov.trace() / exact.cov.trace();
    if (protocol.simulated) {
      const double dof = static_cast<double>(std::min(est.batches(), reference->batches()) - 1);
      for (auto& c : two_sample_checks("stationary", est, *reference, alpha, dof)) {
        result.checks.push_back(std::move(c));
      }
    } else {
      const estimators::Decision dm =
          mean_test(est.mean, est.mean_cov, est.batches(), exact.mean, alpha);
      result.checks.push_back({"stationary mean", dm,
                               fmt::format("‖m − exact‖ = {:.3g} (MCSE {:.3g}), T² p = {:.3g}",
                                           mean_gap, est.mean_mcse.norm(), dm.p_value)});
      const estimators::Decision dc =
          estimators::matrix_agreement(est.cov, exact.cov, est.cov_mcse, Matrix(), alpha,
                                       static_cast<double>(est.batches() - 1));
      result.checks.push_back(
          {"stationary covariance", dc,
           fmt::format("trace measured/exact {:.4g}, max z {:.3g} (threshold {:.3g}; detects "
                       "entry shifts ≥ {:.3g})",
                       trace_ratio, dc.statistic, dc.threshold,
                       dc.threshold * est.cov_mcse.maxCoeff())});
      if (!dm.passed || !dc.passed) {  // which neighbouring law fits instead (neighbours.hpp)
        result.neighbours = fitting_neighbours(
            laws, q, neighbour_laws(protocol, spec), [&](const theory::ExactMoments& law) {
              return mean_test(est.mean, est.mean_cov, est.batches(), law.mean, alpha).passed &&
                     estimators::matrix_agreement(est.cov, law.cov, est.cov_mcse, Matrix(), alpha,
                                                  static_cast<double>(est.batches() - 1))
                         .passed;
            });
      }
    }
  }
  result.passed = true;
  for (auto& c : result.checks) {
    result.passed = result.passed && c.decision.passed;
    // A failure within a decade of its level is worth a second seed before a verdict.
    if (!c.decision.passed && c.decision.p_value >= c.decision.alpha / 10) {
      c.detail += fmt::format(
          "; borderline (p = {:.3g}, level {:.3g}): rerun with another --seed "
          "to confirm",
          c.decision.p_value, c.decision.alpha);
    }
  }
  result.diagnosis = diagnose(result, protocol, where, mean_gap, trace_ratio);
  return result;
}

}  // namespace fedverify::reports
