// The simulated reference of `fedverify conformance` (issue 28 item 5): for a FedOpt setting whose
// round is not linear on quadratics — an adaptive server (Adam, AMSGrad, RMSProp, Adagrad, …,
// THEORY O1) or client SGD with momentum — there is no exact law, so the implementation's
// samples are compared with fedverify's own simulation of the same algorithm
// (estimators/samplers/algorithms/fedopt.cpp) by two-sample tests:
//   one round   K₁ reference chains from x₀, one round (the rule's state at its initialisation):
//               the mean by Hotelling's T² on the difference of the two sample means with the sum
//               of their estimated covariances (Welch's approximation, degrees of freedom of the
//               smaller sample), the covariance entrywise with the MCSEs of both sample
//               covariances combined, √(s₁² + s₂²) (each from the centred products, i.i.d.
//               samples: the moments accumulator with one round per chain);
//   stationary  K reference chains for T rounds from x*, the rounds after burn-in: the same two
//               tests on the batch means of both runs (Student's t with the smaller run's batch
//               means' degrees of freedom for the covariance).
// The reference's noise is independent of the implementation's: it runs on the streams of
// seed ⊕ kReferenceSeedOffset. Under the null both samples are draws of the same law, so the
// tests keep their level α up to the approximations named (Welch, batch means); a rule that
// differs moves one sample's law only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "estimators/statistics/decide.hpp"
#include "estimators/statistics/moments.hpp"
#include "reports/conformance/conformance.hpp"
#include "theory/base/linalg.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::reports {

// The reference's streams: seed XOR this (a constant of 64 random bits), never the oracle's.
inline constexpr std::uint64_t kReferenceSeedOffset = 0x6a09e667f3bcc908ULL;

// Whether conformance compares `algorithm` with `setting` against the simulated reference (a
// fedopt round without closed forms) rather than the exact laws.
bool uses_simulated_reference(const theory::Algorithm& algorithm,
                              const theory::RunSetting& setting);

// Moments of K i.i.d. samples (d × K; one round of K independent chains): mean, covariance and
// their MCSEs (batches = K).
estimators::MomentEstimate sample_moments(const Matrix& samples);

// fedverify's own K chains of `setting` (fedopt) from x0 after one round: d × K.
Matrix reference_one_round(const theory::QuadraticProblem& problem,
                           const theory::RunSetting& setting, const Vector& x0, int chains,
                           std::uint64_t seed);

// fedverify's own stationary moments of `setting` (fedopt): K chains from x* for `rounds`
// rounds, the first `burn_in` discarded.
estimators::MomentEstimate reference_stationary(const theory::QuadraticProblem& problem,
                                                const theory::RunSetting& setting, int chains,
                                                int rounds, int burn_in, std::uint64_t seed);

// The two-sample tests above, at level alpha each: measured against reference.
estimators::Decision two_sample_mean_test(const estimators::MomentEstimate& measured,
                                          const estimators::MomentEstimate& reference,
                                          double alpha);
// dof: the t reference's degrees of freedom (0: normal).
estimators::Decision two_sample_cov_test(const estimators::MomentEstimate& measured,
                                         const estimators::MomentEstimate& reference, double alpha,
                                         double dof);

// The two checks of one law ("one-round" or "stationary" `law`: its mean and covariance) as
// conformance reports them, each at level alpha; dof as above.
std::vector<ConformanceCheck> two_sample_checks(const std::string& law,
                                                const estimators::MomentEstimate& measured,
                                                const estimators::MomentEstimate& reference,
                                                double alpha, double dof);

}  // namespace fedverify::reports
