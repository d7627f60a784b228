#include "theory/algorithms/fedgda.hpp"

#include <fmt/format.h>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <stdexcept>
#include <vector>

#include "theory/base/input_error.hpp"
#include "theory/closed_forms/lyapunov.hpp"
#include "theory/problems/algorithm_registry.hpp"
#include "theory/problems/gda_parameters.hpp"

namespace fedverify::theory {
namespace {

// D/α₁ = diag(I_p, (α₂/α₁) I_q).
Vector relative_steps(const QuadraticGame& g, const GdaSetting& s) {
  Vector w(g.dim());
  w.head(g.theta_dim()).setOnes();
  w.tail(g.tau_dim()).setConstant(s.alpha_tau / s.alpha_theta);
  return w;
}

}  // namespace

AffineRoundMap fedgda_round_map(const QuadraticGame& g, const GdaSetting& s) {
  validate(s);
  const int n = g.dim();
  const Vector w = relative_steps(g, s);
  const Matrix identity = Matrix::Identity(n, n);
  AffineRoundMap map{Matrix::Zero(n, n), Vector::Zero(n), Matrix::Zero(n, n), s.alpha_theta};
  const double clients = g.num_clients();
  for (int i = 0; i < g.num_clients(); ++i) {
    const Matrix step = w.asDiagonal() * g.operator_matrix(i);                  // (D/α₁) M_i
    const Matrix b = identity - s.alpha_theta * step;                           // B_i = I − D M_i
    const Matrix ds = w.asDiagonal() * g.client(i).noise_cov * w.asDiagonal();  // D S_i D / α₁²
    Matrix power = identity;                                                    // B_i^h
    Matrix p = Matrix::Zero(n, n);  // P_i = Σ_{h<R} B_i^h
    Matrix noise = Matrix::Zero(n, n);
    for (int h = 0; h < s.local_steps; ++h) {
      p += power;
      noise += power * ds * power.transpose();
      power = b * power;
    }
    map.d += p * step / clients;  // (I − B_i^R)/α₁ = P_i (D/α₁) M_i
    map.r -= p * (w.asDiagonal() * g.operator_offset(i)) / clients;
    map.g += s.alpha_theta * noise / (clients * clients);  // Cov/α₁ = α₁ Σ_h B^h (D S D/α₁²) B^hᵀ
  }
  return map;
}

double fedgda_spectral_radius(const QuadraticGame& g, const GdaSetting& s) {
  return spectral_radius(fedgda_round_map(g, s).transition());
}

ExactMoments fedgda_exact(const QuadraticGame& g, const GdaSetting& s) {
  const AffineRoundMap map = fedgda_round_map(g, s);
  if (!map.d.allFinite() || !map.g.allFinite()) {
    throw InputError("--alpha-theta: the FedGDA round map overflows double precision");
  }
  ExactMoments out;
  out.spectral_radius = spectral_radius(map.transition());
  if (!(out.spectral_radius < 1.0)) {
    throw InputError(fmt::format(
        "--alpha-theta: no stationary distribution for FedGDA at alpha = ({}, {}), R = {} "
        "(spectral radius of the round map {:.6g} >= 1)",
        s.alpha_theta, s.alpha_tau, s.local_steps, out.spectral_radius));
  }
  out.mean = map.d.partialPivLu().solve(map.r);
  const Matrix cov = discrete_lyapunov_solve(map.d, map.gamma, map.g);
  out.cov = 0.5 * (cov + cov.transpose());
  return out;
}

double fedgda_step_limit(const QuadraticGame& g, double step_ratio) {
  validate({1.0, step_ratio, 1});  // names --alpha-tau for a ratio that is not finite and > 0
  Vector w(g.dim());
  w.head(g.theta_dim()).setOnes();
  w.tail(g.tau_dim()).setConstant(step_ratio);
  Matrix mbar = Matrix::Zero(g.dim(), g.dim());
  for (int i = 0; i < g.num_clients(); ++i) mbar += g.operator_matrix(i) / g.num_clients();
  const Eigen::ComplexEigenSolver<Matrix> eig(w.asDiagonal() * mbar);
  double limit = std::numeric_limits<double>::infinity();
  for (const std::complex<double>& mu : eig.eigenvalues()) {
    if (!(mu.real() > 0)) return 0.0;  // (M7): |1 − αμ| ≥ 1 for every α > 0
    limit = std::min(limit, 2.0 * mu.real() / std::norm(mu));
  }
  return limit;
}

Vector fedgda_offset_first_order(const std::vector<Matrix>& jacobians,
                                 const std::vector<Vector>& operators, int theta_dim,
                                 const GdaSetting& s) {
  validate(s);
  const auto n = static_cast<int>(jacobians.size());
  if (n == 0 || operators.size() != jacobians.size())
    throw std::logic_error("fedgda_offset_first_order: one Jacobian and operator per client");
  const Eigen::Index dim = jacobians[0].rows();
  Vector w = Vector::Ones(dim);  // D/α₁ = diag(I_p, (α₂/α₁) I_q)
  w.tail(dim - theta_dim).setConstant(s.alpha_tau / s.alpha_theta);
  Matrix jbar = Matrix::Zero(dim, dim);
  Vector drift = Vector::Zero(dim);  // Σ_i J_i (D/α₁) F_i(z*)
  for (int i = 0; i < n; ++i) {
    jbar += jacobians[i] / n;
    drift += jacobians[i] * (w.asDiagonal() * operators[i]);
  }
  // THEORY (M2): ((R − 1)/(2N)) J̄⁻¹ Σ_i J_i D F_i(z*), D = α₁ diag(w).
  return (s.alpha_theta * (s.local_steps - 1) / (2.0 * n)) * jbar.partialPivLu().solve(drift);
}

GdaFirstOrder fedgda_first_order(const QuadraticGame& g, const GdaSetting& s) {
  validate(s);
  const int n = g.dim();
  const Vector w = relative_steps(g, s);
  const Vector& z_star = g.equilibrium();
  Matrix mbar = Matrix::Zero(n, n), sbar = Matrix::Zero(n, n);
  std::vector<Matrix> jacobians;
  std::vector<Vector> operators;
  for (int i = 0; i < g.num_clients(); ++i) {
    mbar += g.operator_matrix(i) / g.num_clients();
    sbar += g.client(i).noise_cov / g.num_clients();
    jacobians.push_back(g.operator_matrix(i));
    operators.push_back(g.client_operator(i, z_star));
  }
  GdaFirstOrder out;
  out.bias = fedgda_offset_first_order(jacobians, operators, g.theta_dim(), s);
  // (D M̄)Σ + Σ(D M̄)ᵀ = D S̄ D / N  ⇔  Σ = α₁ X with (W M̄)X + X(W M̄)ᵀ = W S̄ W / N.
  const Matrix wm = w.asDiagonal() * mbar;
  const Matrix x = discrete_lyapunov_solve(
      wm, 0.0, w.asDiagonal() * sbar * w.asDiagonal() / static_cast<double>(g.num_clients()));
  out.cov = s.alpha_theta * 0.5 * (x + x.transpose());
  return out;
}

namespace {

// Help-text positions: after the personalised family.
constexpr int kFedgdaOrder = 80;
constexpr int kFedsgdaOrder = 90;

// The descriptors of the game family. Their --gamma is α₁ and --step-ratio gives α₂ = α₁ · ratio
// (theory/problems/gda_setting.hpp, which the command line validates); the common checks apply.
[[maybe_unused]] const bool registered_fedgda = register_algorithm(
    {.algorithm = Algorithm{"fedgda"},
     .order = kFedgdaOrder,
     .summary = "FedGDA: federated gradient descent-ascent on a game file (THEORY M0, M1, M2)",
     .theory_labels = {"M0", "M1", "M2", "M5"},
     .family = AlgorithmFamily::game,
     .options = {AlgorithmOption::local_steps, AlgorithmOption::burn_in,
                 AlgorithmOption::batch_rounds},
     .parameters = {step_ratio_parameter()},
     .has_closed_forms = true});

[[maybe_unused]] const bool registered_fedsgda = register_algorithm(
    {.algorithm = Algorithm{"fedsgda"},
     .order = kFedsgdaOrder,
     .summary = "FedSGDA: FedGDA with minibatch gradients on a linear-iv game (simulate only)",
     .theory_labels = {"M0", "M5"},
     .family = AlgorithmFamily::game,
     .options = {AlgorithmOption::local_steps, AlgorithmOption::burn_in,
                 AlgorithmOption::batch_rounds},
     .parameters = {step_ratio_parameter(), batch_size_parameter()},
     .has_closed_forms = false});

}  // namespace

}  // namespace fedverify::theory
