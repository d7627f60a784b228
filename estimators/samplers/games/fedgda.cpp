#include "estimators/samplers/games/fedgda.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <vector>

#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"

namespace fedverify::estimators {
namespace {

// What every chain uses, per client: D M_i, D m_i and D L_i (L_i L_iᵀ = S_i).
struct ClientSteps {
  Matrix dm;
  Vector doff;
  Matrix dl;
};

std::vector<ClientSteps> client_steps(const theory::QuadraticGame& g, const theory::GdaSetting& s) {
  Vector d(g.dim());
  d.head(g.theta_dim()).setConstant(s.alpha_theta);
  d.tail(g.tau_dim()).setConstant(s.alpha_tau);
  std::vector<ClientSteps> out;
  for (int i = 0; i < g.num_clients(); ++i) {
    const Eigen::SelfAdjointEigenSolver<Matrix> eig(g.client(i).noise_cov);
    const Matrix root = eig.eigenvectors() *
                        eig.eigenvalues().cwiseMax(0.0).cwiseSqrt().asDiagonal() *
                        eig.eigenvectors().transpose();
    out.push_back({d.asDiagonal() * g.operator_matrix(i), d.cwiseProduct(g.operator_offset(i)),
                   d.asDiagonal() * root});
  }
  return out;
}

}  // namespace

void run_fedgda(const FedgdaChains& c, Matrix& state, int rounds,
                const std::function<void(int, const Matrix&)>& record) {
  theory::validate(c.step);
  const theory::QuadraticGame& g = c.game;
  const std::vector<ClientSteps> steps = client_steps(g, c.step);
  const int n = g.dim(), chains = static_cast<int>(state.cols()), r = c.step.local_steps;
  const int threads = c.threads > 0 ? c.threads : omp_get_max_threads();
  for (int t = 0; t < rounds; ++t) {
    bool finite = true;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(&& : finite)
    for (int k = 0; k < chains; ++k) {
      const Vector z = state.col(k);
      Vector total = Vector::Zero(n);
      Vector u(n);
      for (int i = 0; i < g.num_clients(); ++i) {
        Stream stream(c.seed, Purpose::gradient_noise, static_cast<std::uint64_t>(k),
                      static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(t));
        Vector y = z;
        for (int h = 0; h < r; ++h) {
          for (int j = 0; j < n; ++j) u(j) = stream.normal();
          y -= steps[i].dm * y + steps[i].doff + steps[i].dl * u;  // THEORY (M0)
        }
        total += y;
      }
      state.col(k) = total / g.num_clients();
      finite = finite && state.col(k).allFinite();
    }
    if (!finite) {
      throw InputError(fmt::format(
          "--alpha-theta: a FedGDA chain left double range at round {} (no stationary law at "
          "alpha = ({}, {}), R = {})",
          t + 1, c.step.alpha_theta, c.step.alpha_tau, r));
    }
    record(t + 1, state);
  }
}

}  // namespace fedverify::estimators
