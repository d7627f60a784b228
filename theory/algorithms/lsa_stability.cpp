// Stability of FedAvg and Scaffold on linear-sa problems (THEORY (L1)); see lsa_stability.hpp.
#include "theory/algorithms/lsa_stability.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <vector>

#include "theory/algorithms/scaffold_lsa_stacked.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/linear_sa_moments.hpp"

namespace fedverify::theory {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

double spectral_radius(const Matrix& m) {
  if (!m.allFinite()) return kInfinity;
  return Eigen::EigenSolver<Matrix>(m, false).eigenvalues().cwiseAbs().maxCoeff();
}

// The radius of S ↦ m S mᵀ + noise(S) on the m × m symmetric matrices: the operator's matrix in
// the basis e_ieᵢᵀ (i = j) and e_ieⱼᵀ + e_jeᵢᵀ (i < j), whose coordinates are S_ij (i ≤ j).
double second_moment_radius(const Matrix& m, const std::function<Matrix(const Matrix&)>& noise) {
  const auto size = m.rows();
  const Eigen::Index dim = size * (size + 1) / 2;
  Matrix t(dim, dim);
  Eigen::Index col = 0;
  for (Eigen::Index j = 0; j < size; ++j) {
    for (Eigen::Index i = 0; i <= j; ++i, ++col) {
      Matrix basis = Matrix::Zero(size, size);
      basis(i, j) = 1.0;
      basis(j, i) = 1.0;
      const Matrix image = m * basis * m.transpose() + noise(basis);
      Eigen::Index row = 0;
      for (Eigen::Index q = 0; q < size; ++q) {
        for (Eigen::Index p = 0; p <= q; ++p, ++row)
          t(row, col) = 0.5 * (image(p, q) + image(q, p));
      }
    }
  }
  return spectral_radius(t);
}

// Client c's H-step map (k₀, x₀, cc) ↦ Ṽ_c of lsa_client_noise_linear, as a d² × 3d² matrix on
// the column-major vecs: the matrix of one lsa_noise_step on (vec v, vec k, vec x, vec cc) (cc
// unchanged), probed column by column — the step is linear — raised to the power H by squaring.
// O(log H) products of 4d² × 4d² matrices instead of H noise steps per argument.
class ClientNoiseMap {
 public:
  ClientNoiseMap(const LinearSaProblem& p, int c, const RunSetting& s) : d_(p.dim()) {
    const Eigen::Index dd = d_ * d_;
    const Matrix b = Matrix::Identity(d_, d_) - s.gamma * p.mean_a(c);
    Matrix step = Matrix::Zero(4 * dd, 4 * dd);
    for (Eigen::Index j = 0; j < 4 * dd; ++j) {
      Vector probe = Vector::Zero(4 * dd);
      probe(j) = 1.0;
      const auto block = [&](Eigen::Index i) {
        return Matrix(Eigen::Map<const Matrix>(probe.data() + i * dd, d_, d_));
      };
      LsaNoiseState state{block(0), block(1), block(2)};
      const Matrix cc = block(3);
      lsa_noise_step(p, c, s.gamma, b, cc, state);
      step.col(j) << state.v.reshaped(), state.k.reshaped(), state.x.reshaped(), cc.reshaped();
    }
    Matrix power = Matrix::Identity(4 * dd, 4 * dd);
    for (int h = s.local_steps; h > 0; h >>= 1) {
      if ((h & 1) != 0) power = step * power;
      if (h > 1) step = step * step;
    }
    v_of_start_ = power.block(0, dd, dd, 3 * dd);  // v₀ = 0
  }
  // Ṽ_c from Cov(y₀) = k0, Cov(y₀, ξ) = x0, Cov ξ = cc.
  Matrix operator()(const Matrix& k0, const Matrix& x0, const Matrix& cc) const {
    Vector start(3 * d_ * d_);
    start << k0.reshaped(), x0.reshaped(), cc.reshaped();
    const Vector v = v_of_start_ * start;
    return symmetric_part(Eigen::Map<const Matrix>(v.data(), d_, d_));
  }

 private:
  Eigen::Index d_;
  Matrix v_of_start_;
};

std::vector<ClientNoiseMap> client_noise_maps(const LinearSaProblem& p, const RunSetting& s) {
  std::vector<ClientNoiseMap> maps;
  maps.reserve(static_cast<std::size_t>(p.num_clients()));
  for (int c = 0; c < p.num_clients(); ++c) maps.emplace_back(p, c, s);
  return maps;
}

LsaStability fedavg_stability(const LinearSaProblem& p, const RunSetting& s) {
  const int n = p.num_clients();
  const int d = p.dim();
  // M = (1/N) Σ_c (I − γĀ_c)^H: the average of the clients' local mean maps.
  Matrix m = Matrix::Zero(d, d);
  for (int c = 0; c < n; ++c) m += lsa_local_map(p.mean_a(c), s.gamma, s.local_steps).b_power / n;
  LsaStability out;
  out.mean_radius = spectral_radius(m);
  if (!std::isfinite(out.mean_radius)) {
    out.mean_square_radius = kInfinity;
    return out;
  }
  // 𝒩(S) = (1/N²) Σ_c Cov(ε_c) = (γ/N²) Σ_c Ṽ_c(S), x' = (1/N) Σ_c y_c.
  const Matrix zero = Matrix::Zero(d, d);
  const std::vector<ClientNoiseMap> client = client_noise_maps(p, s);
  const auto noise = [&](const Matrix& sigma) {
    Matrix sum = Matrix::Zero(d, d);
    for (int c = 0; c < n; ++c) sum += client[c](sigma, zero, zero);
    return Matrix(s.gamma * sum / (static_cast<double>(n) * n));
  };
  out.mean_square_radius = second_moment_radius(m, noise);
  return out;
}

LsaStability scaffold_stability(const LinearSaProblem& p, const RunSetting& s) {
  ScaffoldLsaStacked st;
  try {
    st = scaffold_lsa_stacked(p, s);
  } catch (const InputError&) {  // the map overflows: divergent
    return {kInfinity, kInfinity};
  }
  const int n = p.num_clients();
  const int d = p.dim();
  const Matrix m = Matrix::Identity(d * n, d * n) - st.e_reduced;
  LsaStability out;
  out.mean_radius = spectral_radius(m);
  // 𝒩 in the Helmert coordinates: client c starts from (x, ξ_c) with the blocks of S.
  const std::vector<ClientNoiseMap> client = client_noise_maps(p, s);
  const auto noise = [&](const Matrix& reduced) {
    const Matrix full = st.t * reduced * st.t.transpose();
    std::vector<Matrix> v;
    for (int c = 0; c < n; ++c) {
      const Eigen::Index rc = d * (1 + c);
      v.push_back(
          client[c](full.topLeftCorner(d, d), full.block(0, rc, d, d), full.block(rc, rc, d, d)));
    }
    return scaffold_lsa_round_noise(st, v, s);
  };
  out.mean_square_radius = second_moment_radius(m, noise);
  return out;
}

}  // namespace

LsaStability lsa_stability(const LinearSaProblem& problem, Algorithm algorithm,
                           const RunSetting& setting) {
  validate(algorithm, setting);
  if (algorithm == Algorithm::fedavg) return fedavg_stability(problem, setting);
  if (algorithm == Algorithm::scaffold) return scaffold_stability(problem, setting);
  throw std::invalid_argument("lsa_stability: FedAvg or Scaffold only");
}

}  // namespace fedverify::theory
