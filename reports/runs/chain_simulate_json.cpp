#include <fmt/format.h>

#include <utility>

#include "reports/runs/chain_json.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/algorithm_preset.hpp"
#include "theory/problems/algorithm_registry.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::reports {

using theory::to_json;

nlohmann::json optimiser_fields(theory::Algorithm algorithm, const theory::RunSetting& setting,
                                int clients) {
  nlohmann::json out = nlohmann::json::object();
  // The algorithm's own parameters (algorithm_parameter.hpp), as resolved: "parameters":
  // {"client_steps": [1, 2, 4]}, a single value as a number, an integer parameter's as integers.
  const theory::AlgorithmDescriptor& descriptor = theory::describe(algorithm);
  for (const auto& [key, values] : setting.parameters) {
    const theory::AlgorithmParameter* declared = descriptor.parameter(key);
    nlohmann::json list = nlohmann::json::array();
    for (const double v : values) {
      if (declared != nullptr && declared->integer) {
        list.push_back(static_cast<std::int64_t>(v));
      } else {
        list.push_back(v);
      }
    }
    out["parameters"][key] = list.size() == 1 ? list.front() : list;
  }
  if (!descriptor.reads(theory::AlgorithmOption::server)) return out;
  out["server"] = setting.server.text();
  out["client"] = setting.client.text();
  out["participating"] = setting.participating > 0 ? setting.participating : clients;
  return out;
}

nlohmann::json preset_field(std::string_view algo) {
  if (theory::find_preset(algo) == nullptr) return nlohmann::json::object();
  return {{"preset", algo}};
}

nlohmann::json moments_to_json(const estimators::MomentEstimate& m) {
  nlohmann::json out;
  out["mean"] = to_json(m.mean);
  out["mean_mcse"] = to_json(m.mean_mcse);
  out["cov"] = to_json(m.cov);
  out["ess"] = to_json(m.ess);
  out["rhat"] = to_json(m.rhat);
  out["samples"] = m.samples;
  // The batch length behind mean_mcse (the one chosen when --batch-rounds is auto).
  out["batch_rounds"] = m.batch_rounds;
  // JSON has no NaN or inf (nlohmann writes null): a statistic that is not finite here means
  // a run the estimators cannot describe, e.g. R̂ = ∞ when every chain is constant but the
  // chains differ. Refuse it by name rather than print null.
  const std::pair<const char*, bool> fields[] = {{"mean", m.mean.allFinite()},
                                                 {"mean_mcse", m.mean_mcse.allFinite()},
                                                 {"cov", m.cov.allFinite()},
                                                 {"ess", m.ess.allFinite()},
                                                 {"rhat", m.rhat.allFinite()}};
  for (const auto& [name, finite] : fields) {
    if (!finite) {
      throw InputError(fmt::format(
          "{}: not finite for this run (e.g. chains that never move but differ from each other, "
          "or overflow); simulate refuses to print it",
          name));
    }
  }
  return out;
}

nlohmann::json outcome_to_json(const estimators::SimulationResult& r) {
  nlohmann::json out;
  out["diverged"] = r.diverged;
  if (r.diverged) {
    // No statistics from a diverged run: they would be NaN or meaningless.
    out["divergence"] = r.divergence;
    out["samples"] = 0;
  } else {
    out.update(moments_to_json(r.moments));
  }
  out["chain_steps"] = r.chain_steps;
  return out;
}

nlohmann::json simulation_to_json(const estimators::SimulationSpec& spec,
                                  const estimators::SimulationResult& r) {
  nlohmann::json out;
  out["algorithm"] = theory::to_string(spec.algorithm);
  out["gamma"] = spec.step.gamma;
  out["local_steps"] = spec.step.local_steps;
  out["chains"] = spec.chains;
  out["rounds"] = spec.rounds;
  out["burn_in"] = spec.burn_in;
  out["seed"] = spec.seed;
  if (theory::describe(spec.algorithm).reads(theory::AlgorithmOption::noise)) {
    out["noise_coupling"] =
        spec.coupling == theory::NoiseCoupling::shared ? "shared" : "independent";
  }
  out.update(outcome_to_json(r));
  return out;
}

nlohmann::json chain_prediction(const theory::Problem& problem,
                                const theory::ResolvedAlgorithm& run) {
  nlohmann::json out = predict(problem, run.algorithm, run.step);
  out.update(optimiser_fields(run.algorithm, run.step, problem.num_clients()));
  out.update(preset_field(run.preset));
  return out;
}

nlohmann::json chain_simulation(const theory::Problem& problem,
                                const estimators::SimulationSpec& spec,
                                const estimators::SimulationResult& result,
                                std::string_view preset) {
  nlohmann::json out = simulation_to_json(spec, result);
  out.update(optimiser_fields(spec.algorithm, spec.step, problem.num_clients()));
  out.update(preset_field(preset));
  return out;
}

}  // namespace fedverify::reports
