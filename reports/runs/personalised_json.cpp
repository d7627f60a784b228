#include "reports/runs/personalised_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string_view>

#include "estimators/samplers/l2gd.hpp"
#include "theory/algorithms/l2gd_compressed.hpp"
#include "theory/algorithms/l2gd_plus.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::reports {
namespace {

using theory::to_json;

// Cost of the closed forms, measured on the 2-core development machine, in the stacked size
// s = nd (n clients, dimension d):
//   x(λ) of a non-quadratic problem: damped Newton with a dense LDLT of the s×s stacked Hessian
//   per step, ≈ 2.5e-10 s × s³ in all (s = 2000: 1.8 s, s = 3000: 3.9 s);
//   the exact trajectory E‖x^k − x(λ)‖², k ≤ 100 (quadratics, predict): four s×s products per
//   step, ≈ 1.1e-7 s × s³ (s = 500: 13.5 s).
// (x(λ) of a quadratic problem is one blocked Cholesky, negligible beside the trajectory.)
constexpr double kNewtonSecondsPerCube = 2.5e-10;
constexpr double kTrajectorySecondsPerCube = 1.1e-7;

// Refuses, before starting, problems whose closed forms would take longer than
// theory::limits::closed_form_seconds() (--max-seconds).
void require_affordable(const theory::Problem& problem, bool trajectory) {
  if (theory::is_linear_sa(problem.kind())) {
    throw InputError(
        "--problem: the personalised algorithms need a quadratic or logistic problem "
        "(linear-sa and least-squares files are read by the chain algorithms)");
  }
  const double s = static_cast<double>(problem.dim()) * problem.num_clients();
  const std::string what = fmt::format("for d = {} and n = {} clients (stacked size nd = {:.0f})",
                                       problem.dim(), problem.num_clients(), s);
  const char* advice = "use fewer clients or a smaller dimension";
  if (problem.kind() != theory::ProblemKind::quadratic) {
    theory::limits::require_closed_form_time(
        "problem", "the personalised optimum x(lambda) " + what, kNewtonSecondsPerCube * s * s * s,
        fmt::format("{:g} s x (nd)^3", kNewtonSecondsPerCube), advice);
  }
  if (trajectory) {
    theory::limits::require_closed_form_time(
        "problem", "the exact L2GD trajectory " + what, kTrajectorySecondsPerCube * s * s * s,
        fmt::format("{:g} s x (nd)^3", kTrajectorySecondsPerCube), advice);
  }
}

// Every number of `out` is finite, or the input is refused naming the flag that moves it:
// --problem when the problem is not strongly convex (μ = 0: logistic with l2 = 0, the rates and
// the bound have no meaning), else --gamma (the step size scales every other constant).
void require_finite_numbers(const nlohmann::json& out, const theory::L2gdConstants& k,
                            const std::string& at = "") {
  for (const auto& item : out.items()) {
    const nlohmann::json& v = item.value();
    const std::string name = at.empty() ? item.key() : at;
    if (v.is_structured()) {
      require_finite_numbers(v, k, name);
    } else if (v.is_number_float() && !std::isfinite(v.get<double>())) {
      if (!(k.mu > 0) || !std::isfinite(k.mu) || !std::isfinite(k.l)) {
        throw InputError(fmt::format(
            "--problem: {} is not finite: the problem's strong convexity is mu = {:g} (a logistic "
            "problem with l2 = 0 may have mu = 0); the L2GD rates need mu > 0 and a finite L",
            name, std::isfinite(k.mu) ? k.mu : 0.0));
      }
      throw InputError(fmt::format(
          "--gamma: {} is not finite for this problem and setting (decrease gamma)", name));
    }
  }
}

nlohmann::json common_fields(const theory::Problem& problem, const theory::L2gdSetting& s,
                             const Matrix& x_lambda, int iterations) {
  const theory::L2gdConstants k = theory::l2gd_constants(problem, s, x_lambda);
  nlohmann::json out;
  out["algorithm"] = "l2gd";
  out["lambda"] = s.lambda;
  out["p"] = s.p;
  out["p_star"] = theory::optimal_probability(s.lambda, k.l);
  out["alpha"] = s.alpha;
  out["num_clients"] = problem.num_clients();
  out["dim"] = problem.dim();
  out["x_lambda"] = to_json(Matrix(x_lambda.transpose()));
  out["alpha_max"] = k.alpha_max;
  out["L_cal"] = k.l_cal;
  out["rate"] = k.rate;
  out["sigma2"] = k.sigma2;
  out["neighbourhood"] = k.neighbourhood;
  out["mu"] = k.mu;
  out["L"] = k.l;
  out["communications_per_iteration"] = s.p * (1 - s.p);
  out["communications_coefficient"] =
      theory::predicted_communications(s.lambda, k.l, k.mu, 1 / std::numbers::e);
  out["gd_communications_coefficient"] =
      theory::gradient_descent_communications(k.l, k.mu, 1 / std::numbers::e);
  const double e0 = x_lambda.squaredNorm();  // x⁰ = 0
  std::vector<double> bound;
  for (int j = 0; j <= iterations; ++j) bound.push_back(theory::l2gd_bound(k, e0, j));
  out["mse_bound"] = bound;
  require_finite_numbers(out, k);
  return out;
}

// The spec of a personalised simulation with the options every sampler takes.
template <class Spec>
Spec run_spec(const L2gdSimulateOptions& o, const theory::L2gdSetting& setting) {
  Spec spec;
  spec.setting = setting;
  spec.chains = o.chains;
  spec.iterations = o.iterations;
  spec.seed = o.seed;
  spec.threads = o.threads;
  spec.memory_budget = o.memory_budget;
  return spec;
}

// The step and rate constants of the variance-reduced theorem (THEORY (P7), recalled shape: the
// constant c of its rate is not printed, see personalised.variance-reduced for its fitted value).
nlohmann::json variance_reduced_fields(const theory::Problem& problem,
                                       const L2gdSimulateOptions& o) {
  const int n = problem.num_clients();
  const bool full = o.algorithm == "l2gd+";
  const double l_tilde = full ? problem.smoothness() : estimators::finite_sum_smoothness(problem);
  int terms = 1;
  if (!full) {
    for (int i = 0; i < n; ++i) terms = std::max(terms, estimators::finite_sum_size(problem, i));
  }
  const double work = o.participating > 0 ? static_cast<double>(o.participating) / n : 1.0;
  const theory::VarianceReducedConstants k = theory::variance_reduced_constants(
      problem.strong_convexity(), l_tilde, n, terms, work, o.setting);
  return {{"theory_label", "P7"},
          {"L_tilde", k.l_tilde},
          {"L_cal", k.l_cal},
          {"alpha_max", k.alpha_max},
          {"mu_term", k.mu_term},
          {"memory_refresh", k.memory_refresh},
          {"coin_refresh", k.coin_refresh},
          {"terms", terms},
          {"working_fraction", work}};
}

// Compressed L2GD's (P8) constants and bound (derived for random-k, THEORY (P8)).
nlohmann::json compressed_fields(const theory::Problem& problem, const L2gdSimulateOptions& o,
                                 const Matrix& x_lambda) {
  const theory::CompressorSpec& up = o.uplink;
  const theory::CompressorSpec& down = o.downlink;
  const theory::CompressedL2gdConstants k = theory::compressed_l2gd_constants(
      problem, o.setting, x_lambda, theory::compressor_omega(up, problem.dim()),
      theory::compressor_omega(down, problem.dim()), false);
  std::vector<double> bound;
  const double e0 = x_lambda.squaredNorm();  // x⁰ = 0
  for (int j = 0; j <= o.iterations; ++j) bound.push_back(theory::compressed_l2gd_bound(k, e0, j));
  const bool random_k = (up.kind == theory::CompressorKind::identity ||
                         up.kind == theory::CompressorKind::random_k) &&
                        (down.kind == theory::CompressorKind::identity ||
                         down.kind == theory::CompressorKind::random_k);
  return {
      {"theory_label", "P8"},
      {"derived_for", random_k ? "random-k (this run)" : "random-k (not this run's compressors)"},
      {"kappa", k.kappa},
      {"L_cal", k.l_cal},
      {"alpha_max", k.alpha_max},
      {"rate", k.rate},
      {"sigma2", k.sigma2},
      {"neighbourhood", k.neighbourhood},
      {"mse_bound", bound}};
}

}  // namespace

nlohmann::json predict_l2gd(const theory::Problem& problem, const theory::L2gdSetting& s) {
  theory::validate(s);
  require_affordable(problem, problem.kind() == theory::ProblemKind::quadratic);
  const Matrix x_lambda = theory::personalised_optimum(problem, s.lambda);
  nlohmann::json out = common_fields(problem, s, x_lambda, kL2gdPredictIterations);
  if (problem.kind() == theory::ProblemKind::quadratic) {
    const auto& q = dynamic_cast<const theory::QuadraticProblem&>(problem);
    out["mse_exact"] = theory::l2gd_mean_square_trajectory(
        q, s, Matrix::Zero(problem.dim(), problem.num_clients()), kL2gdPredictIterations);
  }
  require_finite_numbers(out, theory::l2gd_constants(problem, s, x_lambda));
  return out;
}

nlohmann::json simulate_l2gd(const theory::Problem& problem, const L2gdSimulateOptions& o) {
  const theory::L2gdSetting& setting = o.setting;
  theory::validate(setting);
  require_affordable(problem, false);
  estimators::L2gdSimulationResult r;
  if (o.algorithm == "l2gd") {
    auto spec = run_spec<estimators::L2gdSimulationSpec>(o, setting);
    spec.uplink = o.uplink;
    spec.downlink = o.downlink;
    spec.participating = o.participating;
    r = estimators::simulate_l2gd(problem, spec);
  } else if (o.algorithm == "l2sgd+" || o.algorithm == "l2sgd" || o.algorithm == "l2gd+" ||
             o.algorithm == "l2sgd++") {
    const auto only_identity = [&](const theory::CompressorSpec& c, const char* field) {
      if (c.kind != theory::CompressorKind::identity) {
        throw InputError(fmt::format("{}: no compression with --algo {}", field, o.algorithm));
      }
    };
    only_identity(o.uplink, "--uplink");
    only_identity(o.downlink, "--downlink");
    if (o.participating != 0 && o.algorithm != "l2sgd++") {
      throw InputError(fmt::format("--participating: not available with --algo {}", o.algorithm));
    }
    auto spec = run_spec<estimators::L2sgdPlusSpec>(o, setting);
    spec.variance_reduction = o.algorithm != "l2sgd";
    spec.full_local_gradients = o.algorithm == "l2gd+";
    spec.working = o.participating;
    r = estimators::simulate_l2sgd_plus(problem, spec);
  } else {
    throw InputError(
        fmt::format("--algo: expected l2gd, l2gd+, l2sgd, l2sgd+ or l2sgd++ (got '{}')",
                    theory::limits::quote_input(o.algorithm)));
  }
  nlohmann::json out = common_fields(problem, setting, r.x_lambda, o.iterations);
  out["algorithm"] = o.algorithm;
  out["participating"] = o.participating > 0 ? o.participating : problem.num_clients();
  out["chains"] = o.chains;
  out["iterations"] = o.iterations;
  out["seed"] = o.seed;
  out["mse"] = r.mse_mean;
  out["mse_se"] = r.mse_se;
  out["final_mean"] = to_json(Matrix(r.final_mean.transpose()));
  out["final_se"] = to_json(Matrix(r.final_se.transpose()));
  out["rounds"] = r.rounds_mean;
  out["averaging_steps"] = r.averaging_steps_mean;
  out["bits"] = r.bits_mean;
  out["participations"] = r.participations_mean;
  out["uplink"] = {{"compressor", to_string(o.uplink)},
                   {"omega", theory::compressor_omega(o.uplink, problem.dim())}};
  out["downlink"] = {{"compressor", to_string(o.downlink)},
                     {"omega", theory::compressor_omega(o.downlink, problem.dim())}};
  if (o.algorithm == "l2gd+" || o.algorithm == "l2sgd+" || o.algorithm == "l2sgd++") {
    out["variance_reduced"] = variance_reduced_fields(problem, o);
  } else if (o.algorithm == "l2gd" && o.participating == 0 &&
             (o.uplink.kind != theory::CompressorKind::identity ||
              o.downlink.kind != theory::CompressorKind::identity)) {
    out["compressed"] = compressed_fields(problem, o, r.x_lambda);
  }
  out["diverged"] = r.diverged;
  out["seconds"] = r.seconds;
  if (r.diverged) {  // JSON has no NaN/inf: report the divergence instead of the trajectory
    for (const char* field : {"mse", "mse_se", "final_mean", "final_se"}) out.erase(field);
    out["divergence"] = r.divergence;
  }
  return out;
}

theory::CompressorSpec parse_compressor(const std::string& text, const std::string& field) {
  using theory::CompressorKind;
  const auto parameter = [&](const std::string& prefix) {
    try {
      std::size_t used = 0;
      const int v = std::stoi(text.substr(prefix.size()), &used);
      if (used + prefix.size() == text.size()) return v;
    } catch (const std::exception&) {
    }
    throw InputError(fmt::format("{}: expected an integer after '{}' (got '{}')", field, prefix,
                                 theory::limits::quote_input(text)));
  };
  if (text == "none") return {CompressorKind::identity, 0};
  if (text == "natural") return {CompressorKind::natural, 0};
  if (text.rfind("random-k:", 0) == 0) return {CompressorKind::random_k, parameter("random-k:")};
  if (text.rfind("qsgd:", 0) == 0) {
    const int levels = parameter("qsgd:");
    theory::limits::require_range(field, levels, 1, theory::limits::kMaxCompressorLevels,
                                  "qsgd levels S; docs/CLI.md, resource limits");
    return {CompressorKind::dithering, levels};
  }
  throw InputError(fmt::format("{}: unknown compressor '{}' (none, random-k:K, qsgd:S, natural)",
                               field, theory::limits::quote_input(text)));
}

std::string to_string(const theory::CompressorSpec& spec) {
  switch (spec.kind) {
    case theory::CompressorKind::identity:
      return "none";
    case theory::CompressorKind::random_k:
      return fmt::format("random-k:{}", spec.parameter);
    case theory::CompressorKind::dithering:
      return fmt::format("qsgd:{}", spec.parameter);
    case theory::CompressorKind::natural:
      return "natural";
  }
  return "none";
}

}  // namespace fedverify::reports
