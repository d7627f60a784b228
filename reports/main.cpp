// fedverify: command-line entry point. See DESIGN.md, "Command-line interface".
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <iostream>

#include "reports/commands.hpp"
#include "theory/input_error.hpp"
#include "theory/problem_io.hpp"

namespace {

using namespace fedverify;

int run_predict(const reports::PredictOptions& o) {
  const auto problem = theory::load_problem(o.problem_file);
  const auto algorithm = theory::parse_algorithm(o.algorithm);
  const nlohmann::json out = reports::predict(*problem, algorithm, {o.gamma, o.local_steps});
  std::cout << out.dump() << '\n';
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fedverify: numerical checks of stochastic federated-learning theorems"};
  app.require_subcommand(1);

  reports::PredictOptions predict;
  auto* p = app.add_subcommand("predict", "Closed-form predictions (JSON on stdout)");
  p->add_option("--problem", predict.problem_file, "Problem file (JSON, DESIGN.md)")->required();
  p->add_option("--algo", predict.algorithm, "fedavg | scaffold | fedrr | sgd")->required();
  p->add_option("--gamma", predict.gamma, "Step size gamma > 0")->required();
  p->add_option("--local-steps", predict.local_steps, "Local steps H >= 1")->default_val(1);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    if (*p) return run_predict(predict);
  } catch (const InputError& e) {
    fmt::print(stderr, "fedverify: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "fedverify: internal error: {}\n", e.what());
    return 3;
  }
  return 0;
}
