#include "theory/algorithms/fedopt.hpp"

#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/algorithms/linear_sa.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/lyapunov.hpp"

namespace fedverify::theory {

namespace {
constexpr Algorithm kFedopt{"fedopt"};
}  // namespace

FirstOrderMoments fedopt_first_order(const ExpansionCoefficients& k, const RunSetting& s) {
  validate(kFedopt, s);
  require_closed_forms(s);
  const ServerSgd server = server_sgd(s);
  const int n = k.num_clients;
  const int sampled = participating_clients(s, n);
  const double scale = server.lr / (1.0 - server.momentum);  // η_g/(1 − β), THEORY (O2)
  FirstOrderMoments m;
  m.x_star = k.constants.x_star;
  m.bias_heterogeneity = s.gamma * (s.local_steps - 1) * k.b_heterogeneity;  // (F3), (O2), (O3)
  m.bias_stochastic = s.gamma * scale * k.b_stochastic;                      // (O2)
  m.cov = (s.gamma * scale / sampled) * k.a_noise;                           // (F2), (O2)
  if (sampled < n) {  // THEORY (O5): + (γ η_g/((1−β)S)) H(N−S)/(N−1) 𝒜G
    m.cov += (s.gamma * scale / sampled) * (s.local_steps * double(n - sampled) / (n - 1)) *
             k.a_heterogeneity;
  }
  m.mean = m.x_star + m.bias_heterogeneity + m.bias_stochastic;
  return m;
}

double fedprox_bias_ratio_limit(double t, int h) {
  if (h < 2 || !(t >= 0.0)) throw std::invalid_argument("fedprox_bias_ratio_limit: H < 2 or t < 0");
  const double rho = 1.0 - t / h;   // 1 − γμ_p
  double w0 = 0, v = 0, power = 1;  // power = ρ^j
  for (int j = 0; j < h; ++j) {
    w0 += power;
    if (j + 1 < h) v += (j + 1) * power;  // (j + 1)ρ^j: the term j + 1 of Σ jρ^{j−1}
    power *= rho;
  }
  return 2.0 * v / ((h - 1) * w0);  // THEORY (O3)
}

double fedopt_sampling_kappa(int n, int s) {
  return n > 1 ? static_cast<double>(n - s) / (static_cast<double>(s) * n * (n - 1)) : 0.0;  // (O5)
}

OneRoundLaw fedopt_one_round(const QuadraticProblem& problem, const RunSetting& setting,
                             const Vector& x0) {
  if (!setting.server.is("sgd")) {
    throw InputError(fmt::format("--server: the one-round law is for server sgd, not {}",
                                 setting.server.text()));
  }
  const ServerSgd server = server_sgd(setting);
  const double a = server.lr * server.gain();  // x₁ = x₀ − aΔ: the buffer starts at 0
  const ClientPieces pieces = fedopt_client_pieces(problem, setting);
  const int n = problem.num_clients(), d = problem.dim();
  const int s = setting.participating > 0 ? setting.participating : n;
  // Client weights (THEORY (A1)): the average Σ_c p_c, its noise Σ_c p_c²; derived for full
  // participation only (FedAvg's round, which conformance checks with this law).
  const bool weighted = !problem.equal_weights();
  if (weighted && s != n) {
    throw InputError(
        "--participating: the one-round law with client sampling is derived for equal client "
        "weights only (THEORY (A1), (O5))");
  }
  const double gamma = setting.gamma;
  std::vector<Vector> drift(n);  // D_c x₀ − r_c
  Vector mean_drift = Vector::Zero(d);
  Matrix noise = Matrix::Zero(d, d);
  for (int c = 0; c < n; ++c) {
    drift[c] = pieces.d[c] * x0 - pieces.r[c];
    mean_drift += weighted_term(problem, c, drift[c]);
    noise += noise_factor(problem, c) * pieces.q[c];
  }
  Matrix spread = Matrix::Zero(d, d);
  for (int c = 0; c < n; ++c) {
    const Vector v = drift[c] - mean_drift;
    spread += v * v.transpose();
  }
  const double kappa = fedopt_sampling_kappa(n, s);
  OneRoundLaw law;
  law.mean = x0 - a * gamma * mean_drift;  // (O0)
  law.cov =
      a * a * gamma * gamma *
      (kappa * spread + (weighted ? noise : Matrix(noise / (static_cast<double>(s) * n))));  // (O5)
  return law;
}

ClientPieces fedopt_client_pieces(const QuadraticProblem& q, const RunSetting& s) {
  require_closed_forms(s);
  const double mu = client_prox(s);
  const int d = q.dim();
  ClientPieces out;
  for (int c = 0; c < q.num_clients(); ++c) {
    const auto& cl = q.client(c);
    if (mu == 0.0) {  // client SGD: FedAvg's P_c A_c, THEORY (F5)
      const LocalSteps ls(cl.hessian, s.gamma, s.local_steps);
      out.d.push_back(ls.p_a());
      out.q.push_back(ls.noise_sum(cl.noise_cov, ls.beta));
    } else {
      // THEORY (O3): y ← B̃ y + γ(A_c b_c + μ x) + noise, B̃ = I − γ(A_c + μI), so after H steps
      // x − y = (I − B̃^H)x − γP̃(A_c b_c + μx) = γ P̃ A_c (x − b_c) (as I − B̃^H = γP̃(A_c + μI)).
      // In the eigenbasis of A_c + μI (eigenvalues a + μ), P̃ A_c = V diag(P̃_i (a_i + μ − μ)) Vᵀ.
      const LocalSteps ls(cl.hessian + mu * Matrix::Identity(d, d), s.gamma, s.local_steps);
      const Vector a = ls.a - Vector::Constant(d, mu);
      out.d.push_back(ls.in_basis(ls.geometric().cwiseProduct(a)));
      out.q.push_back(ls.noise_sum(cl.noise_cov, ls.beta));
    }
    out.r.push_back(out.d.back() * cl.optimum);
  }
  return out;
}

FedexpThreshold fedexp_threshold(const QuadraticProblem& q, const RunSetting& s) {
  RunSetting fedavg = s;  // the client rounds are FedAvg's: client sgd, no momentum
  fedavg.server = default_server();
  fedavg.client = default_client();
  fedavg.participating = 0;
  const ClientPieces pieces = fedopt_client_pieces(q, fedavg);
  const int n = q.num_clients();
  Matrix dbar = Matrix::Zero(q.dim(), q.dim());
  Vector rbar = Vector::Zero(q.dim());
  for (int c = 0; c < n; ++c) {
    dbar += pieces.d[c] / n;
    rbar += pieces.r[c] / n;
  }
  FedexpThreshold out;
  out.fixed_point = dbar.ldlt().solve(rbar);  // Δ̄(x_F) = γ(D̄x_F − r̄) = 0
  out.client_spread = 0;
  for (int c = 0; c < n; ++c) {
    out.client_spread += (s.gamma * (pieces.d[c] * out.fixed_point - pieces.r[c])).squaredNorm();
  }
  const Matrix jacobian = s.gamma * symmetric_part(dbar);
  const Vector lambda =
      Eigen::SelfAdjointEigenSolver<Matrix>(jacobian, Eigen::EigenvaluesOnly).eigenvalues();
  out.jacobian_max = lambda.maxCoeff();
  out.jacobian_min = lambda.minCoeff();
  out.critical_eps = out.client_spread * out.jacobian_max / (4.0 * n);  // THEORY (O4a)
  return out;
}

int fedopt_state_dim(int dim, const RunSetting& s) {
  return server_sgd(s).augmented() ? 2 * dim : dim;
}

Matrix fedopt_server_drift(int dim, const RunSetting& s) {
  const ServerSgd server = server_sgd(s);
  const int size = fedopt_state_dim(dim, s);
  Matrix drift = Matrix::Zero(size, size);
  if (server.augmented()) {  // (I − A₀)/γ, THEORY (O2)
    drift.block(0, dim, dim, dim).diagonal().setConstant(server.lr * server.momentum_in_x());
    drift.block(dim, dim, dim, dim).diagonal().setConstant((1.0 - server.momentum) / s.gamma);
  }
  return drift;
}

Matrix fedopt_pseudo_gradient_gain(int dim, const RunSetting& s) {
  const ServerSgd server = server_sgd(s);
  Matrix e = Matrix::Zero(fedopt_state_dim(dim, s), dim);
  e.topRows(dim).diagonal().setConstant(-server.lr * server.gain());  // x' = … − η_g c Δ
  if (server.augmented()) e.bottomRows(dim).diagonal().setConstant(1.0 / s.gamma);  // u' = … + Δ/γ
  return e;
}

namespace {

// The round map of averages (D̄, r̄) whose pseudo-gradient noise has covariance γ·g.
AffineRoundMap server_round_map(const Matrix& dbar, const Vector& rbar, const Matrix& g,
                                const RunSetting& s) {
  const ServerSgd server = server_sgd(s);
  const int d = static_cast<int>(dbar.rows());
  if (!server.augmented()) {
    // x' = x − η_g Δ: D = η_g D̄, r = η_g r̄, G = η_g² g (multiplying by η_g = 1 is exact).
    return {server.lr * dbar, server.lr * rbar, (server.lr * server.lr) * g, s.gamma};
  }
  const Matrix e = fedopt_pseudo_gradient_gain(d, s);
  AffineRoundMap map{fedopt_server_drift(d, s), -e * rbar, e * g * e.transpose(), s.gamma};
  map.d.leftCols(d) -= e * dbar;  // 𝐃 = (I − A₀)/γ − E D̄ F, THEORY (O2)
  return map;
}

double round_map_radius(const AffineRoundMap& map, const RunSetting& s) {
  return server_sgd(s).augmented() ? spectral_radius(map.transition())
                                   : symmetric_spectral_radius(map.d, s.gamma);
}

}  // namespace

AffineRoundMap fedopt_round_map(const QuadraticProblem& q, const RunSetting& s) {
  const ClientPieces pieces = fedopt_client_pieces(q, s);
  const int n = q.num_clients();
  const int d = q.dim();
  Matrix dbar = Matrix::Zero(d, d);
  Vector rbar = Vector::Zero(d);
  Matrix qsum = Matrix::Zero(d, d);
  for (int c = 0; c < n; ++c) {  // the order and operations of fedavg_round_map
    dbar += pieces.d[c] / n;
    rbar += pieces.d[c] * q.client(c).optimum / n;
    qsum += pieces.q[c];
  }
  qsum *= s.gamma / (static_cast<double>(n) * n);  // Cov(Δ's noise)/γ
  return server_round_map(dbar, rbar, qsum, s);
}

double fedopt_server_step_limit(const QuadraticProblem& q, const RunSetting& s) {
  validate(kFedopt, s);
  const int n = q.num_clients();
  if (participating_clients(s, n) < n) {
    throw InputError("--participating: the server step limit is for full participation");
  }
  const ClientPieces pieces = fedopt_client_pieces(q, s);
  Matrix dbar = Matrix::Zero(q.dim(), q.dim());
  for (int c = 0; c < n; ++c) dbar += pieces.d[c] / n;
  const Vector d =
      Eigen::SelfAdjointEigenSolver<Matrix>(dbar, Eigen::EigenvaluesOnly).eigenvalues();
  if (!(d(0) > 0.0)) {
    throw InputError(fmt::format(
        "--gamma: no server step contracts at gamma = {} with H = {} (the averaged client map "
        "has an eigenvalue {:.6g} <= 0)",
        s.gamma, s.local_steps, d(0)));
  }
  const ServerSgd server = server_sgd(s);
  const double c = server.nesterov ? 1.0 + 2.0 * server.momentum : 1.0;
  return 2.0 * (1.0 + server.momentum) / (c * s.gamma * d(d.size() - 1));  // THEORY (O2)
}

ExactMoments fedopt_exact_state(const QuadraticProblem& q, const RunSetting& s) {
  validate(kFedopt, s);
  require_closed_forms(s);
  const int n = q.num_clients();
  const int sampled = participating_clients(s, n);
  const AffineRoundMap map = fedopt_round_map(q, s);
  require_finite(map, s, "fedopt");
  ExactMoments out;
  out.spectral_radius = round_map_radius(map, s);
  require_stationary(out.spectral_radius, s, "fedopt");
  out.mean = server_sgd(s).augmented() ? Vector(map.d.partialPivLu().solve(map.r))
                                       : Vector(map.d.ldlt().solve(map.r));
  if (sampled == n) {
    out.cov = symmetric_part(stationary_covariance(map, s, "fedopt"));
    return out;
  }
  // THEORY (O5): the random-coefficient chain. C (constant part, divided by γ) and 𝒦(Σ).
  const int d = q.dim();
  const ClientPieces pieces = fedopt_client_pieces(q, s);
  const Matrix e = fedopt_pseudo_gradient_gain(d, s);
  const double kappa = fedopt_sampling_kappa(n, sampled);
  Matrix dbar = Matrix::Zero(d, d);
  for (int c = 0; c < n; ++c) dbar += pieces.d[c] / n;
  const Vector mean_x = out.mean.head(d);
  Matrix spread = Matrix::Zero(d, d);  // Σ_c v_c v_cᵀ
  Matrix qsum = Matrix::Zero(d, d);    // Σ_c Q̂_c
  for (int c = 0; c < n; ++c) {
    const Vector v = pieces.d[c] * mean_x - pieces.r[c];
    spread += v * v.transpose();
    qsum += pieces.q[c];
  }
  const Matrix constant =
      e * (kappa * s.gamma * spread + (s.gamma / (double(sampled) * n)) * qsum) * e.transpose();
  auto fluctuation = [&](const Matrix& sigma) {  // 𝒦(Σ)/γ
    const Matrix xx = sigma.topLeftCorner(d, d);
    Matrix sum = Matrix::Zero(d, d);
    for (int c = 0; c < n; ++c) {
      const Matrix delta = pieces.d[c] - dbar;
      sum += delta * xx * delta.transpose();
    }
    return Matrix(e * (kappa * s.gamma * sum) * e.transpose());
  };
  // Neumann series Σ = Σ_k Σ_k, Σ_0 = Lyap(C), Σ_{k+1} = Lyap(𝒦(Σ_k)): positive terms shrinking
  // by the factor q = ρ(Lyap∘𝒦) < 1 (= O(γ)) of a mean-square stable chain, each computed to its
  // own relative accuracy (no stagnation at the round-off of the sum, as a plain fixed-point
  // iteration would have when the state mixes O(γ) and O(1/γ) scales).
  Matrix term = stationary_covariance(map.d, constant, s, "fedopt");
  Matrix sigma = term;
  double previous = term.norm();
  int growing = 0;  // successive terms that did not shrink
  for (int it = 1; it <= kFedoptFixedPointIterations && previous > 0; ++it) {
    term = stationary_covariance(map.d, fluctuation(term), s, "fedopt");
    sigma += term;
    const double size = term.norm();
    const double rate = size / previous;  // observed q
    if (rate < 1.0 && size <= kFedoptFixedPointTolerance * (1.0 - rate) * sigma.norm()) break;
    growing = rate >= 1.0 ? growing + 1 : 0;
    if (growing >= 3 || !sigma.allFinite()) {  // 𝒦 does not contract: not mean-square stable
      previous = -1;
      break;
    }
    previous = size;
    if (it == kFedoptFixedPointIterations) previous = -1;
  }
  if (previous >= 0) {
    out.cov = symmetric_part(sigma);
    return out;
  }
  throw InputError(fmt::format(
      "--gamma: no stationary covariance for fedopt with --participating {} at gamma = {} with "
      "H = {} (the sampled chain is not mean-square stable, or its covariance iteration did not "
      "converge in {} steps); decrease gamma",
      sampled, s.gamma, s.local_steps, kFedoptFixedPointIterations));
}

ExactMoments fedopt_momentum_state(ExactMoments state, int dim, double gamma) {
  // m = γu: scale u's rows and columns by γ.
  state.mean.tail(dim) *= gamma;
  state.cov.rightCols(dim) *= gamma;
  state.cov.bottomRows(dim) *= gamma;
  return state;
}

ExactMoments fedopt_exact(const QuadraticProblem& q, const RunSetting& s) {
  ExactMoments state = fedopt_exact_state(q, s);
  const int d = q.dim();
  if (state.mean.size() == d) return state;
  return leading_block(state, d);
}

namespace {

class FedoptTheory final : public AlgorithmTheory {
 public:
  FirstOrderMoments first_order(const ExpansionCoefficients& k,
                                const RunSetting& s) const override {
    return fedopt_first_order(k, s);
  }
  ExactMoments exact(const QuadraticProblem& q, const RunSetting& s) const override {
    return fedopt_exact(q, s);
  }
  std::optional<ExactMoments> exact_state(const QuadraticProblem& q,
                                          const RunSetting& s) const override {
    if (!server_sgd(s).augmented()) return std::nullopt;
    return fedopt_momentum_state(fedopt_exact_state(q, s), q.dim(), s.gamma);
  }
  // THEORY (T1) on z = x or (x, u) from (x0, u = 0): full participation (O5's sampled rounds have
  // random coefficients), linear optimisers (fedopt_round_map refuses the others).
  std::optional<TrajectoryMoments> exact_trajectory(const Problem& p, const RunSetting& s,
                                                    const Vector& x0, int rounds) const override {
    if (p.kind() != ProblemKind::quadratic) return std::nullopt;
    const auto& q = dynamic_cast<const QuadraticProblem&>(p);
    if (s.participating != 0 && s.participating < q.num_clients()) {
      throw InputError("--participating: the exact trajectory of fedopt is for full participation");
    }
    if (!has_closed_forms(s)) {
      throw InputError(fmt::format(
          "--server: the exact trajectory needs linear optimisers (THEORY (O1)), not {}",
          s.server.text()));
    }
    return affine_trajectory(fedopt_round_map(q, s), x0, rounds);
  }
  // Linear optimisers only: adam, adagrad, … have no exact moments (THEORY (O1)).
  std::optional<ExactMoments> exact_linear_sa(const LinearSaProblem& p,
                                              const RunSetting& s) const override {
    if (!has_closed_forms(s)) return std::nullopt;
    return fedopt_exact_lsa(p, s);  // THEORY (L1), (O5)
  }
  std::optional<ExactMoments> exact_state_linear_sa(const LinearSaProblem& p,
                                                    const RunSetting& s) const override {
    if (!has_closed_forms(s) || !server_sgd(s).augmented()) return std::nullopt;
    return fedopt_momentum_state(fedopt_exact_lsa_state(p, s), p.dim(), s.gamma);
  }
};

// Help-text position: after FedRR (40), before L2GD (50).
constexpr int kFedoptOrder = 45;

[[maybe_unused]] const bool registered = register_algorithm(
    {.algorithm = kFedopt,
     .order = kFedoptOrder,
     .summary = "FedOpt: Table 2.1's optimisers on client and server, fedprox, fedexp; S of N "
                "clients sampled (THEORY O0)",
     .theory_labels = {"O0", "O2", "O3", "O5", "L1"},
     .family = AlgorithmFamily::chain,
     .options = {AlgorithmOption::local_steps, AlgorithmOption::burn_in,
                 AlgorithmOption::batch_rounds, AlgorithmOption::server, AlgorithmOption::client,
                 AlgorithmOption::participating},
     .validate = validate_fedopt},
    std::make_unique<FedoptTheory>());

}  // namespace
}  // namespace fedverify::theory
