// FedAvg under a sample order (THEORY (A4)), exact: with replacement the augmented recursion of
// local_epochs.cpp reproduces (L1)'s law computed the other way (fedavg_exact_lsa, and
// fedopt_exact_lsa with a server step); reshuffled, the pass's moments by dynamic programming
// equal the average over every permutation, and the stationary law equals the one from the joint
// round of all clients enumerated at once; a full batch makes reshuffling deterministic. Then the
// first-order bias of (A4) and the covariance orders (O(γ³) under reshuffling with whole passes,
// O(γ) otherwise), and the refusals.
//
// Tolerances: exact against exact (different algebra, same law): 1e-10 relative, the round-off of
// solving (d+1)² systems with condition ≈ 1/(γμH) ≈ 1e3 and of (L1)'s fixed-point iteration
// (kLsaFixedPointTolerance 1e-15 per entry, amplified by the same condition). Enumeration against
// dynamic programming: the same sums in another order, 1e-13. First order: (A4)'s remainder is
// O(γ²) (the mean map's third-order terms), so the relative error e(γ) = aγ + O(γ²) and
// e(γ/2)/e(γ) ∈ [0.4, 0.6] at γL ≤ 0.02, where the O(γ²) part is below 20 % of e.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "theory/algorithms/linear_sa.hpp"
#include "theory/algorithms/local_epochs.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/testing/kronecker.hpp"
#include "theory/closed_forms/trajectory.hpp"
#include "theory/problems/linear_sa_problem.hpp"
#include "theory/problems/optimiser.hpp"

namespace fedverify {
namespace {

using theory::LinearSaProblem;
using theory::RunSetting;
using theory::SampleOrder;

// N clients of n rows in d = 2, features N(0, 1) shifted per client, targets with noise: a
// heterogeneous least-squares problem.
LinearSaProblem small_problem(int clients, int n, int batch, SampleOrder order,
                              std::uint32_t seed = 7) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z;
  std::vector<theory::LeastSquaresClient> cl;
  for (int c = 0; c < clients; ++c) {
    theory::LeastSquaresClient k;
    k.features.resize(n, 2);
    k.targets.resize(n);
    for (int j = 0; j < n; ++j) {
      k.features(j, 0) = z(rng) + 0.5 * c;
      k.features(j, 1) = z(rng);
      k.targets(j) = 1.0 + c - k.features(j, 0) + 0.3 * z(rng);
    }
    cl.push_back(k);
  }
  LinearSaProblem p(std::move(cl), 0.1, batch);
  p.set_sample_order(order);
  return p;
}

double relative(const Matrix& a, const Matrix& b) { return (a - b).norm() / b.norm(); }

RunSetting with_server_lr(double gamma, int steps, double lr) {
  RunSetting s{gamma, steps};
  s.server = theory::parse_optimiser("sgd:lr=" + std::to_string(lr), theory::OptimiserRole::server);
  return s;
}

TEST(LocalEpochs, WithReplacementItIsTheL1Law) {
  for (const int batch : {1, 2}) {
    const LinearSaProblem p = small_problem(3, 4, batch, SampleOrder::with_replacement);
    const RunSetting s{0.05 / p.smoothness(), 3};
    const theory::ExactMoments a = theory::fedavg_local_order_exact(p, s);
    const theory::ExactMoments b = theory::fedavg_exact_lsa(p, s);
    EXPECT_LT((a.mean - b.mean).norm() / b.mean.norm(), 1e-10) << "B = " << batch;
    EXPECT_LT(relative(a.cov, b.cov), 1e-10) << "B = " << batch;
    const RunSetting server = with_server_lr(0.05 / p.smoothness(), 3, 0.5);
    const theory::ExactMoments c = theory::fedavg_local_order_exact(p, server);
    const theory::ExactMoments e = theory::fedopt_exact_lsa(p, server);
    EXPECT_LT((c.mean - e.mean).norm() / e.mean.norm(), 1e-10);
    EXPECT_LT(relative(c.cov, e.cov), 1e-10);
    EXPECT_GT(relative(c.cov, a.cov), 0.1);  // the server step changes the law
  }
}

// E over every permutation of the pass(es) of X_{S_H} ⋯ X_{S_1}, X = G or G ⊗ G, batches the
// consecutive B-blocks of the permutation (each ordered partition counted (B!)^k times).
theory::ClientRoundMoments by_permutations(const LinearSaProblem& p, int c, double gamma,
                                           int steps) {
  const int n = p.num_samples(c), b = p.batch_size(), d = p.dim();
  std::vector<int> order(static_cast<std::size_t>(n));
  const auto step = [&](const std::vector<int>& perm, int first) {
    Matrix g = Matrix::Identity(d + 1, d + 1);
    for (int i = first; i < first + b; ++i) {
      const Vector a = p.ls_client(c).features.row(perm[i]).transpose();
      Matrix aa = a * a.transpose();
      aa.diagonal().array() += p.l2();
      g.topLeftCorner(d, d) -= (gamma / b) * aa;
      g.topRightCorner(d, 1) += (gamma / b) * p.ls_client(c).targets(perm[i]) * a;
    }
    return g;
  };
  // Passes needed; enumerate (n!)^passes orders by an odometer of permutations.
  const int per_pass = n / b, passes = (steps + per_pass - 1) / per_pass;
  std::vector<std::vector<int>> perms;
  std::iota(order.begin(), order.end(), 0);
  do perms.push_back(order);
  while (std::next_permutation(order.begin(), order.end()));
  theory::ClientRoundMoments out{Matrix::Zero(d + 1, d + 1),
                                 Matrix::Zero((d + 1) * (d + 1), (d + 1) * (d + 1))};
  std::vector<std::size_t> digit(static_cast<std::size_t>(passes), 0);
  double count = 0;
  for (;;) {
    Matrix y = Matrix::Identity(d + 1, d + 1);
    for (int h = 0; h < steps; ++h) {
      y = step(perms[digit[h / per_pass]], (h % per_pass) * b) * y;
    }
    out.mean += y;
    out.second += verify::kron(y, y);
    ++count;
    int i = 0;
    while (i < passes && ++digit[i] == perms.size()) digit[i++] = 0;
    if (i == passes) break;
  }
  out.mean /= count;
  out.second /= count;
  return out;
}

TEST(LocalEpochs, ReshuffledPassEqualsTheAverageOverPermutations) {
  struct Case {
    int n, batch, steps;
  };
  for (const Case k : {Case{4, 1, 4}, Case{4, 1, 6}, Case{4, 1, 2}, Case{4, 2, 3}, Case{3, 1, 5}}) {
    const LinearSaProblem p = small_problem(1, k.n, k.batch, SampleOrder::reshuffled);
    const double gamma = 0.1 / p.smoothness();
    const theory::ClientRoundMoments dp =
        theory::client_round_moments(p, 0, gamma, k.steps, Vector::Zero(p.dim()));
    const theory::ClientRoundMoments brute = by_permutations(p, 0, gamma, k.steps);
    EXPECT_LT(relative(dp.mean, brute.mean), 1e-13) << k.n << " " << k.batch << " " << k.steps;
    EXPECT_LT(relative(dp.second, brute.second), 1e-13) << k.n << " " << k.batch << " " << k.steps;
  }
}

// The stationary law from T = E[M ⊗ M] of the joint round of two clients, every pair of
// permutations enumerated (no use of the clients' independence), by a dense solve. In coordinates
// about x* (u = (x − x*, 1)) as the code under test, else the reference's own Cov = E uuᵀ − mmᵀ
// would cancel ‖x*‖² ≈ 1 down to a covariance of 1e-6 and keep only 1e-10 of it.
TEST(LocalEpochs, ReshuffledStationaryLawEqualsTheJointEnumeration) {
  const LinearSaProblem p = small_problem(2, 3, 1, SampleOrder::reshuffled);
  const RunSetting s = with_server_lr(0.1 / p.smoothness(), 3, 0.7);
  const double eta = 0.7;
  const int d = p.dim();
  const Matrix id = Matrix::Identity(d + 1, d + 1);
  // Per client: the 6 permutations' round maps Y (one pass each), uniform.
  std::vector<std::vector<Matrix>> maps(2);
  for (int c = 0; c < 2; ++c) {
    std::vector<int> order = {0, 1, 2};
    do {
      Matrix y = id;
      for (const int j : order) {
        const Vector a = p.ls_client(c).features.row(j).transpose();
        const Matrix aj = a * a.transpose() + p.l2() * Matrix::Identity(d, d);
        Matrix g = id;
        g.topLeftCorner(d, d) -= s.gamma * aj;
        g.topRightCorner(d, 1) += s.gamma * (p.ls_client(c).targets(j) * a - aj * p.solution());
        y = g * y;
      }
      maps[c].push_back(y);
    } while (std::next_permutation(order.begin(), order.end()));
  }
  Matrix mean = Matrix::Zero(d + 1, d + 1);
  Matrix t = Matrix::Zero((d + 1) * (d + 1), (d + 1) * (d + 1));
  for (const Matrix& y0 : maps[0]) {
    for (const Matrix& y1 : maps[1]) {
      const Matrix m = 0.5 * (eta * y0 + (1 - eta) * id) + 0.5 * (eta * y1 + (1 - eta) * id);
      mean += m / 36.0;
      t += verify::kron(m, m) / 36.0;
    }
  }
  // Stationary: m = (I − F)⁻¹f, then U from (I − T) vec U = 0, U_dd = 1, by a dense solve.
  const Vector m = (Matrix::Identity(d, d) - mean.topLeftCorner(d, d))
                       .partialPivLu()
                       .solve(mean.topRightCorner(d, 1));
  const Matrix a = Matrix::Identity(t.rows(), t.cols()) - t;
  Matrix sys = a;
  Vector rhs = Vector::Zero(t.rows());
  const Eigen::Index last = t.rows() - 1;
  sys.row(last).setZero();
  sys(last, last) = 1;
  rhs(last) = 1;
  const Vector u = sys.fullPivLu().solve(rhs);
  const Matrix second = verify::unvec(u, d + 1).topLeftCorner(d, d);
  const Matrix cov = second - m * m.transpose();
  const theory::ExactMoments exact = theory::fedavg_local_order_exact(p, s);
  EXPECT_LT((exact.mean - p.solution() - m).norm() / m.norm(), 1e-12);
  EXPECT_LT(relative(exact.cov, cov), 1e-10);
}

TEST(LocalEpochs, AFullBatchMakesReshufflingDeterministic) {
  const LinearSaProblem rr = small_problem(3, 4, 4, SampleOrder::reshuffled);
  const LinearSaProblem iid = small_problem(3, 4, 4, SampleOrder::with_replacement);
  const RunSetting s{0.05 / rr.smoothness(), 2};
  const theory::ExactMoments a = theory::fedavg_exact_lsa(rr, s);
  const theory::ExactMoments b = theory::fedavg_exact_lsa(iid, s);
  // Round-off only: the second moments about x* are O(γ²) ≈ ‖m − x*‖², cancelled to ~1e-16 of it.
  EXPECT_LT(a.cov.norm(), 1e-12 * (a.mean - rr.solution()).squaredNorm());
  EXPECT_GT(b.cov.norm(), 1e3 * a.cov.norm());
  EXPECT_LT((a.mean - b.mean).norm() / b.mean.norm(), 1e-12);  // the mean field's fixed point
}

// (A4)'s bias: ‖m_RR − m_rep − γb_RR‖ / ‖γb_RR‖ halves with γ; and at the smallest γ it is small.
TEST(LocalEpochs, ReshufflingBiasHasTheFirstOrderOfA4) {
  for (const int batch : {1, 2}) {
    const LinearSaProblem rr = small_problem(3, 6, batch, SampleOrder::reshuffled);
    const LinearSaProblem iid = small_problem(3, 6, batch, SampleOrder::with_replacement);
    std::vector<double> errors;
    for (const double gl : {0.02, 0.01, 0.005}) {
      const RunSetting s{gl / rr.smoothness(), 6 / batch};
      const Vector shift = theory::fedavg_mean_lsa(rr, s) - theory::fedavg_mean_lsa(iid, s);
      const Vector first = theory::reshuffling_bias_first_order(rr, s);
      errors.push_back((shift - first).norm() / first.norm());
    }
    EXPECT_GT(errors[1] / errors[0], 0.4) << "B = " << batch;
    EXPECT_LT(errors[1] / errors[0], 0.6) << "B = " << batch;
    EXPECT_GT(errors[2] / errors[1], 0.4) << "B = " << batch;
    EXPECT_LT(errors[2] / errors[1], 0.6) << "B = " << batch;
    EXPECT_LT(errors[2], 0.05) << "B = " << batch;
  }
}

// tr Cov: O(γ³) reshuffled with whole passes (ratio 8 when γ halves), O(γ) with replacement or
// when a round ends inside a pass (ratio 2). Ratios within 20 % at γL ≤ 0.01 (the next order).
TEST(LocalEpochs, ReshufflingMakesTheCovarianceThirdOrder) {
  const LinearSaProblem rr = small_problem(3, 6, 1, SampleOrder::reshuffled);
  const LinearSaProblem iid = small_problem(3, 6, 1, SampleOrder::with_replacement);
  const auto ratio = [](const LinearSaProblem& p, int steps) {
    const double g = 0.01 / p.smoothness();
    return theory::fedavg_exact_lsa(p, {g, steps}).cov.trace() /
           theory::fedavg_exact_lsa(p, {g / 2, steps}).cov.trace();
  };
  EXPECT_NEAR(ratio(rr, 6), 8.0, 1.6);
  EXPECT_NEAR(ratio(rr, 12), 8.0, 1.6);
  EXPECT_NEAR(ratio(iid, 6), 2.0, 0.4);
  EXPECT_NEAR(ratio(rr, 4), 2.0, 0.4);  // a round ends inside a pass
}

TEST(LocalEpochs, Refusals) {
  EXPECT_THROW(small_problem(2, 5, 2, SampleOrder::reshuffled), InputError);  // 2 ∤ 5
  const LinearSaProblem rr = small_problem(2, 4, 1, SampleOrder::reshuffled);
  const RunSetting s{0.05 / rr.smoothness(), 4};
  try {
    (void)theory::scaffold_exact_lsa(rr, s);
    ADD_FAILURE() << "scaffold's exact law accepted a reshuffled problem";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("sampling:", 0), 0U) << e.what();
  }
  EXPECT_THROW((void)theory::fedavg_trajectory_lsa(rr, s, Vector::Zero(2), 5), InputError);
  const LinearSaProblem big = small_problem(1, 17, 1, SampleOrder::reshuffled);
  try {
    (void)theory::fedavg_exact_lsa(big, s);
    ADD_FAILURE() << "17 samples enumerated";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("sampling:", 0), 0U) << e.what();
  }
}

}  // namespace
}  // namespace fedverify
