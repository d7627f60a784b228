#include "verify/claims/problems/default_problems.hpp"

#include <stdexcept>

#include "theory/problems/generators.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::claims {
namespace {

// q-small: d = 2, N = 3 heterogeneous clients.
constexpr const char* kQuadraticSmall = R"({"kind": "quadratic",
 "clients": [
  {"hessian": [[2.0, 0.3], [0.3, 1.0]], "optimum": [1.0, -0.5], "noise_cov": [[0.5, 0.1], [0.1, 0.4]]},
  {"hessian": [[1.0, -0.2], [-0.2, 3.0]], "optimum": [-1.0, 0.5], "noise_cov": [[0.3, 0.0], [0.0, 0.6]]},
  {"hessian": [[1.5, 0.0], [0.0, 0.5]], "optimum": [0.2, 1.5], "noise_cov": [[0.2, -0.05], [-0.05, 0.2]]}
 ]})";

std::shared_ptr<const theory::Problem> from_json(const char* text, const char* name) {
  return std::shared_ptr<const theory::Problem>(
      theory::parse_problem(nlohmann::json::parse(text), name).release());
}

}  // namespace

const std::vector<NamedProblem>& default_quadratic_problems() {
  static const std::vector<NamedProblem> problems = [] {
    std::vector<NamedProblem> v;
    v.push_back({"q-small",
                 "d = 2, N = 3, heterogeneous optima and Hessians (examples/quadratic-small.json)",
                 from_json(kQuadraticSmall, "q-small")});
    theory::QuadraticGeneratorOptions o;
    o.dim = 5;
    o.clients = 6;
    o.condition = 10.0;
    o.optimum_spread = 1.0;
    o.hessian_spread = 0.5;
    o.noise = 1.0;
    o.seed = 7;
    v.push_back(
        {"q-gen5",
         "d = 5, N = 6, condition 10, generated (seed 7, optimum spread 1, Hessian spread 0.5)",
         std::make_shared<theory::QuadraticProblem>(theory::generate_quadratic(o))});
    return v;
  }();
  return problems;
}

const theory::QuadraticProblem& as_quadratic(const NamedProblem& p) {
  const auto* q = dynamic_cast<const theory::QuadraticProblem*>(p.problem.get());
  if (q == nullptr) throw std::logic_error(p.name + " is not a quadratic problem");
  return *q;
}

}  // namespace fedverify::claims
