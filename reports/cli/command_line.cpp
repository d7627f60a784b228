#include "reports/cli/command_line.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "estimators/simulation/simulate.hpp"
#include "reports/cli/check_command.hpp"
#include "reports/cli/claim_list.hpp"
#include "reports/cli/command_help.hpp"
#include "reports/cli/commands.hpp"
#include "reports/cli/control_variate.hpp"
#include "reports/cli/completion.hpp"
#include "reports/cli/game_command.hpp"
#include "reports/cli/l2gd_command.hpp"
#include "reports/cli/run_spec.hpp"
#include "reports/cli/suggest.hpp"
#include "reports/cli/validity_warning.hpp"
#include "reports/cli/version.hpp"
#include "reports/conformance/conformance.hpp"
#include "reports/report/progress.hpp"
#include "reports/report/ranks.hpp"
#include "reports/report/report.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/linearised.hpp"
#include "theory/problems/algorithm_registry.hpp"
#include "theory/problems/game_io.hpp"
#include "theory/problems/gda_setting.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/optimiser.hpp"
#include "theory/problems/problem_io.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace {

using namespace fedverify;

struct CommonOptions {
  std::string problem_file;
  std::string algorithm = "fedavg";
  double gamma = 0;
  int local_steps = 1;
  // Personalised FL (--algo l2gd, THEORY §7): λ, and p (default p* = λ/(λ + L)).
  std::optional<double> lambda;
  std::optional<double> p;
  std::string uplink = "none", downlink = "none";
  // FedOpt (--algo fedopt, THEORY O0): the optimisers (theory/problems/optimiser.hpp) and S.
  std::string server = "sgd", client = "sgd";
  int participating = 0;  // also L2GD's τ (simulate)
  // Games (--algo fedgda, fedsgda, THEORY M0): α₂/α₁ and FedSGDA's minibatch size.
  double step_ratio = 1.0;
  int batch_size = 0;
  std::string spec;  // --spec: never set (expanded before parsing, run_spec.hpp)
  double max_seconds = theory::limits::kDefaultClosedFormSeconds;
};

double require_lambda(const CommonOptions& o) {
  if (!o.lambda) throw InputError(fmt::format("--lambda: required with --algo {}", o.algorithm));
  return *o.lambda;
}

struct SimulateOptions {
  std::optional<int> chains;
  std::optional<int> rounds;
  std::optional<int> burn_in;
  std::optional<std::string> seed;  // parsed by parse_seed: CLI11 wraps "-5" into 2⁶⁴ − 5
  int threads = 0;
  std::string batch_rounds = "auto";  // parsed by parse_batch_rounds
  std::string coupling = "independent";
  std::int64_t memory_budget = theory::limits::kDefaultMemoryBudget;
  std::string control_variate = "none";  // parsed by reports::parse_control_variate
};

// Every message goes to stderr as exactly one line: control characters in it (a newline in a key
// of a problem file, in --algo, in a CLI11 message) are escaped (limits::escape_control).
void print_error(const std::string& message) {
  fmt::print(stderr, "fedverify: {}\n", theory::limits::escape_control(message));
}

// The one JSON object of predict and simulate on stdout; a failed write (a closed pipe, a full
// disk) is an I/O error of the run, exit 2, never a silent success.
void print_result(const nlohmann::json& result) {
  std::cout << result.dump() << '\n';
  std::cout.flush();
  if (!std::cout) throw InputError("stdout: cannot write the result (closed or full output)");
}

template <typename T>
T required(const std::optional<T>& v, const char* flag) {
  if (!v) throw InputError(fmt::format("{}: required by simulate", flag));
  return *v;
}

// A seed is a decimal integer in [0, 2⁶⁴ − 1]; anything else (a sign, overflow, trailing text)
// is an error rather than a silently different seed.
std::uint64_t parse_seed(const std::string& text, const char* flag) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    throw InputError(fmt::format("{}: expected an integer in [0, 18446744073709551615], got \"{}\"",
                                 flag, theory::limits::quote_input(text)));
  }
  return value;
}

// --batch-rounds: "auto" (the default, estimators::kAutoBatchRounds; 0 means the same) or a batch
// length in rounds, a decimal integer (its range is checked by simulate against T − B).
int parse_batch_rounds(const std::string& text) {
  if (text == "auto") return estimators::kAutoBatchRounds;
  int value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    throw InputError(fmt::format("--batch-rounds: expected auto or an integer, got \"{}\"",
                                 theory::limits::quote_input(text)));
  }
  return value;
}

// An algorithm-specific option (theory::AlgorithmOption): given with an algorithm whose
// descriptor does not read it, it would be ignored silently, so it is refused (docs/CLI.md: bad
// input names the flag, exit 2).
struct AlgorithmOnlyOption {
  const CLI::Option* option;
  theory::AlgorithmOption reads;
};

void refuse_foreign_options(const theory::AlgorithmDescriptor& algorithm,
                            const std::vector<AlgorithmOnlyOption>& options) {
  for (const auto& o : options) {
    if (o.option != nullptr && o.option->count() > 0) {
      theory::refuse_unread_option(algorithm, o.reads, o.option->get_name(), "--algo");
    }
  }
}

// Per-command help (command_help.hpp): `sub` keeps only the algorithm-specific options that an
// algorithm it accepts reads, and its --algo help lists only those algorithms.
void keep_only_accepted(CLI::App* sub, std::vector<AlgorithmOnlyOption>& only_for,
                        const reports::AlgorithmFilter& accepts) {
  std::erase_if(only_for, [&](const AlgorithmOnlyOption& o) {
    if (reports::read_by_any(o.reads, accepts)) return false;
    sub->remove_option(const_cast<CLI::Option*>(o.option));
    return true;
  });
  for (const AlgorithmOnlyOption& o : only_for) {  // "(only …)": the accepted readers
    CLI::Option* option = sub->get_option(o.option->get_name());
    const std::string text = option->get_description();
    option->description(
        reports::algorithm_option_help(text.substr(0, text.rfind(" (only ")), o.reads, accepts));
  }
  sub->get_option("--algo")->description(reports::algorithm_help(accepts));
  sub->get_option("--problem")->description(reports::problem_help(accepts));
  sub->get_option("--gamma")->description(reports::gamma_help(accepts));
}

// Adds the algorithm-specific option `which` (its flag: theory::option_flag) to `sub`, its help
// saying which algorithms read it, and records it for refuse_foreign_options.
template <typename T>
CLI::Option* add_algorithm_option(CLI::App* sub, std::vector<AlgorithmOnlyOption>& only_for,
                                  theory::AlgorithmOption which, T& target,
                                  const std::string& description) {
  const std::string readers = theory::algorithm_names(
      [&](const theory::AlgorithmDescriptor& d) { return d.reads(which); }, "and");
  CLI::Option* option = sub->add_option(std::string(theory::option_flag(which)), target,
                                        fmt::format("{} (only {})", description, readers));
  only_for.push_back({option, which});
  return option;
}

// conformance also knows Scaffold's law with client sampling (THEORY S8), which predict and
// simulate do not run: there --participating is Scaffold's option as well as FedOpt's.
std::vector<AlgorithmOnlyOption> conformance_reads(const theory::AlgorithmDescriptor& algorithm,
                                                   std::vector<AlgorithmOnlyOption> options) {
  if (algorithm.algorithm == theory::Algorithm::scaffold) {
    std::erase_if(options, [](const AlgorithmOnlyOption& o) {
      return o.reads == theory::AlgorithmOption::participating;
    });
  }
  return options;
}

// γ, H and FedOpt's optimisers and S (parsed here: a bad spec names --server or --client).
theory::StepSetting step_setting(const CommonOptions& o) {
  theory::StepSetting step{o.gamma, o.local_steps};
  step.server = theory::parse_optimiser(o.server, theory::OptimiserRole::server);
  step.client = theory::parse_optimiser(o.client, theory::OptimiserRole::client);
  step.participating = o.participating;
  return step;
}

int run_predict(const CommonOptions& o, const theory::AlgorithmDescriptor& algorithm) {
  if (!algorithm.has_closed_forms) {
    const std::string with = theory::algorithm_names(
        [](const theory::AlgorithmDescriptor& d) { return d.has_closed_forms; }, "and");
    throw InputError(fmt::format("--algo: predict has no closed forms for {} (it has them for {})",
                                 algorithm.name(), with));
  }
  if (algorithm.family == theory::AlgorithmFamily::game) {
    const theory::GameProblem game = theory::load_game(o.problem_file);
    print_result(
        reports::predict_game(game, theory::gda_setting(o.gamma, o.step_ratio, o.local_steps)));
    return 0;
  }
  const auto problem = theory::load_problem(o.problem_file);
  switch (algorithm.family) {
    case theory::AlgorithmFamily::game:  // above
      return 0;
    case theory::AlgorithmFamily::personalised:
      if (o.participating != 0) {
        throw InputError(
            fmt::format("--participating: only for simulate with --algo {}", algorithm.name()));
      }
      print_result(reports::predict_l2gd(*problem, require_lambda(o), o.p, o.gamma));
      return 0;
    case theory::AlgorithmFamily::chain: {
      const theory::StepSetting step = step_setting(o);
      nlohmann::json out = reports::predict(*problem, algorithm.algorithm, step);
      // γHL ≫ 1: the first-order fields mean nothing (validity_warning.hpp); stdout unchanged.
      const std::string warning = reports::first_order_validity_warning(*problem, step);
      if (!warning.empty()) print_error(warning);
      out.update(reports::optimiser_fields(algorithm.algorithm, step, problem->num_clients()));
      print_result(out);
      return 0;
    }
  }
  return 0;
}

// The sizes of a stationary run, shared by the chain and game families' specs.
template <typename Spec>
void fill_run(Spec& spec, const SimulateOptions& s) {
  spec.chains = required(s.chains, "--chains");
  spec.rounds = required(s.rounds, "--rounds");
  spec.burn_in = required(s.burn_in, "--burn-in");
  spec.seed = parse_seed(required(s.seed, "--seed"), "--seed");
  spec.threads = s.threads;
  spec.batch_rounds = parse_batch_rounds(s.batch_rounds);
  spec.memory_budget = s.memory_budget;
}

int run_simulate_game(const CommonOptions& o, const SimulateOptions& s,
                      const theory::AlgorithmDescriptor& algorithm) {
  const theory::GameProblem game = theory::load_game(o.problem_file);
  estimators::GameSimulationSpec spec;
  spec.algorithm = algorithm.algorithm;
  spec.step = theory::gda_setting(o.gamma, o.step_ratio, o.local_steps);
  spec.batch_size = o.batch_size;
  if (algorithm.reads(theory::AlgorithmOption::batch_size) && o.batch_size == 0) {
    throw InputError(fmt::format("--batch-size: required by --algo {}", algorithm.name()));
  }
  fill_run(spec, s);
  reports::ProgressLine progress("simulate", "rounds");
  const estimators::SimulationResult r = estimators::simulate_game(game, spec, progress.callback());
  progress.finish();
  print_result(reports::game_simulation_to_json(game, spec, r));
  return 0;
}

int run_simulate(const CommonOptions& o, const SimulateOptions& s,
                 const theory::AlgorithmDescriptor& algorithm) {
  const bool twin = reports::parse_control_variate(s.control_variate, algorithm);
  if (algorithm.family == theory::AlgorithmFamily::game) return run_simulate_game(o, s, algorithm);
  const auto problem = theory::load_problem(o.problem_file);
  if (algorithm.family == theory::AlgorithmFamily::personalised) {
    reports::L2gdSimulateOptions l;
    l.lambda = require_lambda(o);
    l.p = o.p;
    l.alpha = o.gamma;
    l.chains = required(s.chains, "--chains");
    l.iterations = required(s.rounds, "--rounds");
    l.seed = parse_seed(required(s.seed, "--seed"), "--seed");
    l.threads = s.threads;
    l.uplink = reports::parse_compressor(o.uplink, "--uplink");
    l.downlink = reports::parse_compressor(o.downlink, "--downlink");
    l.participating = o.participating;
    l.memory_budget = s.memory_budget;
    l.algorithm = o.algorithm;
    print_result(reports::simulate_l2gd(*problem, l));
    return 0;
  }
  estimators::SimulationSpec spec;
  spec.algorithm = algorithm.algorithm;
  spec.step = step_setting(o);
  fill_run(spec, s);
  if (s.coupling == "shared") {
    spec.coupling = theory::NoiseCoupling::shared;
  } else if (s.coupling != "independent") {
    throw InputError(fmt::format("--noise: expected independent or shared, got \"{}\"",
                                 theory::limits::quote_input(s.coupling)));
  }
  // --control-variate linearised: the twin's exact mean first (a refusal costs no simulation).
  std::optional<Vector> linearised_mean;
  if (twin) {
    linearised_mean = theory::linearised_stationary_mean(*problem, spec.algorithm, spec.step);
    spec.linearised_twin = true;
  }
  reports::ProgressLine progress("simulate", "rounds");
  const estimators::SimulationResult r = estimators::simulate(*problem, spec, progress.callback());
  progress.finish();
  nlohmann::json out = reports::simulation_to_json(spec, r);
  out.update(reports::optimiser_fields(spec.algorithm, spec.step, problem->num_clients()));
  if (linearised_mean && !r.diverged) {
    out.update(reports::control_variate_fields(r, *linearised_mean));
  }
  print_result(out);
  return 0;
}

struct ConformanceOptions {
  std::string command;
  std::optional<std::string> seed;
  int chains = 256, rounds = 400, burn_in = 100, one_round_chains = 4000;
  double alpha = 0.01;
};

// `fedverify conformance`: exit 0 when the implementation conforms, 1 when a law differs (the JSON
// says which and what it points to), 2 for bad input or a protocol error of the implementation.
int run_conformance(const CommonOptions& o, const ConformanceOptions& c,
                    const theory::AlgorithmDescriptor& algorithm) {
  const auto problem = theory::load_problem(o.problem_file);
  const auto* quadratic = dynamic_cast<const theory::QuadraticProblem*>(problem.get());
  if (quadratic == nullptr) {
    throw InputError("--problem: conformance needs a quadratic problem (its laws are exact there)");
  }
  reports::ConformanceSpec spec;
  spec.command = c.command;
  spec.algorithm = algorithm.algorithm;
  spec.step = step_setting(o);
  spec.chains = c.chains;
  spec.rounds = c.rounds;
  spec.burn_in = c.burn_in;
  spec.one_round_chains = c.one_round_chains;
  spec.alpha = c.alpha;
  spec.seed = parse_seed(required(c.seed, "--seed"), "--seed");
  reports::ProgressLine progress("conformance", "rounds");
  spec.progress = progress.callback();
  const reports::ConformanceResult r = reports::run_conformance(*quadratic, spec);
  progress.finish();
  print_result(reports::conformance_to_json(spec, r));
  return r.passed ? 0 : 1;
}

int run_command_line_unguarded(int argc, char** argv) {
  CLI::App app{"fedverify: numerical checks of stochastic federated-learning theorems"};
  app.require_subcommand(1);

  CommonOptions common;
  std::vector<AlgorithmOnlyOption> predict_only_for, simulate_only_for;
  using theory::AlgorithmOption;
  app.set_version_flag("--version", reports::version_text());
  auto add_common = [&common](CLI::App* sub, std::vector<AlgorithmOnlyOption>& only_for) {
    sub->add_option(
           "--problem", common.problem_file,
           "Problem file (JSON, docs/PROBLEM_FORMATS.md); a game file for fedgda and fedsgda")
        ->required();
    sub->add_option("--algo", common.algorithm, "Algorithm")->required();  // keep_only_accepted
    sub->add_option("--gamma", common.gamma,
                    "Step size gamma > 0 (alpha for l2gd, alpha_theta for fedgda and fedsgda)")
        ->required();
    add_algorithm_option(sub, only_for, AlgorithmOption::local_steps, common.local_steps,
                         "Local steps H >= 1")
        ->default_val(1);
    add_algorithm_option(sub, only_for, AlgorithmOption::lambda, common.lambda,
                         "Personalisation strength lambda > 0");
    add_algorithm_option(sub, only_for, AlgorithmOption::p, common.p,
                         "Probability of an averaging step, default p* = lambda/(lambda + L)");
    add_algorithm_option(sub, only_for, AlgorithmOption::server, common.server,
                         reports::optimiser_option_help(theory::OptimiserRole::server))
        ->default_val("sgd");
    add_algorithm_option(sub, only_for, AlgorithmOption::client, common.client,
                         reports::optimiser_option_help(theory::OptimiserRole::client))
        ->default_val("sgd");
    add_algorithm_option(sub, only_for, AlgorithmOption::participating, common.participating,
                         "Clients per round: fedopt samples S of N without replacement, "
                         "1 <= S <= N; l2gd (simulate) averages tau, 2 <= tau <= n (0: all)")
        ->default_val(0);
    add_algorithm_option(sub, only_for, AlgorithmOption::step_ratio, common.step_ratio,
                         "Ascent step over descent step alpha_tau/alpha_theta > 0 (--gamma is "
                         "alpha_theta)")
        ->default_val(1.0);
    add_algorithm_option(sub, only_for, AlgorithmOption::batch_size, common.batch_size,
                         "Minibatch size B >= 1 of each local step (required)");
    // Answered before parsing (command_help.hpp), like --help; declared here for --help.
    sub->add_flag(std::string(reports::kHelpOptimisersFlag))
        ->description("Print the optimisers of --server and --client with their keys and exit");
    // Expanded before parsing (run_spec.hpp); declared here for --help.
    sub->add_option("--spec", common.spec,
                    "Run spec: a JSON object of these options, e.g. {\"gamma\": 0.05, "
                    "\"server\": {\"name\": \"adam\", \"lr\": 0.01}} (docs/CLI.md, run specs)");
    sub->add_option("--max-seconds", common.max_seconds,
                    "Refuse closed forms estimated to take longer (Scaffold's exact moments, "
                    "L2GD's x(lambda) and trajectory; docs/CLI.md, resource limits)")
        ->default_val(theory::limits::kDefaultClosedFormSeconds);
  };
  auto* predict =
      app.add_subcommand("predict", "Closed-form predictions (one JSON object on stdout)");
  add_common(predict, predict_only_for);
  keep_only_accepted(predict, predict_only_for,
                     [](const theory::AlgorithmDescriptor& d) { return d.has_closed_forms; });

  SimulateOptions sim;
  auto* simulate =
      app.add_subcommand("simulate", "Simulate K chains; stationary moments with MCSE (JSON)");
  add_common(simulate, simulate_only_for);
  keep_only_accepted(simulate, simulate_only_for,
                     [](const theory::AlgorithmDescriptor&) { return true; });
  simulate->add_option("--chains", sim.chains, "Independent chains K >= 1 (required)");
  simulate->add_option("--rounds", sim.rounds,
                       "Rounds T per chain, including burn-in (required; "
                       "l2gd: iterations)");
  add_algorithm_option(simulate, simulate_only_for, AlgorithmOption::burn_in, sim.burn_in,
                       "Rounds discarded, 0 <= B < T, required");
  simulate->add_option("--seed", sim.seed, "Seed; same seed => bit-identical output (required)");
  add_algorithm_option(simulate, simulate_only_for, AlgorithmOption::uplink, common.uplink,
                       "Compressor none | random-k:K | qsgd:S | natural")
      ->default_val("none");
  add_algorithm_option(simulate, simulate_only_for, AlgorithmOption::downlink, common.downlink,
                       "Compressor, as --uplink")
      ->default_val("none");
  simulate->add_option("--threads", sim.threads, "Threads (0 = all); never changes a number")
      ->default_val(0);
  simulate->add_option("--memory-budget", sim.memory_budget,
                       fmt::format("Bytes the run may allocate; larger runs are refused before "
                                   "they start (default {} = 8 GiB)",
                                   theory::limits::kDefaultMemoryBudget));
  add_algorithm_option(
      simulate, simulate_only_for, AlgorithmOption::batch_rounds, sim.batch_rounds,
      "Batch length of the batch-means MCSE in rounds, or auto (default; 0 means auto): "
      "the longest batches leaving >= 32 batch means, one per chain when K >= 32")
      ->default_val("auto");
  add_algorithm_option(simulate, simulate_only_for, AlgorithmOption::noise, sim.coupling,
                       "Noise of the runs at gamma and 2 gamma: independent | shared")
      ->default_val("independent");
  simulate
      ->add_option("--control-variate", sim.control_variate,
                   "none | linearised: also mean_cv, the mean of x - y (y the chain's twin run on "
                   "the linearisation at x*, same draws) plus y's exact mean "
                   "(docs/DESIGN-EXTENSIONS.md)")
      ->default_val("none");

  ConformanceOptions conf;
  std::vector<AlgorithmOnlyOption> conformance_only_for;
  auto* conformance = app.add_subcommand(
      "conformance",
      "Check an external FedAvg, Scaffold or FedProx implementation (--exec) against the exact "
      "laws on a quadratic problem (JSON; docs/DESIGN-EXTENSIONS.md, conformance)");
  add_common(conformance, conformance_only_for);
  keep_only_accepted(conformance, conformance_only_for, [](const theory::AlgorithmDescriptor& d) {
    return reports::conformance_checks(d.algorithm);
  });
  conformance->remove_option(conformance->get_option("--spec"));  // predict and simulate only
  conformance->get_option("--participating")
      ->description(
          "Clients per round S of N, sampled without replacement (0: all): fedopt, and scaffold "
          "(conformance only: its law under sampling is THEORY S8)");
  conformance
      ->add_option("--exec", conf.command,
                   "The implementation: a shell command speaking the JSON-lines protocol")
      ->required();
  conformance->add_option("--seed", conf.seed, "Seed of fedverify's gradient noise (required)");
  conformance->add_option("--chains", conf.chains, "Chains of the stationary run")
      ->default_val(256);
  conformance->add_option("--rounds", conf.rounds, "Rounds of the stationary run")
      ->default_val(400);
  conformance->add_option("--burn-in", conf.burn_in, "Rounds discarded")->default_val(100);
  conformance
      ->add_option("--one-round-chains", conf.one_round_chains, "Chains of the one-round run")
      ->default_val(4000);
  conformance->add_option("--alpha", conf.alpha, "False-alarm level of the four tests together")
      ->default_val(0.01);

  reports::ReportOptions check_options;
  std::string claim_file;
  std::string check_seed = "20261125";
  auto* check = app.add_subcommand(
      "check",
      "Run a claim file (docs/DESIGN-EXTENSIONS.md, claim files): REPORT.md, results.json");
  check->add_option("claim", claim_file, "The claim file (JSON)")->required();
  check->add_option("--out", check_options.out_dir, "Output directory")
      ->default_val("reports/check");
  check->add_option("--seed", check_seed, "Seed of every simulation")->default_val("20261125");
  check->add_option("--threads", check_options.threads, "Threads (0 = all)")->default_val(0);

  reports::ReportOptions rep;
  auto* report = app.add_subcommand(
      "report", "Run the claim catalogue; write REPORT.md, results.json, figures");
  report->add_option("--out", rep.out_dir, "Output directory")->default_val("reports/out");
  report->add_flag("--quick", rep.quick, "Smaller grids (< 1 minute)");
  report->add_option("--baseline", rep.baseline,
                     "Compare with a stored results.json; exit 1 on regression");
  report->add_flag("--baseline-mismatch-ok", rep.baseline_mismatch_ok,
                   "Compare with a baseline of another seed, grid, version or claim set (the "
                   "report says so); without it such a baseline is refused");
  report->add_option("--only", rep.only, "Glob over claim ids, e.g. 'quadratic.*'")
      ->default_val("*");
  std::string report_seed = "20261125";
  report->add_option("--seed", report_seed, "Seed of every simulation")->default_val("20261125");
  report->add_option("--threads", rep.threads, "Threads (0 = all)")->default_val(0);
  bool list_claims = false;
  report->add_flag("--list", list_claims,
                   "List the claim ids (those --only selects; all, opt-in ones marked, without "
                   "--only) with their statements, and exit without running them");

  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    args = reports::expand_run_spec(
        args, [&app](const std::string& subcommand, const std::string& option) {
          if (subcommand != "predict" && subcommand != "simulate") return false;
          return app.get_subcommand(subcommand)->get_option_no_throw(option) != nullptr;
        });  // --spec FILE (run_spec.hpp)
    if (args.size() == 1 && args[0] == reports::kBashCompletionFlag) {
      fmt::print("{}", reports::bash_completion(app));  // completion.hpp
      return 0;
    }
    if (reports::wants_optimiser_help(args)) {
      fmt::print("{}", reports::optimiser_keys_help());
      return 0;
    }
    reports::check_spelling(app, args);      // "did you mean" (suggest.hpp)
    std::reverse(args.begin(), args.end());  // CLI11 takes the arguments in reverse order
    app.parse(args);
  } catch (const InputError& e) {
    print_error(e.what());
    return 2;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One stderr line naming the option, exit code 2 (docs/CLI.md, exit codes).
    print_error(e.what());
    return 2;
  }
  try {
    if (*check) {
      check_options.seed = parse_seed(check_seed, "--seed");
      return reports::run_check(claim_file, check_options);
    }
    if (*conformance) {
      theory::limits::set_closed_form_seconds(common.max_seconds);
      const theory::AlgorithmDescriptor& algorithm =
          theory::describe(theory::parse_algorithm(common.algorithm));
      refuse_foreign_options(algorithm, conformance_reads(algorithm, conformance_only_for));
      return run_conformance(common, conf, algorithm);
    }
    if (*predict || *simulate) {
      theory::limits::set_closed_form_seconds(common.max_seconds);
      const theory::AlgorithmDescriptor& algorithm =
          theory::describe(theory::parse_algorithm(common.algorithm));
      if (*predict) {
        refuse_foreign_options(algorithm, predict_only_for);
        return run_predict(common, algorithm);
      }
      refuse_foreign_options(algorithm, simulate_only_for);
      return run_simulate(common, sim, algorithm);
    }
    if (*report && list_claims) return reports::print_claim_list(rep.only, stdout);
    if (*report) {
      rep.seed = parse_seed(report_seed, "--seed");
      // Started by mpirun: the ranks share the claims, rank 0 writes (reports/report/ranks.hpp).
      const std::unique_ptr<reports::Ranks> ranks = reports::launched_ranks();
      rep.ranks = ranks.get();
      return reports::run_report(rep);
    }
  } catch (const InputError& e) {
    // Errors about the problem's content found after loading (e.g. no unique minimiser) say
    // "problem:"; name the file instead, as the loader's own messages do.
    std::string message = e.what();
    if (message.rfind("problem:", 0) == 0 && !common.problem_file.empty()) {
      message = common.problem_file + message.substr(std::string("problem").size());
    }
    print_error(message);
    return 2;
  } catch (const std::bad_alloc&) {
    // Every size is checked against its range and the memory budget before work starts, so
    // this is a machine with less memory than the budget assumes: a resource error of the run.
    print_error(
        "internal error: out of memory (the run fits --memory-budget but not this machine; "
        "lower --memory-budget or the sizes)");
    return 3;
  } catch (const std::exception& e) {
    print_error(fmt::format("internal error: {}", e.what()));
    return 3;
  }
  return 0;
}

}  // namespace

namespace fedverify::reports {

int run_command_line(int argc, char** argv) {
  try {
    return run_command_line_unguarded(argc, argv);
  } catch (const std::exception& e) {  // e.g. a CLI11 construction error: a bug, not bad input
    print_error(fmt::format("internal error: {}", e.what()));
    return 3;
  } catch (...) {
    print_error("internal error: an exception of unknown type");
    return 3;
  }
}

}  // namespace fedverify::reports
