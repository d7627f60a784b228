#include "estimators/samplers/training/deepgmm_trainer.hpp"

#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "estimators/samplers/optimisers/update_rule.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"

namespace fedverify::estimators {
namespace {

using theory::IvBatch;

void validate(const std::vector<IvBatch>& clients, const DeepGmmTrainOptions& o) {
  if (o.rounds < 1) throw InputError(fmt::format("rounds: must be ≥ 1, got {}", o.rounds));
  if (o.local_steps < 1) {
    throw InputError(fmt::format("local_steps: must be ≥ 1, got {}", o.local_steps));
  }
  if (o.batch < 1) throw InputError(fmt::format("batch: must be ≥ 1, got {}", o.batch));
  for (auto [name, v] : {std::pair{"alpha_theta", o.alpha_theta}, {"alpha_tau", o.alpha_tau}}) {
    if (!(v > 0) || !std::isfinite(v)) {
      throw InputError(fmt::format("{}: must be finite and > 0, got {}", name, v));
    }
  }
  if (clients.empty()) throw InputError("clients: no client");
  if (!o.federated && clients.size() != 1) {
    throw InputError(
        fmt::format("clients: a centralised run takes one batch, got {}", clients.size()));
  }
  for (std::size_t c = 0; c < clients.size(); ++c) {
    if (clients[c].size() == 0) throw InputError(fmt::format("clients[{}]: no sample", c));
  }
  if (!o.rule.empty() && o.federated)
    throw InputError("rule: an update rule is for centralised runs only");
}

// One player's update rule with its own state (a single vector: columns = 1).
class Player {
 public:
  Player(const std::string& spec, double lr, const Vector& x)
      : rule_(make_update_rule(theory::parse_optimiser(spec, theory::OptimiserRole::client), lr)),
        buffers_(static_cast<std::size_t>(rule_->vector_count()), Vector::Zero(x.size())),
        scalars_(static_cast<std::size_t>(rule_->scalar_count()), Vector::Zero(1)) {
    for (auto& b : buffers_) vectors_.push_back(b.data());
    for (auto& b : scalars_) scalar_ptrs_.push_back(b.data());
    rule_->start(static_cast<int>(x.size()), 1, x.data(), state());
  }
  // Step t ≥ 1 along the descent direction g.
  void step(long t, Vector& x, const Vector& g) {
    rule_->update(static_cast<int>(x.size()), 1, 1, t, x.data(), g.data(), state());
  }

 private:
  RuleState state() { return {vectors_, scalar_ptrs_}; }
  std::unique_ptr<const UpdateRule> rule_;
  std::vector<Vector> buffers_, scalars_;
  std::vector<double*> vectors_, scalar_ptrs_;
};

// The players' steps: plain (x ← x − α g) or by the rule.
struct Steps {
  std::unique_ptr<Player> theta, tau;
  long t = 0;
  void apply(const DeepGmmTrainOptions& o, const Vector& gt, const Vector& gf, Vector& theta_x,
             Vector& tau_x) {
    if (!theta) {
      theta_x -= o.alpha_theta * gt;
      tau_x += o.alpha_tau * gf;
      return;
    }
    ++t;
    theta->step(t, theta_x, gt);
    tau->step(t, tau_x, -gf);  // ascent on U: descent on −U
  }
};

// R simultaneous GDA steps of one client from (theta, tau), in place.
void local_steps(const theory::DeepGmmGame& game, const IvBatch& data, const DeepGmmTrainOptions& o,
                 int steps, std::uint64_t client, int round, Steps& how, Vector& theta,
                 Vector& tau) {
  Vector gt, gf;
  if (!o.stochastic) {
    for (int r = 0; r < steps; ++r) {
      game.gradients(theta, tau, data, gt, gf);
      how.apply(o, gt, gf, theta, tau);
    }
    return;
  }
  Stream stream(o.seed, Purpose::gradient_noise, 0, client, static_cast<std::uint64_t>(round));
  IvBatch mb{Matrix(data.z.rows(), o.batch), Matrix(data.x.rows(), o.batch),
             theory::RowVector(o.batch)};
  const auto n = static_cast<std::uint64_t>(data.size());
  for (int r = 0; r < steps; ++r) {
    for (int j = 0; j < o.batch; ++j) {
      const auto k = static_cast<Eigen::Index>(stream.below(n));
      mb.z.col(j) = data.z.col(k);
      mb.x.col(j) = data.x.col(k);
      mb.y[j] = data.y[k];
    }
    game.gradients(theta, tau, mb, gt, gf);
    how.apply(o, gt, gf, theta, tau);
  }
}

}  // namespace

DeepGmmTrainResult train_deepgmm(const theory::DeepGmmGame& game,
                                 const std::vector<IvBatch>& clients,
                                 const DeepGmmTrainOptions& o) {
  validate(clients, o);
  Stream init(o.seed, Purpose::initial_state);
  DeepGmmTrainResult out;
  out.theta = game.g.initial(init);
  out.tau = game.f.initial(init);
  const int steps = o.federated ? o.local_steps : 1;
  Steps how;  // plain steps for every client of a federated run (clients share no rule state)
  if (!o.rule.empty()) {
    how.theta = std::make_unique<Player>(o.rule, o.alpha_theta, out.theta);
    how.tau = std::make_unique<Player>(o.rule, o.alpha_tau, out.tau);
  }
  const auto n = static_cast<double>(clients.size());
  Vector theta_sum, tau_sum;
  for (int t = 0; t < o.rounds; ++t) {
    if (clients.size() == 1) {
      local_steps(game, clients[0], o, steps, 0, t, how, out.theta, out.tau);
    } else {
      theta_sum.setZero(out.theta.size());
      tau_sum.setZero(out.tau.size());
      for (std::size_t c = 0; c < clients.size(); ++c) {
        Vector theta = out.theta;
        Vector tau = out.tau;
        local_steps(game, clients[c], o, steps, c, t, how, theta, tau);
        theta_sum += theta;
        tau_sum += tau;
      }
      out.theta = theta_sum / n;
      out.tau = tau_sum / n;
    }
    out.rounds_run = t + 1;
    if (!out.theta.allFinite() || !out.tau.allFinite()) {
      out.diverged = true;
      break;
    }
  }
  return out;
}

double function_mse(const theory::Mlp& g, const Vector& theta, const Matrix& x,
                    const theory::RowVector& g0) {
  return (g.forward(theta, x) - g0).array().square().mean();
}

}  // namespace fedverify::estimators
