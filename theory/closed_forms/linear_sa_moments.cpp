#include "theory/closed_forms/linear_sa_moments.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "theory/base/input_error.hpp"
#include "theory/problems/limits.hpp"

namespace fedverify::theory {

namespace {

// B = I − γ(Ā_c + μ_p I): the proximal weight enters the diagonal (exactly I − γĀ_c at μ_p = 0).
Matrix lsa_step_map(const Matrix& mean_a, double gamma, double prox) {
  Matrix b = Matrix::Identity(mean_a.rows(), mean_a.cols()) - gamma * mean_a;
  if (prox != 0.0) b.diagonal().array() -= gamma * prox;
  return b;
}

}  // namespace

LsaLocalMap lsa_local_map(const Matrix& mean_a, double gamma, int steps, double prox) {
  const Eigen::Index d = mean_a.rows();
  const Matrix b = lsa_step_map(mean_a, gamma, prox);
  LsaLocalMap out{Matrix::Identity(d, d), Matrix::Zero(d, d)};
  for (int h = 0; h < steps; ++h) {
    out.p += out.b_power;  // P = Σ_{h<H} B^h
    out.b_power = b * out.b_power;
  }
  return out;
}

LsaClientRound lsa_client_round(const LinearSaProblem& problem, int c, double gamma, int steps,
                                const Vector& start_mean, const Matrix& start_cov,
                                const Vector& correction_mean, const Matrix* cross,
                                const Matrix* correction_cov, double prox) {
  const Eigen::Index d = problem.dim();
  const Matrix b = lsa_step_map(problem.mean_a(c), gamma, prox);
  const Vector drift = gamma * (problem.mean_b(c) - correction_mean);
  Vector m = start_mean;
  Matrix k = start_cov;                  // Cov y_h (total)
  Matrix x = cross ? *cross : Matrix();  // Cov(y_h, ξ)
  Matrix v = Matrix::Zero(d, d);         // Cov(ε_h)/γ
  for (int h = 0; h < steps; ++h) {
    // THEORY (L1): γ² E_y[C_c(y_h)], the noise of step h (it depends on the law of y_h).
    const Matrix noise = gamma * problem.expected_noise_covariance(c, m, k);  // divided by γ
    v = b * v * b.transpose() + noise;
    k = b * k * b.transpose() + gamma * noise;
    if (cross != nullptr) {
      const Matrix bx = b * x;
      k += -gamma * (bx + bx.transpose()) + gamma * gamma * *correction_cov;
      x = bx - gamma * *correction_cov;
    }
    k = symmetric_part(k);
    m = b * m + drift;
  }
  return {m, symmetric_part(v)};
}

void lsa_noise_step(const LinearSaProblem& p, int c, double gamma, const Matrix& b,
                    const Matrix& cc, LsaNoiseState& s) {
  const Matrix noise = gamma * p.expected_noise_covariance_linear(c, s.k);
  s.v = b * s.v * b.transpose() + noise;
  const Matrix bx = b * s.x;
  s.k =
      b * s.k * b.transpose() + gamma * noise - gamma * (bx + bx.transpose()) + gamma * gamma * cc;
  s.k = symmetric_part(s.k);
  s.x = bx - gamma * cc;
}

Matrix lsa_client_noise_linear(const LinearSaProblem& p, int c, double gamma, int steps,
                               const Matrix& k0, const Matrix& cross, const Matrix& cc) {
  const Eigen::Index d = p.dim();
  const Matrix b = Matrix::Identity(d, d) - gamma * p.mean_a(c);
  LsaNoiseState s{Matrix::Zero(d, d), k0, cross};
  for (int h = 0; h < steps; ++h) lsa_noise_step(p, c, gamma, b, cc, s);
  return symmetric_part(s.v);
}

namespace {
// A lower bound of the time of one local step, so that a refusal is never wrong: its flops at
// limits::kFastestSecondsPerFlop and a fixed cost for its dozen matrix temporaries that dominates
// at d ≤ 4 (measured on AMD EPYC Zen 5, Release, one thread: 1–2.5 µs per step of federated TD
// with d = 3 and 16 samples, 0.3–0.8 µs of least squares with d = 2 and 6 rows; the estimate
// gives 0.16 and 0.11 µs).
constexpr double kLsaSecondsPerFlop = limits::kFastestSecondsPerFlop;
constexpr double kLsaSecondsPerStep = 1e-7;
}  // namespace

double lsa_step_flops(const LinearSaProblem& p, int c) {
  const double d = p.dim();
  const double recursion = 10 * d * d * d;  // B V Bᵀ, B K Bᵀ, B X (and their sums)
  if (p.least_squares()) {
    return recursion + 6 * static_cast<double>(p.num_samples(c)) * d * d + 2 * d * d * d;
  }
  return recursion + 4 * static_cast<double>(p.num_samples(c)) * d * d * d;
}

double lsa_exact_seconds(const LinearSaProblem& p, const RunSetting& s) {
  double flops = 0;
  for (int c = 0; c < p.num_clients(); ++c) flops += lsa_step_flops(p, c);
  const double steps = static_cast<double>(s.local_steps) * kLsaMinimumPasses;
  return steps * (flops * kLsaSecondsPerFlop + p.num_clients() * kLsaSecondsPerStep);
}

void require_with_replacement(const LinearSaProblem& p, const char* what) {
  if (!p.reshuffled()) return;
  throw InputError(fmt::format(
      "sampling: \"reshuffled\": the exact law of {} here assumes steps drawn with replacement "
      "(THEORY (A4) gives it for fedavg, sgd, fedrr and fedopt with a plain server step); simulate "
      "it instead",
      what));
}

void require_lsa_exact_affordable(const LinearSaProblem& p, const RunSetting& s, const char* what) {
  require_with_replacement(p, what);
  double flops = 0;
  for (int c = 0; c < p.num_clients(); ++c) flops += lsa_step_flops(p, c);
  limits::require_closed_form_time(
      "--local-steps",
      fmt::format("the exact moments of {} on this linear-sa problem (H = {} local steps, N = {} "
                  "clients, d = {})",
                  what, s.local_steps, p.num_clients(), p.dim()),
      lsa_exact_seconds(p, s),
      fmt::format("a lower bound: {} passes of N·H local steps of {:.3g} flops each",
                  kLsaMinimumPasses, flops / p.num_clients()),
      "the closed forms are linear in H on linear-sa problems: use fewer local steps, or "
      "simulate");
}

Matrix lsa_stationary_covariance(const DiscreteLyapunovSolver& solver,
                                 const std::function<Matrix(const Matrix&)>& q, int size,
                                 const RunSetting& setting, const char* what) {
  Matrix x = symmetric_part(solver.solve(q(Matrix::Zero(size, size))));
  double previous_step = std::numeric_limits<double>::infinity();
  constexpr int kMaxIterations = 5000;
  constexpr int kWarmUp = 3;  // steps before the contraction estimate is trusted
  constexpr double kRoundOffSteps = 64;
  const double kSolveFloor = std::sqrt(std::numeric_limits<double>::epsilon());  // ≈ 1.5e-8
  constexpr double kGrowth = 16;  // a diverging iteration leaves its smallest step far behind
  double smallest_step = std::numeric_limits<double>::infinity();
  for (int it = 0; it < kMaxIterations; ++it) {
    const Matrix next = symmetric_part(solver.solve(q(x)));
    const double step = (next - x).norm();
    const double rho = step / previous_step;
    smallest_step = std::min(smallest_step, step);
    x = next;
    // Converged to round-off: successive iterates differ by a few ulps of X (the contraction
    // estimate is meaningless there).
    if (step <= kRoundOffSteps * std::numeric_limits<double>::epsilon() * x.norm()) return x;
    // Not contracting: either the iteration diverges (the second moment is infinite: the step
    // grows geometrically, far above its smallest value), or it has reached the accuracy of the
    // solves, whose round-off floor is κ(L)·ε·‖X‖ with κ(L) up to 1/(γμH)² (Scaffold's stacked
    // Schur solve at small γ), far above kRoundOffSteps ulps: successive steps then hover at that
    // floor with ratios near 1. Accept the latter at √ε relative accuracy.
    if (it >= kWarmUp && !(rho < 1.0) && step <= kSolveFloor * x.norm() &&
        step <= kGrowth * smallest_step) {
      return x;
    }
    if (it >= kWarmUp && !(rho < 1.0)) {
      throw InputError(fmt::format(
          "--gamma: no stationary second moment for {} on this linear-sa problem at gamma = {} "
          "(the moment iteration grows by {:.3g} per step: the chain is mean-square unstable)",
          what, setting.gamma, rho));
    }
    if (it >= kWarmUp && step * rho / (1.0 - rho) <= kLsaFixedPointTolerance * x.norm()) return x;
    if (!x.allFinite()) break;
    previous_step = step;
  }
  throw InputError(fmt::format(
      "--gamma: the stationary second moment of {} did not converge in {} iterations at "
      "gamma = {} (mean-square contraction too close to 1)",
      what, kMaxIterations, setting.gamma));
}

}  // namespace fedverify::theory
