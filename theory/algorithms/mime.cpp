// Mime's closed forms on quadratic problems (THEORY-Mime (MI1)) and its registration; the
// linear-sa law (MI3) is in mime_lsa.cpp. See mime.hpp.
#include "theory/algorithms/mime.hpp"

#include <Eigen/Eigenvalues>
#include <memory>
#include <optional>

#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/trajectory.hpp"

namespace fedverify::theory {

namespace {

constexpr Algorithm kMime{"mime"};

// 𝐇 = Σ_c p_c A_c and g₀ = Σ_c p_c A_c b_c: the full-batch gradient is c = 𝐇x − g₀.
struct PooledGradient {
  Matrix h;
  Vector g0;
};

PooledGradient pooled_gradient(const QuadraticProblem& q) {
  const int d = q.dim();
  PooledGradient out{Matrix::Zero(d, d), Vector::Zero(d)};
  for (int c = 0; c < q.num_clients(); ++c) {
    out.h += q.weight(c) * q.client(c).hessian;
    out.g0 += q.weight(c) * q.client(c).hessian * q.client(c).optimum;
  }
  return out;
}

// (MI1) written from the updates, in the problem's coordinates: m′ = (1 − β)(𝐇x − g₀) + βm and
// x′ = x − ηP̄m′, i.e. z′ = Mz + a with M = [[I − η(1 − β)P̄𝐇, −ηβP̄], [(1 − β)𝐇, βI]] and
// a = (η(1 − β)P̄g₀, −(1 − β)g₀); in divided form D = (I − M)/γ, r = a/γ. (Its fixed point is
// then solved for, not assumed: x* appears nowhere here.)
AffineRoundMap round_map_from(const Matrix& p_bar, const PooledGradient& w, double beta,
                              double gamma) {
  const Eigen::Index d = w.h.rows();
  const Matrix id = Matrix::Identity(d, d);
  Matrix m(2 * d, 2 * d);
  m << id - gamma * (1 - beta) * p_bar * w.h, -gamma * beta * p_bar, (1 - beta) * w.h, beta * id;
  Vector a(2 * d);
  a << gamma * (1 - beta) * p_bar * w.g0, -(1 - beta) * w.g0;
  return {(Matrix::Identity(2 * d, 2 * d) - m) / gamma, a / gamma, Matrix::Zero(2 * d, 2 * d),
          gamma};
}

}  // namespace

AffineRoundMap mime_round_map(const QuadraticProblem& q, const RunSetting& s) {
  validate(kMime, s);
  const double beta = mime_beta(s);
  const PooledGradient w = pooled_gradient(q);
  Matrix p_bar = Matrix::Zero(q.dim(), q.dim());
  for (int c = 0; c < q.num_clients(); ++c) {
    // P_c = Σ_{h<H} (I − η(1 − β)A_c)^h: the local steps' sum at the step η(1 − β).
    p_bar += q.weight(c) * LocalSteps(q.client(c).hessian, s.gamma * (1 - beta), s.local_steps).p();
  }
  return round_map_from(p_bar, w, beta, s.gamma);  // THEORY-Mime (MI1)
}

ExactMoments mime_exact_state(const QuadraticProblem& q, const RunSetting& s) {
  const AffineRoundMap map = mime_round_map(q, s);
  require_finite(map, s, "mime");
  const Eigen::VectorXcd eig = Eigen::EigenSolver<Matrix>(map.transition(), false).eigenvalues();
  const double rho = eig.cwiseAbs().maxCoeff();
  require_stationary(rho, s, "mime");
  // THEORY-Mime (MI1): the round is deterministic, its law the point mass at the fixed point.
  const Eigen::Index size = map.d.rows();
  return {map.d.partialPivLu().solve(map.r), Matrix::Zero(size, size), rho};
}

ExactMoments mime_exact(const QuadraticProblem& q, const RunSetting& s) {
  const ExactMoments z = mime_exact_state(q, s);
  const int d = q.dim();
  return leading_block(z, d);
}

namespace {

class MimeTheory final : public AlgorithmTheory {
 public:
  // No first-order expansion: the stationary law is a point mass, exactly (MI1, MI3).
  bool has_first_order() const override { return false; }
  FirstOrderMoments first_order(const ExpansionCoefficients& /*k*/,
                                const RunSetting& /*s*/) const override {
    throw InputError(
        "--algo mime: no first-order expansion; its stationary law is the point mass at x* "
        "(THEORY-Mime MI1, MI3)");
  }
  ExactMoments exact(const QuadraticProblem& q, const RunSetting& s) const override {
    return mime_exact(q, s);
  }
  std::optional<ExactMoments> exact_state(const QuadraticProblem& q,
                                          const RunSetting& s) const override {
    return mime_exact_state(q, s);
  }
  std::optional<ExactMoments> exact_linear_sa(const LinearSaProblem& p,
                                              const RunSetting& s) const override {
    const ExactMoments z = mime_exact_state_lsa(p, s);  // THEORY-Mime (MI3)
    const int d = p.dim();
    return leading_block(z, d);
  }
  std::optional<ExactMoments> exact_state_linear_sa(const LinearSaProblem& p,
                                                    const RunSetting& s) const override {
    return mime_exact_state_lsa(p, s);
  }
  // THEORY (T1) on (x, m) from (x0, 0): the affine map on quadratics, (MI3) on linear-sa.
  std::optional<TrajectoryMoments> exact_trajectory(const Problem& p, const RunSetting& s,
                                                    const Vector& x0, int rounds) const override {
    if (p.kind() == ProblemKind::quadratic) {
      return affine_trajectory(mime_round_map(dynamic_cast<const QuadraticProblem&>(p), s), x0,
                               rounds);
    }
    if (p.kind() == ProblemKind::linear_sa || p.kind() == ProblemKind::least_squares) {
      return mime_trajectory_lsa(dynamic_cast<const LinearSaProblem&>(p), s, x0, rounds);
    }
    return std::nullopt;
  }
};

// Help-text position: after FedDyn (32), the other drift-correcting method with server state.
constexpr int kMimeOrder = 34;

[[maybe_unused]] const bool registered = register_algorithm(
    {.algorithm = kMime,
     .order = kMimeOrder,
     .summary = "Mime: clients step with the server's momentum and a control variate "
                "(THEORY-Mime MI0)",
     .theory_labels = {"MI0", "MI1", "MI2", "MI3"},
     .family = AlgorithmFamily::chain,
     .options = {AlgorithmOption::local_steps, AlgorithmOption::burn_in,
                 AlgorithmOption::batch_rounds},
     .parameters = {mime_beta_parameter()},
     .weighted_clients = true},
    std::make_unique<MimeTheory>());

}  // namespace
}  // namespace fedverify::theory
