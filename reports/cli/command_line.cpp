// The `fedverify` command line: every subcommand and flag declared once with CLI11, the run spec
// and help requests answered before parsing, and the parsed options dispatched to the subcommands
// (run_commands.hpp, check_command.hpp, report.hpp). Errors are one stderr line and an exit code
// (docs/CLI.md): 2 bad input, 3 an internal error.
#include "reports/cli/command_line.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reports/cli/algorithm_options.hpp"
#include "reports/cli/check_command.hpp"
#include "reports/cli/claim_list.hpp"
#include "reports/cli/command_help.hpp"
#include "reports/cli/completion.hpp"
#include "reports/cli/problem_command.hpp"
#include "reports/cli/run_commands.hpp"
#include "reports/cli/run_options.hpp"
#include "reports/cli/run_spec.hpp"
#include "reports/cli/suggest.hpp"
#include "reports/cli/version.hpp"
#include "reports/conformance/conformance.hpp"
#include "reports/conformance/per_model.hpp"
#include "reports/report/ranks.hpp"
#include "reports/report/report.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/formula.hpp"
#include "theory/problems/algorithm_preset.hpp"
#include "theory/problems/algorithm_registry.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/optimiser.hpp"
#include "verify/claims/default_seed.hpp"

namespace {

using namespace fedverify;
using namespace fedverify::reports;

int run_command_line_unguarded(int argc, char** argv) {
  CLI::App app{"fedverify: numerical checks of stochastic federated-learning theorems",
               "fedverify"};
  app.require_subcommand(1);

  RunInputs common;
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
    // The parameters of the presets and algorithms (theory/problems/algorithm_preset.hpp,
    // algorithm_parameter.hpp: --lambda, --p, --step-ratio, --batch-size, --client-steps, --mu,
    // …): one option per key, a list written with commas; keep_only_accepted keeps those an
    // accepted algorithm reads.
    for (const std::string_view key : theory::parameter_keys()) {
      sub->add_option(theory::parameter_flag(key), common.parameter_values[std::string(key)],
                      theory::parameter_help(key))
          ->type_name(theory::parameter_is_list(key) ? "N1,N2,..." : "NUMBER");
    }
    // Answered before parsing (command_help.hpp), like --help; declared here for --help.
    sub->add_flag(std::string(reports::kHelpOptimisersFlag))
        ->description("Print the optimisers of --server and --client with their keys and exit");
    // Expanded before parsing (run_spec.hpp); declared here for --help.
    sub->add_option("--spec", common.spec,
                    "Run spec: a JSON object of these options, e.g. {\"gamma\": 0.05, "
                    "\"server\": {\"name\": \"adam\", \"lr\": 0.01}} (docs/CLI.md, run specs)");
    sub->add_option("--max-seconds", common.max_seconds,
                    "Refuse closed forms estimated to take longer than this many seconds, before "
                    "they start (docs/CLI.md, resource limits)")
        ->default_val(theory::limits::kDefaultClosedFormSeconds);
  };
  auto* predict =
      app.add_subcommand("predict", "Closed-form predictions (one JSON object on stdout)");
  add_common(predict, predict_only_for);
  predict->add_option(
      "--rounds", common.trajectory_rounds,
      "Finite time (quadratic and linear-sa problems): add mse_exact, E|x_t - x*|^2 "
      "for t = 0 ... T, and mean_exact_t, the T + 1 means (THEORY T1)");
  predict->add_option("--x0", common.x0,
                      "Start of the exact trajectory, a JSON array of d numbers (default x*)");
  keep_only_accepted(predict, predict_only_for,
                     [](const theory::AlgorithmDescriptor& d) { return d.has_closed_forms; });

  SimulateInputs sim;
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
  simulate->add_flag("--curve", sim.curve,
                     "Finite time: add curve, the mean and E|x_t - x*|^2 of every recorded round "
                     "with their standard errors over the chains (compare predict --rounds)");
  simulate->add_option("--x0", common.x0,
                       "Start of every chain, a JSON array of d numbers (default 0)");
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
      "Check an external implementation (--exec) of a federated algorithm against its exact "
      "laws on a quadratic problem (JSON; docs/CHECKING_YOUR_FRAMEWORK.md)");
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
  conformance->add_option(
      "--chains", conf.chains,
      fmt::format("Chains of the stationary run (default {}; with --per-model {}; with "
                  "--trajectory {})",
                  reports::ConformanceSpec{}.chains, reports::kPerModelChains,
                  reports::kTrajectoryChains));
  conformance->add_option(
      "--rounds", conf.rounds,
      fmt::format("Rounds of the stationary run (default {}; with --trajectory {})",
                  reports::ConformanceSpec{}.rounds, reports::kTrajectoryRounds));
  conformance->add_option("--burn-in", conf.burn_in, "Rounds discarded")->default_val(100);
  conformance
      ->add_option("--one-round-chains", conf.one_round_chains, "Chains of the one-round run")
      ->default_val(4000);
  conformance->add_option("--alpha", conf.alpha, "False-alarm level of the four tests together")
      ->default_val(0.01);
  conformance
      ->add_option("--timeout", conf.timeout,
                   "Seconds the implementation may take to answer one message (or to exit once "
                   "its input is closed); longer ends the check with exit 2")
      ->default_val(reports::kDefaultMessageTimeout);
  conformance->add_flag(
      "--protocol-fds", conf.protocol_fds,
      "Protocol on file descriptors 3 (to the implementation) and 4 (from it), announced as "
      "FEDVERIFY_PROTOCOL_FDS=3,4; the implementation's stdout goes to stderr, so its prints "
      "cannot corrupt the protocol");
  conformance
      ->add_option("--weight-decay", conf.weight_decay,
                   "λ ≥ 0: every local step adds λy to the gradient, as "
                   "torch.optim.SGD(weight_decay=λ) (THEORY C1)")
      ->default_val(0.0);
  conformance->add_flag(
      "--per-model", conf.per_model,
      "Per-model protocol: the implementation trains one model (one chain) per run message and "
      "reads the next run message after round T; fedverify runs the chains in --workers "
      "processes side by side, with the batched mode's numbers");
  conformance
      ->add_option("--workers", conf.workers,
                   "Processes of --per-model (0: one per hardware thread); never changes a number")
      ->default_val(0)
      ->check(CLI::Range(0, 256));
  conformance->add_option(
      "--trajectory", conf.trajectory,
      "float64 | float32: trajectory mode, the implementation's every gradient request and round "
      "replayed on the same gradients to the round-off of that precision (full participation), "
      "instead of the statistical checks");

  reports::ReportOptions check_options;
  std::string claim_file;
  std::string check_seed = std::to_string(claims::kDefaultSeed);
  auto* check = app.add_subcommand(
      "check", "Run a claim file (docs/CLAIM_FILES.md): REPORT.md, REPORT.html, results.json");
  check->add_option("claim", claim_file, "The claim file (JSON)")->required();
  check->add_option("--out", check_options.out_dir, "Output directory")
      ->default_val("reports/check");
  check->add_option("--seed", check_seed, "Seed of every simulation")->default_val(check_seed);
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
  std::string report_seed = std::to_string(claims::kDefaultSeed);
  report->add_option("--seed", report_seed, "Seed of every simulation")->default_val(report_seed);
  report->add_option("--threads", rep.threads, "Threads (0 = all)")->default_val(0);
  bool list_claims = false;
  report->add_flag("--list", list_claims,
                   "List the claim ids (those --only selects; all, opt-in ones marked, without "
                   "--only), each with its statement in one line, and exit without running them");

  ProblemCommandInputs problem_inputs;
  CLI::App* from_csv = add_problem_command(app, problem_inputs);  // problem_command.hpp

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
    if (*from_csv) return problem_from_csv_command(problem_inputs);
    if (*check) {
      check_options.seed = parse_seed(check_seed, "--seed");
      return reports::run_check(claim_file, check_options);
    }
    for (CLI::App* run : {predict, simulate, conformance}) {
      if (!*run) continue;
      common.server_given = run->count("--server") > 0;
      common.client_given = run->count("--client") > 0;
    }
    if (*conformance) {
      theory::limits::set_closed_form_seconds(common.max_seconds);
      const theory::AlgorithmDescriptor& algorithm = algorithm_descriptor(common);
      refuse_foreign_options(algorithm, conformance_reads(algorithm, conformance_only_for));
      return conformance_command(common, conf, algorithm);
    }
    if (*predict || *simulate) {
      theory::limits::set_closed_form_seconds(common.max_seconds);
      const theory::AlgorithmDescriptor& algorithm = algorithm_descriptor(common);
      if (*predict) {
        refuse_foreign_options(algorithm, predict_only_for);
        return predict_command(common, algorithm);
      }
      refuse_foreign_options(algorithm, simulate_only_for);
      return simulate_command(common, sim, algorithm);
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
    // A preset sets --server and --client itself: an error about them says where they came from.
    if (const theory::AlgorithmPreset* p = theory::find_preset(common.algorithm)) {
      for (const auto& [flag, value] :
           {std::pair{"--server:", p->server}, std::pair{"--client:", p->client}}) {
        if (message.rfind(flag, 0) == 0) {
          message += fmt::format(" (--algo {} runs {} with {} {})", p->name, p->base.name(),
                                 std::string_view(flag).substr(0, 8), value);
        }
      }
    }
    print_error(message);
    // A bad formula (docs/CLAIM_FILES.md, "Formula errors"): the formula and a caret under the
    // mistake follow the one-line message.
    if (const auto* formula = dynamic_cast<const theory::FormulaError*>(&e)) {
      fmt::print(stderr, "{}\n", formula->display());
    }
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
