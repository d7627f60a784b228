// FedOpt's exact stationary moments on linear-sa problems (THEORY (L1) with (O0), (O2), (O3),
// (O5)); see linear_sa.hpp.
//
// Client c's round from x (H steps of client sgd, or of fedprox with weight μ_p) is affine in x,
//   x − y_c = γ(D_c x − r_c) − ε_c,  D_c = P̃_c Ā_c,  r_c = P̃_c b̄_c,  P̃_c = Σ_{h<H} B̃_c^h,
//   B̃_c = I − γ(Ā_c + μ_p I)   (I − B̃_c^H = γP̃_c(Ā_c + μ_p I): the γμ_p x of each step cancels),
// ε_c the noise of its H steps (lsa_client_round; fedprox's ξ = −μ_p x is correlated with the
// start). The server acts on z = x or z = (x, u), u = m/γ, as on quadratics (fedopt.hpp):
//   z' = M_S z + γ𝐫_S − E ε_S,   M_S = I − γ𝐃_S,  𝐃_S = (I − A₀)/γ − E D_S F,  𝐫_S = −E r_S,
// D_S, r_S, ε_S the averages over the sampled clients S. S is drawn independently of z, and the
// ε_c are uncorrelated with z and with each other, so with μ = E z, Σ = Cov z:
//   E z' = M̄ μ + γ𝐫̄                 (stationary: 𝐃̄ μ = 𝐫̄, whatever S, B or Cov A(Z)),
//   Cov z' = E_S[M_S Σ M_Sᵀ] + Cov_S(M_S μ + γ𝐫_S) + E E_S[Cov ε_S] Eᵀ
//          = M̄ΣM̄ᵀ + γ²κ E [Σ_c Δ_c Σ_xx Δ_cᵀ + w_c w_cᵀ] Eᵀ + (γ/(SN)) E [Σ_c Cov(ε_c)/γ] Eᵀ,
// Δ_c = D_c − D̄, w_c = (D_c μ_x − r_c) − (D̄ μ_x − r̄), κ = fedopt_sampling_kappa (O5; 0 when
// S = N), and Cov ε_c depends on (μ_x, Σ_xx) through the multiplicative noise (L1). The last two
// terms are Q(Σ), affine in Σ; the stationary Σ is the fixed point of lsa_stationary_covariance in
// the divided form (𝐃̄, Q/γ). With η_g = 1, β = 0, S = N and client sgd every quantity is FedAvg's
// (fedavg_lsa.cpp), computed by the same operations.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "theory/algorithms/fedopt.hpp"
#include "theory/algorithms/linear_sa.hpp"
#include "theory/algorithms/local_epochs.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/fedopt_setting.hpp"

namespace fedverify::theory {

namespace {

constexpr Algorithm kFedopt{"fedopt"};

// The clients' mean rounds, divided by γ: x − E[y_c | x] = γ(D_c x − r_c).      THEORY (L1), (O3)
struct LsaClientMaps {
  std::vector<Matrix> d;  // D_c = P̃_c Ā_c
  std::vector<Vector> r;  // r_c = P̃_c b̄_c
  Matrix dbar;            // D̄ = (1/N) Σ_c D_c
  Vector rbar;            // r̄ = (1/N) Σ_c r_c
};

LsaClientMaps lsa_client_maps(const LinearSaProblem& p, const RunSetting& s, double prox) {
  const int n = p.num_clients();
  LsaClientMaps out{{}, {}, Matrix::Zero(p.dim(), p.dim()), Vector::Zero(p.dim())};
  for (int c = 0; c < n; ++c) {
    const LsaLocalMap local = lsa_local_map(p.mean_a(c), s.gamma, s.local_steps, prox);
    out.d.emplace_back(local.p * p.mean_a(c));
    out.r.emplace_back(local.p * p.mean_b(c));
    out.dbar += out.d.back() / n;
    out.rbar += out.r.back() / n;
  }
  return out;
}

}  // namespace

ExactMoments fedopt_exact_lsa_state(const LinearSaProblem& p, const RunSetting& s) {
  validate(kFedopt, s);
  require_closed_forms(s);
  if (p.reshuffled()) return fedavg_local_order_exact(p, s);  // THEORY (A4): x alone
  require_lsa_exact_affordable(p, s, "fedopt");
  const int n = p.num_clients();
  const int d = p.dim();
  const int size = fedopt_state_dim(d, s);
  const int sampled = participating_clients(s, n);
  const double prox = client_prox(s);
  // Names both steps in the InputError of an unstable setting (the messages begin "--gamma").
  const std::string what =
      fmt::format("fedopt with --server {} (decrease gamma or the server's lr)", s.server.text());
  const LsaClientMaps clients = lsa_client_maps(p, s, prox);
  const Matrix e = fedopt_pseudo_gradient_gain(d, s);
  Matrix dz = fedopt_server_drift(d, s);  // 𝐃̄ = (I − A₀)/γ − E D̄ F                 THEORY (O2)
  dz.leftCols(d) -= e * clients.dbar;
  const Vector rz = -e * clients.rbar;  // 𝐫̄ = −E r̄
  if (!dz.allFinite() || !rz.allFinite()) {
    throw InputError(
        fmt::format("--gamma: the round map of {} overflows double precision at gamma = {}, H = {}",
                    what, s.gamma, s.local_steps));
  }
  const DiscreteLyapunovSolver solver(dz, s.gamma);
  ExactMoments out;
  out.spectral_radius = solver.spectral_radius();
  require_stationary(out.spectral_radius, s, what.c_str());
  if (!solver.stable()) require_stationary(1.0, s, what.c_str());
  out.mean = dz.partialPivLu().solve(rz);  // THEORY (L1), (O5): 𝐃̄ μ = 𝐫̄
  const Vector mean_x = out.mean.head(d);
  // THEORY (O5): the sampled offsets' spread Σ_c w_c w_cᵀ (constant) and κ.
  const double kappa = fedopt_sampling_kappa(n, sampled);
  Matrix offsets = Matrix::Zero(d, d);
  if (kappa > 0.0) {
    const Vector vbar = clients.dbar * mean_x - clients.rbar;
    for (int c = 0; c < n; ++c) {
      const Vector w = (clients.d[c] * mean_x - clients.r[c]) - vbar;
      offsets += w * w.transpose();
    }
  }
  const Vector prox_mean = -prox * mean_x;  // E ξ, ξ = −μ_p x (fedprox)                THEORY (O3)
  // Q(Σ)/γ = E [γκ (Σ_c Δ_c Σ_xx Δ_cᵀ + w_c w_cᵀ) + (1/(SN)) Σ_c Cov(ε_c)/γ] Eᵀ.   THEORY (L1),
  // (O5)
  const auto q = [&](const Matrix& sigma) {
    const Matrix xx = sigma.topLeftCorner(d, d);
    const Matrix prox_cross = -prox * xx;        // Cov(y_0, ξ)
    const Matrix prox_cov = (prox * prox) * xx;  // Cov ξ
    const bool proximal = prox != 0.0;
    Matrix noise = Matrix::Zero(d, d);  // Σ_c Cov(ε_c)/γ
    Matrix sampling = offsets;          // Σ_c Δ_c Σ_xx Δ_cᵀ + w_c w_cᵀ
    for (int c = 0; c < n; ++c) {
      noise +=
          lsa_client_round(p, c, s.gamma, s.local_steps, mean_x, xx, prox_mean,
                           proximal ? &prox_cross : nullptr, proximal ? &prox_cov : nullptr, prox)
              .noise_over_gamma;
      if (kappa > 0.0) {
        const Matrix delta = clients.d[c] - clients.dbar;
        sampling += delta * xx * delta.transpose();
      }
    }
    Matrix inner = noise / (static_cast<double>(sampled) * n);
    if (kappa > 0.0) inner += (kappa * s.gamma) * sampling;
    return Matrix(e * inner * e.transpose());
  };
  out.cov = lsa_stationary_covariance(solver, q, size, s, what.c_str());
  return out;
}

ExactMoments fedopt_exact_lsa(const LinearSaProblem& p, const RunSetting& s) {
  ExactMoments state = fedopt_exact_lsa_state(p, s);
  const int d = p.dim();
  if (state.mean.size() == d) return state;
  return leading_block(state, d);
}

}  // namespace fedverify::theory
