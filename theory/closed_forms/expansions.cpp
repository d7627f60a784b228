#include "theory/closed_forms/expansions.hpp"

#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/closed_forms/lyapunov.hpp"

namespace fedverify::theory {

Vector heterogeneity_bias_coefficient(const Problem& problem, const Vector& x_star,
                                      const Matrix& hessian) {
  const int n = problem.num_clients();
  Vector sum = Vector::Zero(problem.dim());
  for (int c = 0; c < n; ++c) sum += problem.hessian(c, x_star) * problem.gradient(c, x_star);
  return hessian.ldlt().solve(sum) / (2.0 * n);  // THEORY (F3), b_h
}

Vector stochasticity_bias_coefficient(const Problem& problem, const Vector& x_star,
                                      const Matrix& hessian, const Matrix& a_noise) {
  const Vector t = average_third_derivative(problem, x_star, a_noise);
  return -hessian.ldlt().solve(t) / (2.0 * problem.num_clients());  // THEORY (F3), b_s
}

ExpansionCoefficients expansion_coefficients(const Problem& problem) {
  ExpansionCoefficients k;
  k.constants = problem_constants(problem);
  k.num_clients = problem.num_clients();
  const Vector& xs = k.constants.x_star;
  const Matrix& h = k.constants.hessian_at_optimum;
  k.noise_at_optimum = Matrix::Zero(problem.dim(), problem.dim());
  for (int c = 0; c < k.num_clients; ++c) {
    k.client_noise.push_back(problem.noise_covariance(c, xs));
    k.noise_at_optimum += k.client_noise.back() / k.num_clients;
  }
  k.a_noise = lyapunov_operator(h, k.noise_at_optimum);  // 𝒜C̄, THEORY (N1)
  k.b_heterogeneity = heterogeneity_bias_coefficient(problem, xs, h);
  k.b_stochastic = stochasticity_bias_coefficient(problem, xs, h, k.a_noise);
  return k;
}

FirstOrderMoments first_order(const ExpansionCoefficients& k, Algorithm algorithm,
                              const StepSetting& s, PlantedFormulaError planted) {
  validate(algorithm, s);
  const double gamma = s.gamma;
  const int hsteps = s.local_steps;
  const double n = k.num_clients;
  FirstOrderMoments m = algorithm_theory(algorithm).first_order(k, s);
  switch (planted) {  // test-only: see PlantedFormulaError
    case PlantedFormulaError::none:
      break;
    case PlantedFormulaError::drop_half:
      m.bias_heterogeneity *= 2.0;
      m.bias_stochastic *= 2.0;
      break;
    case PlantedFormulaError::h_instead_of_h_minus_one:
      if (algorithm == Algorithm::fedavg || algorithm == Algorithm::sgd) {
        m.bias_heterogeneity = gamma * hsteps * k.b_heterogeneity;
      }
      break;
    case PlantedFormulaError::drop_one_over_n:
      m.bias_stochastic *= n;
      m.cov *= n;
      break;
    case PlantedFormulaError::flip_stochastic_sign:
      m.bias_stochastic = -m.bias_stochastic;
      break;
  }
  m.mean = m.x_star + m.bias_heterogeneity + m.bias_stochastic;
  return m;
}

}  // namespace fedverify::theory
