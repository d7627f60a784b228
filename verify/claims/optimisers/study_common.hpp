// The convex-proxy optimiser study (issue 14 item 4; THEORY O6): Table 2.2's 48 server/client
// configurations trained with the thesis's protocol on multinomial L2-regularised logistic
// regression, shared by the claims optimisers.study-* (the table and one claim per finding of
// §2.6.1). The study is run once per (run seed, grid, attempt) and kept for the process, so the
// six claims of a report cost one study.
//
// Protocol (O6): N = 100 clients, S = 20 sampled per round without replacement, minibatches of
// B = 50 rows drawn with replacement from the client's rows, K = 20 local steps, T rounds from
// x = 0, λ = 1e-3. Data per seed: a fresh 60/20/20 train/validation/test split (tables:
// standardised with the training rows' statistics, plus an intercept) and a fresh Dirichlet(0.3)
// label split of the training rows over the clients (dirichlet_class_assignment); synthetic(1, 1)
// is drawn afresh per seed, each client's rows split 60/20/20, validation and test pooled.
//
// Learning rates: each configuration tunes ONE step on a grid of 4 values (half-decade spacing,
// kGrid…), chosen by the validation loss after T rounds on a tuning seed that is not an
// evaluation seed (no selection bias in the test losses): the client step when the server is SGD
// (η_g = 1) or FedExP (configurations 1–3, 26–48); the server step when the server is adaptive,
// the client then using the step tuned for the same client optimiser under the SGD server
// (configurations 4–25: client SGD takes configuration 1's step). Then every configuration runs
// on the evaluation seeds 1, …, n with its steps; all configurations share each seed's data,
// clients and minibatch rows (common random numbers), so their paired differences are free of
// that noise.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "estimators/samplers/optimisers/update_rule.hpp"
#include "estimators/statistics/decide.hpp"
#include "verify/claims/claim.hpp"
#include "verify/claims/optimisers/study_configurations.hpp"

namespace fedverify::claims::optimisers::study {

inline constexpr double kL2 = 1e-3;
inline constexpr int kClients = 100;
inline constexpr int kSampled = 20;
inline constexpr int kBatch = 50;
inline constexpr int kLocalSteps = 20;
inline constexpr double kDirichletAlpha = 0.3;

// Family-wise false-alarm level of each finding row (one dataset): the Bonferroni-simultaneous
// intervals of decide.hpp (n) over that row's pairwise differences.
inline constexpr double kStudyAlpha = 0.05;
// The study (study_for(ctx), computed once per process) is shared by the table and the findings:
// ClaimRegistration::shared_run keeps them on one rank of a distributed report.
inline constexpr const char* kSharedRun = "optimisers.study";

struct StudyOptions {
  std::vector<std::string> datasets;  // "breast-cancer", "digits", "synthetic"
  std::vector<int> configs;           // config() indices; empty: Table 2.2's 48
  int rounds = 30;
  int seeds = 5;  // evaluation seeds
  std::uint64_t seed = 1;
  int threads = 0;
  // The ranks the training runs are spread over (a report across ranks: Context::spread); null:
  // this process alone.
  const TaskSpread* spread = nullptr;
  // Planted perturbations (tests): a rule replacing the named optimiser's ("adam", "dowg", …, and
  // "exp": FedExP's step) in both roles (server SGD, client SGD, FedProx and Scaffold are never
  // replaced); null, or a null result: the real rule.
  std::function<std::shared_ptr<const estimators::UpdateRule>(const std::string& optimiser)>
      rule_override;
};
// The options of a report run: quick = breast-cancer only, fewer rounds and seeds.
StudyOptions study_options(const RunOptions& run, int attempt);

struct ConfigResult {
  int index = 0;
  double server_lr = 1, client_lr = 0;
  double epsilon = 0;      // the tuned client ε (tune_epsilon configurations); 0: the default
  bool grid_edge = false;  // the tuned step is the smallest or largest of its grid
  std::vector<double> test_loss, test_accuracy;  // one per evaluation seed
  int diverged = 0;                              // evaluation runs that diverged (loss at x = 0)
  estimators::ReplicatedMean loss, accuracy;
};
struct DatasetResult {
  std::string name;
  std::string description;  // sizes: rows, features, classes
  double initial_loss = 0;  // test loss at x = 0 (log K): what a diverged run is charged
  std::vector<ConfigResult> configs;
  const ConfigResult& by_index(int index) const;  // throws std::logic_error when absent
};
struct StudyResult {
  StudyOptions options;
  std::vector<DatasetResult> datasets;
  int runs = 0;  // training runs (tuning + evaluation)
};

StudyResult run_study(const StudyOptions& options);
// The study of a claim run (memoised per run seed, quick flag and attempt).
const StudyResult& study_for(const Context& ctx);

// A finding of §2.6.1 as orderings: every (better, worse) pair of configuration indices, "better"
// meaning a lower mean test loss. The five findings of the claims optimisers.study-* are built by
// finding(id) from the optimiser that should win and those it should beat (paired_configs).
struct Finding {
  std::string name;
  std::vector<std::pair<int, int>> pairs;
  std::string winner;  // the optimiser (or "exp") said to win: what the planted tests freeze
};
// The finding of claim `id` (optimisers.study-dowg, -adam-vs-adaptive-lr, -adam-momentum-family,
// -adagrad-family, -fedexp); throws std::logic_error for another id.
const Finding& finding(const std::string& id);
// The claim ids of the five findings, in report order.
const std::vector<std::string>& finding_ids();
// The row of one dataset: the paired differences loss(better) − loss(worse) over seeds, decided by
// decide.hpp (n) at kStudyAlpha; passed unless the verdict is "fails". Records every difference
// with its interval in the row's data and the equivalence part (one-sided confirmation of
// "holds").
Row finding_row(const DatasetResult& data, const Finding& finding);
estimators::OrderingDecision decide_finding(const DatasetResult& data, const Finding& finding);
// The claim of a finding: one row per dataset of the study, and a note with the verdicts.
ClaimResult finding_claim(const Context& ctx, const Finding& finding);
// Registers the finding claim `id` (finding(id)) at `position` of the study's section: opt-in, a
// hypothesis, α = kStudyAlpha, run by finding_claim. Its card's ${study}, ${decision} and ${margin}
// are the text every finding shares (setting, decision rule, margin). Returns true.
bool register_finding(const char* id, int position, std::string_view card);

}  // namespace fedverify::claims::optimisers::study
