#include "verify/planted/optimiser_errors.hpp"

#include "theory/algorithms/fedopt.hpp"
#include "theory/problems/fedopt_setting.hpp"

namespace fedverify::verify::planted {
namespace {

constexpr theory::Algorithm kFedopt{"fedopt"};

constexpr OptimiserErrorCase kErrors[] = {
    {OptimiserError::momentum_not_in_covariance, "momentum_not_in_covariance",
     "optimisers.server-step-momentum"},
    {OptimiserError::momentum_not_in_covariance, "momentum_not_in_covariance",
     "optimisers.server-step-logistic"},
    {OptimiserError::prox_shrinks_bias, "prox_shrinks_bias", "optimisers.fedprox-bias"},
    {OptimiserError::sampling_over_n, "sampling_over_n", "optimisers.client-sampling"},
};

}  // namespace

std::span<const OptimiserErrorCase> optimiser_errors() { return kErrors; }

theory::FirstOrderMoments first_order_with(OptimiserError error,
                                           const theory::ExpansionCoefficients& k,
                                           theory::Algorithm algorithm,
                                           const theory::RunSetting& s) {
  theory::FirstOrderMoments m = theory::first_order(k, algorithm, s);
  if (algorithm != kFedopt) return m;
  const int n = k.num_clients;
  const int sampled = theory::participating_clients(s, n);
  switch (error) {
    case OptimiserError::momentum_not_in_covariance:
      m.cov *= 1.0 - theory::server_sgd(s).momentum;
      m.bias_stochastic *= 1.0 - theory::server_sgd(s).momentum;
      break;
    case OptimiserError::prox_shrinks_bias:
      m.bias_heterogeneity /= 1.0 + theory::client_prox(s) / k.constants.mu;
      break;
    case OptimiserError::sampling_over_n:
      if (sampled < n) {  // the 𝒜G term's coefficient × (N − 1)/N
        const theory::ServerSgd server = theory::server_sgd(s);
        const double scale = s.gamma * server.lr / (1.0 - server.momentum) / sampled;
        const double right = s.local_steps * static_cast<double>(n - sampled) / (n - 1);
        const double wrong = s.local_steps * static_cast<double>(n - sampled) / n;
        m.cov += scale * (wrong - right) * k.a_heterogeneity;
      }
      break;
  }
  m.mean = m.x_star + m.bias_heterogeneity + m.bias_stochastic;
  return m;
}

double server_step_limit_without_momentum(const theory::QuadraticProblem& problem,
                                          const theory::RunSetting& setting) {
  theory::RunSetting plain = setting;
  plain.server = theory::default_server();  // β = 0: 2/(γ d_max)
  return theory::fedopt_server_step_limit(problem, plain);
}

double fedprox_bias_ratio_limit_power_slip(double t, int h) {
  const double rho = 1.0 - t / h;
  double w0 = 0, v = 0, power = 1;
  for (int j = 0; j < h; ++j) {
    w0 += power;
    v += j * power;  // jρ^j: the slip
    power *= rho;
  }
  return 2.0 * v / ((h - 1) * w0);
}

}  // namespace fedverify::verify::planted
