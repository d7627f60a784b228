#include "estimators/samplers/training/federated_trainer.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <cmath>

#include "estimators/samplers/algorithms/scaffold.hpp"
#include "estimators/samplers/parallel_errors.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"
#include "theory/problems/fedopt_setting.hpp"

namespace fedverify::estimators {
namespace {

bool diverged(const Vector& x, double bound) { return !x.allFinite() || !(x.norm() <= bound); }

// S distinct clients of N, uniformly (partial Fisher–Yates).
std::vector<int> sample_clients(int clients, int sampled, std::uint64_t seed, int round) {
  std::vector<int> all(static_cast<std::size_t>(clients));
  for (int c = 0; c < clients; ++c) all[static_cast<std::size_t>(c)] = c;
  Stream stream(seed, Purpose::client_sampling, 0, 0, static_cast<std::uint64_t>(round));
  for (int i = 0; i < sampled; ++i) {
    const auto j = static_cast<std::size_t>(i) +
                   static_cast<std::size_t>(stream.below(static_cast<std::uint64_t>(clients - i)));
    std::swap(all[static_cast<std::size_t>(i)], all[j]);
  }
  all.resize(static_cast<std::size_t>(sampled));
  return all;
}

std::shared_ptr<const UpdateRule> rule_for(const std::shared_ptr<const UpdateRule>& hook,
                                           const theory::OptimiserSpec& spec, double lr) {
  if (hook) return hook;
  return make_update_rule(spec, lr);
}

void check(const theory::MultinomialProblem& problem, const FederatedConfig& config,
           const TrainerOptions& o) {
  if (o.sampled < 1 || o.sampled > problem.num_clients()) {
    throw InputError(fmt::format("--participating: S must be in [1, N = {}], got {}",
                                 problem.num_clients(), o.sampled));
  }
  if (o.local_steps < 1)
    throw InputError(fmt::format("local_steps: must be >= 1, got {}", o.local_steps));
  if (o.rounds < 1) throw InputError(fmt::format("rounds: must be >= 1, got {}", o.rounds));
  if (!(o.divergence_norm > 0)) {
    throw InputError(fmt::format("divergence_norm: must be > 0, got {}", o.divergence_norm));
  }
  if (!(config.client_lr > 0) || !std::isfinite(config.client_lr)) {
    throw InputError(
        fmt::format("--client: step must be finite and > 0, got {}", config.client_lr));
  }
  if (!(config.server_lr > 0) || !std::isfinite(config.server_lr)) {
    throw InputError(fmt::format("--server: lr must be finite and > 0, got {}", config.server_lr));
  }
}

}  // namespace

TrainResult train_federated(const theory::MultinomialProblem& problem,
                            const FederatedConfig& config, const TrainerOptions& o) {
  check(problem, config, o);
  const int dim = problem.dim();
  const int batch = problem.batch_size();
  const bool fedexp = config.server.is("fedexp") && !config.server_rule;
  const bool prox = !config.scaffold && config.client.is("fedprox");
  const bool plain_sgd_client = config.scaffold || prox;
  const double mu = prox ? config.client.value("mu") : 0.0;
  const double gamma = config.client_lr;

  const std::shared_ptr<const UpdateRule> server =
      fedexp ? nullptr : rule_for(config.server_rule, config.server, config.server_lr);
  // FedProx and Scaffold step their clients with plain SGD on the corrected gradient: client SGD's
  // own rule, so that FedProx with μ = 0 is client SGD bit for bit whatever the compiler fuses.
  const std::shared_ptr<const UpdateRule> client =
      plain_sgd_client ? make_update_rule(theory::default_client(), gamma)
                       : rule_for(config.client_rule, config.client, gamma);
  std::unique_ptr<OwnedRuleState> server_state =
      server ? std::make_unique<OwnedRuleState>(*server, dim, 1) : nullptr;
  OwnedRuleState client_state(*client, dim, 1);

  Vector x = Vector::Zero(dim);
  Vector previous = x;
  if (server) server->start(dim, 1, x.data(), server_state->view());
  // Scaffold (THEORY S0, server/client form): control variates c (server) and c_i (clients).
  Vector c_server;
  Matrix c_client;
  if (config.scaffold) {
    c_server = Vector::Zero(dim);
    c_client = Matrix::Zero(dim, problem.num_clients());
  }

  TrainResult out;
  std::vector<int> rows(static_cast<std::size_t>(batch));
  Vector y(dim), delta(dim), c_change(dim), xi(dim);
  for (int t = 1; t <= o.rounds; ++t) {
    const std::vector<int> chosen = sample_clients(problem.num_clients(), o.sampled, o.seed, t);
    delta.setZero();
    if (config.scaffold) c_change.setZero();
    double spread = 0.0;  // Σ_c ‖x_t − x_c‖² (FedExP)
    for (const int c : chosen) {
      const int n_c = problem.client(c).samples();
      Stream stream(o.seed, Purpose::gradient_noise, 0, static_cast<std::uint64_t>(c),
                    static_cast<std::uint64_t>(t));
      y = x;
      client->start(dim, 1, y.data(), client_state.view());
      if (config.scaffold) {  // ξ_c = c − c_c, fixed over the client's local steps
        for (int j = 0; j < dim; ++j)
          xi(j) = StandardScaffold::correction(c_server(j), c_client(j, c));
      }
      for (int k = 1; k <= o.local_steps; ++k) {
        for (int& r : rows) r = static_cast<int>(stream.below(static_cast<std::uint64_t>(n_c)));
        Vector g = problem.minibatch_gradient(c, y, rows);
        if (prox) g += mu * (y - x);  // THEORY (O3)
        if (config.scaffold) g += xi;
        client->update(dim, 1, 1, k, y.data(), g.data(), client_state.view());
      }
      const Vector step = x - y;
      delta += step;
      spread += step.squaredNorm();
      if (config.scaffold) {  // the chain engine's Scaffold update, on one chain
        const double inv = 1.0 / (StandardScaffold::variate_steps(o.local_steps) * gamma);
        for (int j = 0; j < dim; ++j) {
          const double updated =
              StandardScaffold::updated_variate(c_client(j, c), c_server(j), x(j), y(j), inv);
          c_change(j) += StandardScaffold::server_increment(updated, c_client(j, c));
          c_client(j, c) = updated;
        }
      }
    }
    delta /= static_cast<double>(o.sampled);
    previous = x;
    if (fedexp) {
      x -= theory::fedexp_server_step(spread, delta.squaredNorm(), o.sampled,
                                      config.server.value("eps")) *
           delta;  // THEORY (O4)
    } else {
      server->update(dim, 1, 1, t, x.data(), delta.data(), server_state->view());
    }
    if (config.scaffold) c_server += c_change / static_cast<double>(problem.num_clients());
    out.rounds = t;
    if (diverged(x, o.divergence_norm)) {
      out.diverged = true;
      out.x = Vector::Zero(dim);
      return out;
    }
  }
  out.x = fedexp ? Vector(0.5 * (x + previous)) : x;
  return out;
}

std::vector<TrainResult> train_many(const std::vector<TrainJob>& jobs, int threads) {
  std::vector<TrainResult> out(jobs.size());
  ParallelErrors errors;
  const int count = static_cast<int>(jobs.size());
  const int team = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic) num_threads(team)
  for (int j = 0; j < count; ++j) {
    errors.run(j, [&] {
      const TrainJob& job = jobs[static_cast<std::size_t>(j)];
      out[static_cast<std::size_t>(j)] = train_federated(*job.problem, job.config, job.options);
    });
  }
  errors.rethrow();
  return out;
}

}  // namespace fedverify::estimators
