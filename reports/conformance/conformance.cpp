#include "reports/conformance/conformance.hpp"

#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <functional>
#include <limits>

#include "estimators/statistics/moments.hpp"
#include "reports/conformance/child_process.hpp"
#include "theory/algorithms/fedopt.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::reports {
namespace {

using theory::to_json;

// What the implementation is told it runs, and the FedOpt setting whose law it must follow.
struct Protocol {
  std::string algorithm;  // "fedavg", "scaffold" or "fedprox"
  double mu = 0;
  int participating = 0;  // S (N when all)
};

Protocol protocol_of(const theory::QuadraticProblem& q, const ConformanceSpec& spec) {
  const int n = q.num_clients();
  Protocol p;
  p.participating = spec.step.participating > 0 ? spec.step.participating : n;
  if (spec.algorithm == theory::Algorithm::fedavg) {
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
  } else {
    throw InputError(fmt::format("--algo: conformance checks fedavg, scaffold or fedopt, not {}",
                                 theory::to_string(spec.algorithm)));
  }
  return p;
}

// K × d JSON rows → d × K, checked.
// The iterates are diverging: |x| beyond this (or not finite) ends the run as a failed check.
constexpr double kDivergence = 1e100;

struct Diverged {
  int round;
};

// K × d JSON rows → d × K, checked (a non-finite entry is allowed only when `allow_infinite`:
// reported iterates, where it means divergence; JSON has no inf, so nlohmann reads it as null).
Matrix states(const nlohmann::json& j, int chains, int dim, const std::string& what,
              bool allow_infinite = false) {
  const auto bad = [&] {
    return InputError(fmt::format("--exec: {}: expected {} rows (chains) of {} finite numbers",
                                  what, chains, dim));
  };
  if (!j.is_array() || static_cast<int>(j.size()) != chains) throw bad();
  Matrix m(dim, chains);
  for (int k = 0; k < chains; ++k) {
    const auto& row = j[k];
    if (!row.is_array() || static_cast<int>(row.size()) != dim) throw bad();
    for (int i = 0; i < dim; ++i) {
      if (row[i].is_number()) {
        m(i, k) = row[i].get<double>();
      } else if (allow_infinite && row[i].is_null()) {
        m(i, k) = std::numeric_limits<double>::infinity();
      } else {
        throw bad();
      }
    }
  }
  if (!allow_infinite && !m.allFinite()) throw bad();
  return m;
}

nlohmann::json rows(const Matrix& m) {  // d × K → K rows
  nlohmann::json out = nlohmann::json::array();
  for (Eigen::Index k = 0; k < m.cols(); ++k) out.push_back(to_json(Vector(m.col(k))));
  return out;
}

// One protocol session: K chains from x0 for `rounds` rounds; record(round, d × K) after each.
void run_session(const theory::QuadraticProblem& q, const ConformanceSpec& spec,
                 const Protocol& protocol, int chains, int rounds, const Vector& x0,
                 std::uint64_t seed, const std::function<void(int, const Matrix&)>& record) {
  const int d = q.dim(), n = q.num_clients();
  std::vector<Matrix> roots;  // L_c L_cᵀ = S_c
  for (int c = 0; c < n; ++c) {
    const Eigen::SelfAdjointEigenSolver<Matrix> eig(q.client(c).noise_cov);
    roots.push_back(eig.eigenvectors() * eig.eigenvalues().cwiseMax(0).cwiseSqrt().asDiagonal() *
                    eig.eigenvectors().transpose());
  }
  std::vector<std::uint64_t> requests(static_cast<std::size_t>(chains) * n, 0);
  ChildProcess child(spec.command);
  nlohmann::json run = {{"type", "run"},
                        {"algorithm", protocol.algorithm},
                        {"dim", d},
                        {"clients", n},
                        {"gamma", spec.step.gamma},
                        {"local_steps", spec.step.local_steps},
                        {"participating", protocol.participating},
                        {"chains", chains},
                        {"rounds", rounds},
                        {"seed", seed},
                        {"x0", rows(x0.replicate(1, chains))}};
  if (protocol.algorithm == "fedprox") run["mu"] = protocol.mu;
  child.send(run);
  int done = 0;
  while (done < rounds) {
    const nlohmann::json m = child.receive();
    const std::string type =
        m.contains("type") && m["type"].is_string() ? m["type"].get<std::string>() : "";
    if (type == "grad") {
      if (!m.contains("client") || !m.contains("x")) {
        throw InputError("--exec: a grad request needs \"client\" and \"x\"");
      }
      const Matrix x = states(m["x"], chains, d, "grad request x");
      std::vector<int> client(chains);
      const auto& c = m["client"];
      for (int k = 0; k < chains; ++k) {
        const auto& ck =
            c.is_array() ? (static_cast<int>(c.size()) == chains ? c[k] : nlohmann::json()) : c;
        if (!ck.is_number_integer() || ck.get<int>() < 0 || ck.get<int>() >= n) {
          throw InputError(fmt::format(
              "--exec: grad request client: expected an integer in [0, {}) or {} of them", n,
              chains));
        }
        client[k] = ck.get<int>();
      }
      Matrix g(d, chains);
      Vector u(d);
      for (int k = 0; k < chains; ++k) {
        const int i = client[k];
        estimators::Stream s(seed, estimators::Purpose::gradient_noise,
                             static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(i),
                             requests[static_cast<std::size_t>(k) * n + i]++);
        for (int j = 0; j < d; ++j) u(j) = s.normal();
        g.col(k) = q.gradient(i, x.col(k)) + roots[i] * u;
      }
      child.send({{"grad", rows(g)}});
    } else if (type == "round") {
      if (!m.contains("x")) throw InputError("--exec: a round message needs \"x\"");
      ++done;
      const Matrix x = states(m["x"], chains, d, fmt::format("round {} x", done), true);
      if (!x.allFinite() || x.cwiseAbs().maxCoeff() > kDivergence) {
        child.finish();
        throw Diverged{done};
      }
      record(done, x);
    } else {
      throw InputError(fmt::format("--exec: expected a message of type grad or round, got {}",
                                   theory::limits::quote_input(m.dump())));
    }
  }
  const int status = child.finish();
  if (status != 0) {
    throw InputError(fmt::format("--exec: the implementation exited with status {}", status));
  }
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

std::string diagnose(const ConformanceResult& r, const Protocol& p, double mean_gap,
                     double trace_ratio) {
  const bool one_mean = r.checks[0].decision.passed, one_cov = r.checks[1].decision.passed;
  const bool st_mean = r.checks[2].decision.passed, st_cov = r.checks[3].decision.passed;
  if (one_mean && one_cov && st_mean && st_cov) {
    return "conforms: the one-round law and the stationary law agree with the exact ones";
  }
  std::string out;
  if (!st_mean) {
    if (p.algorithm == "scaffold") {
      out = fmt::format(
          "the stationary mean is off by {:.3g} (Scaffold's is x*, free of heterogeneity bias): "
          "the control-variate update is suspect (sign of the correction, the server adding c_i "
          "instead of Δc_i, the local-step count in (x − y)/(Kγ)). ",
          mean_gap);
    } else if (p.algorithm == "fedprox") {
      out = fmt::format(
          "the stationary mean is off by {:.3g}: the proximal term is suspect (its gradient must "
          "be μ(y − x_t)), or the aggregation. ",
          mean_gap);
    } else {
      out = fmt::format(
          "the stationary mean is off by {:.3g}: the aggregation is suspect (weights that do not "
          "sum to one, |S| in place of N or N in place of |S|). ",
          mean_gap);
    }
  }
  if (!st_cov) {
    out += fmt::format(
        "The stationary spread differs (trace ratio measured/exact {:.3g}): the step size, the "
        "local-step count, the noise handling or the aggregation weights are suspect. ",
        trace_ratio);
  }
  if ((!one_mean || !one_cov) && st_mean && st_cov) {
    out +=
        "The first round differs but the stationary law agrees: the initial state is suspect "
        "(control variates must start at 0; the run starts at the given x0).";
  } else if (!one_mean || !one_cov) {
    out += "The first round from x0 differs as well.";
  }
  return out;
}

}  // namespace

ConformanceResult run_conformance(const theory::QuadraticProblem& q, const ConformanceSpec& spec) {
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
  // The FedOpt setting whose law the implementation must follow (FedAvg: client sgd).
  theory::StepSetting law_step = spec.step;
  if (spec.algorithm != theory::Algorithm{"fedopt"})
    law_step = theory::StepSetting{spec.step.gamma, spec.step.local_steps};
  ConformanceResult result;
  {  // One round from x0 = x* + 1.
    const Vector x0 = x_star + Vector::Ones(d);
    const theory::OneRoundLaw law = theory::fedopt_one_round(q, law_step, x0);
    Matrix x1;
    try {
      run_session(q, spec, protocol, spec.one_round_chains, 1, x0, spec.seed,
                  [&](int, const Matrix& s) { x1 = s; });
    } catch (const Diverged&) {
      x1 = Matrix::Constant(d, spec.one_round_chains, kDivergence);
    }
    const int k = spec.one_round_chains;
    const Vector mean = x1.rowwise().mean();
    const Matrix centred = x1.colwise() - mean;
    const Matrix cov = centred * centred.transpose() / (k - 1.0);
    const estimators::Decision dm =
        estimators::hotelling_mean_test(mean, cov / k, k, law.mean, alpha);
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
  const theory::ExactMoments exact = theory::exact_moments(q, spec.algorithm, spec.step);
  double mean_gap = 0, trace_ratio = 0;
  {  // Stationary law.
    estimators::StationaryMomentsAccumulator acc(d, spec.chains, spec.rounds - spec.burn_in);
    int diverged = 0;
    try {
      run_session(q, spec, protocol, spec.chains, spec.rounds, x_star, spec.seed + 1,
                  [&](int round, const Matrix& s) {
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
    const estimators::Decision dm = estimators::hotelling_mean_test(est, exact.mean, alpha);
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
  result.diagnosis = diagnose(result, protocol, mean_gap, trace_ratio);
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
