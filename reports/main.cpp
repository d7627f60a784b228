// fedverify: command-line entry point. See DESIGN.md, "Command-line interface".
//
// Exit codes: 0 success; 1 a claim failed or regressed (report); 2 bad input (one stderr line
// naming the field); 3 internal error.
#include <fmt/format.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>

#include "reports/commands.hpp"
#include "reports/report.hpp"
#include "theory/input_error.hpp"
#include "theory/problem_io.hpp"

namespace {

using namespace fedverify;

struct CommonOptions {
  std::string problem_file;
  std::string algorithm = "fedavg";
  double gamma = 0;
  int local_steps = 1;
};

int run_predict(const CommonOptions& o) {
  const auto problem = theory::load_problem(o.problem_file);
  const auto algorithm = theory::parse_algorithm(o.algorithm);
  std::cout << reports::predict(*problem, algorithm, {o.gamma, o.local_steps}).dump() << '\n';
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fedverify: numerical checks of stochastic federated-learning theorems"};
  app.require_subcommand(1);

  CommonOptions common;
  auto add_common = [&common](CLI::App* sub) {
    sub->add_option("--problem", common.problem_file, "Problem file (JSON, see DESIGN.md)")
        ->required();
    sub->add_option("--algo", common.algorithm, "fedavg | scaffold | fedrr | sgd")->required();
    sub->add_option("--gamma", common.gamma, "Step size gamma > 0")->required();
    sub->add_option("--local-steps", common.local_steps, "Local steps H >= 1")->default_val(1);
  };
  auto* predict =
      app.add_subcommand("predict", "Closed-form predictions (one JSON object on stdout)");
  add_common(predict);

  reports::ReportOptions rep;
  auto* report = app.add_subcommand(
      "report", "Run the claim catalogue; write REPORT.md, results.json, figures");
  report->add_option("--out", rep.out_dir, "Output directory")->default_val("reports/out");
  report->add_flag("--quick", rep.quick, "Smaller grids (< 1 minute)");
  report->add_option("--baseline", rep.baseline,
                     "Compare with a stored results.json; exit 1 on regression");
  report->add_option("--only", rep.only, "Glob over claim ids, e.g. 'quadratic.*'")
      ->default_val("*");
  report->add_option("--seed", rep.seed, "Seed of every simulation")->default_val(20261125);
  report->add_option("--threads", rep.threads, "Threads (0 = all)")->default_val(0);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    if (*predict) return run_predict(common);
    if (*report) return reports::run_report(rep);
  } catch (const InputError& e) {
    fmt::print(stderr, "fedverify: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "fedverify: internal error: {}\n", e.what());
    return 3;
  }
  return 0;
}
