// FedPer's round (estimators/samplers/algorithms/fedper.hpp, THEORY (A7)) against a reference
// written from the update rule: chain by chain, client by client, no blocks of chains. The local
// steps are the kernel's (FedAvg's) on lane 0 of a block with one active chain at address (seed,
// gradient_noise, chain, client, round), so each chain draws its own noise as in the engine. (The
// law of the chain is checked against the exact one by the claim personalised.fedper.)
// Setting: quadratic (d = 4, k = 1 and 3) and logistic (d = 3, k = 1, B = 2) problems, N = 3
// clients with unequal weights, K = 13 chains (a padded block), H = 3, 4 rounds, 2 threads.
// Decision: exact equality of x and of every v_c. Also: k ≥ d is refused naming --personal-dims.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "estimators/samplers/algorithms/fedper.hpp"
#include "estimators/samplers/chains.hpp"
#include "estimators/samplers/kernels/local_sampler.hpp"
#include "estimators/samplers/lanes.hpp"
#include "estimators/samplers/testing/sampler_options.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::estimators {
namespace {

struct Reference {
  Matrix x;
  std::vector<Matrix> v;  // d × K, the last k rows used
};

Reference reference_rounds(const theory::Problem& p, const SamplerOptions& o, const Matrix& start,
                           int rounds, int k) {
  const int d = p.dim(), n = p.num_clients(), shared = d - k;
  const auto chains = start.cols();
  const auto sampler = make_local_sampler(p);
  KernelWorkspace ws;
  std::vector<double> y(static_cast<std::size_t>(d) * kLanes, 0.0);
  Reference r{start, std::vector<Matrix>(n, Matrix::Zero(d, chains))};
  for (int t = 0; t < rounds; ++t) {
    for (Eigen::Index chain = 0; chain < chains; ++chain) {
      Vector total = Vector::Zero(d);
      for (int c = 0; c < n; ++c) {
        for (int i = 0; i < d; ++i) {  // y = (w, v_c)
          y[i * kLanes] = i < shared ? r.x(i, chain) : r.v[c](i, chain);
        }
        const BatchAddress address{o.seed, Purpose::gradient_noise,
                                   static_cast<std::uint32_t>(chain), static_cast<std::uint32_t>(c),
                                   static_cast<std::uint32_t>(t)};
        sampler->local_steps(c, address, 1, o.step.gamma, o.step.local_steps, y.data(), nullptr,
                             ws);
        for (int i = 0; i < d; ++i) {
          total(i) += p.weight(c) * y[i * kLanes];
          if (i >= shared) r.v[c](i, chain) = y[i * kLanes];  // v_c ← y_personal
        }
      }
      r.x.col(chain) = total;
    }
  }
  return r;
}

SamplerOptions fedper_options(int k) {
  SamplerOptions o = verify::options(theory::Algorithm{"fedper"}, 0.05, 3);
  o.step.parameters.emplace(std::string(theory::kPersonalDimsKey),
                            std::vector<double>{static_cast<double>(k)});
  return o;
}

TEST(FedperRound, RoundsAreTheReference) {
  auto q = verify::quadratic(4, 3, 1.0);
  q.set_client_weights({1.0, 2.0, 4.0});
  auto lg = verify::logistic(3, 3, 30, 2);
  lg.set_client_weights({3.0, 1.0, 1.0});
  const int chains = 13, rounds = 4;
  struct Case {
    const theory::Problem* problem;
    int k;
  };
  for (const Case& c : {Case{&q, 1}, Case{&q, 3}, Case{&lg, 1}}) {
    SCOPED_TRACE(theory::to_string(c.problem->kind()) + " k=" + std::to_string(c.k));
    const SamplerOptions o = fedper_options(c.k);
    const Matrix start = verify::spread_start(c.problem->dim(), chains);
    ChainEnsemble e(*c.problem, o, start);
    e.advance(rounds, 2, {});
    const Reference r = reference_rounds(*c.problem, o, start, rounds, c.k);
    EXPECT_EQ(e.state(), r.x);
    for (int cl = 0; cl < c.problem->num_clients(); ++cl) {
      EXPECT_EQ(e.auxiliary().at(cl), r.v[cl]) << cl;
    }
    EXPECT_GT(r.v[0].cwiseAbs().maxCoeff(), 0.0);  // the personal coordinates moved
  }
}

TEST(FedperRound, AllPersonalIsRefusedNamingTheParameter) {
  const auto q = verify::quadratic(3, 3, 1.0);
  try {
    ChainEnsemble e(q, fedper_options(3), verify::spread_start(3, 8));
    e.advance(1, 1, {});
    ADD_FAILURE() << "no error";
  } catch (const InputError& err) {
    EXPECT_NE(std::string(err.what()).find("--personal-dims"), std::string::npos) << err.what();
  }
}

}  // namespace
}  // namespace fedverify::estimators
