#include "reports/conformance/simulated_reference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "estimators/simulation/simulate.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/fedopt_setting.hpp"
#include "theory/problems/optimum.hpp"

namespace fedverify::reports {

bool uses_simulated_reference(const theory::Algorithm& algorithm,
                              const theory::RunSetting& setting) {
  static const theory::Algorithm fedopt{"fedopt"};  // named: see conformance.cpp, kFedOpt
  return algorithm == fedopt && !theory::has_closed_forms(setting);
}

estimators::MomentEstimate sample_moments(const Matrix& samples) {
  // One round per chain: the accumulator's batch means are the samples themselves (one batch of
  // one round per chain), so its MCSEs are the i.i.d. ones.
  estimators::StationaryMomentsAccumulator acc(static_cast<int>(samples.rows()),
                                               static_cast<int>(samples.cols()), 1, 1);
  acc.add(samples);
  return acc.result();
}

namespace {

estimators::SimulationSpec reference_spec(const theory::RunSetting& setting, int chains, int rounds,
                                          int burn_in, std::uint64_t seed, const Vector& start) {
  estimators::SimulationSpec spec;
  spec.algorithm = theory::Algorithm{"fedopt"};
  spec.step = setting;
  spec.chains = chains;
  spec.rounds = rounds;
  spec.burn_in = burn_in;
  spec.seed = seed ^ kReferenceSeedOffset;
  spec.initial_state = start;
  return spec;
}

void require_stable(const estimators::SimulationResult& r) {
  if (r.diverged) {
    throw InputError("--gamma: fedverify's own simulation of this setting diverges (" +
                     r.divergence + "): there is no stationary law to conform to");
  }
}

}  // namespace

Matrix reference_one_round(const theory::QuadraticProblem& problem,
                           const theory::RunSetting& setting, const Vector& x0, int chains,
                           std::uint64_t seed) {
  // The shortest run simulate() accepts (4 recorded rounds), its first round's states kept.
  estimators::SimulationSpec spec = reference_spec(setting, chains, 4, 0, seed, x0);
  spec.record_trace = true;
  const estimators::SimulationResult r = estimators::simulate(problem, spec);
  require_stable(r);
  return r.trace.front();
}

estimators::MomentEstimate reference_stationary(const theory::QuadraticProblem& problem,
                                                const theory::RunSetting& setting, int chains,
                                                int rounds, int burn_in, std::uint64_t seed) {
  const estimators::SimulationResult r = estimators::simulate(
      problem,
      reference_spec(setting, chains, rounds, burn_in, seed + 1, theory::minimizer(problem)));
  require_stable(r);
  return r.moments;
}

estimators::Decision two_sample_mean_test(const estimators::MomentEstimate& measured,
                                          const estimators::MomentEstimate& reference,
                                          double alpha) {
  return estimators::hotelling_mean_test(
      measured.mean - reference.mean, measured.mean_cov + reference.mean_cov,
      std::min(measured.batches(), reference.batches()), Vector::Zero(measured.mean.size()), alpha);
}

estimators::Decision two_sample_cov_test(const estimators::MomentEstimate& measured,
                                         const estimators::MomentEstimate& reference, double alpha,
                                         double dof) {
  const Matrix mcse =
      (measured.cov_mcse.array().square() + reference.cov_mcse.array().square()).sqrt().matrix();
  return estimators::matrix_agreement(measured.cov, reference.cov, mcse, Matrix(), alpha, dof);
}

std::vector<ConformanceCheck> two_sample_checks(const std::string& law,
                                                const estimators::MomentEstimate& measured,
                                                const estimators::MomentEstimate& reference,
                                                double alpha, double dof) {
  const estimators::Decision dm = two_sample_mean_test(measured, reference, alpha);
  const estimators::Decision dc = two_sample_cov_test(measured, reference, alpha, dof);
  const double mcse = std::sqrt(measured.cov_mcse.array().square().maxCoeff() +
                                reference.cov_mcse.array().square().maxCoeff());
  return {{law + " mean", dm,
           fmt::format("‖m − m_ref‖ = {:.3g} against fedverify's simulation (MCSEs {:.3g}, "
                       "{:.3g}), two-sample T² p = {:.3g}",
                       (measured.mean - reference.mean).norm(), measured.mean_mcse.norm(),
                       reference.mean_mcse.norm(), dm.p_value)},
          {law + " covariance", dc,
           fmt::format("trace measured/simulated {:.4g}, max z {:.3g} (threshold {:.3g}; detects "
                       "entry shifts ≥ {:.3g})",
                       measured.cov.trace() / reference.cov.trace(), dc.statistic, dc.threshold,
                       dc.threshold * mcse)}};
}

}  // namespace fedverify::reports
