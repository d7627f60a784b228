#include "theory/closed_forms/expansions.hpp"

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
  FirstOrderMoments m;
  m.x_star = k.constants.x_star;
  const Eigen::Index d = m.x_star.size();
  switch (algorithm) {
    case Algorithm::sgd:     // THEORY (G1): H = 1, so no heterogeneity term
    case Algorithm::fedavg:  // THEORY (F3), (F2)
      m.bias_heterogeneity = gamma * (hsteps - 1) * k.b_heterogeneity;
      m.bias_stochastic = gamma * k.b_stochastic;
      m.cov = (gamma / n) * k.a_noise;
      break;
    case Algorithm::scaffold:  // THEORY (S3), (S2)
      m.bias_heterogeneity = Vector::Zero(d);
      m.bias_stochastic = gamma * k.b_stochastic;
      m.cov = (gamma / n) * k.a_noise;
      break;
    case Algorithm::fedrr:  // THEORY (R1), (R2), independent noise
      m.bias_heterogeneity = Vector::Zero(d);
      m.bias_stochastic = Vector::Zero(d);
      m.cov = (6.0 * gamma / n) * k.a_noise;
      break;
  }
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

ScaffoldControlVariateMoments scaffold_control_variate_first_order(const Problem& problem,
                                                                   const ExpansionCoefficients& k,
                                                                   const StepSetting& s) {
  const int n = k.num_clients;
  const double hs = s.local_steps;
  const double g = s.gamma;
  const Matrix& cbar = k.noise_at_optimum;
  ScaffoldControlVariateMoments out;
  out.num_clients = n;
  for (int c = 0; c < n; ++c) {
    for (int c2 = 0; c2 < n; ++c2) {
      if (c == c2) {  // THEORY (S4), Σ^ξ_(c,c)
        out.xi_xi.push_back((1.0 - 2.0 / n) * k.client_noise[c] / hs + cbar / (n * hs));
      } else {  // THEORY (S4), Σ^ξ_(c,c')
        out.xi_xi.push_back((cbar - k.client_noise[c] - k.client_noise[c2]) / (n * hs));
      }
    }
  }
  for (int c = 0; c < n; ++c) {  // THEORY (S4), Σ^{x,ξ}_(c), both sign candidates
    const Matrix hdiff = problem.hessian(c, k.constants.x_star) - k.constants.hessian_at_optimum;
    const Matrix first = (g / n) * k.a_noise * hdiff;
    const Matrix second = (g / n) * (k.client_noise[c] - cbar);
    out.x_xi_plus.push_back(first + second);
    out.x_xi_minus.push_back(-first + second);
  }
  return out;
}

}  // namespace fedverify::theory
