#include "reports/conformance/diagnosis.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace fedverify::reports {

namespace {

// What the first round replayed request by request (localise.hpp) says: whether the local steps
// or the aggregation is wrong, or neither (then the difference is carried between rounds). It
// comes first in a diagnosis, being exact where the tests are statistical.
std::string first_round_findings(const ConformanceProtocol& p, const Localisation& where) {
  std::string out;
  if (!where.local_steps_ok) out += fmt::format("Local steps: {}. ", where.local_steps);
  if (!where.aggregation_ok) out += fmt::format("Aggregation: {}. ", where.aggregation);
  const bool first_round_exact = where.traced && where.local_steps_ok && where.aggregation_ok;
  if (first_round_exact) {
    out += p.algorithm == "scaffold"
               ? "The first round is exact request by request (local steps and average), so the "
                 "difference comes from what carries over between rounds: the control variates. "
           : p.server.momentum != 0.0
               ? "The first round is exact request by request (local steps and the server's first "
                 "step), so the difference comes from state carried between rounds: the server's "
                 "momentum buffer must carry over (m ← βm + Δ), while each client round must "
                 "start afresh from x_t. "
               : "The first round is exact request by request (local steps and average), so the "
                 "difference comes from state carried between rounds (each round must start "
                 "afresh from x_t; client state, e.g. an optimiser's, must be reset). ";
  }
  return out;
}

}  // namespace

std::string diagnose_divergence(const ConformanceProtocol& p, const Localisation& where) {
  return first_round_findings(p, where) +
         (p.algorithm == "scaffold"
              ? "The chains diverge where Scaffold's exact chain is stationary: the "
                "control-variate update is suspect (sign of the correction, the server update, "
                "the local-step count). "
              : "The chains diverge where the exact chain is stationary: the local step or the "
                "aggregation is suspect. ");
}

std::string diagnose(const ConformanceResult& r, const ConformanceProtocol& p,
                     const Localisation& where, double mean_gap, double trace_ratio) {
  const bool one_mean = r.checks[0].decision.passed, one_cov = r.checks[1].decision.passed;
  const bool st_mean = r.checks[2].decision.passed, st_cov = r.checks[3].decision.passed;
  if (one_mean && one_cov && st_mean && st_cov) {
    return p.simulated ? "conforms: the one-round law and the stationary law agree with those of "
                         "fedverify's own simulation of the algorithm"
                       : "conforms: the one-round law and the stationary law agree with the exact "
                         "ones";
  }
  std::string out = first_round_findings(p, where);
  // The first round's replay found the faulty step (local steps or aggregation).
  const bool localised = where.traced && (!where.local_steps_ok || !where.aggregation_ok);
  if (!r.neighbours.empty()) {
    out += fmt::format("The measured stationary law fits that of a neighbouring algorithm: {}. ",
                       fmt::join(r.neighbours, "; or "));
  }
  if (!st_mean) {
    if (p.algorithm == "scaffold") {
      out += fmt::format(
          "The stationary mean is off by {:.3g} (Scaffold's is x*, free of heterogeneity bias): "
          "the control-variate update is suspect (sign of the correction, the server adding c_i "
          "instead of Δc_i, the local-step count in (x − y)/(Kγ), the server averaging the "
          "sampled Δc_i over |S| instead of N). ",
          mean_gap);
    } else if (p.algorithm == "fedprox" && localised) {
      out += fmt::format(
          "The stationary mean is off by {:.3g} (from the first-round difference above). ",
          mean_gap);
    } else if (p.algorithm == "fedprox") {
      out += fmt::format(
          "The stationary mean is off by {:.3g}: the proximal term is suspect (its gradient must "
          "be μ(y − x_t)), or the aggregation. ",
          mean_gap);
    } else {
      out += fmt::format("The stationary mean is off by {:.3g}{}. ", mean_gap,
                         localised ? " (from the first-round difference above)"
                         : p.client_momentum != 0.0
                             ? ": the clients' momentum (its buffer must start at 0 every round) "
                               "or the aggregation is suspect"
                             : ": the aggregation is suspect (weights that do not sum to one, |S| "
                               "in place of N or N in place of |S|)");
    }
  }
  if (!st_cov && localised) {  // the replay named the step: no list of generic suspects
    out += fmt::format(
        "The stationary spread differs (trace ratio measured/{} {:.3g}), from the first-round "
        "difference above. ",
        p.simulated ? "simulated" : "exact", trace_ratio);
  } else if (!st_cov) {
    out += fmt::format(
        "The stationary spread differs (trace ratio measured/{} {:.3g}): the step size, the "
        "local-step count, the noise handling{} or the aggregation weights are suspect{}. ",
        p.simulated ? "simulated" : "exact", trace_ratio,
        p.server == theory::ServerSgd{} && p.server_optimiser.is("sgd") ? ""
                                                                        : ", the server's rule",
        p.algorithm == "scaffold" && p.participating < p.clients
            ? "; with client sampling, also the server's control-variate update (the sampled "
              "Δc_i averaged over |S| instead of N lets c drift from the mean of the c_i)"
            : "");
  }
  if ((!one_mean || !one_cov) && st_mean && st_cov) {
    out += p.algorithm == "scaffold"
               ? "The first round differs but the stationary law agrees: the initial state is "
                 "suspect (control variates must start at 0; the run starts at the given x0)."
           : p.server_optimiser.is("sgd")
               ? "The first round differs but the stationary law agrees: the start is suspect "
                 "(the run starts at the given x0)."
               : fmt::format(
                     "The first round differs but the stationary law agrees: the start "
                     "is suspect (the run starts at the given x0), or the server's {} "
                     "in its first steps (its state starts at 0; bias correction).",
                     p.server_optimiser.name);
  } else if (!one_mean || !one_cov) {
    out += "The first round from x0 differs as well.";
  }
  return out;
}

}  // namespace fedverify::reports
