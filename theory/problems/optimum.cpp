#include "theory/problems/optimum.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "theory/base/input_error.hpp"
#include "theory/problems/linear_sa_problem.hpp"

namespace fedverify::theory {
namespace {
constexpr int kMaxNewtonIterations = 200;
constexpr double kGradientTolerance = 1e-14;  // relative to max(1, ‖∇f(0)‖); near round-off
constexpr double kArmijo = 1e-4;              // sufficient-decrease constant
constexpr double kRoundOffDecrease = 1e3;     // decrease below 1e3·ε|f| is round-off noise
// ∇²f(x*) counts as positive definite to working precision when both hold:
//  (i)  λ_min > kEigenvalueRoundOff · λ_max: a symmetric eigensolver computes eigenvalues to
//       an absolute error of a small multiple of ε‖∇²f‖ (backward stable), so anything below
//       64ε·λ_max cannot be told from 0;
//  (ii) along the eigenvector v of λ_min, the curvature has not collapsed since the start:
//       vᵀ∇²f(x*)v > kCurvatureCollapse · vᵀ∇²f(0)v. Separable logistic data with l2 = 0 have no
//       minimiser although Newton "converges": the curvature along the escape ray decays like
//       the gradient, e^{−s}, and ends at the gradient tolerance (≤ 1e-10 relative), far below
//       √ε. A quadratic has ∇²f(x*) = ∇²f(0), so (ii) never rejects it, however ill-conditioned.
constexpr double kEigenvalueRoundOff = 64 * std::numeric_limits<double>::epsilon();
constexpr double kCurvatureCollapse = 1.4901161193847656e-08;  // √ε, ε = 2⁻⁵²

// x is the point Newton's method stopped at; returns it if ∇²f(x) is positive definite to
// working precision relative to the curvature at the start, h0 = ∇²f(0).
Vector require_nonsingular_limit(const Problem& problem, Vector x, const Matrix& h0) {
  const Eigen::SelfAdjointEigenSolver<Matrix> es(average_hessian(problem, x));
  const double lambda_min = es.eigenvalues()(0);
  const double lambda_max = es.eigenvalues()(es.eigenvalues().size() - 1);
  const Vector v = es.eigenvectors().col(0);
  const double start_curvature = v.dot(h0 * v);
  if (!(lambda_min > kEigenvalueRoundOff * lambda_max) ||
      !(lambda_min > kCurvatureCollapse * start_curvature)) {
    const char* hint = problem.kind() == ProblemKind::logistic
                           ? "; with l2 = 0 the data may be separable: use l2 > 0"
                           : "; the hessians are singular to working precision";
    throw InputError(fmt::format(
        "problem: f has no unique minimiser: the Hessian at the Newton limit is singular "
        "(λ_min = {:.3g}, λ_max = {:.3g}; curvature along that direction at the start {:.3g}){}",
        lambda_min, lambda_max, start_curvature, hint));
  }
  return x;
}
}  // namespace

Vector minimizer(const Problem& problem) {
  // A linear-sa problem's x* is the root of its mean field (THEORY (L0)), solved when the problem
  // was built; Ā_c need not be symmetric, so it need not minimise anything.
  if (const auto* lsa = dynamic_cast<const LinearSaProblem*>(&problem)) return lsa->solution();
  Vector x = Vector::Zero(problem.dim());
  const double scale = std::max(1.0, average_gradient(problem, x).norm());
  const Matrix start_hessian = average_hessian(problem, x);
  for (int it = 0; it < kMaxNewtonIterations; ++it) {
    const Vector g = average_gradient(problem, x);
    if (g.norm() <= kGradientTolerance * scale) {
      return require_nonsingular_limit(problem, x, start_hessian);
    }
    const Matrix h = average_hessian(problem, x);
    const Eigen::LDLT<Matrix> ldlt(h);
    if (ldlt.info() != Eigen::Success || !ldlt.isPositive()) {
      throw InputError("problem: Hessian of f is not positive definite; no unique minimiser");
    }
    const Vector step = -ldlt.solve(g);
    const double f0 = average_value(problem, x);
    const double slope = g.dot(step);
    double t = 1.0;
    // Near x* the predicted decrease −slope/2 (half the Newton decrement) falls below the
    // round-off of f itself (≈ ε|f|), and an Armijo test on f values can no longer see
    // progress: there Newton is in its quadratic-convergence region, so take the full step.
    const bool below_round_off =
        -slope <=
        kRoundOffDecrease * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(f0));
    while (!below_round_off && t > 1e-12 &&
           average_value(problem, x + t * step) > f0 + kArmijo * t * slope) {
      t *= 0.5;
    }
    Vector next = x + t * step;
    // Round-off floor: Newton's step no longer changes x.
    if ((next - x).norm() <= 4 * std::numeric_limits<double>::epsilon() * std::max(1.0, x.norm())) {
      return require_nonsingular_limit(problem, next, start_hessian);
    }
    x = next;
  }
  const double gn = average_gradient(problem, x).norm();
  if (gn <= 1e-10 * scale) return require_nonsingular_limit(problem, x, start_hessian);
  throw InputError(fmt::format(
      "problem: Newton's method did not converge to a minimiser (‖∇f‖ = {:.3g} after {} "
      "iterations); the data may be separable with l2 = 0",
      gn, kMaxNewtonIterations));
}

ProblemConstants problem_constants(const Problem& problem) {
  ProblemConstants k;
  // A linear-sa problem's x* is the root of its mean field (THEORY (L0)), which need not be the
  // minimiser of anything (Ā_c non-symmetric); its client constants are those of the symmetric
  // parts of Ā_c (the mean field's monotonicity and Lipschitz bounds at x*).
  const auto* lsa = dynamic_cast<const LinearSaProblem*>(&problem);
  k.x_star = minimizer(problem);
  k.hessian_at_optimum = average_hessian(problem, k.x_star);
  k.mu = problem.strong_convexity();
  k.l = problem.smoothness();
  k.mu_local = std::numeric_limits<double>::infinity();
  k.l_local = 0.0;
  const int n = problem.num_clients();
  for (int c = 0; c < n; ++c) {
    const Matrix hc = problem.hessian(c, k.x_star);
    const Eigen::SelfAdjointEigenSolver<Matrix> es(lsa != nullptr ? symmetric_part(hc) : hc);
    k.mu_local = std::min(k.mu_local, es.eigenvalues().minCoeff());
    k.l_local = std::max(k.l_local, es.eigenvalues().maxCoeff());
    k.zeta2 += weighted_term(problem, c, problem.gradient(c, k.x_star).squaredNorm());  // (N3)
    const Matrix diff = hc - k.hessian_at_optimum;
    const double op =
        lsa != nullptr
            ? diff.operatorNorm()
            : Eigen::SelfAdjointEigenSolver<Matrix>(diff).eigenvalues().cwiseAbs().maxCoeff();
    k.zeta2_second += weighted_term(problem, c, op * op);  // THEORY (N3), (A1)
  }
  k.sigma_star2 = average_noise_covariance(problem, k.x_star).trace();  // THEORY (N4)
  return k;
}

}  // namespace fedverify::theory
