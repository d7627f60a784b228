// Planted errors: the claim catalogue must CATCH every known formula
// error and every known Scaffold sampler bug. For each planted error we run the
// relevant claims of the catalogue (by id, quick grid, planted hook set in the
// Context) and assert that at least one of them fails; the table printed at the
// end says which claims caught which error.
//
// Which claims are relevant:
//  - formula errors (theory::first_order): the quadratic exact claims (a wrong
//  heterogeneity or
//    covariance term leaves an O(γ) remainder: slope 1 < 1.5) and the logistic
//    bias claims (b_s = 0 on quadratics, so only logistic claims see errors in
//    b_s);
//  - Scaffold sampler bugs (verify/planted/scaffold_bugs.hpp, injected as the
//  Scaffold round): every claim that simulates Scaffold.
// The catalogue's claims run as the report runs them (claims::run_claim): a
// statistical row fails only when its rerun at an independent seed fails too,
// which under no error happens with probability ≤ α² per claim (α = 0.01;
// verify/claims_slowtest.cpp checks that every claim passes unplanted). A
// planted error is "caught" when a claim fails.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "verify/claims/claim.hpp"
#include "verify/planted/formula_errors.hpp"
#include "verify/planted/scaffold_bugs.hpp"

namespace fedverify::claims {
namespace {

const Claim& claim_by_id(const std::string& id) {
  for (const auto& c : catalogue()) {
    if (c.id == id) return c;
  }
  throw std::logic_error("no claim " + id);
}

// Runs `ids` with the planted hook applied by `plant`; returns the ids of the
// claims that failed.
template <class Plant>
std::vector<std::string> failing_claims(const std::vector<std::string>& ids, Plant plant) {
  std::vector<std::string> failed;
  for (const auto& id : ids) {
    Context ctx;
    ctx.options.quick = true;
    plant(ctx);
    const ClaimResult r = run_claim(claim_by_id(id), ctx);
    fmt::print("    {}: {}\n", id, r.passed() ? "passed" : "FAILED");
    for (const auto& row : r.rows) {
      if (!row.passed) fmt::print("      [FAIL] {} | measured {}\n", row.setting, row.measured);
    }
    if (!r.passed()) failed.push_back(id);
  }
  return failed;
}

const std::vector<std::string> kFormulaClaims = {
    "quadratic.exact-remainder-order", "logistic.fedavg-stochastic-bias",
    "logistic.bias-decomposition", "logistic.fedrr-order"};
const std::vector<std::string> kScaffoldClaims = {"quadratic.simulated-vs-exact",
                                                  "logistic.scaffold-bias"};

// One test for all planted errors (one process), so the table of catchers is
// printed whole.
TEST(PlantedErrors, EachIsCaughtByAtLeastOneClaim) {
  std::vector<std::pair<std::string, std::vector<std::string>>> table;
  for (const auto& [error, name] : verify::planted::formula_errors()) {
    fmt::print("planted formula error: {}\n", name);
    table.emplace_back("formula " + std::string(name),
                       failing_claims(kFormulaClaims, [error = error](Context& ctx) {
                         ctx.predictor = [error](const theory::ExpansionCoefficients& k,
                                                 theory::Algorithm a,
                                                 const theory::StepSetting& s) {
                           return verify::planted::first_order_with(error, k, a, s);
                         };
                       }));
  }
  for (const auto& [bug, name] : verify::planted::scaffold_bugs()) {
    fmt::print("planted Scaffold bug: {}\n", name);
    const auto round = verify::planted::scaffold_round_with(bug);
    table.emplace_back("scaffold " + std::string(name),
                       failing_claims(kScaffoldClaims, [round](Context& ctx) {
                         ctx.round_for = [round](theory::Algorithm a) {
                           return a == theory::Algorithm::scaffold ? round : nullptr;
                         };
                       }));
  }
  fmt::print("\n| planted error | caught by (failing claims) |\n|---|---|\n");
  for (const auto& [error, claims] : table) {
    fmt::print(
        "| {} | {} |\n", error,
        claims.empty() ? std::string("NOT CAUGHT") : fmt::format("{}", fmt::join(claims, ", ")));
    EXPECT_FALSE(claims.empty()) << error << " was not caught by any claim";
  }
}

}  // namespace
}  // namespace fedverify::claims
