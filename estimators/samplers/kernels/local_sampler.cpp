#include "estimators/samplers/kernels/local_sampler.hpp"

#include "estimators/samplers/kernels/linear_sa.hpp"
#include "estimators/samplers/kernels/logistic.hpp"
#include "estimators/samplers/kernels/quadratic.hpp"
#include "theory/base/input_error.hpp"

namespace fedverify::estimators {

void LocalSampler::proximal_local_steps(int /*client*/, BatchAddress /*address*/, int /*active*/,
                                        double /*gamma*/, int /*steps*/, double /*mu*/,
                                        const double* /*anchor*/, double* /*y*/,
                                        KernelWorkspace& /*ws*/) const {
  throw InputError("--client: fedprox is implemented for quadratic and logistic problems only");
}

void LocalSampler::optimiser_local_steps(int /*client*/, BatchAddress /*address*/, int /*active*/,
                                         int /*steps*/, double* /*y*/, const LocalStep& /*step*/,
                                         KernelWorkspace& /*ws*/) const {
  throw InputError("--client: this optimiser is implemented for quadratic and logistic problems");
}

namespace {

// The refusal of both of Mime's kernel operations by a kind without them.
[[noreturn]] void refuse_control_variates() {
  throw InputError(
      "--algo: mime needs full-batch gradients and same-draw control variates, implemented for "
      "quadratic, linear-sa and least-squares problems only");
}

}  // namespace

void LocalSampler::mean_gradient(int /*client*/, const double* /*x*/, double* /*out*/) const {
  refuse_control_variates();
}

void LocalSampler::control_variate_local_steps(int /*client*/, BatchAddress /*address*/,
                                               int /*active*/, double /*gamma*/, int /*steps*/,
                                               double /*scale*/, const double* /*anchor*/,
                                               const double* /*correction*/, double* /*y*/,
                                               KernelWorkspace& /*ws*/) const {
  refuse_control_variates();
}

std::unique_ptr<LocalSampler> make_local_sampler(const theory::Problem& problem) {
  switch (problem.kind()) {
    case theory::ProblemKind::quadratic:
      return make_quadratic_sampler(dynamic_cast<const theory::QuadraticProblem&>(problem));
    case theory::ProblemKind::logistic:
      return make_logistic_sampler(dynamic_cast<const theory::LogisticProblem&>(problem));
    case theory::ProblemKind::linear_sa:
    case theory::ProblemKind::least_squares:
      return make_linear_sa_sampler(dynamic_cast<const theory::LinearSaProblem&>(problem));
  }
  throw InputError("--problem: unsupported problem kind");
}

}  // namespace fedverify::estimators
