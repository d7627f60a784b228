// SGD (THEORY G0): one stochastic gradient step on f per round, i.e. FedAvg with H = 1; its
// stationary moments (G1) are FedAvg's (F2), (F3), (F5) at H = 1, with no heterogeneity term.
#include <fmt/format.h>

#include <memory>

#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/algorithms/fedavg.hpp"
#include "theory/algorithms/linear_sa.hpp"
#include "theory/base/input_error.hpp"

namespace fedverify::theory {
namespace {

// FedAvg's checks, and H = 1.                                                       THEORY (G0)
void validate_sgd(const RunSetting& s) {
  validate_step(s);
  if (s.local_steps != 1) {
    throw InputError(fmt::format("--local-steps: sgd is FedAvg with H = 1 (THEORY G0), got H = {}",
                                 s.local_steps));
  }
}

class SgdTheory final : public AlgorithmTheory {
 public:
  FirstOrderMoments first_order(const ExpansionCoefficients& k,
                                const RunSetting& s) const override {
    return fedavg_first_order(k, s);  // THEORY (G1): H = 1, so no heterogeneity term
  }
  ExactMoments exact(const QuadraticProblem& q, const RunSetting& s) const override {
    return fedavg_exact(q, s);  // THEORY (G1) = (F5) at H = 1
  }
  std::optional<ExactMoments> exact_linear_sa(const LinearSaProblem& p,
                                              const RunSetting& s) const override {
    return fedavg_exact_lsa(p, s);  // THEORY (L1) at H = 1
  }
  std::optional<TrajectoryMoments> exact_trajectory(const Problem& p, const RunSetting& s,
                                                    const Vector& x0, int rounds) const override {
    return fedavg_trajectory(p, s, x0, rounds);  // THEORY (T1) at H = 1
  }
};

// Help-text position: first, the simplest algorithm.
constexpr int kSgdOrder = 10;

[[maybe_unused]] const bool registered =
    register_algorithm({.algorithm = Algorithm::sgd,
                        .order = kSgdOrder,
                        .summary = "SGD: FedAvg with H = 1 (THEORY G0)",
                        .theory_labels = {"G0", "G1"},
                        .family = AlgorithmFamily::chain,
                        .options = {AlgorithmOption::local_steps, AlgorithmOption::burn_in,
                                    AlgorithmOption::batch_rounds},
                        .validate = validate_sgd,
                        .weighted_clients = true},
                       std::make_unique<SgdTheory>());

}  // namespace
}  // namespace fedverify::theory
