#include "theory/algorithms/l2gd_compressed.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fedverify::theory {
namespace {

// The scaled masks (d/k)·diag(mask) of random-k, every k-subset once; k = 0: the identity.
std::vector<Vector> masks(int d, int k) {
  if (k < 0 || k > d) throw std::invalid_argument("random-k: k must lie in [0, d]");
  if (k == 0 || k == d) return {Vector::Ones(d)};
  std::vector<Vector> out;
  for (const std::vector<int>& kept : subsets_of_size(d, k)) {
    Vector mask = Vector::Zero(d);
    for (const int i : kept) mask(i) = static_cast<double>(d) / k;
    out.push_back(std::move(mask));
  }
  return out;
}

}  // namespace

CompressedL2gdConstants compressed_l2gd_constants(const Problem& problem, const L2gdSetting& s,
                                                  const Matrix& x_lambda, double omega,
                                                  double omega_master, bool own_model_exact) {
  const L2gdConstants base = l2gd_constants(problem, s, x_lambda);
  const double n = problem.num_clients();
  CompressedL2gdConstants k;
  k.omega = omega;
  k.omega_master = omega_master;
  const double uplink = own_model_exact ? omega / n : omega * (1 - 1 / n);  // THEORY (P8)
  k.kappa = uplink + omega_master * (1 + omega / n);                        // THEORY (P8)
  const double lambda2 = s.lambda * s.lambda;
  k.l_cal = std::max(base.l / (1 - s.p) + lambda2 * k.kappa / (s.p * base.mu), s.lambda / s.p) /
            n;                      // THEORY (P8)
  k.alpha_max = 1 / (2 * k.l_cal);  // THEORY (P8)
  k.rate = base.rate;
  const double models = x_lambda.squaredNorm();
  const double mean = client_average(x_lambda).squaredNorm();
  k.sigma2 = base.sigma2 +
             lambda2 / (n * n * s.p) *
                 (uplink * models + n * omega_master * (mean + omega / (n * n) * models));  // (P8)
  k.neighbourhood = 2 * n * s.alpha * k.sigma2 / base.mu;                                   // (P8)
  return k;
}

double compressed_l2gd_bound(const CompressedL2gdConstants& k, double initial_error2,
                             int iteration) {
  return std::pow(k.rate, iteration) * initial_error2 + k.neighbourhood;  // THEORY (P8)
}

std::vector<AffineBranch> compressed_l2gd_branches(const QuadraticProblem& q, const L2gdSetting& s,
                                                   int uplink_k, int downlink_k,
                                                   bool own_model_exact) {
  const int n = q.num_clients();
  const int d = q.dim();
  const Eigen::Index nd = static_cast<Eigen::Index>(n) * d;
  const Matrix x_lambda = personalised_optimum(q, s.lambda);
  const L2gdAffineMaps l2gd = l2gd_affine_maps(q, s, x_lambda);
  const std::vector<Vector> up = masks(d, uplink_k);
  const std::vector<Vector> down = masks(d, downlink_k);
  const double theta = s.alpha * s.lambda / (n * s.p);  // THEORY (P2)
  std::size_t tuples = down.size();
  for (int i = 0; i < n; ++i) tuples *= up.size();
  const double probability = s.p / static_cast<double>(tuples);
  const Vector star = flatten(x_lambda);

  std::vector<AffineBranch> branches{{1 - s.p, l2gd.local_map, l2gd.local_offset}};
  for (std::size_t code = 0; code < tuples; ++code) {
    std::size_t rest = code;
    std::vector<const Vector*> own(n);
    for (int i = 0; i < n; ++i, rest /= up.size()) own[i] = &up[rest % up.size()];
    const Vector& master = down[rest % down.size()];
    // x' = M x:  x_i' = x_i − θ(D_i x_i − D_M (1/n) Σ_j D_j x_j)  (D_i → I when own_model_exact)
    Matrix map = Matrix::Identity(nd, nd);
    for (int i = 0; i < n; ++i) {
      const Vector self = own_model_exact ? Vector::Ones(d) : *own[i];
      map.block(i * d, i * d, d, d).diagonal() -= theta * self;
      for (int j = 0; j < n; ++j) {
        map.block(i * d, j * d, d, d).diagonal() += (theta / n) * master.cwiseProduct(*own[j]);
      }
    }
    const Vector offset = map * star - star;  // e' = M e + (M x* − x*)
    branches.push_back({probability, std::move(map), offset});
  }
  return branches;
}

}  // namespace fedverify::theory
