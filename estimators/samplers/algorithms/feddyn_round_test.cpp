// FedDyn's round (estimators/samplers/algorithms/feddyn.hpp, docs/THEORY-FedDyn.md (FD0)) against
// a brute-force reference written from the update rule: chain by chain, client by client, no
// blocks of chains. The local steps are the kernel's proximal steps (anchor x + h_c/α, weight α)
// on lane 0 of a block with one active chain at address (seed, gradient_noise, chain, client,
// round), so each chain draws its own noise as in the engine. (The kernel's local step itself is
// checked against the exact law by verify/feddyn_simulation_test.cpp.)
// Setting: quadratic (d = 4) and logistic (d = 3, B = 2) problems, N = 3 clients, K = 13 chains
// (a padded block), H = 3, 4 rounds, 2 threads. Decision: exact equality of x and of every h_c.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "estimators/samplers/algorithms/feddyn.hpp"
#include "estimators/samplers/chains.hpp"
#include "estimators/samplers/kernels/local_sampler.hpp"
#include "estimators/samplers/lanes.hpp"
#include "estimators/samplers/testing/sampler_options.hpp"
#include "theory/base/rng.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::estimators {
namespace {

struct Reference {
  Matrix x;
  std::vector<Matrix> h;  // h_c
};

Reference reference_rounds(const theory::Problem& p, const SamplerOptions& o, const Matrix& start,
                           int rounds, double alpha) {
  const int d = p.dim(), n = p.num_clients();
  const auto k = start.cols();
  const auto sampler = make_local_sampler(p);
  KernelWorkspace ws;
  std::vector<double> y(static_cast<std::size_t>(d) * kLanes, 0.0), anchor(y.size(), 0.0);
  Reference r{start, std::vector<Matrix>(n, Matrix::Zero(d, k))};
  for (int t = 0; t < rounds; ++t) {
    for (Eigen::Index chain = 0; chain < k; ++chain) {
      Vector total_y = Vector::Zero(d), total_h = Vector::Zero(d);
      for (int c = 0; c < n; ++c) {
        Matrix& h = r.h[c];
        for (int i = 0; i < d; ++i) {
          y[i * kLanes] = r.x(i, chain);
          anchor[i * kLanes] = r.x(i, chain) + h(i, chain) / alpha;
        }
        const BatchAddress address{o.seed, Purpose::gradient_noise,
                                   static_cast<std::uint32_t>(chain), static_cast<std::uint32_t>(c),
                                   static_cast<std::uint32_t>(t)};
        sampler->proximal_local_steps(c, address, 1, o.step.gamma, o.step.local_steps, alpha,
                                      anchor.data(), y.data(), ws);
        for (int i = 0; i < d; ++i) {
          h(i, chain) -= alpha * (y[i * kLanes] - r.x(i, chain));  // h_c ← h_c − α(y_c − x)
          total_y(i) += y[i * kLanes];
          total_h(i) += h(i, chain);
        }
      }
      for (int i = 0; i < d; ++i) r.x(i, chain) = total_y(i) / n - (total_h(i) / n) / alpha;
    }
  }
  return r;
}

TEST(FeddynRound, RoundsAreTheBruteForceReference) {
  const auto q = verify::quadratic(4, 3, 1.0);
  const auto lg = verify::logistic(3, 3, 30, 2);
  const int chains = 13, rounds = 4;
  const double alpha = 0.3;
  for (const theory::Problem* p :
       {static_cast<const theory::Problem*>(&q), static_cast<const theory::Problem*>(&lg)}) {
    SCOPED_TRACE(theory::to_string(p->kind()));
    SamplerOptions o = verify::options(theory::Algorithm{"feddyn"}, 0.05, 3);
    o.step.parameters.emplace(std::string(theory::kDynAlphaKey), std::vector<double>{alpha});
    const Matrix start = verify::spread_start(p->dim(), chains);
    ChainEnsemble e(*p, o, start);
    e.advance(rounds, 2, {});
    const Reference r = reference_rounds(*p, o, start, rounds, alpha);
    EXPECT_EQ(e.state(), r.x);
    const Matrix z = e.stacked_state();
    for (int c = 0; c < p->num_clients(); ++c) {
      EXPECT_EQ(Matrix(z.middleRows(p->dim() * (1 + c), p->dim())), r.h[c]) << c;
      EXPECT_EQ(e.auxiliary().at(c), r.h[c]) << c;
    }
    EXPECT_GT(r.h[0].cwiseAbs().maxCoeff(), 0.0);  // the corrections moved
  }
}

}  // namespace
}  // namespace fedverify::estimators
