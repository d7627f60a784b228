#include "reports/runs/game_json.hpp"

#include "reports/runs/chain_json.hpp"
#include "theory/algorithms/fedgda.hpp"
#include "theory/closed_forms/linear_iv_gmm.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::reports {
namespace {

using theory::to_json;

nlohmann::json setting_fields(const theory::GameProblem& problem, const theory::GdaSetting& s) {
  return {{"kind", problem.kind()},
          {"alpha_theta", s.alpha_theta},
          {"alpha_tau", s.alpha_tau},
          {"local_steps", s.local_steps},
          {"theta_dim", problem.game().theta_dim()},
          {"tau_dim", problem.game().tau_dim()}};
}

}  // namespace

nlohmann::json predict_game(const theory::GameProblem& problem, const theory::GdaSetting& s) {
  const theory::QuadraticGame& game = problem.game();
  nlohmann::json out = setting_fields(problem, s);
  out["algorithm"] = "fedgda";
  const theory::GdaFirstOrder first = theory::fedgda_first_order(game, s);
  out["z_star"] = to_json(game.equilibrium());
  out["bias_first_order"] = to_json(first.bias);
  out["mean_first_order"] = to_json(Vector(game.equilibrium() + first.bias));
  out["cov_first_order"] = to_json(first.cov);
  const double radius = theory::fedgda_spectral_radius(game, s);
  out["spectral_radius"] = radius;
  if (radius < 1.0) {
    const theory::ExactMoments exact = theory::fedgda_exact(game, s);
    out["mean_exact"] = to_json(exact.mean);
    out["cov_exact"] = to_json(exact.cov);
  }
  if (const theory::LinearIvGame* iv = problem.linear_iv()) {
    const theory::GmmEquilibrium gmm =
        theory::gmm_estimator(iv->mean_g(), iv->mean_w(), iv->mean_b());
    out["theta_gmm"] = to_json(gmm.theta);
    out["g"] = to_json(iv->mean_g());
    out["b"] = to_json(iv->mean_b());
    out["w"] = to_json(iv->mean_w());
  }
  return out;
}

nlohmann::json game_simulation_to_json(const theory::GameProblem& problem,
                                       const estimators::GameSimulationSpec& spec,
                                       const estimators::SimulationResult& r) {
  nlohmann::json out = setting_fields(problem, spec.step);
  out["algorithm"] = theory::to_string(spec.algorithm);
  if (spec.batch_size > 0) out["batch_size"] = spec.batch_size;
  out["chains"] = spec.chains;
  out["rounds"] = spec.rounds;
  out["burn_in"] = spec.burn_in;
  out["seed"] = spec.seed;
  out.update(outcome_to_json(r));
  return out;
}

}  // namespace fedverify::reports
