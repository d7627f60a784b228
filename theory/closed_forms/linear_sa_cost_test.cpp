// The time estimate of the linear-sa closed forms (linear_sa_moments.hpp,
// require_lsa_exact_affordable): a lower bound of the real time, so a refusal is never wrong, and
// a refusal before any work when H makes the run hours long (issue 31: `predict --local-steps 1e9`
// on a linear-sa problem ran silently for an estimated 4.5 h).
//
// Timing assertions here only compare the estimate with a measured time from below: load on the
// machine makes the measured time longer, never shorter, so they cannot fail for being busy.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>

#include "theory/algorithms/linear_sa.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/linear_sa_moments.hpp"
#include "theory/problems/garnet.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/problem_io.hpp"
#include "theory/problems/testing/linear_sa_cases.hpp"

namespace fedverify {
namespace {

using theory::LinearSaProblem;
using theory::RunSetting;

double seconds_of(const std::function<void()>& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct CostCase {
  std::string name;
  LinearSaProblem problem;
  RunSetting setting;
};

std::vector<CostCase> cost_cases() {
  const auto td = theory::parse_problem(theory::garnet_td_preset(), "td-garnet preset");
  std::vector<CostCase> out;
  // γ small enough for every algorithm to be mean-square stable at these H.
  out.push_back({"td-garnet", dynamic_cast<const LinearSaProblem&>(*td), {1e-3, 400}});
  out.push_back({"dense d = 3", verify::dense_problem(3, 3, 16, 1, 7), {1e-2, 2000}});
  out.push_back(
      {"least squares d = 2", verify::least_squares_problem(2, 3, 6, 1, 0.1, 3), {1e-3, 4000}});
  out.push_back(
      {"least squares d = 40", verify::least_squares_problem(40, 4, 60, 2, 0.1, 5), {1e-3, 200}});
  return out;
}

TEST(LinearSaCost, EstimateIsALowerBoundOfTheRealTime) {
  for (const CostCase& c : cost_cases()) {
    const double estimate = theory::lsa_exact_seconds(c.problem, c.setting);
    const double fedavg = seconds_of([&] { theory::fedavg_exact_lsa(c.problem, c.setting); });
    const double scaffold = seconds_of([&] { theory::scaffold_exact_lsa(c.problem, c.setting); });
    EXPECT_GT(estimate, 0) << c.name;
    EXPECT_LE(estimate, fedavg) << c.name;
    EXPECT_LE(estimate, scaffold) << c.name;
    RecordProperty(c.name, std::to_string(fedavg / estimate));
  }
}

// A billion local steps on the default TD problem: refused at once, naming --local-steps and the
// limit, where the closed forms would run for hours.
TEST(LinearSaCost, HugeLocalStepCountIsRefusedBeforeAnyWork) {
  const auto td = theory::parse_problem(theory::garnet_td_preset(), "td-garnet preset");
  const auto& p = dynamic_cast<const LinearSaProblem&>(*td);
  const RunSetting huge{1e-6, 1000000000};
  EXPECT_GT(theory::lsa_exact_seconds(p, huge), 100 * theory::limits::closed_form_seconds());
  for (const auto& exact : std::vector<std::function<void()>>{
           [&] { theory::fedavg_exact_lsa(p, huge); }, [&] { theory::scaffold_exact_lsa(p, huge); },
           [&] { theory::fedrr_exact_lsa(p, huge); }, [&] { theory::fedopt_exact_lsa(p, huge); }}) {
    const double took = seconds_of([&] {
      try {
        exact();
        ADD_FAILURE() << "not refused";
      } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("--local-steps"), std::string::npos) << what;
        EXPECT_NE(what.find("--max-seconds"), std::string::npos) << what;
      }
    });
    EXPECT_LT(took, 1.0);  // refused before the H steps, not after
  }
}

}  // namespace
}  // namespace fedverify
