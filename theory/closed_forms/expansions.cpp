#include "theory/closed_forms/expansions.hpp"

#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/closed_forms/lyapunov.hpp"

namespace fedverify::theory {

namespace {

// 𝐇⁻¹v: 𝐇 is symmetric positive definite for minimisation problems (LDLᵀ, as always); a
// linear-sa problem's Ā need not be symmetric (LU).                          THEORY (L2)
Vector solve_hessian(const Problem& problem, const Matrix& hessian, const Vector& v) {
  if (is_linear_sa(problem.kind())) return hessian.partialPivLu().solve(v);
  return hessian.ldlt().solve(v);
}

}  // namespace

Vector heterogeneity_bias_coefficient(const Problem& problem, const Vector& x_star,
                                      const Matrix& hessian) {
  Vector sum = Vector::Zero(problem.dim());
  for (int c = 0; c < problem.num_clients(); ++c) {
    sum +=
        weighted_term(problem, c, Vector(problem.hessian(c, x_star) * problem.gradient(c, x_star)));
  }
  return solve_hessian(problem, hessian, sum) / 2.0;  // THEORY (F3), b_h; (L2); (A1)
}

Vector stochasticity_bias_coefficient(const Problem& problem, const Vector& x_star,
                                      const Matrix& hessian, const Matrix& a_noise) {
  const Vector t = average_third_derivative(problem, x_star, a_noise);
  return -solve_hessian(problem, hessian, t) / (2.0 * problem.num_clients());  // THEORY (F3), b_s
}

ExpansionCoefficients expansion_coefficients(const Problem& problem) {
  ExpansionCoefficients k;
  k.constants = problem_constants(problem);
  k.num_clients = problem.num_clients();
  const Vector& xs = k.constants.x_star;
  const Matrix& h = k.constants.hessian_at_optimum;
  k.equal_weights = problem.equal_weights();
  for (int c = 0; c < k.num_clients; ++c) k.client_noise.push_back(problem.noise_covariance(c, xs));
  k.noise_at_optimum = aggregated_noise_covariance(problem, xs);  // C̄, or C̄_p: THEORY (A1)
  // 𝒜C̄, THEORY (N1); for a non-symmetric Ā, 𝒜C̄ solves ĀX + XĀᵀ = C̄ (THEORY (L2)).
  const auto a_operator = [&](const Matrix& c) -> Matrix {
    return is_linear_sa(problem.kind()) ? symmetric_part(discrete_lyapunov_solve(h, 0.0, c))
                                        : lyapunov_operator(h, c);
  };
  k.a_noise = a_operator(k.noise_at_optimum);
  Matrix gradients = Matrix::Zero(problem.dim(), problem.dim());
  for (int c = 0; c < k.num_clients; ++c) {
    const Vector g = problem.gradient(c, xs);
    gradients += weighted_term(problem, c, Matrix(g * g.transpose()));  // G, THEORY (O5), (A1)
  }
  k.a_heterogeneity = a_operator(gradients);  // 𝒜G, THEORY (O5)
  k.b_heterogeneity = heterogeneity_bias_coefficient(problem, xs, h);
  k.b_stochastic = stochasticity_bias_coefficient(problem, xs, h, k.a_noise);
  return k;
}

FirstOrderMoments first_order(const ExpansionCoefficients& k, Algorithm algorithm,
                              const RunSetting& s) {
  validate(algorithm, s);
  require_client_weights(describe(algorithm), k.equal_weights);
  return algorithm_theory(algorithm).first_order(k, s);
}

}  // namespace fedverify::theory
