// A stationary run (estimators/simulation/simulate.hpp): reproducibility whatever the number of
// threads, and bad specifications refused naming the command-line flag.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "estimators/simulation/simulate.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/problem.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::estimators {
namespace {

using theory::Algorithm;
using verify::logistic;
using verify::quadratic;

// Statement: same seed ⇒ bit-identical SimulationResult whatever the number of threads (the
// block partition among threads must not change any number). Decision: exact equality.
TEST(Engine, SimulateIsBitIdenticalOnOneAndTwoThreads) {
  const auto q = quadratic(4, 3, 1.0);
  const auto lg = logistic(3, 3, 40, 2);
  struct Case {
    const theory::Problem* problem;
    Algorithm algorithm;
    int h;
  };
  for (const Case& c : {Case{&q, Algorithm::fedavg, 3}, Case{&q, Algorithm::scaffold, 3},
                        Case{&q, Algorithm::fedrr, 2}, Case{&lg, Algorithm::fedavg, 3},
                        Case{&lg, Algorithm::sgd, 1}, Case{&q, Algorithm{"feddyn"}, 3},
                        Case{&lg, Algorithm{"feddyn"}, 2}}) {
    SimulationSpec spec;
    spec.algorithm = c.algorithm;
    spec.step = {0.05, c.h};
    if (c.algorithm == Algorithm{"feddyn"}) spec.step.parameters["dyn_alpha"] = {0.3};
    spec.chains = 37;  // not a multiple of the block width
    spec.rounds = 30;
    spec.burn_in = 10;
    spec.seed = 12345;
    spec.threads = 1;
    const SimulationResult one = simulate(*c.problem, spec);
    spec.threads = 2;
    const SimulationResult two = simulate(*c.problem, spec);
    SCOPED_TRACE(theory::to_string(c.algorithm));
    ASSERT_FALSE(one.diverged);
    EXPECT_EQ(one.final_state, two.final_state);
    EXPECT_EQ(one.moments.mean, two.moments.mean);
    EXPECT_EQ(one.moments.cov, two.moments.cov);
    EXPECT_EQ(one.chain_steps, two.chain_steps);
    const int runs = c.algorithm == Algorithm::fedrr ? 2 : 1;
    EXPECT_EQ(one.chain_steps,
              std::int64_t{runs} * spec.chains * spec.rounds * c.problem->num_clients() * c.h);
  }
}

TEST(Engine, SimulateRejectsBadSpecsNamingTheFlag) {
  const auto q = quadratic(2, 2, 1.0);
  auto message = [&](SimulationSpec s) -> std::string {
    try {
      simulate(q, s);
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  SimulationSpec ok;  // 4 recorded rounds: the fewest for which split-R̂ is defined
  ok.step = {0.1, 2};
  ok.rounds = 5;
  ok.burn_in = 1;
  EXPECT_EQ(message(ok), "no error");
  SimulationSpec s = ok;
  s.chains = 0;
  EXPECT_NE(message(s).find("--chains"), std::string::npos);
  s = ok;
  s.rounds = 1;
  EXPECT_NE(message(s).find("--rounds"), std::string::npos);
  s = ok;
  s.burn_in = -1;
  EXPECT_NE(message(s).find("--burn-in"), std::string::npos);
  s = ok;
  s.threads = -1;
  EXPECT_NE(message(s).find("--threads"), std::string::npos);
  s = ok;
  s.step.gamma = 0;
  EXPECT_NE(message(s).find("--gamma"), std::string::npos);
  s = ok;
  s.step.local_steps = 0;
  EXPECT_NE(message(s).find("--local-steps"), std::string::npos);
  // Statistics that would be 0/0 (printed as null): 3 recorded rounds (split-R̂ needs two
  // halves of ≥ 2), or a single batch mean (one chain, one batch: no MCSE, no ESS).
  s = ok;
  s.rounds = 4;
  EXPECT_NE(message(s).find("--rounds"), std::string::npos);
  s = ok;
  s.chains = 1;
  s.batch_rounds = 4;
  EXPECT_NE(message(s).find("--batch-rounds"), std::string::npos);
  s.chains = 2;
  EXPECT_EQ(message(s), "no error");
}

}  // namespace
}  // namespace fedverify::estimators
