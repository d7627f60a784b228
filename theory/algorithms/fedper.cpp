// FedPer's closed forms on quadratic problems (THEORY (A7)) and its registration; see fedper.hpp.
#include "theory/algorithms/fedper.hpp"

#include <memory>
#include <optional>

#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/lyapunov.hpp"
#include "theory/closed_forms/trajectory.hpp"

namespace fedverify::theory {

namespace {

constexpr Algorithm kFedper{"fedper"};

// The minimal state's layout: w (the first d − k coordinates), then v_1, …, v_N (k each).
struct Layout {
  int d, k, n;
  int shared() const { return d - k; }
  int size() const { return shared() + n * k; }
  // E_c: z ↦ (w, v_c) (d × size).
  Matrix select(int c) const {
    Matrix e = Matrix::Zero(d, size());
    e.topLeftCorner(shared(), shared()) = Matrix::Identity(shared(), shared());
    e.block(shared(), shared() + c * k, k, k) = Matrix::Identity(k, k);
    return e;
  }
  // L_c: y ↦ (p·y_shared into w, y_personal into v_c) (size × d).
  Matrix lift(int c, double p) const {
    Matrix l = Matrix::Zero(size(), d);
    l.topLeftCorner(shared(), shared()) = p * Matrix::Identity(shared(), shared());
    l.block(shared() + c * k, shared(), k, k) = Matrix::Identity(k, k);
    return l;
  }
  // The reported stacked state (x, (0, v_1), …, (0, v_N)) from z (d(N + 1) × size).
  Matrix report(const QuadraticProblem& q) const {
    Matrix t = Matrix::Zero(static_cast<Eigen::Index>(d) * (n + 1), size());
    t.topLeftCorner(shared(), shared()) = Matrix::Identity(shared(), shared());
    for (int c = 0; c < n; ++c) {
      t.block(shared(), shared() + c * k, k, k) = q.weight(c) * Matrix::Identity(k, k);
      t.block(static_cast<Eigen::Index>(d) * (c + 1) + shared(), shared() + c * k, k, k) =
          Matrix::Identity(k, k);
    }
    return t;
  }
};

Layout layout(const QuadraticProblem& q, const RunSetting& s) {
  return {q.dim(), fedper_personal_dims(s, q.dim()), q.num_clients()};
}

}  // namespace

AffineRoundMap fedper_round_map(const QuadraticProblem& q, const RunSetting& s) {
  validate(kFedper, s);
  const Layout l = layout(q, s);
  AffineRoundMap map{Matrix::Zero(l.size(), l.size()), Vector::Zero(l.size()),
                     Matrix::Zero(l.size(), l.size()), s.gamma};
  for (int c = 0; c < l.n; ++c) {
    const auto& cl = q.client(c);
    const LocalSteps ls(cl.hessian, s.gamma, s.local_steps);
    const Matrix lift = l.lift(c, q.weight(c));
    map.d += lift * ls.p_a() * l.select(c);  // THEORY (A7)
    map.r += lift * (ls.p_a() * cl.optimum);
    map.g += s.gamma * lift * ls.noise_sum(cl.noise_cov, ls.beta) * lift.transpose();
  }
  return map;
}

Vector fedper_personalised_optimum(const QuadraticProblem& q, int personal_dims) {
  const Layout l{q.dim(), personal_dims, q.num_clients()};
  // ∇F = Σ_c p_c E_cᵀ A_c (E_c z − b_c) = 0.
  Matrix h = Matrix::Zero(l.size(), l.size());
  Vector rhs = Vector::Zero(l.size());
  for (int c = 0; c < l.n; ++c) {
    const Matrix e = l.select(c);
    h += q.weight(c) * e.transpose() * q.client(c).hessian * e;
    rhs += q.weight(c) * e.transpose() * q.client(c).hessian * q.client(c).optimum;
  }
  return h.ldlt().solve(rhs);
}

ExactMoments fedper_exact_state(const QuadraticProblem& q, const RunSetting& s) {
  const AffineRoundMap map = fedper_round_map(q, s);
  require_finite(map, s, "fedper");
  const StationarySolve solve = discrete_lyapunov_solve_checked(map.d, s.gamma, map.g);
  require_stationary(solve.spectral_radius, s, "fedper");
  const Matrix t = layout(q, s).report(q);
  return {t * map.d.partialPivLu().solve(map.r), symmetric_part(t * solve.x * t.transpose()),
          solve.spectral_radius};
}

ExactMoments fedper_exact(const QuadraticProblem& q, const RunSetting& s) {
  const ExactMoments z = fedper_exact_state(q, s);
  const int d = q.dim();
  return leading_block(z, d);
}

namespace {

class FedperTheory final : public AlgorithmTheory {
 public:
  // No first-order expansion (the personal blocks need per-client terms the expansion
  // coefficients do not keep); the exact law on quadratics.
  bool has_first_order() const override { return false; }
  FirstOrderMoments first_order(const ExpansionCoefficients& /*k*/,
                                const RunSetting& /*s*/) const override {
    throw InputError("--algo fedper: no first-order expansion; exact fields on quadratic problems");
  }
  ExactMoments exact(const QuadraticProblem& q, const RunSetting& s) const override {
    return fedper_exact(q, s);
  }
  std::optional<ExactMoments> exact_state(const QuadraticProblem& q,
                                          const RunSetting& s) const override {
    return fedper_exact_state(q, s);
  }
};

// Help-text position: after Mime (34), the personal-state methods after the drift correctors.
constexpr int kFedperOrder = 36;

[[maybe_unused]] const bool registered = register_algorithm(
    {.algorithm = kFedper,
     .order = kFedperOrder,
     .summary = "FedPer: shared coordinates averaged, the last k personal (THEORY A7)",
     .theory_labels = {"A7"},
     .family = AlgorithmFamily::chain,
     .options = {AlgorithmOption::local_steps, AlgorithmOption::burn_in,
                 AlgorithmOption::batch_rounds},
     .parameters = {personal_dims_parameter()},
     .weighted_clients = true},
    std::make_unique<FedperTheory>());

}  // namespace
}  // namespace fedverify::theory
