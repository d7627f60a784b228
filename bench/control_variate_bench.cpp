// The linearised control variate (docs/THEORY.md (L3), simulate --control-variate linearised):
// variance reduction, mean(x − y)/γ against b_s (F3), and the CPU seconds to confirm b_s within
// 5 % with and without the control variate, on the same problem in the same run.
//
//   build/control_variate_bench [--gamma-l 0.1,0.03,0.01] [--chains 1024] [--mixing 8]
//                               [--algo fedavg] [--local-steps 2] [--threads 1]
//                               [--problem synthetic|breast-cancer]
//
// Problem: synthetic (default: the setting): logistic d = 3, N = 4 clients of 30 samples
// a ~ N(0, I), labels sign(aᵀw_c + N(0, 1)) with a per-client w_c ~ N(0, I) (Philox test stream,
// seed 1), λ = 0.1, B = 1; FedAvg, H = 2. breast-cancer: the catalogue's lr-breast-cancer (d = 31,
// N = 10 Dirichlet(0.5) clients, λ = 0.05, B = 1; verify/claims/problems/
// research_logistic_problems.hpp). For each γL (L = the problem's smoothness constant):
//  1. b_s = theory::expansion_coefficients(problem).b_stochastic, m_lin =
//     theory::linearised_stationary_mean (the twin's exact mean).
//  2. simulate() without and with the twin, the same K, T, burn-in and seed; each timed by the
//     process CPU clock (CLOCK_PROCESS_CPUTIME_ID: every thread's CPU time). Rounds: burn-in and
//     2× recorded of `mixing`/(γ μ_loc H) rounds (μ_loc = min_c λ_min(∇²f_c(x*)) bounds the
//     slowest mode of the linearised round).
//  3. Variance-reduction factor Var(chain averages of x)/Var(chain averages of x − y) per
//     coordinate = (MCSE(x)/MCSE(x − y))² (K ≥ 32: one batch per chain, MCSE² = Var(chain
//     average)/K for both).
//  4. b_s estimates: plain (mean(x) − m_lin)/γ and control variate mean(x − y)/γ; standard errors
//     MCSE/γ. The remainder mean(x − y)/γ − b_s, and its log–log slope over the γ's.
//  5. CPU seconds to confirm b_s within 5 %: the standard error of a run scales like 1/√K at a
//     fixed number of rounds and its CPU time like K, so the CPU needed for
//     max_i SE_i ≤ target = 0.05‖b_s‖/z is cpu · (max_i SE_i / target)², z = z_{1−α/2} + z_{0.9}
//     = 2.576 + 1.282 = 3.857 (α = 0.01, power 0.9: an error of 5 %‖b_s‖ is then detected by a
//     two-sided test at level α with power 0.9, and agreement within 5 % is confirmed by the TOST
//     with the same probability when the estimate is unbiased).
//  6. b_s by Richardson extrapolation of mean(x − y)/γ over the γ's (estimators::
//     richardson_extrapolate) for remainder orders ½ and 1, with its standard error.
// Not a Google benchmark (one measurement per γ, printed as a markdown table).
#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "estimators/simulation/simulate.hpp"
#include "estimators/statistics/regression.hpp"
#include "estimators/statistics/richardson.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "theory/closed_forms/linearised.hpp"
#include "theory/problems/logistic_problem.hpp"
#include "theory/problems/optimum.hpp"
#include "verify/claims/problems/default_logistic_problems.hpp"
#include "verify/claims/problems/research_logistic_problems.hpp"

namespace {

using namespace fedverify;

constexpr double kZ = 2.5758293035489004 + 1.2815515655446004;  // z_{0.995} + z_{0.9}

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

theory::LogisticProblem make_problem(int d, int n, int samples, double l2, int batch) {
  estimators::Stream s(1, estimators::Purpose::test);
  std::vector<theory::LogisticClient> clients;
  for (int c = 0; c < n; ++c) {
    Matrix f(samples, d);
    for (int j = 0; j < d; ++j)
      for (int i = 0; i < samples; ++i) f(i, j) = s.normal();
    Vector w(d);
    for (int i = 0; i < d; ++i) w(i) = s.normal();
    Vector y(samples);
    for (int j = 0; j < samples; ++j) y(j) = f.row(j).dot(w) + s.normal() > 0 ? 1.0 : -1.0;
    clients.push_back({f, y});
  }
  return theory::LogisticProblem(std::move(clients), l2, batch);
}

std::vector<double> parse_list(const std::string& text) {
  std::vector<double> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    out.push_back(std::stod(text.substr(start, end - start)));
    start = end + 1;
  }
  return out;
}

// The variance-reduction factors: every coordinate for d ≤ 4, else min / median / max.
std::string reduction_text(const Vector& r) {
  if (r.size() <= 4) return fmt::format("{:.0f}", fmt::join(r, ", "));
  std::vector<double> v(r.begin(), r.end());
  std::sort(v.begin(), v.end());
  return fmt::format("{:.0f} / {:.0f} / {:.0f} (min / median / max)", v.front(), v[v.size() / 2],
                     v.back());
}

struct Row {
  double gamma_l, gamma, cpu_plain, cpu_cv, need_plain, need_cv;
  int rounds, burn_in;
  Vector reduction, b_s, est_plain, se_plain, est_cv, se_cv;
  Vector var_x, var_diff;  // stationary variances of x and of x − y (the runs' cov diagonals)
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<double> gamma_l = {0.1, 0.03, 0.01};
  int chains = 1024, local_steps = 2, threads = 1;
  double mixing = 8.0;
  std::string algo = "fedavg";
  std::string problem_name = "synthetic";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--gamma-l")
      gamma_l = parse_list(value);
    else if (key == "--chains")
      chains = std::stoi(value);
    else if (key == "--mixing")
      mixing = std::stod(value);
    else if (key == "--algo")
      algo = value;
    else if (key == "--local-steps")
      local_steps = std::stoi(value);
    else if (key == "--threads")
      threads = std::stoi(value);
    else if (key == "--problem")
      problem_name = value;
    else {
      fmt::print(stderr, "unknown option {}\n", key);
      return 2;
    }
  }
  if (problem_name != "synthetic" && problem_name != "breast-cancer") {
    fmt::print(stderr, "--problem: synthetic or breast-cancer, not {}\n", problem_name);
    return 2;
  }
  const theory::LogisticProblem problem =
      problem_name == "synthetic"
          ? make_problem(3, 4, 30, 0.1, 1)
          : claims::as_logistic(claims::research_logistic_problems().breast_cancer);
  const theory::Algorithm algorithm = theory::parse_algorithm(algo);
  const theory::ExpansionCoefficients k = theory::expansion_coefficients(problem);
  const double lip = problem.smoothness();
  const double mu_local = k.constants.mu_local;
  const Vector b_s = k.b_stochastic;
  fmt::print(
      "problem: {} (logistic d={} N={} l2={} B={}); {} H={}; L={:.4g} mu_loc={:.4g}; K={}; "
      "‖b_s‖ = {:.5f}, b_s = [{:.5f}]\n\n",
      problem_name, problem.dim(), problem.num_clients(), problem.l2(), problem.batch_size(), algo,
      local_steps, lip, mu_local, chains, b_s.norm(), fmt::join(b_s, ", "));
  std::vector<Row> rows;
  for (const double gl : gamma_l) {
    Row r{};
    r.gamma_l = gl;
    r.gamma = gl / lip;
    const theory::RunSetting step{r.gamma, local_steps};
    const Vector m_lin = theory::linearised_stationary_mean(problem, algorithm, step);
    const double tau = 1.0 / (r.gamma * mu_local * local_steps);
    r.burn_in = static_cast<int>(std::ceil(mixing * tau));
    r.rounds = r.burn_in + static_cast<int>(std::ceil(2 * mixing * tau));
    estimators::SimulationSpec spec;
    spec.algorithm = algorithm;
    spec.step = step;
    spec.chains = chains;
    spec.rounds = r.rounds;
    spec.burn_in = r.burn_in;
    spec.seed = 20261127;
    spec.threads = threads;
    double t0 = cpu_seconds();
    const estimators::SimulationResult plain = estimators::simulate(problem, spec);
    r.cpu_plain = cpu_seconds() - t0;
    spec.linearised_twin = true;
    t0 = cpu_seconds();
    const estimators::SimulationResult cv = estimators::simulate(problem, spec);
    r.cpu_cv = cpu_seconds() - t0;
    if (plain.diverged || cv.diverged || plain.moments.mean != cv.moments.mean) {
      fmt::print(stderr, "gamma L = {}: diverged, or the twin changed the mean (a bug)\n", gl);
      return 1;
    }
    const estimators::MomentEstimate& diff = *cv.twin_difference;
    r.b_s = b_s;
    r.reduction = (plain.moments.mean_mcse.array() / diff.mean_mcse.array()).square().matrix();
    r.var_x = plain.moments.cov.diagonal();
    r.var_diff = diff.cov.diagonal();
    r.est_plain = (plain.moments.mean - m_lin) / r.gamma;
    r.se_plain = plain.moments.mean_mcse / r.gamma;
    r.est_cv = diff.mean / r.gamma;
    r.se_cv = diff.mean_mcse / r.gamma;
    const double target = 0.05 * b_s.norm() / kZ;
    r.need_plain = r.cpu_plain * std::pow(r.se_plain.maxCoeff() / target, 2);
    r.need_cv = r.cpu_cv * std::pow(r.se_cv.maxCoeff() / target, 2);
    rows.push_back(r);
  }
  int i = 0;
  b_s.cwiseAbs().maxCoeff(&i);

  fmt::print(
      "| γL | rounds (burn-in) | Var ratio x/(x−y) per coord | mean(x−y)/γ − b_s, coord {} "
      "| SE of b_s: plain / cv (coord {}) | CPU s of the run: plain / cv | CPU s to 5 %: "
      "plain / cv | ratio |\n|---|---|---|---|---|---|---|---|\n",
      i, i);
  for (const Row& r : rows) {
    fmt::print(
        "| {} | {} ({}) | {} | {:+.5f} ± {:.5f} | {:.3g} / {:.3g} | {:.2f} / {:.2f} | "
        "{:.3g} / {:.3g} | {:.0f}× |\n",
        r.gamma_l, r.rounds, r.burn_in, reduction_text(r.reduction), r.est_cv(i) - b_s(i),
        r.se_cv(i), r.se_plain(i), r.se_cv(i), r.cpu_plain, r.cpu_cv, r.need_plain, r.need_cv,
        r.need_plain / r.need_cv);
  }
  if (rows.size() >= 3) {
    std::vector<double> g, rem;
    for (const Row& r : rows) {
      g.push_back(r.gamma);
      rem.push_back(std::abs(r.est_cv(i) - b_s(i)));
    }
    std::vector<double> lg(g.size()), lr(g.size());
    for (std::size_t j = 0; j < g.size(); ++j) {
      lg[j] = std::log(g[j]);
      lr[j] = std::log(rem[j]);
    }
    const estimators::SlopeEstimate fit = estimators::fit_slope(lg, lr, 0.05);
    fmt::print(
        "\nremainder order, coordinate {}: slope of log|mean(x−y)/γ − b_s| on log γ = "
        "{:.2f} (95 % interval [{:.2f}, {:.2f}], {} points)\n",
        i, fit.slope, fit.lower, fit.upper, fit.n);
  }
  if (rows.size() >= 3) {
    // The heuristic of THEORY (L3): Var(x) = O(γ), Var(x − y) = O(γ²) (stationary, per coordinate).
    std::vector<double> lg, lvx, lvd;
    for (const Row& r : rows) lg.push_back(std::log(r.gamma));
    for (int c = 0; c < b_s.size(); ++c) {
      if (b_s.size() > 4 && c != i) continue;  // large d: the largest coordinate of b_s only
      lvx.clear();
      lvd.clear();
      for (const Row& r : rows) {
        lvx.push_back(std::log(r.var_x(c)));
        lvd.push_back(std::log(r.var_diff(c)));
      }
      const estimators::SlopeEstimate fx = estimators::fit_slope(lg, lvx, 0.05);
      const estimators::SlopeEstimate fd = estimators::fit_slope(lg, lvd, 0.05);
      fmt::print(
          "coordinate {}: slope of log Var(x) on log γ = {:.2f} [{:.2f}, {:.2f}], of log "
          "Var(x − y) = {:.2f} [{:.2f}, {:.2f}] (Var(x − y) at the smallest γ: {:.3g})\n",
          c, fx.slope, fx.lower, fx.upper, fd.slope, fd.lower, fd.upper, rows.back().var_diff(c));
    }
  }
  if (rows.size() >= 2) {
    for (const double order : {0.5, 1.0}) {
      std::vector<double> steps;
      std::vector<estimators::ReplicatedMean> values;
      for (const Row& r : rows) {
        steps.push_back(r.gamma);
        values.push_back({r.est_cv(i), r.se_cv(i), 0});
      }
      const estimators::RichardsonEstimate e =
          estimators::richardson_extrapolate(steps, values, order);
      fmt::print(
          "Richardson (remainder ∝ γ^{}), coordinate {}: b_s ≈ {:.5f} ± {:.5f} (F3: "
          "{:.5f})\n",
          order, i, e.value, e.std_error, b_s(i));
    }
  }
  return 0;
}
