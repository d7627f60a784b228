#include "verify/power/plants.hpp"

#include <fmt/format.h>

#include <memory>
#include <utility>

#include "verify/planted/fedavg_bugs.hpp"
#include "verify/planted/formula_errors.hpp"
#include "verify/planted/scaffold_bugs.hpp"

namespace fedverify::power {

namespace {

using theory::Algorithm;
namespace planted = verify::planted;

// A round factory that returns `round` for the algorithms in `algorithms` (the registered round,
// nullptr, for the others).
claims::Context::RoundFactory rounds(std::vector<Algorithm> algorithms,
                                     std::shared_ptr<const estimators::RoundSampler> round) {
  return [algorithms = std::move(algorithms), round = std::move(round)](
             Algorithm a) -> std::shared_ptr<const estimators::RoundSampler> {
    for (const Algorithm b : algorithms) {
      if (a == b) return round;
    }
    return nullptr;
  };
}

Plant sampler_plant(std::string name, std::string description, std::vector<Algorithm> algorithms,
                    std::shared_ptr<const estimators::RoundSampler> round) {
  Plant p;
  p.name = std::move(name);
  p.kind = PlantKind::sampler;
  p.description = std::move(description);
  p.asserted = true;
  p.algorithms = algorithms;
  p.round_for = rounds(std::move(algorithms), std::move(round));
  return p;
}

}  // namespace

std::string to_string(PlantKind kind) {
  switch (kind) {
    case PlantKind::formula:
      return "formula";
    case PlantKind::graded:
      return "graded";
    case PlantKind::sampler:
      return "sampler";
    case PlantKind::control:
      return "control";
  }
  return "?";
}

std::vector<Plant> plants() {
  std::vector<Plant> out;
  for (const planted::FormulaError error : planted::formula_errors()) {
    Plant p;
    p.name = "formula: " + planted::to_string(error);
    p.kind = PlantKind::formula;
    p.description = planted::describe(error);
    p.asserted = true;
    p.predictor = [error](const theory::ExpansionCoefficients& k, Algorithm a,
                          const theory::RunSetting& s) {
      return planted::first_order_with(error, k, a, s);
    };
    out.push_back(std::move(p));
  }
  for (const planted::FirstOrderTerm term :
       {planted::FirstOrderTerm::bias, planted::FirstOrderTerm::covariance}) {
    for (const double factor : {1.1, 1.25, 1.5}) {
      Plant p;
      p.name = fmt::format("graded: {} × {}", planted::to_string(term), factor);
      p.kind = PlantKind::graded;
      p.description =
          term == planted::FirstOrderTerm::bias
              ? fmt::format("first-order bias terms γ(H−1)b_h and γb_s × {} (F3, S3)", factor)
              : fmt::format("first-order covariance (γ/N)𝒜C̄ × {} (F2, S2, R2)", factor);
      p.predictor = [term, factor](const theory::ExpansionCoefficients& k, Algorithm a,
                                   const theory::RunSetting& s) {
        return planted::first_order_scaled(term, factor, k, a, s);
      };
      out.push_back(std::move(p));
    }
  }
  {
    Plant p;
    p.name = "graded: γ^{3/2} term";
    p.kind = PlantKind::graded;
    p.description =
        "first-order bias and covariance × (1 + √(γL)): a term of order γ^{3/2} where the "
        "remainder is O(γ²) on quadratics (§8)";
    p.predictor = [](const theory::ExpansionCoefficients& k, Algorithm a,
                     const theory::RunSetting& s) {
      return planted::first_order_with_three_halves_term(k, a, s);
    };
    out.push_back(std::move(p));
  }
  for (const planted::ScaffoldBug bug : planted::scaffold_bugs()) {
    out.push_back(sampler_plant("scaffold: " + planted::to_string(bug), planted::describe(bug),
                                {Algorithm::scaffold}, planted::scaffold_round_with(bug)));
    if (bug == planted::ScaffoldBug::variate_steps_h_plus_one) {
      out.back().note =
          "It scales the update of every ξ_c by H/(H + 1). Measured on q-small and q-gen5 "
          "(γL = 0.05, H = 5, 4096 chains, same noise as the correct round): Scaffold's "
          "stationary ξ covariance moves by 28 % from the exact (S6) one, while x's stationary "
          "mean and covariance stay as close to the exact ones as the correct round's (0.4 %, "
          "the Monte Carlo error). Every claim looks at x only; a claim on the stacked state "
          "(x, ξ_1, …, ξ_N) against (S6), or on the (S4) blocks, would catch it.";
      // Not asserted: the bug leaves the law of x (all any claim observes) unchanged.
      out.back().asserted = false;
    }
  }
  {
    constexpr double kFraction = 0.5;
    Plant control = sampler_plant(
        "scaffold: sampled half, correct (control)",
        "Scaffold with client sampling, |S| = max(1, ⌊N/2⌋), server c ← c + (1/N) Σ_S Δc_i: "
        "correct, but outside every claim's theory (full participation)",
        {Algorithm::scaffold}, planted::sampled_scaffold_round(kFraction, false));
    control.kind = PlantKind::control;
    control.asserted = false;
    Plant bug = sampler_plant(
        "scaffold: sampled half, averages over |S|",
        "the same with the server's c ← c + (1/|S|) Σ_S Δc_i (|S| for N: invisible at full "
        "participation)",
        {Algorithm::scaffold}, planted::sampled_scaffold_round(kFraction, true));
    bug.control = control.name;
    bug.note =
        "Every claim simulates full participation, so the correct sampled round (its control) "
        "fails the same claims and no failure can be attributed to the bug. What tells them "
        "apart is the invariant Σ_c ξ_c = 0: the correct sampled round keeps it to 2e-15 and the "
        "bug breaks it (2.2 after 50 rounds; samplers_scaffold_test). A claim needs client "
        "sampling in the engine and its theory (issue 14).";
    // Not asserted: every claim simulates full participation, so the correct sampled Scaffold
    // (the control) fails them as well and no claim can attribute a failure to the bug. What
    // tells the two apart is the invariant Σ_c ξ_c = 0 (c = mean of the c_i), which the bug
    // breaks (samplers_scaffold_test, SampledScaffoldKeepsTheSumOfControlVariatesUnlessIt…): a
    // claim needs client sampling in the engine and its theory (issue 14).
    bug.asserted = false;
    out.push_back(std::move(control));
    out.push_back(std::move(bug));
  }
  for (const planted::FedAvgBug bug : planted::fedavg_bugs()) {
    out.push_back(sampler_plant("fedavg: " + planted::to_string(bug), planted::describe(bug),
                                {Algorithm::fedavg, Algorithm::sgd},
                                planted::fedavg_round_with(bug)));
  }
  return out;
}

}  // namespace fedverify::power
