// predict's finite-time fields (THEORY (T1)): add_exact_trajectory of chain_json.hpp.
#include <fmt/format.h>

#include <string>

#include "reports/runs/chain_json.hpp"
#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::reports {

void add_exact_trajectory(nlohmann::json& out, const theory::Problem& problem,
                          const theory::ResolvedAlgorithm& run, const std::optional<Vector>& start,
                          int rounds) {
  const Vector x_star = theory::vector_from_json(out.at("x_star"), "x_star");
  const Vector x0 = start.value_or(x_star);
  const theory::TrajectoryMoments t =
      theory::exact_trajectory(problem, run.algorithm, run.step, x0, rounds);
  nlohmann::json means = nlohmann::json::array();
  for (const Vector& m : t.mean) means.push_back(theory::to_json(m));
  out["x0"] = theory::to_json(x0);
  out["rounds"] = rounds;
  out["mse_exact"] = theory::mean_square_error(t, x_star);
  out["mean_exact_t"] = std::move(means);
}

}  // namespace fedverify::reports
