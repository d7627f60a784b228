#include "verify/claims/kit/exact_law_simulation.hpp"

#include "verify/claims/kit/kit.hpp"
#include "verify/claims/kit/stationary_run.hpp"

namespace fedverify::claims::kit {

Row exact_law_row(const Context& ctx, const theory::Problem& simulated,
                  const ExactLawSimulation& spec, const theory::ExactMoments& law) {
  StationaryRunSpec run_spec;
  run_spec.replications = spec.replications;
  run_spec.chains = spec.replications * spec.chains_per_replication;
  run_spec.rounds = ctx.options.quick ? spec.rounds_quick : spec.rounds;
  run_spec.sampler =
      sampler_options(ctx, spec.algorithm, spec.step, row_seed(ctx, spec.claim_id, spec.setting));
  run_spec.contraction = law.spectral_radius;
  run_spec.start = law.mean;
  run_spec.burn_in_residual = 1e-3;  // started at the exact mean: only the covariance's ρ^{2t}
  const StationaryRun run = run_stationary(ctx, simulated, run_spec);
  if (run.diverged) return diverged_row(spec.setting, run.divergence);
  Row row = exact_moments_row(run, law.mean, law.cov, spec.margin, spec.alpha);
  row.setting = spec.setting;
  row.predicted = spec.predicted;
  row.data.update({{"gamma", spec.step.gamma},
                   {"chains", run_spec.chains},
                   {"rounds", run_spec.rounds},
                   {"seed", run_spec.sampler.seed}});
  gate_simulated(row, "mean", run.pooled.mean, run.pooled.mean_mcse);
  return row;
}

}  // namespace fedverify::claims::kit
