// The finite-time fields (THEORY (T1)) of chain_json.hpp: predict's exact curve
// (add_exact_trajectory) and simulate's measured one (simulated_curve).
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "reports/runs/chain_json.hpp"
#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/optimum.hpp"
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

nlohmann::json simulated_curve(const theory::Problem& problem,
                               const estimators::SimulationSpec& spec,
                               const estimators::SimulationResult& result) {
  const Vector x_star = theory::minimizer(problem);
  nlohmann::json rounds = nlohmann::json::array(), means = nlohmann::json::array(),
                 mean_mcse = nlohmann::json::array(), mse = nlohmann::json::array(),
                 mse_mcse = nlohmann::json::array();
  for (std::size_t t = 0; t < result.trace.size(); ++t) {
    const Matrix& x = result.trace[t];  // d × K, round B + 1 + t
    const double k = static_cast<double>(x.cols());
    const Vector m = x.rowwise().mean();
    const Vector var = (x.colwise() - m).rowwise().squaredNorm() / (k - 1.0);
    const Eigen::ArrayXd sq = (x.colwise() - x_star).colwise().squaredNorm().transpose().array();
    const double sq_mean = sq.mean();
    const double sq_var = (sq - sq_mean).square().sum() / (k - 1.0);
    rounds.push_back(spec.burn_in + 1 + static_cast<int>(t));
    means.push_back(theory::to_json(m));
    mean_mcse.push_back(theory::to_json(Vector((var / k).cwiseSqrt())));
    mse.push_back(sq_mean);
    mse_mcse.push_back(std::sqrt(sq_var / k));
  }
  return {{"rounds", rounds},
          {"mean", means},
          {"mean_mcse", mean_mcse},
          {"mse", mse},
          {"mse_mcse", mse_mcse}};
}

}  // namespace fedverify::reports
