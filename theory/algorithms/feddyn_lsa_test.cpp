// FedDyn on linear-sa problems (THEORY-FedDyn (FD5), theory/algorithms/feddyn_lsa.cpp):
//  - the exact stacked law equals the brute force: every joint sequence of the clients' sample
//    draws enumerated (Π_c K^{H·B} sequences), each sequence's round built literally from
//    Algorithm 1's updates on a symbolic state, and the moment recursion m ← E[M]m, U ← Σ π M U Mᵀ
//    iterated about the fixed point until it stops moving: ≤ 1e-12 relative (the iteration's
//    stopping error is below 1e-15; the dense solves' round-off, amplified by the condition
//    1/(1 − ρ) ≤ 1e2 here, is below 1e-13);
//  - the stationary mean is the fixed point (x*, ∇f_c(x*)) of (FD2) on linear-sa too (≤ 1e-13),
//    on a dense non-symmetric problem (TD-like) and on least squares with B = 2;
//  - refusals: a reshuffled problem (naming "sampling"), a stacked state too large (--problem).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "theory/algorithms/feddyn.hpp"
#include "theory/algorithms/local_epochs.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/feddyn_setting.hpp"
#include "theory/problems/testing/linear_sa_cases.hpp"

namespace fedverify::theory {
namespace {

RunSetting feddyn_setting(double gamma, int h, double alpha) {
  RunSetting s{gamma, h};
  s.parameters[std::string(kDynAlphaKey)] = {alpha};
  return s;
}

double relative(const Matrix& a, const Matrix& b) { return (a - b).norm() / b.norm(); }

// The stacked fixed point (x*, ∇f_c(x*)).
Vector fixed_point(const LinearSaProblem& p) {
  const int d = p.dim(), n = p.num_clients();
  Vector z(d * (n + 1));
  z.head(d) = p.solution();
  for (int c = 0; c < n; ++c) z.segment(d * (c + 1), d) = p.mean_a(c) * p.solution() - p.mean_b(c);
  return z;
}

TEST(FeddynLsa, ExactLawEqualsTheEnumeratedChain) {
  const LinearSaProblem p = verify::dense_problem(2, 2, 2, 1, 31);  // d = 2, N = 2, 2 samples
  const double alpha = 0.5, gamma = 0.1;
  const int h = 2;
  const RunSetting s = feddyn_setting(gamma, h, alpha);
  const int d = 2, n = 2, size = d * (n + 1);
  const Vector z_star = fixed_point(p);
  // Selectors on z = (x, h_1, h_2) with the constant as a column of offsets.
  std::vector<Matrix> rounds;
  std::vector<double> probabilities;
  std::vector<Vector> offsets;
  for (int sequence = 0; sequence < 16; ++sequence) {  // (k_1, k_2 of client 0; of client 1)
    Matrix x_next = Matrix::Zero(d, size);
    Vector x_offset = Vector::Zero(d);
    Matrix all(size, size);
    Vector all_offset = Vector::Zero(size);
    double probability = 1;
    Matrix y_sum = Matrix::Zero(d, size);
    Vector y_sum_offset = Vector::Zero(d);
    for (int c = 0; c < n; ++c) {
      // y as an affine function of z: y = Y z + y0.
      Matrix y = Matrix::Zero(d, size);
      y.leftCols(d) = Matrix::Identity(d, d);
      Vector y0 = Vector::Zero(d);
      Matrix hc = Matrix::Zero(d, size);
      hc.middleCols(d * (c + 1), d) = Matrix::Identity(d, d);
      Matrix x = Matrix::Zero(d, size);
      x.leftCols(d) = Matrix::Identity(d, d);
      for (int step = 0; step < h; ++step) {
        const int k = (sequence >> (2 * c + step)) & 1;
        const SampleField f = sample_field(p, c, k);
        probability *= p.probabilities(c)(k);
        // y ← y − γ(A y − b − h_c + α(y − x)).                           Algorithm 1 (FD0)
        y = y - gamma * (f.a * y - hc + alpha * (y - x));
        y0 = y0 - gamma * (f.a * y0 - f.b + alpha * y0);
      }
      // h_c' = h_c − α(y − x).
      all.middleRows(d * (c + 1), d) = hc - alpha * (y - x);
      all_offset.segment(d * (c + 1), d) = -alpha * y0;
      y_sum += y;
      y_sum_offset += y0;
    }
    // x' = ȳ − h̄'/α.
    Matrix h_mean = Matrix::Zero(d, size);
    Vector h_mean_offset = Vector::Zero(d);
    for (int c = 0; c < n; ++c) {
      h_mean += all.middleRows(d * (c + 1), d) / n;
      h_mean_offset += all_offset.segment(d * (c + 1), d) / n;
    }
    all.topRows(d) = y_sum / n - h_mean / alpha;
    all_offset.head(d) = y_sum_offset / n - h_mean_offset / alpha;
    rounds.push_back(all);
    offsets.push_back(all_offset);
    probabilities.push_back(probability);
  }
  // The moment recursion about z*: u = z − z*, u' = M u + (M z* + o − z*).
  Vector m = Vector::Zero(size);
  Matrix second = Matrix::Zero(size, size);
  for (int t = 0; t < 100000; ++t) {
    Vector m_next = Vector::Zero(size);
    Matrix second_next = Matrix::Zero(size, size);
    for (std::size_t i = 0; i < rounds.size(); ++i) {
      const Matrix& mm = rounds[i];
      const Vector r = mm * z_star + offsets[i] - z_star;
      m_next += probabilities[i] * (mm * m + r);
      second_next += probabilities[i] * (mm * second * mm.transpose() + mm * m * r.transpose() +
                                         r * m.transpose() * mm.transpose() + r * r.transpose());
    }
    const double change = (second_next - second).norm() + (m_next - m).norm();
    m = m_next;
    second = second_next;
    if (change < 1e-18) break;
  }
  const ExactMoments exact = feddyn_exact_state_lsa(p, s);
  EXPECT_LT((exact.mean - z_star - m).norm(), 1e-12 * z_star.norm());
  EXPECT_LT(relative(exact.cov, second - m * m.transpose()), 1e-12);
}

TEST(FeddynLsa, StationaryMeanIsTheFixedPoint) {
  const LinearSaProblem dense = verify::dense_problem(2, 3, 3, 1, 32);
  const LinearSaProblem ls = verify::least_squares_problem(2, 3, 4, 2, 0.1, 33);
  for (const LinearSaProblem* p : {&dense, &ls}) {
    const ExactMoments z = feddyn_exact_state_lsa(*p, feddyn_setting(0.05, 3, 1.0));
    EXPECT_LT((z.mean - fixed_point(*p)).norm(), 1e-13 * fixed_point(*p).norm());
    EXPECT_GT(z.cov.trace(), 0.0);
  }
}

TEST(FeddynLsa, Refusals) {
  LinearSaProblem rr = verify::least_squares_problem(2, 2, 4, 1, 0.1, 34);
  rr.set_sample_order(SampleOrder::reshuffled);
  try {
    (void)feddyn_exact_state_lsa(rr, feddyn_setting(0.05, 2, 1.0));
    ADD_FAILURE() << "a reshuffled problem accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("sampling", 0), 0U) << e.what();
  }
  const LinearSaProblem big = verify::dense_problem(4, 10, 2, 1, 35);  // d(N + 1) = 44
  try {
    (void)feddyn_exact_state_lsa(big, feddyn_setting(0.05, 2, 1.0));
    ADD_FAILURE() << "44 stacked coordinates accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--problem", 0), 0U) << e.what();
  }
}

}  // namespace
}  // namespace fedverify::theory
