// FedAvg's exact stationary moments on linear-sa problems (THEORY (L1)); see linear_sa.hpp.
#include <fmt/format.h>

#include <vector>

#include "theory/algorithms/linear_sa.hpp"
#include "theory/algorithms/local_epochs.hpp"
#include "theory/base/input_error.hpp"

namespace fedverify::theory {

namespace {

struct FedavgLsaMap {
  Matrix d;  // D = Σ_c p_c P_c Ā_c = (I − M)/γ
  Vector r;  // Σ_c p_c P_c b̄_c
};

FedavgLsaMap fedavg_lsa_map(const LinearSaProblem& p, const RunSetting& s) {
  FedavgLsaMap map{Matrix::Zero(p.dim(), p.dim()), Vector::Zero(p.dim())};
  for (int c = 0; c < p.num_clients(); ++c) {
    const LsaLocalMap local = lsa_local_map(p.mean_a(c), s.gamma, s.local_steps);
    // THEORY (L1): (I − B_c^H)/γ = P_c Ā_c; Σ_c p_c with client weights (A1).
    map.d += weighted_term(p, c, Matrix(local.p * p.mean_a(c)));
    map.r += weighted_term(p, c, Vector(local.p * p.mean_b(c)));
  }
  return map;
}

void require_finite_map(const FedavgLsaMap& map, const RunSetting& s) {
  if (!map.d.allFinite() || !map.r.allFinite()) {
    throw InputError(fmt::format(
        "--gamma: the round map of fedavg overflows double precision at gamma = {}, H = {}",
        s.gamma, s.local_steps));
  }
}

}  // namespace

Vector fedavg_mean_lsa(const LinearSaProblem& p, const RunSetting& s) {
  validate(Algorithm::fedavg, s);
  if (p.reshuffled()) return fedavg_local_order_exact(p, s).mean;  // THEORY (A4)
  const FedavgLsaMap map = fedavg_lsa_map(p, s);
  require_finite_map(map, s);
  // THEORY (L1): Σ_c P_c (Ā_c m − b̄_c) = 0.
  return map.d.partialPivLu().solve(map.r);
}

ExactMoments fedavg_exact_lsa(const LinearSaProblem& p, const RunSetting& s) {
  validate(Algorithm::fedavg, s);
  return fedavg_exact_lsa(p, s, 0.0);
}

ExactMoments fedavg_exact_lsa(const LinearSaProblem& p, const RunSetting& s,
                              double server_variance) {
  if (p.reshuffled() && server_variance == 0) return fedavg_local_order_exact(p, s);  // (A4)
  require_lsa_exact_affordable(p, s, "fedavg");
  const FedavgLsaMap map = fedavg_lsa_map(p, s);
  require_finite_map(map, s);
  const DiscreteLyapunovSolver solver(map.d, s.gamma);
  ExactMoments out;
  out.spectral_radius = solver.spectral_radius();
  require_stationary(out.spectral_radius, s, "fedavg");
  if (!solver.stable()) require_stationary(1.0, s, "fedavg");
  out.mean = map.d.partialPivLu().solve(map.r);  // THEORY (L1): the mean field's fixed point
  const int n = p.num_clients();
  const Vector no_correction = Vector::Zero(p.dim());
  // Q(Σ)/γ = (1/N²) Σ_c Cov(ε_c)/γ for x ~ (m, Σ) (Σ_c p_c² with weights).  THEORY (L1), (A1)
  const auto q = [&](const Matrix& sigma) {
    Matrix sum = Matrix::Zero(p.dim(), p.dim());
    for (int c = 0; c < n; ++c) {
      sum += noise_factor(p, c) * lsa_client_round(p, c, s.gamma, s.local_steps, out.mean, sigma,
                                                   no_correction, nullptr, nullptr)
                                      .noise_over_gamma;
    }
    Matrix q_over_gamma = sum / noise_divisor(p);
    if (server_variance > 0) {  // THEORY (A5): the server's N(0, σ²I), over γ
      q_over_gamma += (server_variance / s.gamma) * Matrix::Identity(p.dim(), p.dim());
    }
    return q_over_gamma;
  };
  out.cov = lsa_stationary_covariance(solver, q, p.dim(), s, "fedavg");
  return out;
}

}  // namespace fedverify::theory
