#include "theory/algorithms/scaffold_sampled.hpp"

#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/SVD>
#include <vector>

#include "theory/base/input_error.hpp"
#include "theory/problems/fedopt_setting.hpp"
#include "theory/problems/scaffold_setting.hpp"

namespace fedverify::theory {
namespace {

// Client c's part of the round when it is sampled: z' − z ∋ B_c z + t_c + G_c n_c. THEORY (S8)
struct SampledClient {
  Matrix b;
  Vector t;
  Matrix q;  // G_c Cov(n_c) G_cᵀ
};

std::vector<SampledClient> sampled_clients(const QuadraticProblem& problem, const RunSetting& s,
                                           int sampled) {
  const int d = problem.dim(), n = problem.num_clients(), size = d * (n + 1);
  const double gamma = s.gamma, h = s.local_steps;
  const double eta = scaffold_server_lr(s);  // THEORY (S9): x's rows scale by η_g
  const Matrix id = Matrix::Identity(d, d);
  std::vector<SampledClient> out;
  for (int c = 0; c < n; ++c) {
    const auto& client = problem.client(c);
    const LocalSteps steps(client.hessian, gamma, s.local_steps);
    const Matrix p = steps.p(), pa = steps.p_a();
    const Vector r = pa * client.optimum;
    // ξ_c = (1/N) Σ_j c_j − c_c as a map of z.
    Matrix xi = Matrix::Zero(d, size);
    for (int j = 0; j < n; ++j) xi.middleCols(d * (1 + j), d) = id / n;
    xi.middleCols(d * (1 + c), d) -= id;
    // (x − y_c + n_c)/γ = D_c x + P_c ξ_c − r_c.
    Matrix drift = p * xi;
    drift.leftCols(d) += pa;
    SampledClient out_c{Matrix::Zero(size, size), Vector::Zero(size), Matrix::Zero(size, size)};
    out_c.b.topRows(d) = -(gamma * eta / sampled) * drift;  // x' − x = −(η_g/S)(x − y_c)
    out_c.t.head(d) = (gamma * eta / sampled) * r;
    // c_c' − c_c = (x − y_c)/(Hγ) − ξ_c − c_c.
    out_c.b.middleRows(d * (1 + c), d) = drift / h - xi;
    out_c.b.block(d * (1 + c), d * (1 + c), d, d) -= id;
    out_c.t.segment(d * (1 + c), d) = -r / h;
    // n_c enters x' as n_c/S and c_c' as −n_c/(Hγ); Cov(n_c) = γ²Q̂_c.
    Matrix g = Matrix::Zero(size, d);
    g.topRows(d) = (gamma * eta / sampled) * id;
    g.middleRows(d * (1 + c), d) = -id / h;
    out_c.q = g * steps.noise_sum(client.noise_cov, steps.beta) * g.transpose();
    out.push_back(std::move(out_c));
  }
  return out;
}

// vec(A X Bᵀ) = (B ⊗ A) vec X (column-major vec).
Matrix kron(const Matrix& b, const Matrix& a) {
  Matrix out(b.rows() * a.rows(), b.cols() * a.cols());
  for (Eigen::Index i = 0; i < b.rows(); ++i) {
    for (Eigen::Index j = 0; j < b.cols(); ++j) {
      out.block(i * a.rows(), j * a.cols(), a.rows(), a.cols()) = b(i, j) * a;
    }
  }
  return out;
}

// S, checked with the state size.
int checked_sample_size(const QuadraticProblem& problem, const RunSetting& s) {
  validate_step(s);
  const int n = problem.num_clients(), size = problem.dim() * (n + 1);
  const int sampled = participating_clients(s, n);
  if (size > kScaffoldSampledMaxState) {
    throw InputError(fmt::format(
        "problem: Scaffold's exact law with client sampling is solved for d(N + 1) <= {} (a dense "
        "system in {}² unknowns); this problem has d(N + 1) = {}",
        kScaffoldSampledMaxState, kScaffoldSampledMaxState, size));
  }
  return sampled;
}

Matrix sum_of_b(const std::vector<SampledClient>& clients) {
  Matrix b_sum = Matrix::Zero(clients[0].b.rows(), clients[0].b.cols());
  for (const auto& c : clients) b_sum += c.b;
  return b_sum;
}

}  // namespace

double scaffold_sampled_mean_condition(const QuadraticProblem& problem, const RunSetting& s) {
  const int sampled = checked_sample_size(problem, s);
  const Vector sv =
      Eigen::JacobiSVD<Matrix>(sum_of_b(sampled_clients(problem, s, sampled))).singularValues();
  return sv(0) / sv(sv.size() - 1);
}

FirstOrderMoments scaffold_sampled_first_order(const ExpansionCoefficients& k,
                                               const RunSetting& s) {
  const int clients = k.num_clients;
  validate_step(s);
  const int sampled = participating_clients(s, clients);
  if (scaffold_server_lr(s) != 1.0) {
    throw InputError(fmt::format(
        "--server-lr: Scaffold's first-order law under client sampling (THEORY S8a) is derived "
        "for eta_g = 1, not {:g}; its exact law (S8) takes any eta_g",
        scaffold_server_lr(s)));
  }
  // The mean is full participation's (THEORY S8a, as S3); only the covariance changes.
  RunSetting all = s;
  all.participating = 0;
  FirstOrderMoments m = scaffold_first_order(k, all);
  m.cov = (s.gamma / sampled) * (2.0 - double(sampled) / clients) * k.a_noise;  // THEORY (S8a)
  return m;
}

ExactMoments scaffold_sampled_exact(const QuadraticProblem& problem, const RunSetting& s) {
  const int sampled = checked_sample_size(problem, s);
  const int n = problem.num_clients(), size = problem.dim() * (n + 1);
  const double p = double(sampled) / n;                          // E[ι_c]
  const double q = n > 1 ? p * (sampled - 1.0) / (n - 1.0) : p;  // E[ι_c ι_c'], c ≠ c'
  const std::vector<SampledClient> clients = sampled_clients(problem, s, sampled);
  const Matrix b_sum = sum_of_b(clients);
  Vector t_sum = Vector::Zero(size);
  for (const auto& c : clients) t_sum += c.t;
  // THEORY (S8): the second-moment map 𝒯 − I in Kronecker form.
  const Matrix id = Matrix::Identity(size, size);
  Matrix second = p * (kron(id, b_sum) + kron(b_sum, id)) + q * kron(b_sum, b_sum);
  for (const auto& c : clients) second += (p - q) * kron(c.b, c.b);
  const Eigen::EigenSolver<Matrix> eig(second + Matrix::Identity(second.rows(), second.cols()),
                                       /*computeEigenvectors=*/false);
  ExactMoments out;
  out.spectral_radius = eig.eigenvalues().cwiseAbs().maxCoeff();
  if (!(out.spectral_radius < 1.0)) {
    throw InputError(fmt::format(
        "--gamma: no stationary distribution for Scaffold with --participating {} at gamma = {} "
        "with H = {} (spectral radius of the second-moment map = {:.6g} >= 1); decrease gamma",
        sampled, s.gamma, s.local_steps, out.spectral_radius));
  }
  // THEORY (S8): the mean (B̄ μ = −t̄), then the covariance.
  out.mean = b_sum.partialPivLu().solve(-t_sum);
  Matrix constant = Matrix::Zero(size, size);
  for (const auto& c : clients) {
    const Vector w = c.b * out.mean + c.t;
    constant += (p - q) * w * w.transpose() + p * c.q;
  }
  const Vector vec_cov =
      second.partialPivLu().solve(-Eigen::Map<const Vector>(constant.data(), constant.size()));
  const Matrix cov = Eigen::Map<const Matrix>(vec_cov.data(), size, size);
  out.cov = (cov + cov.transpose()) / 2;
  return out;
}

}  // namespace fedverify::theory
