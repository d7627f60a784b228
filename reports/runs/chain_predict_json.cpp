#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reports/runs/chain_json.hpp"
#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "theory/problems/algorithm_registry.hpp"
#include "theory/problems/linear_sa_problem.hpp"
#include "theory/problems/problem_io.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::reports {

using theory::to_json;

namespace {

// The linearised chain needs every client's f_c strongly convex at x* (its curvature ∇²f_c(x*)
// finite and positive definite). Said in the problem's own terms, since a logistic file has no
// Hessian field: "problem:" is replaced by the file name where the CLI prints the message.
void require_strongly_convex_at_optimum(const theory::Problem& problem, int client,
                                        const Matrix& curvature) {
  if (!curvature.allFinite()) {
    throw InputError(fmt::format(
        "problem: clients[{}]: the curvature of f_{} at the minimiser x* overflows double "
        "precision (l2 or the features are too large)",
        client, client));
  }
  const double smallest = Eigen::SelfAdjointEigenSolver<Matrix>(curvature, Eigen::EigenvaluesOnly)
                              .eigenvalues()
                              .minCoeff();
  if (!(smallest > 0)) {
    throw InputError(fmt::format(
        "problem: clients[{}]: f_{} is not strongly convex at the minimiser x* (smallest "
        "curvature {:.3g}){}; the linearised chain needs every client's f_c strongly convex",
        client, client, smallest,
        problem.kind() == theory::ProblemKind::logistic
            ? ": with l2 = 0 the client's features must span every direction; give l2 > 0"
            : ""));
  }
}

// Stability of a non-quadratic problem: the chain linearised at x* is the quadratic problem with
// A_c = ∇²f_c(x*) (and no noise), whose round map must contract for a stationary law near x* to
// exist (F1 assumes more, γ ≤ 1/L; beyond the linearised limit the first-order predictions have
// nothing to describe). Throws InputError naming --gamma otherwise.
double linearised_spectral_radius(const theory::Problem& problem,
                                  const theory::AlgorithmTheory& forms,
                                  const theory::RunSetting& setting,
                                  const theory::ExpansionCoefficients& k) {
  const Vector& x_star = k.constants.x_star;
  const Matrix no_noise = Matrix::Zero(problem.dim(), problem.dim());
  std::vector<theory::QuadraticClient> clients;
  clients.reserve(static_cast<std::size_t>(problem.num_clients()));
  for (int c = 0; c < problem.num_clients(); ++c) {
    clients.push_back({problem.hessian(c, x_star), x_star, no_noise});
    require_strongly_convex_at_optimum(problem, c, clients.back().hessian);
  }
  const theory::QuadraticProblem linearised(std::move(clients));
  try {
    return forms.exact(linearised, setting).spectral_radius;
  } catch (const InputError& e) {
    throw InputError(std::string(e.what()) + " (the chain linearised at x*)");
  }
}

// The exact fields of x: mean_exact, cov_exact and the round map's spectral radius.
void put_exact(nlohmann::json& out, const theory::ExactMoments& m) {
  out["mean_exact"] = to_json(m.mean);
  out["cov_exact"] = to_json(m.cov);
  out["spectral_radius"] = m.spectral_radius;
}

// A state larger than x (Scaffold's (x, ξ_1, …, ξ_N)), x its leading block of size d: the fields
// of x, and the whole state's as stacked_mean_exact, stacked_cov_exact.
void put_exact_state(nlohmann::json& out, Eigen::Index d, const theory::ExactMoments& state) {
  put_exact(out, {Vector(state.mean.head(d)), Matrix(state.cov.topLeftCorner(d, d)),
                  state.spectral_radius});
  out["stacked_mean_exact"] = to_json(state.mean);
  out["stacked_cov_exact"] = to_json(state.cov);
}

}  // namespace

nlohmann::json predict(const theory::Problem& problem, theory::Algorithm algorithm,
                       const theory::RunSetting& setting) {
  theory::validate(algorithm, setting);
  const theory::AlgorithmTheory& forms = theory::algorithm_theory(algorithm);
  theory::require_client_weights(theory::describe(algorithm), problem.equal_weights());
  if (!forms.has_first_order() && problem.kind() != theory::ProblemKind::quadratic &&
      !theory::is_linear_sa(problem.kind())) {
    throw InputError(
        fmt::format("--algo: {} has exact closed forms on quadratic and linear-sa problems only "
                    "(no first-order expansion), not on a {} problem",
                    theory::to_string(algorithm), theory::to_string(problem.kind())));
  }
  const theory::ExpansionCoefficients k = theory::expansion_coefficients(problem);
  nlohmann::json out;
  out["algorithm"] = theory::to_string(algorithm);
  out["gamma"] = setting.gamma;
  out["local_steps"] = setting.local_steps;
  out["num_clients"] = problem.num_clients();
  out["dim"] = problem.dim();
  out["x_star"] = to_json(k.constants.x_star);
  if (!problem.equal_weights()) {  // THEORY (A1): the p_c every field below is weighted with
    std::vector<double> weights;
    weights.reserve(static_cast<std::size_t>(problem.num_clients()));
    for (int c = 0; c < problem.num_clients(); ++c) weights.push_back(problem.weight(c));
    out["client_weights"] = weights;
  }
  // A reshuffled problem (THEORY (A4)): the first-order fields assume sampling with replacement.
  const bool reshuffled = theory::is_linear_sa(problem.kind()) &&
                          dynamic_cast<const theory::LinearSaProblem&>(problem).reshuffled();
  if (reshuffled) out["sampling"] = "reshuffled";
  if (forms.has_first_order() && !reshuffled) {  // else the exact fields below only (FedNova)
    const theory::FirstOrderMoments fo = theory::first_order(k, algorithm, setting);
    out["mean_first_order"] = to_json(fo.mean);
    out["bias_heterogeneity"] = to_json(fo.bias_heterogeneity);
    out["bias_stochastic"] = to_json(fo.bias_stochastic);
    out["cov_first_order"] = to_json(fo.cov);
  }
  out["constants"] = {{"mu", k.constants.mu},
                      {"L", k.constants.l},
                      {"mu_local", k.constants.mu_local},
                      {"L_local", k.constants.l_local},
                      {"zeta2", k.constants.zeta2},
                      {"zeta2_second", k.constants.zeta2_second},
                      {"sigma_star2", k.constants.sigma_star2}};
  // An algorithm whose runs can share noise (--noise) is predicted for the default coupling,
  // independent noise (THEORY R2).
  if (theory::describe(algorithm).reads(theory::AlgorithmOption::noise)) {
    out["noise_coupling"] = "independent";
  }
  if (!forms.has_exact()) {
    // First order only: no exact moments, and no linearised stability check either.
  } else if (theory::is_linear_sa(problem.kind())) {
    // Linear stochastic approximation: exact mean and covariance (THEORY (L1)) where the algorithm
    // has them (fedopt: the linear optimisers; with momentum also the stacked (x, m)); otherwise
    // the first-order fields only.
    const auto& lsa = dynamic_cast<const theory::LinearSaProblem&>(problem);
    if (const std::optional<theory::ExactMoments> state =
            forms.exact_state_linear_sa(lsa, setting)) {
      put_exact_state(out, problem.dim(), *state);
    } else if (const std::optional<theory::ExactMoments> m = forms.exact_linear_sa(lsa, setting)) {
      put_exact(out, *m);
    }
  } else if (problem.kind() != theory::ProblemKind::quadratic) {
    out["spectral_radius_linearised"] = linearised_spectral_radius(problem, forms, setting, k);
  } else {
    const auto& q = dynamic_cast<const theory::QuadraticProblem&>(problem);
    if (const std::optional<theory::ExactMoments> state = forms.exact_state(q, setting)) {
      put_exact_state(out, problem.dim(), *state);
    } else {
      put_exact(out, forms.exact(q, setting));
    }
  }
  // Never print NaN: a non-finite prediction is a bug or an input the theory does not cover.
  const std::string dumped = out.dump();
  if (dumped.find("null") != std::string::npos) {
    throw InputError("--problem: the prediction is not finite for this problem and setting");
  }
  return out;
}

}  // namespace fedverify::reports
