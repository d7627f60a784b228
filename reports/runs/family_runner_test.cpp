// The family runners (family_runner.hpp): every family an algorithm is registered under has its
// runner, a runner is registered once and whole, predict_run refuses an algorithm without closed
// forms, and the control variate is offered exactly where the family's runner has the twin.
#include "reports/runs/family_runner.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "reports/runs/control_variate.hpp"
#include "theory/base/input_error.hpp"

namespace fedverify {
namespace {

using reports::family_runner;
using reports::FamilyRunner;
using theory::AlgorithmDescriptor;
using theory::AlgorithmFamily;

TEST(FamilyRunner, EveryRegisteredAlgorithmHasItsFamilysRunner) {
  for (const AlgorithmDescriptor* d : theory::registered_algorithms()) {
    const FamilyRunner& runner = family_runner(d->family);
    EXPECT_EQ(runner.family, d->family) << d->name();
    EXPECT_NE(runner.predict, nullptr) << d->name();
    EXPECT_NE(runner.simulate, nullptr) << d->name();
  }
}

TEST(FamilyRunner, ARunnerIsRegisteredOnceAndWhole) {
  FamilyRunner copy = family_runner(AlgorithmFamily::chain);
  EXPECT_THROW(reports::register_family_runner(copy), std::logic_error);
  copy.simulate = nullptr;
  EXPECT_THROW(reports::register_family_runner(copy), std::logic_error);
}

TEST(FamilyRunner, PredictRefusesAnAlgorithmWithoutClosedFormsNamingAlgo) {
  const AlgorithmDescriptor* without = nullptr;
  for (const AlgorithmDescriptor* d : theory::registered_algorithms()) {
    if (!d->has_closed_forms) without = d;
  }
  ASSERT_NE(without, nullptr) << "every algorithm has closed forms: pick another refusal";
  reports::RunInputs inputs;
  inputs.problem_file = "/nonexistent/never-read.json";  // refused before the problem is read
  inputs.algorithm = std::string(without->name());
  try {
    reports::predict_run(inputs, *without);
    FAIL() << "predict ran " << without->name();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--algo: predict has no closed forms for ", 0), 0u)
        << e.what();
  }
}

// The list in the refusal is the chain family's algorithms, as the descriptors say (not as the
// runners say: a family that dropped or gained the twin by mistake changes the message).
TEST(FamilyRunner, TheControlVariateIsForTheChainFamilyAlone) {
  const std::string chain = theory::algorithm_names(
      [](const AlgorithmDescriptor& d) { return d.family == AlgorithmFamily::chain; }, "and");
  for (const AlgorithmDescriptor* d : theory::registered_algorithms()) {
    EXPECT_FALSE(reports::parse_control_variate("none", *d)) << d->name();
    if (d->family == AlgorithmFamily::chain) {
      EXPECT_TRUE(reports::parse_control_variate("linearised", *d)) << d->name();
      continue;
    }
    try {
      reports::parse_control_variate("linearised", *d);
      FAIL() << d->name() << " accepted the linearised twin";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()),
                "--control-variate: linearised is for the chain algorithms (" + chain +
                    "), not for --algo " + std::string(d->name()));
    }
  }
}

}  // namespace
}  // namespace fedverify
