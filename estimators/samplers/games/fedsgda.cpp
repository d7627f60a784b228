#include "estimators/samplers/games/fedsgda.hpp"

#include <fmt/format.h>
#include <omp.h>

#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"

namespace fedverify::estimators {

int run_fedsgda(const FedsgdaChains& c, Matrix& state, int rounds,
                const std::function<void(int, const Matrix&)>& record) {
  theory::validate(c.step);
  if (c.batch_size < 1) {
    throw InputError(fmt::format("--batch-size: must be >= 1, got {}", c.batch_size));
  }
  const theory::LinearIvGame& data = c.data;
  const int p = data.theta_dim(), q = data.tau_dim(), clients = data.num_clients();
  const int chains = static_cast<int>(state.cols()), r = c.step.local_steps;
  const double a_theta = c.step.alpha_theta / c.batch_size;
  const double a_tau = c.step.alpha_tau / c.batch_size;
  const int threads = c.threads > 0 ? c.threads : omp_get_max_threads();
  for (int t = 0; t < rounds; ++t) {
    bool finite = true;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(&& : finite)
    for (int k = 0; k < chains; ++k) {
      Vector total = Vector::Zero(p + q);
      Vector g_theta(p), g_tau(q);
      for (int i = 0; i < clients; ++i) {
        const Matrix& phi = data.phi_rows(i);
        const Matrix& psi = data.psi_rows(i);
        const Vector& y = data.client(i).y;
        const Vector& w = data.weights(i);
        const auto n = static_cast<std::uint64_t>(y.size());
        Stream stream(c.seed, Purpose::gradient_noise, static_cast<std::uint64_t>(k),
                      static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(t));
        Vector z = state.col(k);
        for (int h = 0; h < r; ++h) {
          g_theta.setZero();
          g_tau.setZero();
          for (int b = 0; b < c.batch_size; ++b) {
            const auto s = static_cast<Eigen::Index>(stream.below(n));
            const double inner = psi.row(s).dot(z.tail(q));         // s_k = ψ_kᵀτ
            const double resid = y(s) - phi.row(s).dot(z.head(p));  // r_k = y_k − φ_kᵀθ
            g_theta.noalias() -= inner * phi.row(s).transpose();
            g_tau.noalias() += (resid - 0.5 * w(s) * inner) * psi.row(s).transpose();
          }
          z.head(p) -= a_theta * g_theta;  // THEORY (M0): descent on θ
          z.tail(q) += a_tau * g_tau;      // ascent on τ
        }
        total += z;
      }
      state.col(k) = total / clients;
      finite = finite && state.col(k).allFinite();
    }
    if (!finite) return t + 1;
    record(t + 1, state);
  }
  return 0;
}

}  // namespace fedverify::estimators
