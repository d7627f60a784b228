#include "verify/planted/claim_perturbations.hpp"

#include <algorithm>
#include <vector>

#include "estimators/samplers/algorithms/fedavg.hpp"

#include "theory/closed_forms/bounds.hpp"
#include "theory/problems/personalised_objective.hpp"

namespace fedverify::verify::planted {
namespace {

struct SharedNoiseFedAvg final : estimators::RoundSampler {
  void round(const estimators::RoundBlock& b) const override {
    const std::size_t size = b.size();
    double* total = b.scratch.buffer(estimators::RoundScratch::kFirstFree, size);
    double* y = b.scratch.buffer(estimators::RoundScratch::kClientIterate, size);
    std::fill(total, total + size, 0.0);
    estimators::BatchAddress address = b.address;
    address.client = 0;  // the planted bug: every client draws client 0's noise
    for (int c = 0; c < b.clients; ++c) {
      std::copy(b.x, b.x + size, y);
      b.sampler.local_steps(c, address, b.active, b.gamma, b.local_steps, y, nullptr, b.kernel);
      for (std::size_t j = 0; j < size; ++j) total[j] += y[j];
    }
    for (std::size_t j = 0; j < size; ++j) b.x[j] = total[j] / b.clients;
  }
};

// FedRR's two runs (the registered round's), reported through RoundSampler's default
// combine_runs: the first run, x_γ.
class UncombinedFedRR final : public estimators::FedAvgRound {
 public:
  std::vector<estimators::RunSpec> runs(const estimators::SamplerOptions& options) const override {
    return fedrr_->runs(options);
  }

 private:
  std::shared_ptr<const estimators::RoundSampler> fedrr_ = estimators::RoundRegistry::get("fedrr");
};

// FedRR's two runs combined as (4x_γ − x_2γ)/3.
class WrongWeightsFedRR final : public estimators::FedAvgRound {
 public:
  std::vector<estimators::RunSpec> runs(const estimators::SamplerOptions& options) const override {
    return fedrr_->runs(options);
  }
  void combine_runs(std::span<const Matrix* const> runs, int first, int active,
                    Matrix& out) const override {
    for (int j = first; j < first + active; ++j) {
      for (int i = 0; i < out.rows(); ++i) {
        out(i, j) = (4.0 * (*runs[0])(i, j) - (*runs[1])(i, j)) / 3.0;
      }
    }
  }

 private:
  std::shared_ptr<const estimators::RoundSampler> fedrr_ = estimators::RoundRegistry::get("fedrr");
};

}  // namespace

std::shared_ptr<const estimators::RoundSampler> fedrr_round_wrong_weights() {
  return std::make_shared<WrongWeightsFedRR>();
}

std::shared_ptr<const estimators::RoundSampler> fedrr_round_without_extrapolation() {
  return std::make_shared<UncombinedFedRR>();
}

std::shared_ptr<const estimators::RoundSampler> fedavg_round_shared_noise() {
  return std::make_shared<SharedNoiseFedAvg>();
}

theory::ExactMoments exact_moments_noise_not_averaged(const theory::QuadraticProblem& problem,
                                                      theory::Algorithm algorithm,
                                                      const theory::RunSetting& step) {
  theory::ExactMoments m = theory::exact_moments(problem, algorithm, step);
  m.cov *= static_cast<double>(problem.num_clients());
  return m;
}

double s1_weight_without_gamma(const theory::RunSetting& step, int clients) {
  return theory::scaffold_s1_weight(step, clients) / (step.gamma * step.gamma);
}

theory::FedavgSecondOrder fedavg_second_order_off_by_one(const theory::QuadraticProblem& problem,
                                                         const theory::ExpansionCoefficients& k,
                                                         int local_steps) {
  return theory::fedavg_second_order(problem, k, std::max(1, local_steps - 1));
}

theory::FirstOrderMoments first_order_stochastic_bias_times_h(
    const theory::ExpansionCoefficients& k, theory::Algorithm algorithm,
    const theory::RunSetting& step) {
  theory::FirstOrderMoments m = theory::first_order(k, algorithm, step);
  m.bias_stochastic *= static_cast<double>(step.local_steps);
  m.mean = m.x_star + m.bias_heterogeneity + m.bias_stochastic;
  return m;
}

Vector scaffold_mean_variates_never_updated(const theory::QuadraticProblem& problem,
                                            const theory::RunSetting& step) {
  return theory::fedavg_exact(problem, step).mean;
}

theory::ScaffoldControlVariateMoments s4_over_h_squared(const theory::Problem& problem,
                                                        const theory::ExpansionCoefficients& k,
                                                        const theory::RunSetting& step) {
  theory::ScaffoldControlVariateMoments m =
      theory::scaffold_control_variate_first_order(problem, k, step);
  for (Matrix& block : m.xi_xi) block /= static_cast<double>(step.local_steps);
  return m;
}

double fedavg_contraction_squared(const theory::RunSetting& step, double mu, int rounds) {
  const double factor = theory::fedavg_contraction(step, mu, rounds);
  return factor * factor;
}

double l2gd_bound_without_neighbourhood(const theory::L2gdConstants& k, double initial_error2,
                                        int iteration) {
  theory::L2gdConstants without = k;
  without.neighbourhood = 0;
  return theory::l2gd_bound(without, initial_error2, iteration);
}

double optimal_probability_swapped(double lambda, double l) {
  return theory::optimal_probability(l, lambda);
}

Matrix average_of_local_optima_replicated(const theory::Problem& problem) {
  const Matrix local = theory::local_optima(problem);
  return local.rowwise().mean().replicate(1, local.cols());
}

theory::QuadraticProblem noise_not_averaged(const theory::QuadraticProblem& problem) {
  std::vector<theory::QuadraticClient> clients;
  const double n = problem.num_clients();
  for (int c = 0; c < problem.num_clients(); ++c) {
    theory::QuadraticClient k = problem.client(c);
    k.noise_cov *= n;
    clients.push_back(std::move(k));
  }
  return theory::QuadraticProblem(std::move(clients));
}

}  // namespace fedverify::verify::planted
