// Trajectory mode of conformance (trajectory.hpp) with in-process implementations attached to the
// real oracle: a correct FedAvg, FedProx and Scaffold agree at 8 chains × 5 rounds, in float64 and
// also when their arithmetic is float32 (checked at float32's tolerance); the planted deviations
// are each found at the round, client and step where they first act — a weight decay of 1e-4
// (the target), a stale gradient, one client missing, Scaffold's correction with the wrong
// sign — and a float32 implementation fails the float64 tolerance (so the precision matters).
// Deterministic: exact replay, no statistics.
#include "reports/conformance/trajectory.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "reports/conformance/conformance.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::reports {
namespace {

theory::QuadraticProblem problem() {
  auto o = verify::small_options(7);
  o.dim = 3;
  o.clients = 3;
  return theory::generate_quadratic(o);
}

struct Plant {
  double weight_decay = 0;   // y ← y − γ(g + λ y)
  bool stale = false;        // step j ≥ 2 uses the gradient of step j − 1
  bool skip_client = false;  // client N − 1 never trains (averaged over N − 1)
  bool scaffold_sign = false;
  bool float32 = false;  // every stored number rounded to float32
};

Matrix rounded(const Matrix& m, bool float32) {
  return float32 ? Matrix(m.cast<float>().cast<double>()) : m;
}

// FedAvg, FedProx (μ > 0) or Scaffold (option II control variates, global step 1), vectorised over
// the K chains as a framework would write it, with `plant` applied.
Implementation implementation(const std::string& algorithm, double mu, const Plant& plant) {
  return {"implementation", [=](ConformanceOracle& oracle) {
            const ConformanceRun& run = oracle.run();
            const int n = oracle.clients(), h = run.local_steps;
            Matrix x = run.x0;
            Matrix c = Matrix::Zero(x.rows(), x.cols());
            std::vector<Matrix> c_i(static_cast<std::size_t>(n), c);
            for (int t = 0; t < run.rounds; ++t) {
              Matrix sum = Matrix::Zero(x.rows(), x.cols());
              Matrix delta_c = Matrix::Zero(x.rows(), x.cols());
              const int trained = plant.skip_client ? n - 1 : n;
              for (int i = 0; i < trained; ++i) {
                Matrix y = x, previous;
                const Matrix correction =
                    algorithm == "scaffold" ? Matrix(plant.scaffold_sign ? c_i[i] - c : c - c_i[i])
                                            : Matrix::Zero(x.rows(), x.cols());
                for (int j = 0; j < h; ++j) {
                  const Matrix g = oracle.gradient({i}, y);
                  const Matrix& used = plant.stale && j >= 1 ? previous : g;
                  y = rounded(
                      y - run.gamma * (used + mu * (y - x) + correction + plant.weight_decay * y),
                      plant.float32);
                  previous = g;
                }
                if (algorithm == "scaffold") {
                  const Matrix next = c_i[i] - c + (x - y) / (h * run.gamma);
                  delta_c += next - c_i[i];
                  c_i[i] = next;
                }
                sum += y;
              }
              c = rounded(c + delta_c / n, plant.float32);
              x = rounded(sum / trained, plant.float32);
              oracle.report(x);
            }
          }};
}

ConformanceResult check(const std::string& algorithm, const Plant& plant,
                        Precision precision = Precision::float64) {
  ConformanceSpec spec;
  spec.algorithm =
      algorithm == "scaffold" ? theory::Algorithm::scaffold : theory::Algorithm::fedavg;
  spec.step.gamma = 0.05;
  spec.step.local_steps = 4;
  spec.chains = kTrajectoryChains;
  spec.rounds = kTrajectoryRounds;
  spec.seed = 3;
  spec.trajectory = precision;
  return run_conformance(problem(), spec, implementation(algorithm, 0, plant));
}

TEST(ConformanceTrajectory, CorrectImplementationsAgreeInTheirPrecision) {
  for (const std::string algorithm : {"fedavg", "scaffold"}) {
    const ConformanceResult r = check(algorithm, {});
    EXPECT_TRUE(r.passed) << algorithm << ": " << r.diagnosis;
    ASSERT_EQ(r.checks.size(), 1U);
    EXPECT_LE(r.checks[0].decision.statistic, 1) << algorithm;
    Plant single;
    single.float32 = true;
    const ConformanceResult f32 = check(algorithm, single, Precision::float32);
    EXPECT_TRUE(f32.passed) << algorithm << " float32: " << f32.diagnosis;
    // The same float32 arithmetic is far outside float64's round-off.
    EXPECT_FALSE(check(algorithm, single).passed) << algorithm;
  }
}

// The target: a weight decay of 1e-4 at 8 chains × 5 rounds, in float64 and float32.
TEST(ConformanceTrajectory, FindsAWeightDecayOf1eMinus4) {
  Plant decay;
  decay.weight_decay = 1e-4;
  const ConformanceResult r = check("fedavg", decay);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.checks[0].detail.find("round 1, chain 0, client 0: local step 1"), std::string::npos)
      << r.checks[0].detail;
  decay.float32 = true;
  EXPECT_FALSE(check("fedavg", decay, Precision::float32).passed);
}

TEST(ConformanceTrajectory, NamesWhereEachPlantedBugFirstActs) {
  Plant stale;
  stale.stale = true;
  EXPECT_NE(check("fedavg", stale).checks[0].detail.find("local step 2 ends"), std::string::npos);
  Plant missing;
  missing.skip_client = true;
  EXPECT_NE(check("fedavg", missing).checks[0].detail.find("2 clients asked for gradients"),
            std::string::npos);
  // Scaffold's correction is 0 in round 1 (c = c_i = 0): the wrong sign first acts in round 2.
  Plant sign;
  sign.scaffold_sign = true;
  const ConformanceResult r = check("scaffold", sign);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.checks[0].detail.find("round 2,"), std::string::npos) << r.checks[0].detail;
}

TEST(ConformanceTrajectory, RefusesClientSampling) {
  ConformanceSpec spec;
  spec.algorithm = theory::Algorithm{"fedopt"};
  spec.step.gamma = 0.05;
  spec.step.participating = 2;
  spec.trajectory = Precision::float64;
  EXPECT_THROW(run_conformance(problem(), spec, implementation("fedavg", 0, {})), InputError);
}

}  // namespace
}  // namespace fedverify::reports
