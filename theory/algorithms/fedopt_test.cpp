// FedOpt's closed forms (theory/algorithms/fedopt.hpp, THEORY O0, O2, O3, O5):
//  - FedAvg is the special case η_g = 1, β = 0, client sgd, S = N: round map, exact moments and
//    first order bit-identical to fedavg's;
//  - exact moments against the brute-force iteration of
//  theory/problems/testing/brute_force_fedopt.hpp
//    (rounds built by running the local steps and the server update literally; client sampling
//    by enumerating every subset), over the small quadratics of
//    theory/problems/testing/chain_cases.hpp.
// Tolerance: kBruteForceTolerance (chain_cases.hpp: both sides accurate to ~n·ε/(1 − ρ)).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "theory/algorithms/fedavg.hpp"
#include "theory/algorithms/fedopt.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/optimiser.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "theory/problems/testing/brute_force_fedopt.hpp"
#include "theory/problems/testing/chain_cases.hpp"

namespace fedverify {
namespace {

using theory::OptimiserRole;
using theory::QuadraticProblem;
using theory::RunSetting;
using verify::chain_problem;
using verify::FedoptCase;
using verify::kChainCases;

// The setting of a FedoptCase, through the command-line parser.
RunSetting setting(const verify::ChainCase& k, const FedoptCase& f, int sampled) {
  RunSetting s{k.gamma, k.local_steps};
  s.server = theory::parse_optimiser(
      fmt::format("sgd:lr={},momentum={},nesterov={}", f.lr, f.momentum, f.nesterov ? 1 : 0),
      OptimiserRole::server);
  if (f.mu != 0.0) {
    s.client = theory::parse_optimiser(fmt::format("fedprox:mu={}", f.mu), OptimiserRole::client);
  }
  s.participating = sampled;
  return s;
}

std::string describe(const FedoptCase& f, int sampled) {
  return fmt::format("lr={} β={}{} μ={} S={}", f.lr, f.momentum, f.nesterov ? " nesterov" : "",
                     f.mu, sampled);
}

const FedoptCase kServers[] = {{1.5, 0.0, false, 0.0}, {0.7, 0.5, false, 0.0},
                               {0.5, 0.3, true, 0.0},  {1.0, 0.0, false, 0.8},
                               {0.8, 0.4, false, 0.5}, {0.6, 0.2, true, 2.0}};

TEST(FedoptExact, FedAvgIsTheSpecialCaseBitForBit) {
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = chain_problem(k);
    const RunSetting s{k.gamma, k.local_steps};
    const theory::AffineRoundMap a = theory::fedopt_round_map(p, s);
    const theory::AffineRoundMap b = theory::fedavg_round_map(p, s);
    EXPECT_EQ(a.d, b.d);
    EXPECT_EQ(a.r, b.r);
    EXPECT_EQ(a.g, b.g);
    const auto ea = theory::fedopt_exact(p, s);
    const auto eb = theory::fedavg_exact(p, s);
    EXPECT_EQ(ea.mean, eb.mean) << verify::describe(k);
    EXPECT_EQ(ea.cov, eb.cov) << verify::describe(k);
    EXPECT_EQ(ea.spectral_radius, eb.spectral_radius);
    const auto coefficients = theory::expansion_coefficients(p);
    const auto fa = theory::fedopt_first_order(coefficients, s);
    const auto fb = theory::fedavg_first_order(coefficients, s);
    EXPECT_EQ(fa.mean, fb.mean);
    EXPECT_EQ(fa.cov, fb.cov);
  }
}

TEST(FedoptExact, FullParticipationMatchesBruteForceIteration) {
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = chain_problem(k);
    for (const FedoptCase& f : kServers) {
      const RunSetting s = setting(k, f, 0);
      theory::ExactMoments exact = theory::fedopt_exact_state(p, s);
      if (f.momentum != 0.0) exact = theory::fedopt_momentum_state(exact, p.dim(), k.gamma);
      const auto brute = verify::brute_force_fedopt(p, k.gamma, k.local_steps, f, p.num_clients());
      verify::expect_brute_force_match(
          fmt::format("fedopt {} {} (2^{} rounds)", verify::describe(k), describe(f, 0),
                      brute.rounds_log2),
          exact.mean, exact.cov, brute.mean, brute.cov);
    }
  }
}

TEST(FedoptExact, ClientSamplingMatchesSubsetEnumeration) {
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = chain_problem(k);
    for (int sampled = 1; sampled < p.num_clients(); ++sampled) {
      for (const FedoptCase& f : {kServers[0], kServers[1], kServers[3], FedoptCase{}}) {
        const RunSetting s = setting(k, f, sampled);
        theory::ExactMoments exact = theory::fedopt_exact_state(p, s);
        if (f.momentum != 0.0) exact = theory::fedopt_momentum_state(exact, p.dim(), k.gamma);
        const auto brute = verify::brute_force_fedopt(p, k.gamma, k.local_steps, f, sampled);
        verify::expect_brute_force_match(
            fmt::format("fedopt {} {}", verify::describe(k), describe(f, sampled)), exact.mean,
            exact.cov, brute.mean, brute.cov);
      }
    }
  }
}

// The one-round law from x₀ with the server's buffer at 0 (what conformance tests a first round
// against) against the brute-force round from z₀ = (x₀, m = 0): the mixture over every subset of
// S clients, E x₁ = avg_S μ_S and Cov x₁ = avg_S (Q_S + (μ_S − E x₁)(μ_S − E x₁)ᵀ). Every server
// rule of kServers, every S; tolerance kBruteForceTolerance relative to the largest entry.
TEST(FedoptOneRound, MatchesSubsetEnumerationForEveryServerRule) {
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = chain_problem(k);
    const int d = p.dim();
    const Vector x0 = Vector::LinSpaced(d, 1.0, 2.0);
    for (int sampled = 1; sampled <= p.num_clients(); ++sampled) {
      for (const FedoptCase& f : kServers) {
        const theory::OneRoundLaw law = theory::fedopt_one_round(p, setting(k, f, sampled), x0);
        Vector z0 = Vector::Zero(f.momentum != 0.0 ? 2 * d : d);
        z0.head(d) = x0;
        const auto all = verify::subsets(p.num_clients(), sampled);
        const double count = static_cast<double>(all.size());
        std::vector<Vector> mus;
        Vector mean = Vector::Zero(d);
        Matrix cov = Matrix::Zero(d, d);
        for (const auto& subset : all) {
          const verify::RoundMap m =
              verify::brute_force_fedopt_round(p, k.gamma, k.local_steps, f, subset);
          mus.push_back((m.f * z0 + m.c).head(d));
          mean += mus.back() / count;
          cov += m.q.topLeftCorner(d, d) / count;
        }
        for (const Vector& mu : mus) cov += (mu - mean) * (mu - mean).transpose() / count;
        const std::string what =
            fmt::format("one round {} {}", verify::describe(k), describe(f, sampled));
        EXPECT_LE((law.mean - mean).cwiseAbs().maxCoeff(),
                  verify::kBruteForceTolerance * mean.cwiseAbs().maxCoeff())
            << what;
        EXPECT_LE((law.cov - cov).cwiseAbs().maxCoeff(),
                  verify::kBruteForceTolerance * cov.cwiseAbs().maxCoeff())
            << what;
      }
    }
  }
}

TEST(FedoptExact, SampledMeanIsFullParticipationMean) {
  // THEORY (O5): E[M_S] = M, E[r_S] = r, so the stationary mean does not depend on S. Both sides
  // solve the same mean equation here; the independent check is the enumeration above.
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = chain_problem(k);
    const RunSetting full = setting(k, FedoptCase{}, 0);
    const RunSetting one = setting(k, FedoptCase{}, 1);
    EXPECT_EQ(theory::fedopt_exact(p, full).mean, theory::fedopt_exact(p, one).mean);
  }
}

TEST(FedoptExact, RefusesSBeyondN) {
  const QuadraticProblem p = chain_problem(kChainCases[0]);
  RunSetting s{0.05, 1};
  s.participating = p.num_clients() + 1;
  try {
    theory::fedopt_exact(p, s);
    ADD_FAILURE() << "no error";
  } catch (const fedverify::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--participating"), std::string::npos) << e.what();
  }
}

// R₀(t) of THEORY (O3): 1 at t = 0, 2/(H − 1) at t = H (ρ = 0: one effective local step's
// weight), and slope (5 − H)/(6H) at t → 0 (the first-order term of its expansion): the forward
// difference over [0, 2t], t = 1e-4, has truncation ≈ t·|R₀''| (≲ 1e-5 for H ≤ 20) and round-off
// ≈ ε/t ≈ 1e-12, so 1e-4 separates it from the neighbouring coefficients (5 − H ± 1)/(6H)
// (≥ 1/120 apart).
TEST(FedproxBiasRatioLimit, EndPointsAndFirstOrderSlope) {
  for (int h : {2, 3, 5, 10, 20}) {
    EXPECT_DOUBLE_EQ(theory::fedprox_bias_ratio_limit(0.0, h), 1.0) << h;
    EXPECT_NEAR(theory::fedprox_bias_ratio_limit(h, h), 2.0 / (h - 1), 1e-15) << h;
    const double t = 1e-4;
    const double slope =
        (theory::fedprox_bias_ratio_limit(2 * t, h) - theory::fedprox_bias_ratio_limit(0.0, h)) /
        (2 * t);
    EXPECT_NEAR(slope, (5.0 - h) / (6.0 * h), 1e-4) << h;
  }
  EXPECT_THROW(theory::fedprox_bias_ratio_limit(0.1, 1), std::invalid_argument);
  EXPECT_THROW(theory::fedprox_bias_ratio_limit(-0.1, 5), std::invalid_argument);
}

}  // namespace
}  // namespace fedverify
