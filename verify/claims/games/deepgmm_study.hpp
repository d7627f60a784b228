// The runs behind claims games.deepgmm-table and games.deepgmm-on-par (THEORY M6; thesis Table
// 3.1, low-dimensional rows): three scenarios (Absolute, Step, Linear) × five trainers
// (DeepGMM-GDA, DeepGMM-SGDA, FedDeepGMM-GDA, FedDeepGMM-SGDA, DeepGMM-OAdam) × `runs` runs, each
// run a fresh data set and initialisation (shared by the trainers of that scenario and run:
// common random numbers), the test MSE of
// ĝ against g₀ on the standardised scale. Opt-in (`--only 'games.deepgmm*'`): minutes of training.
//
// The tasks (scenario, run, trainer) run on the context's threads and ranks (kit::spread_tasks);
// each is sequential inside and a pure function of its seeds, so results do not depend on the
// threads.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "theory/problems/iv_data.hpp"
#include "theory/problems/iv_images.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::claims::games::deepgmm {

struct Trainer {
  const char* name;  // Table 3.1's column, e.g. "FedDeepGMM-SGDA"
  bool federated, stochastic;
  int rounds, local_steps;
  double alpha_theta, alpha_tau;
  const char* rule = "";  // an update rule for both players ("oadam"), "" for plain steps
};

// The five trainers with their steps and rounds (deepgmm_study.cpp says how they were chosen):
// GDA, SGDA, FedGDA, FedSGDA and [DeepGMM]'s own DeepGMM-OAdam (Table 3.1's first column).
inline constexpr std::size_t kTrainers = 5;
inline constexpr std::size_t kOadam = 4;  // its index
const std::array<Trainer, kTrainers>& trainers();
inline constexpr int kClients = 10;
// A run whose test MSE exceeds this multiple of the zero predictor's, mean g₀², is counted as
// diverged (its MSE NaN).
inline constexpr double kUselessFactor = 100.0;
inline constexpr int kBatch = 256;  // the thesis's FedSGDA minibatch (also DeepGMM-SGDA's)

struct StudyOptions {
  std::vector<theory::IvFunction> functions = {
      theory::IvFunction::absolute, theory::IvFunction::step, theory::IvFunction::linear};
  // Image variants (theory/problems/iv_images.hpp); the scenarios are functions × images,
  // function-major. {none}: Table 3.1's low-dimensional rows.
  std::vector<theory::IvImages> images = {theory::IvImages::none};
  int runs = 5;
  int samples = 20000;
  double round_scale = 1.0;  // rounds × round_scale (tests: small studies)
  double penalty = 0.25;     // λ of (3.14); planted perturbation: the wrong sign
  theory::IvProcess process = theory::IvProcess::thesis;
  theory::NoiseScale noise_scale = theory::NoiseScale::sd;
  std::uint64_t seed = 1;
  int threads = 0;
  // The ranks the training runs are spread over (a report across ranks: Context::spread); null:
  // this process alone.
  const TaskSpread* spread = nullptr;
};

struct Cell {
  theory::IvFunction function;
  int trainer = 0;          // index into trainers()
  std::vector<double> mse;  // one per run (NaN for a diverged run)
  int diverged = 0;
  theory::IvImages images = theory::IvImages::none;
};

struct Curve {  // ĝ of run 0 of each trainer and g₀ on a grid of x (figure; low-dimensional X)
  theory::IvFunction function;
  std::vector<double> x, g0;
  std::array<std::vector<double>, kTrainers> g_hat;
  theory::IvImages images = theory::IvImages::none;
};

struct StudyResult {
  std::vector<Cell> cells;  // scenario-major (function, then images), then trainer
  std::vector<Curve> curves;
};

StudyResult run_study(const StudyOptions& options);

// The claim's study at the context's seed, quick flag and attempt (computed once, cached).
const StudyResult& study_for(const Context& ctx);
StudyOptions study_options(const RunOptions& run, int attempt);

// The claim's rows, note and figures from a study (deepgmm_table.cpp; the perturbation test runs
// it on a planted study).
ClaimResult table_claim(const Context& ctx, const StudyResult& study);
// The rows of games.deepgmm-on-par from a study (deepgmm_on_par.cpp; tests run it on planted
// studies).
ClaimResult on_par_claim(const StudyResult& study);

}  // namespace fedverify::claims::games::deepgmm
