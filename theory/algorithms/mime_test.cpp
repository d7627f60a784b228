// Mime's closed forms (THEORY-Mime (MI1)–(MI3), theory/algorithms/mime.{hpp,cpp}, mime_lsa.cpp)
// against Algorithm 1 run literally:
//  - quadratics: the round map equals the literal round (full-batch c, H client steps on
//    g(y; ζ) − g(x; ζ) + c with a random additive noise ζ that must cancel, m′, the weighted
//    average) at random states, ≤ 1e-12 relative, over kChainCases × β × weights;
//  - the stationary mean, solved from the map, is (x*, 0) with zero covariance, and the literal
//    round leaves it in place (≤ 1e-11 relative: the solve's cond(D)·ε);
//  - (MI2): with equal Hessians the round is the pooled one-client problem's round (≤ 1e-13)
//    however different the b_c;
//  - linear-sa: the exact E x_t and E‖x_t − x*‖² of (MI3) equal the average over every joint
//    sequence of draws enumerated (each run literally, b_ζ included) for t = 1, 2, 3, ≤ 1e-12
//    relative, on a dense non-symmetric problem (B = 1) and on weighted least squares (B = 2);
//  - refusals: d too large (--problem), a divergent step (--gamma), β = 1 (--mime-beta).
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "theory/algorithms/mime.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/testing/chain_cases.hpp"
#include "theory/problems/testing/linear_sa_cases.hpp"

namespace fedverify::theory {
namespace {

RunSetting mime_setting(double gamma, int h, double beta) {
  RunSetting s{gamma, h};
  s.parameters[std::string(kMimeBetaKey)] = {beta};
  return s;
}

// One literal round of Algorithm 1 (MI0) on a quadratic problem from (x, m); ζ: a fresh N(0, I)
// additive noise per client step, drawn from `rng` and used at y and at x alike.
std::pair<Vector, Vector> literal_round(const QuadraticProblem& q, const RunSetting& s,
                                        const Vector& x, const Vector& m, std::mt19937_64& rng) {
  const double beta = mime_beta(s), eta = s.gamma;
  std::normal_distribution<double> normal;
  Vector c = Vector::Zero(q.dim());
  for (int k = 0; k < q.num_clients(); ++k) {
    c += q.weight(k) * q.client(k).hessian * (x - q.client(k).optimum);
  }
  Vector x_next = Vector::Zero(q.dim());
  for (int k = 0; k < q.num_clients(); ++k) {
    const auto& cl = q.client(k);
    Vector y = x;
    for (int h = 0; h < s.local_steps; ++h) {
      Vector noise(q.dim());
      for (auto& v : noise) v = normal(rng);
      const Vector gy = cl.hessian * (y - cl.optimum) + noise;
      const Vector gx = cl.hessian * (x - cl.optimum) + noise;
      y -= eta * ((1 - beta) * (gy - gx + c) + beta * m);
    }
    x_next += q.weight(k) * y;
  }
  return {x_next, (1 - beta) * c + beta * m};
}

Vector apply(const AffineRoundMap& map, const Vector& z) {
  return map.transition() * z + map.gamma * map.r;
}

TEST(MimeQuadratic, RoundMapEqualsTheLiteralRound) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  for (const verify::ChainCase& k : verify::kChainCases) {
    for (const double beta : {0.0, 0.5, 0.9}) {
      for (const bool weighted : {false, true}) {
        QuadraticProblem q = verify::chain_problem(k);
        if (weighted) {
          std::vector<double> raw(static_cast<std::size_t>(q.num_clients()));
          for (std::size_t c = 0; c < raw.size(); ++c) raw[c] = 1.0 + static_cast<double>(c);
          q.set_client_weights(raw);
        }
        const RunSetting s = mime_setting(k.gamma, k.local_steps, beta);
        const AffineRoundMap map = mime_round_map(q, s);
        const int d = q.dim();
        Vector z(2 * d);
        for (auto& v : z) v = normal(rng);
        const auto [x1, m1] = literal_round(q, s, z.head(d), z.tail(d), rng);
        Vector literal(2 * d);
        literal << x1, m1;
        EXPECT_LE((apply(map, z) - literal).norm(), 1e-12 * literal.norm())
            << verify::describe(k) << " β=" << beta << " weighted=" << weighted;
      }
    }
  }
}

TEST(MimeQuadratic, FixedPointIsTheOptimumWithNoSpread) {
  std::mt19937_64 rng(8);
  for (const verify::ChainCase& k : verify::kChainCases) {
    const QuadraticProblem q = verify::chain_problem(k);
    const RunSetting s = mime_setting(k.gamma, k.local_steps, 0.9);
    const ExactMoments law = mime_exact_state(q, s);
    const int d = q.dim();
    const auto [x1, m1] = literal_round(q, s, law.mean.head(d), law.mean.tail(d), rng);
    Matrix h = Matrix::Zero(d, d);  // x* = (Σ_c p_c A_c)⁻¹ Σ_c p_c A_c b_c
    Vector hb = Vector::Zero(d);
    for (int c = 0; c < q.num_clients(); ++c) {
      h += q.weight(c) * q.client(c).hessian;
      hb += q.weight(c) * q.client(c).hessian * q.client(c).optimum;
    }
    const Vector x_star = h.ldlt().solve(hb);
    // The fixed point is solved from D (entries up to 1/γ): accurate to cond(D)·ε ≲ 1e-12 here.
    EXPECT_LE((law.mean.head(d) - x_star).norm(), 1e-11 * x_star.norm());
    EXPECT_LE(law.mean.tail(d).norm(), 1e-11 * x_star.norm());
    EXPECT_LE((x1 - law.mean.head(d)).norm(), 1e-11 * x_star.norm());
    EXPECT_LE(m1.norm(), 1e-11 * x_star.norm());
    EXPECT_EQ(law.cov.norm(), 0.0);
    EXPECT_LT(law.spectral_radius, 1.0);
  }
}

TEST(MimeQuadratic, EqualHessiansGiveThePooledRoundWhateverTheOptima) {
  const QuadraticProblem base = verify::chain_problem(verify::kChainCases[1]);
  std::vector<QuadraticClient> clients;
  clients.reserve(static_cast<std::size_t>(base.num_clients()));
  for (int c = 0; c < base.num_clients(); ++c) {
    clients.push_back({base.client(0).hessian, base.client(c).optimum * (1.0 + 3.0 * c),
                       base.client(c).noise_cov});
  }
  const QuadraticProblem q(clients);
  const RunSetting s = mime_setting(0.1, 4, 0.8);
  const AffineRoundMap map = mime_round_map(q, s);
  const ExactMoments law = mime_exact(q, s);
  const QuadraticProblem pooled({{base.client(0).hessian, law.mean, base.client(0).noise_cov}});
  const AffineRoundMap centralised = mime_round_map(pooled, s);
  EXPECT_LE((map.transition() - centralised.transition()).norm(), 1e-13);
  EXPECT_LE((map.r - centralised.r).norm(), 1e-13 * map.r.norm());
}

// E x_t and E‖x_t − x*‖² over every joint sequence of draws, t = 1 … rounds, each round run
// literally (MI0) with minibatches of B draws with replacement.
struct Enumerated {
  std::vector<Vector> mean;
  std::vector<double> mse;
};

Enumerated enumerate(const LinearSaProblem& p, const RunSetting& s, const Vector& x0, int rounds) {
  const int d = p.dim(), n = p.num_clients(), b = p.batch_size(), h = s.local_steps;
  const double beta = mime_beta(s), eta = s.gamma;
  std::vector<std::vector<verify::Sample>> samples;
  samples.reserve(static_cast<std::size_t>(n));
  for (int c = 0; c < n; ++c) samples.push_back(verify::samples_of(p, c));
  Enumerated out{std::vector<Vector>(rounds + 1, Vector::Zero(d)),
                 std::vector<double>(rounds + 1, 0.0)};
  // Draws of one round: client-major, step, then batch position.
  const int per_round = n * h * b;
  std::function<void(int, const Vector&, const Vector&, double)> recurse =
      [&](int t, const Vector& x, const Vector& m, double weight) {
        out.mean[t] += weight * x;
        out.mse[t] += weight * (x - p.solution()).squaredNorm();
        if (t == rounds) return;
        std::vector<int> draw(static_cast<std::size_t>(per_round));  // this round's draws
        std::function<void(int, double)> choose = [&](int position, double probability) {
          if (position < per_round) {
            const int c = position / (h * b);
            for (std::size_t k = 0; k < samples[c].size(); ++k) {
              draw[position] = static_cast<int>(k);
              choose(position + 1, probability * samples[c][k].p);
            }
            return;
          }
          Vector full = Vector::Zero(d);  // c = Σ_c p_c Σ_k π_k (A_k x − b_k)
          for (int c = 0; c < n; ++c) {
            for (const verify::Sample& smp : samples[c]) {
              full += p.weight(c) * smp.p * (smp.a * x - smp.b);
            }
          }
          Vector x_next = Vector::Zero(d);
          for (int c = 0; c < n; ++c) {
            Vector y = x;
            for (int step = 0; step < h; ++step) {
              Matrix a = Matrix::Zero(d, d);
              Vector bb = Vector::Zero(d);
              for (int j = 0; j < b; ++j) {
                const verify::Sample& smp = samples[c][draw[(c * h + step) * b + j]];
                a += smp.a / b;
                bb += smp.b / b;
              }
              const Vector gy = a * y - bb, gx = a * x - bb;
              y -= eta * ((1 - beta) * (gy - gx + full) + beta * m);
            }
            x_next += p.weight(c) * y;
          }
          recurse(t + 1, x_next, (1 - beta) * full + beta * m, weight * probability);
        };
        choose(0, 1.0);
      };
  recurse(0, x0, Vector::Zero(d), 1.0);
  return out;
}

void expect_trajectory_matches(const LinearSaProblem& p, const RunSetting& s, int rounds,
                               const std::string& what) {
  Vector x0 = p.solution();
  for (int i = 0; i < p.dim(); ++i) x0(i) += 1.0 + 0.5 * i;
  const TrajectoryMoments exact = mime_trajectory_lsa(p, s, x0, rounds);
  const Enumerated brute = enumerate(p, s, x0, rounds);
  for (int t = 1; t <= rounds; ++t) {
    const double mse_exact = (exact.mean[t] - p.solution()).squaredNorm() + exact.trace_cov[t];
    EXPECT_LE((exact.mean[t] - brute.mean[t]).norm(), 1e-12 * brute.mean[t].norm())
        << what << " t=" << t;
    EXPECT_LE(std::abs(mse_exact - brute.mse[t]), 1e-12 * brute.mse[t]) << what << " t=" << t;
    fmt::print("{} t={}: E‖x_t − x*‖² {:.6e} (exact) {:.6e} (enumerated)\n", what, t, mse_exact,
               brute.mse[t]);
  }
}

TEST(MimeLinearSa, TrajectoryEqualsTheEnumeratedChain) {
  const LinearSaProblem dense = verify::dense_problem(2, 2, 2, 1, 31);
  expect_trajectory_matches(dense, mime_setting(0.2, 2, 0.5), 3, "dense B=1 H=2");
  LinearSaProblem ls = verify::least_squares_problem(2, 2, 3, 2, 0.1, 5);
  ls.set_client_weights({1.0, 3.0});
  expect_trajectory_matches(ls, mime_setting(0.05, 1, 0.9), 2, "least squares B=2 weighted");
}

TEST(MimeLinearSa, StationaryLawIsThePointMassAtTheOptimum) {
  const LinearSaProblem p = verify::dense_problem(3, 3, 4, 1, 12);
  const ExactMoments law = mime_exact_state_lsa(p, mime_setting(0.1, 3, 0.9));
  EXPECT_LE((law.mean.head(3) - p.solution()).norm(), 0.0);
  EXPECT_EQ(law.mean.tail(3).norm(), 0.0);
  EXPECT_LT(law.spectral_radius, 1.0);
}

TEST(MimeRefusals, NameTheirField) {
  auto expect_field = [](const std::function<void()>& f, const std::string& field) {
    try {
      f();
      ADD_FAILURE() << "no error; expected one naming " << field;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  const LinearSaProblem big = verify::dense_problem(11, 2, 2, 1, 3);
  expect_field([&] { mime_exact_state_lsa(big, mime_setting(0.01, 1, 0.9)); }, "--problem");
  const LinearSaProblem p = verify::dense_problem(2, 2, 2, 1, 31);
  expect_field([&] { mime_exact_state_lsa(p, mime_setting(50.0, 4, 0.9)); }, "--gamma");
  const QuadraticProblem q = verify::chain_problem(verify::kChainCases[0]);
  expect_field([&] { mime_exact(q, mime_setting(100.0, 4, 0.5)); }, "--gamma");
  expect_field([&] { mime_exact(q, mime_setting(0.1, 4, 1.0)); }, "--mime-beta");
}

}  // namespace
}  // namespace fedverify::theory
