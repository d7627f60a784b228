#include "verify/claims/optimisers/study_common.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>

#include "estimators/samplers/training/federated_trainer.hpp"
#include "estimators/statistics/moments.hpp"
#include "theory/problems/logistic_data.hpp"
#include "theory/problems/multinomial_data.hpp"
#include "theory/problems/optimiser.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/kit/once_per_run.hpp"
#include "verify/claims/kit/task_values.hpp"
#include "verify/claims/kit/tasks.hpp"
#include "verify/claims/kit/verdict.hpp"

namespace fedverify::claims::optimisers::study {
namespace {

using estimators::FederatedConfig;
using estimators::TrainJob;
using theory::OptimiserRole;

// The training runs `jobs`, each on one thread, spread over the ranks of a report
// (StudyOptions::spread); in job order, whatever the threads and ranks.
std::vector<estimators::TrainResult> train_all(const std::vector<TrainJob>& jobs,
                                               const StudyOptions& o) {
  Context ctx;
  ctx.options.threads = o.threads;
  ctx.spread = o.spread;
  return kit::spread_tasks<estimators::TrainResult>(ctx, jobs.size(), [&](std::size_t j) {
    return estimators::train_federated(*jobs[j].problem, jobs[j].config, jobs[j].options);
  });
}

// One seed's data: the federated training problem and the pooled validation and test rows.
struct Instance {
  std::unique_ptr<theory::MultinomialProblem> problem;
  theory::ClassificationData validation, test;
};

void append(theory::ClassificationData& to, const theory::ClassificationData& from) {
  Matrix rows(to.features.rows() + from.features.rows(), from.features.cols());
  if (to.features.rows() > 0) rows.topRows(to.features.rows()) = to.features;
  rows.bottomRows(from.features.rows()) = from.features;
  to.features = std::move(rows);
  to.labels.insert(to.labels.end(), from.labels.begin(), from.labels.end());
  to.classes = from.classes;
}

Instance make_instance(const std::string& dataset, std::uint64_t seed) {
  Instance out;
  std::vector<theory::ClassificationData> clients;
  if (dataset == "synthetic") {
    for (const auto& raw : theory::synthetic_fedprox(
             {.alpha = 1.0, .beta = 1.0, .clients = kClients, .max_samples = 1000, .seed = seed})) {
      theory::DataSplit split = theory::split_rows(raw, 0.6, 0.2, seed);
      for (auto* part : {&split.train, &split.validation, &split.test})
        theory::add_intercept(*part);
      clients.push_back(std::move(split.train));
      append(out.validation, split.validation);
      append(out.test, split.test);
    }
  } else {
    if (dataset != "digits" && dataset != "breast-cancer") {
      throw std::logic_error("study: unknown dataset " + dataset);
    }
    // Each table is read once per process, and only when a study needs it.
    const auto read = [](bool digits) {
      return digits ? theory::read_digits(theory::sklearn_table_path("digits.csv.gz"))
                    : theory::read_breast_cancer(theory::sklearn_table_path("breast_cancer.csv"));
    };
    static std::mutex mutex;
    static std::map<bool, theory::ClassificationData> tables;
    const bool digits = dataset == "digits";
    const theory::ClassificationData* table = nullptr;
    {
      const std::lock_guard lock(mutex);
      auto found = tables.find(digits);
      if (found == tables.end()) found = tables.emplace(digits, read(digits)).first;
      table = &found->second;
    }
    theory::DataSplit split = theory::split_rows(*table, 0.6, 0.2, seed);
    theory::standardise(split);
    clients = theory::client_tables(
        split.train, theory::dirichlet_class_assignment(split.train.labels, split.train.classes,
                                                        kClients, kDirichletAlpha, seed));
    out.validation = std::move(split.validation);
    out.test = std::move(split.test);
  }
  out.problem = std::make_unique<theory::MultinomialProblem>(std::move(clients), kL2, kBatch);
  return out;
}

FederatedConfig federated_config(const TableConfig& c, double server_lr, double client_lr,
                                 double epsilon, const StudyOptions& o) {
  FederatedConfig f;
  f.server = optimiser_spec(c.server, OptimiserRole::server);
  f.client = epsilon > 0 ? theory::parse_optimiser(fmt::format("{}:eps={}", c.client, epsilon),
                                                   OptimiserRole::client)
                         : optimiser_spec(c.client, OptimiserRole::client);
  f.scaffold = c.client == "scaffold";
  f.server_lr = server_lr;
  f.client_lr = client_lr;
  if (o.rule_override) {
    if (c.server != "sgd") f.server_rule = o.rule_override(c.server);
    if (c.client != "sgd" && c.client != "prox" && c.client != "scaffold") {
      f.client_rule = o.rule_override(c.client);
    }
  }
  return f;
}

// The tuning seed is index 0; the evaluation seeds 1, …, n.
std::uint64_t instance_seed(const StudyOptions& o, const std::string& dataset, int index) {
  return kit::row_seed(o.seed, dataset, fmt::format("seed {}", index));
}

double checked_loss(const estimators::TrainResult& r, const theory::ClassificationData& data) {
  return r.diverged ? std::numeric_limits<double>::infinity()
                    : theory::softmax_loss(data, r.x, kL2);
}

// The client step of configuration c when it tunes the server step: the step tuned for its
// client optimiser under the SGD server (configuration 1 for client SGD).
int client_step_source(const TableConfig& c) {
  for (const TableConfig& t : table_2_2()) {
    if (t.server == "sgd" && t.client == c.client) return t.index;
  }
  throw std::logic_error("study: no SGD-server configuration for client " + c.client);
}

DatasetResult run_dataset(const StudyOptions& o, const std::string& dataset, int& runs) {
  DatasetResult out;
  out.name = dataset;
  std::vector<Instance> instances;
  for (int s = 0; s <= o.seeds; ++s)
    instances.push_back(make_instance(dataset, instance_seed(o, dataset, s)));
  const theory::MultinomialProblem& tuning = *instances[0].problem;
  out.initial_loss = theory::softmax_loss(instances[1].test, Vector::Zero(tuning.dim()), kL2);
  int train_rows = 0;
  for (int c = 0; c < tuning.num_clients(); ++c) train_rows += tuning.client(c).samples();
  out.description = fmt::format(
      "{} training rows over {} clients, {} validation, {} test; {} features (with intercept), {} "
      "classes, d = {}",
      train_rows, tuning.num_clients(), instances[0].validation.samples(),
      instances[0].test.samples(), tuning.features(), tuning.classes(), tuning.dim());

  std::vector<int> wanted = o.configs;
  if (wanted.empty()) {
    for (const auto& c : table_2_2()) wanted.push_back(c.index);
  }
  // Stage 1 tunes the client steps (server SGD or FedExP), stage 2 the server steps, whose client
  // steps come from stage 1 (added to stage 1 when not wanted themselves).
  std::vector<int> stage1, stage2;
  for (const int i : wanted) (tunes_server(config(i)) ? stage2 : stage1).push_back(i);
  for (const int i : stage2) {
    const int source = client_step_source(config(i));
    if (std::find(stage1.begin(), stage1.end(), source) == stage1.end()) stage1.push_back(source);
  }
  // Divergence: ‖x*‖² ≤ 2f(0)/λ (f ≥ (λ/2)‖x‖² and f(x*) ≤ f(0) = log K), so beyond ten times
  // that radius f(x) ≥ 100·f(0): the run is declared diverged and charged f(0).
  const double radius = 10.0 * std::sqrt(2.0 * std::log(tuning.classes()) / kL2);
  auto trainer = [&](int s) {
    return estimators::TrainerOptions{kSampled, kLocalSteps, o.rounds, instance_seed(o, dataset, s),
                                      radius};
  };
  const estimators::TrainerOptions tuning_options = trainer(0);
  std::map<int, std::pair<double, double>> steps;  // index → (server, client)
  std::map<int, double> epsilon;                   // index → tuned client ε (0: default)
  auto tune = [&](const std::vector<int>& stage) {
    std::vector<TrainJob> jobs;
    std::vector<std::pair<int, double>> what;  // (index, ε)
    for (const int i : stage) {
      const TableConfig& c = config(i);
      const bool server = tunes_server(c);
      const std::vector<double> eps = c.tune_epsilon ? epsilon_grid() : std::vector{0.0};
      for (const double lr : step_grid(server ? c.server : c.client, server)) {
        const double server_lr = server ? lr : 1.0;
        const double client_lr = server ? steps.at(client_step_source(c)).second : lr;
        for (const double e : eps) {
          jobs.push_back(
              {&tuning, federated_config(c, server_lr, client_lr, e, o), tuning_options});
          what.emplace_back(i, e);
        }
      }
    }
    const auto results = train_all(jobs, o);
    runs += static_cast<int>(jobs.size());
    std::map<int, double> best_loss;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      const auto [i, e] = what[j];
      const double loss = checked_loss(results[j], instances[0].validation);
      // Strictly lower wins: ties (e.g. every step diverged) keep the smallest step and ε.
      if (best_loss.count(i) == 0 || loss < best_loss[i]) {
        best_loss[i] = loss;
        steps[i] = {jobs[j].config.server_lr, jobs[j].config.client_lr};
        epsilon[i] = e;
      }
    }
  };
  tune(stage1);
  tune(stage2);

  std::vector<TrainJob> jobs;
  for (const int i : wanted) {
    const auto [server_lr, client_lr] = steps.at(i);
    for (int s = 1; s <= o.seeds; ++s) {
      jobs.push_back({instances[static_cast<std::size_t>(s)].problem.get(),
                      federated_config(config(i), server_lr, client_lr, epsilon.at(i), o),
                      trainer(s)});
    }
  }
  const auto results = train_all(jobs, o);
  runs += static_cast<int>(jobs.size());
  std::size_t j = 0;
  for (const int i : wanted) {
    ConfigResult r;
    r.index = i;
    std::tie(r.server_lr, r.client_lr) = steps.at(i);
    r.epsilon = epsilon.at(i);
    const TableConfig& c = config(i);
    const auto grid = step_grid(tunes_server(c) ? c.server : c.client, tunes_server(c));
    const double tuned = tunes_server(c) ? r.server_lr : r.client_lr;
    r.grid_edge = tuned == grid.front() || tuned == grid.back();
    for (int s = 1; s <= o.seeds; ++s, ++j) {
      const Instance& inst = instances[static_cast<std::size_t>(s)];
      const estimators::TrainResult& run = results[j];
      r.diverged += run.diverged ? 1 : 0;
      // A diverged run is charged the loss at the start x = 0 (it learned nothing usable).
      r.test_loss.push_back(theory::softmax_loss(inst.test, run.x, kL2));
      r.test_accuracy.push_back(theory::softmax_accuracy(inst.test, run.x));
    }
    r.loss = estimators::replicated_mean(r.test_loss);
    r.accuracy = estimators::replicated_mean(r.test_accuracy);
    out.configs.push_back(std::move(r));
  }
  return out;
}

}  // namespace

const ConfigResult& DatasetResult::by_index(int index) const {
  for (const auto& c : configs) {
    if (c.index == index) return c;
  }
  throw std::logic_error(fmt::format("study: configuration {} was not run on {}", index, name));
}

StudyOptions study_options(const RunOptions& run, int attempt) {
  StudyOptions o;
  o.seed = kit::row_seed(run.seed, "optimisers.study", fmt::format("attempt {}", attempt));
  o.threads = run.threads;
  if (run.quick) {
    o.datasets = {"breast-cancer"};
    o.rounds = 15;
    o.seeds = 5;
  } else {
    o.datasets = {"breast-cancer", "digits", "synthetic"};
    o.rounds = 30;
    o.seeds = 8;
  }
  return o;
}

StudyResult run_study(const StudyOptions& options) {
  StudyResult out;
  out.options = options;
  for (const auto& d : options.datasets) out.datasets.push_back(run_dataset(options, d, out.runs));
  return out;
}

const StudyResult& study_for(const Context& ctx) {
  return kit::once_per_run(ctx, [](const Context& c) {
    StudyOptions o = study_options(c.options, c.attempt);
    o.spread = c.spread;
    return run_study(o);
  });
}

}  // namespace fedverify::claims::optimisers::study
