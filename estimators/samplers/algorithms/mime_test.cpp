// Mime's round (estimators/samplers/algorithms/mime.hpp, docs/THEORY-Mime.md (MI0)) against a
// reference written from the update rule: chain by chain, client by client, no blocks of chains.
// The full-batch gradients and the control-variate steps are the kernel's, on lane 0 of a block
// with one active chain at address (seed, gradient_noise, chain, client, round), so each chain
// draws its own minibatches as in the engine. (The kernels' steps themselves are checked against
// the exact law (MI3) by verify/mime_simulation_test.cpp.)
// Setting: quadratic (d = 4), dense linear-sa (d = 3, the dense field path) and least squares
// (d = 3, B = 2, the rank-one path, unequal client weights), N = 3 clients, K = 13 chains (a padded
// block), H = 3, 4 rounds, 2 threads. Decision: exact equality of x and of m.
// Also: MimeLite (the planted variant) differs from Mime on a noisy problem, and the logistic
// kind is refused naming --algo.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "estimators/samplers/algorithms/mime.hpp"
#include "estimators/samplers/chains.hpp"
#include "estimators/samplers/kernels/local_sampler.hpp"
#include "estimators/samplers/lanes.hpp"
#include "estimators/samplers/testing/sampler_options.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"
#include "theory/problems/testing/linear_sa_cases.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::estimators {
namespace {

constexpr double kBeta = 0.7;

struct Reference {
  Matrix x, m;
};

Reference reference_rounds(const theory::Problem& p, const SamplerOptions& o, const Matrix& start,
                           int rounds) {
  const int d = p.dim(), n = p.num_clients();
  const auto k = start.cols();
  const auto sampler = make_local_sampler(p);
  KernelWorkspace ws;
  const std::size_t size = static_cast<std::size_t>(d) * kLanes;
  std::vector<double> x(size, 0.0), y(size, 0.0), g(size, 0.0), m(size, 0.0);
  Reference r{start, Matrix::Zero(d, k)};
  for (int t = 0; t < rounds; ++t) {
    for (Eigen::Index chain = 0; chain < k; ++chain) {
      for (int i = 0; i < d; ++i) x[i * kLanes] = r.x(i, chain);
      Vector c = Vector::Zero(d);
      for (int client = 0; client < n; ++client) {  // c = Σ_c p_c ∇f_c(x)
        sampler->mean_gradient(client, x.data(), g.data());
        for (int i = 0; i < d; ++i) c(i) += p.weight(client) * g[i * kLanes];
      }
      for (int i = 0; i < d; ++i) {  // m ← (1 − β)c + βm, the clients' constant term
        r.m(i, chain) = (1 - kBeta) * c(i) + kBeta * r.m(i, chain);
        m[i * kLanes] = r.m(i, chain);
      }
      Vector total = Vector::Zero(d);
      for (int client = 0; client < n; ++client) {
        y = x;
        const BatchAddress address{
            o.seed, Purpose::gradient_noise, static_cast<std::uint32_t>(chain),
            static_cast<std::uint32_t>(client), static_cast<std::uint32_t>(t)};
        sampler->control_variate_local_steps(client, address, 1, o.step.gamma, o.step.local_steps,
                                             1 - kBeta, x.data(), m.data(), y.data(), ws);
        for (int i = 0; i < d; ++i) total(i) += p.weight(client) * y[i * kLanes];
      }
      r.x.col(chain) = total;
    }
  }
  return r;
}

SamplerOptions mime_options() {
  SamplerOptions o = verify::options(theory::Algorithm{"mime"}, 0.05, 3);
  o.step.parameters.emplace(std::string(theory::kMimeBetaKey), std::vector<double>{kBeta});
  return o;
}

TEST(MimeRound, RoundsAreTheReference) {
  const auto q = verify::quadratic(4, 3, 1.0);
  const auto dense = verify::dense_problem(3, 3, 5, 1, 17);
  auto ls = verify::least_squares_problem(3, 3, 6, 2, 0.1, 23);
  ls.set_client_weights({1.0, 2.0, 5.0});
  const int chains = 13, rounds = 4;
  for (const theory::Problem* p :
       {static_cast<const theory::Problem*>(&q), static_cast<const theory::Problem*>(&dense),
        static_cast<const theory::Problem*>(&ls)}) {
    SCOPED_TRACE(theory::to_string(p->kind()));
    const SamplerOptions o = mime_options();
    const Matrix start = verify::spread_start(p->dim(), chains);
    ChainEnsemble e(*p, o, start);
    e.advance(rounds, 2, {});
    const Reference r = reference_rounds(*p, o, start, rounds);
    EXPECT_EQ(e.state(), r.x);
    EXPECT_EQ(e.auxiliary().at(0), r.m);
    EXPECT_EQ(Matrix(e.stacked_state().bottomRows(p->dim())), r.m);
    EXPECT_GT(r.m.cwiseAbs().maxCoeff(), 0.0);  // the momentum moved
  }
}

struct LiteMime {
  static constexpr bool kControlVariate = false;
};

TEST(MimeRound, MimeLiteIsAnotherChain) {
  const auto dense = verify::dense_problem(3, 3, 5, 1, 17);
  SamplerOptions o = mime_options();
  const Matrix start = verify::spread_start(3, 8);
  ChainEnsemble mime(dense, o, start);
  mime.advance(3, 1, {});
  o.round = std::make_shared<MimeRound<LiteMime>>();
  ChainEnsemble lite(dense, o, start);
  lite.advance(3, 1, {});
  EXPECT_GT((mime.state() - lite.state()).norm(), 1e-6 * mime.state().norm());
}

TEST(MimeRound, LogisticIsRefusedNamingAlgo) {
  const auto lg = verify::logistic(3, 3, 30, 2);
  const SamplerOptions o = mime_options();
  try {
    ChainEnsemble e(lg, o, verify::spread_start(3, 8));
    e.advance(1, 1, {});
    ADD_FAILURE() << "no error";
  } catch (const InputError& err) {
    EXPECT_NE(std::string(err.what()).find("--algo"), std::string::npos) << err.what();
  }
}

}  // namespace
}  // namespace fedverify::estimators
