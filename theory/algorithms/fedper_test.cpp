// FedPer's exact law (THEORY (A7), theory/algorithms/fedper.{hpp,cpp}):
//  - against the brute-force chain (theory/problems/testing/brute_force_chain.hpp): each round
//    built by running the H local steps literally on a symbolic state (w, v_c), the shared blocks
//    averaged with the weights, the personal ones kept; iterated to stationarity by doubling;
//    ≤ kBruteForceTolerance over kChainCases × k ∈ {1, d − 1} × equal/unequal weights;
//  - at H = 1 its stationary mean is the personalised optimum z* of F(w, v) = Σ_c p_c f_c(w, v_c)
//    (the round is then block gradient descent on F: ≤ 1e-10 relative);
//  - when the clients differ only in their personal block (block-diagonal A_c, equal shared
//    optima) the mean is z* for every H (≤ 1e-10), while FedAvg's single model stays above F* by
//    more than 0.1 (the personal optima are 3 apart);
//  - refusals: k ≥ d (--personal-dims), an unstable γ (--gamma).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "theory/algorithms/fedavg.hpp"
#include "theory/algorithms/fedper.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/testing/brute_force_chain.hpp"
#include "theory/problems/testing/chain_cases.hpp"

namespace fedverify::theory {
namespace {

RunSetting fedper_setting(double gamma, int h, int k) {
  RunSetting s{gamma, h};
  s.parameters[std::string(kPersonalDimsKey)] = {static_cast<double>(k)};
  return s;
}

// The brute-force law, reported as (x, (0, v_1), …, (0, v_N)).
verify::ChainMoments brute_force(const QuadraticProblem& q, const RunSetting& s, int k) {
  const int d = q.dim(), n = q.num_clients(), shared = d - k, size = shared + n * k;
  Matrix f = Matrix::Zero(size, size);
  Vector c = Vector::Zero(size);
  Matrix noise = Matrix::Zero(size, size);
  for (int cl = 0; cl < n; ++cl) {
    const auto& client = q.client(cl);
    verify::AffineGaussian u{Matrix::Zero(d, size), Vector::Zero(d), Matrix::Zero(d, d)};
    u.f.topLeftCorner(shared, shared) = Matrix::Identity(shared, shared);  // u = (w, v_c)
    u.f.block(shared, shared + cl * k, k, k) = Matrix::Identity(k, k);
    const Matrix id = Matrix::Identity(d, d);
    for (int h = 0; h < s.local_steps; ++h) {  // u ← u − γ(A(u − b) + ξ)
      u.step(id - s.gamma * client.hessian, Matrix::Zero(d, size),
             s.gamma * client.hessian * client.optimum, s.gamma * s.gamma * client.noise_cov);
    }
    Matrix lift = Matrix::Zero(size, d);  // w ← Σ p_c u_shared, v_c ← u_personal
    lift.topLeftCorner(shared, shared) = q.weight(cl) * Matrix::Identity(shared, shared);
    lift.block(shared + cl * k, shared, k, k) = Matrix::Identity(k, k);
    f += lift * u.f;
    c += lift * u.g;
    noise += lift * u.q * lift.transpose();
  }
  verify::ChainMoments m = verify::iterate_to_stationarity(f, c, noise);
  Matrix t = Matrix::Zero(d * (n + 1), size);
  t.topLeftCorner(shared, shared) = Matrix::Identity(shared, shared);
  for (int cl = 0; cl < n; ++cl) {
    t.block(shared, shared + cl * k, k, k) = q.weight(cl) * Matrix::Identity(k, k);
    t.block(d * (cl + 1) + shared, shared + cl * k, k, k) = Matrix::Identity(k, k);
  }
  m.mean = t * m.mean;
  m.cov = t * m.cov * t.transpose();
  return m;
}

TEST(FedperExact, EqualsTheBruteForceChain) {
  for (const verify::ChainCase& kc : verify::kChainCases) {
    if (kc.dim < 2) continue;  // one shared and one personal coordinate at least
    for (const int k : {1, kc.dim - 1}) {
      for (const bool weighted : {false, true}) {
        QuadraticProblem q = verify::chain_problem(kc);
        if (weighted) {
          std::vector<double> raw(static_cast<std::size_t>(q.num_clients()));
          for (std::size_t c = 0; c < raw.size(); ++c) raw[c] = 2.0 + static_cast<double>(c);
          q.set_client_weights(raw);
        }
        const RunSetting s = fedper_setting(kc.gamma, kc.local_steps, k);
        const ExactMoments exact = fedper_exact_state(q, s);
        const verify::ChainMoments brute = brute_force(q, s, k);
        verify::expect_brute_force_match(
            verify::describe(kc) + " k=" + std::to_string(k) + (weighted ? " weighted" : ""),
            exact.mean, exact.cov, brute.mean, brute.cov);
      }
    }
  }
}

// z* reported as (w*, Σ_c p_c v_c*).
Vector reported_optimum(const QuadraticProblem& q, int k) {
  const Vector z = fedper_personalised_optimum(q, k);
  const int shared = q.dim() - k;
  Vector x(q.dim());
  x.head(shared) = z.head(shared);
  x.tail(k).setZero();
  for (int c = 0; c < q.num_clients(); ++c) x.tail(k) += q.weight(c) * z.segment(shared + c * k, k);
  return x;
}

TEST(FedperExact, OneLocalStepReachesThePersonalisedOptimum) {
  for (const verify::ChainCase& kc : verify::kChainCases) {
    if (kc.dim < 2) continue;
    const QuadraticProblem q = verify::chain_problem(kc);
    const Vector target = reported_optimum(q, 1);
    const ExactMoments m = fedper_exact(q, fedper_setting(kc.gamma, 1, 1));
    EXPECT_LE((m.mean - target).norm(), 1e-10 * target.norm()) << verify::describe(kc);
  }
}

TEST(FedperExact, HeterogeneityInThePersonalBlockCostsNoBias) {
  // d = 3 (2 shared, 1 personal), block-diagonal A_c, shared optima equal, personal ones apart.
  std::vector<QuadraticClient> clients;
  for (int c = 0; c < 4; ++c) {
    Matrix a = Matrix::Zero(3, 3);
    a.topLeftCorner(2, 2) << 1.0 + 0.3 * c, 0.2, 0.2, 0.5 + 0.1 * c;
    a(2, 2) = 0.4 + 0.5 * c;
    Vector b(3);
    b << 1.0, -2.0, 3.0 * c - 4.0;
    clients.push_back({a, b, 0.1 * Matrix::Identity(3, 3)});
  }
  const QuadraticProblem q(clients);
  const Vector target = reported_optimum(q, 1);
  for (const int h : {1, 4, 16}) {
    const ExactMoments m = fedper_exact(q, fedper_setting(0.1, h, 1));
    EXPECT_LE((m.mean - target).norm(), 1e-10 * target.norm()) << h;
    // FedAvg's model is one v for all clients: the personalised objective F(w, v, …, v) at its
    // mean stays above F* by the spread of the personal optima.
    const Vector fedavg = fedavg_exact(q, {0.1, h}).mean;
    const Vector z_star = fedper_personalised_optimum(q, 1);
    double gap = 0;
    for (int c = 0; c < q.num_clients(); ++c) {
      Vector at_optimum = z_star.head(3);
      at_optimum(2) = z_star(2 + c);
      gap += q.weight(c) * (q.value(c, fedavg) - q.value(c, at_optimum));
    }
    EXPECT_GT(gap, 0.1) << h;
  }
}

TEST(FedperRefusals, NameTheirField) {
  const QuadraticProblem q = verify::chain_problem(verify::kChainCases[1]);  // d = 3
  auto expect_field = [&](const RunSetting& s, const std::string& field) {
    try {
      fedper_exact(q, s);
      ADD_FAILURE() << "no error; expected one naming " << field;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  expect_field(fedper_setting(0.1, 2, 3), "--personal-dims");
  expect_field(fedper_setting(50.0, 2, 1), "--gamma");
}

}  // namespace
}  // namespace fedverify::theory
