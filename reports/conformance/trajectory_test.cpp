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
#include "theory/problems/optimiser.hpp"
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
  bool float32 = false;         // every stored number rounded to float32
  bool reset_momentum = false;  // the server's momentum buffer recreated every round
  bool ignore_server = false;   // the server averages, whatever η_g and β
};

Matrix rounded(const Matrix& m, bool float32) {
  return float32 ? Matrix(m.cast<float>().cast<double>()) : m;
}

// FedAvg, FedProx (μ > 0) or Scaffold (option II control variates, global step 1), vectorised over
// the K chains as a framework would write it, with `plant` applied.
Implementation implementation(const std::string& algorithm, double mu, const Plant& plant) {
  return {"implementation",
          [=](ConformanceOracle& oracle) {
            const ConformanceRun& run = oracle.run();
            const int n = oracle.clients(), h = run.local_steps;
            Matrix x = run.x0;
            Matrix c = Matrix::Zero(x.rows(), x.cols());
            std::vector<Matrix> c_i(static_cast<std::size_t>(n), c);
            Matrix m = Matrix::Zero(x.rows(), x.cols());  // the server's momentum buffer
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
              const Matrix average = sum / trained;
              // The server rule (FedAvgM, Hsu et al. 2019; Nesterov as in Reddi et al. 2021).
              const theory::ServerSgd& server = run.server;
              if ((server.lr == 1.0 && server.momentum == 0.0) || plant.ignore_server) {
                x = rounded(average, plant.float32);
              } else {
                const Matrix delta = x - average;
                if (plant.reset_momentum) m.setZero();
                m = server.momentum * m + delta;
                x = x - server.lr * (server.nesterov ? Matrix(delta + server.momentum * m) : m);
              }
              oracle.report(x);
            }
          },
          nullptr};
}

// `server`: a --server spec for fedopt ("" for the algorithm's own plain average).
ConformanceResult check(const std::string& algorithm, const Plant& plant,
                        Precision precision = Precision::float64, const std::string& server = "") {
  ConformanceSpec spec;
  spec.algorithm =
      algorithm == "scaffold" ? theory::Algorithm::scaffold : theory::Algorithm::fedavg;
  if (!server.empty()) {
    spec.algorithm = theory::Algorithm{"fedopt"};
    spec.step.server = theory::parse_optimiser(server, theory::OptimiserRole::server);
  }
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

// Server rules (THEORY O2): heavy ball and Nesterov agree; a buffer recreated every round first
// acts in round 2 (the buffer is 0 before round 1 either way), a server that ignores η_g and β in
// round 1.
TEST(ConformanceTrajectory, ReplaysTheServerRule) {
  for (const std::string rule :
       {"sgd:lr=0.7,momentum=0.5", "sgd:lr=0.6,momentum=0.3,nesterov=1", "sgd:lr=1.5"}) {
    const ConformanceResult r = check("fedavg", {}, Precision::float64, rule);
    EXPECT_TRUE(r.passed) << rule << ": " << r.diagnosis;
  }
  Plant reset;
  reset.reset_momentum = true;
  const ConformanceResult r = check("fedavg", reset, Precision::float64, "sgd:lr=0.7,momentum=0.5");
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.checks[0].detail.find("round 2, chain 0: the reported x_(t+1)"), std::string::npos)
      << r.checks[0].detail;
  Plant ignored;
  ignored.ignore_server = true;
  const ConformanceResult i =
      check("fedavg", ignored, Precision::float64, "sgd:lr=0.7,momentum=0.5");
  EXPECT_NE(i.checks[0].detail.find("round 1, chain 0: the reported x_(t+1)"), std::string::npos)
      << i.checks[0].detail;
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
