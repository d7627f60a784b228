#include "reports/cli/problem_command.hpp"

#include <fmt/format.h>

#include <array>
#include <fstream>
#include <string_view>

#include "reports/cli/run_options.hpp"
#include "reports/runs/run_inputs.hpp"
#include "theory/base/input_error.hpp"

namespace fedverify::reports {
namespace {

// theory::csv_problem_json names its options as Python spells them ("client_column: …"); the
// command line's messages name the flag ("--client-column: …").
std::string with_flag_names(const std::string& message) {
  static constexpr std::array<std::string_view, 11> kOptions = {
      "kind", "label",         "features",       "split", "clients",   "alpha",
      "bins", "client_column", "positive_label", "l2",    "batch_size"};
  for (const std::string_view name : kOptions) {
    if (message.rfind(fmt::format("{}:", name), 0) != 0) continue;
    std::string flag = "--" + std::string(name);
    for (char& c : flag) c = c == '_' ? '-' : c;
    return flag + message.substr(name.size());
  }
  return message;
}

}  // namespace

CLI::App* add_problem_command(CLI::App& app, ProblemCommandInputs& in) {
  auto* problem = app.add_subcommand(
      "problem", "Build problem files: from-csv, from a CSV table (docs/PROBLEM_FORMATS.md)");
  problem->require_subcommand(1);
  auto* csv = problem->add_subcommand(
      "from-csv",
      "A logistic or least-squares problem file from a CSV table with a header row, its rows "
      "split over clients (JSON on stdout or --out)");
  theory::CsvProblemOptions& o = in.options;
  csv->add_option("csv", in.csv, "The CSV file (a header row of column names)")->required();
  csv->add_option("--label", o.label,
                  "The label column (logistic: two values, mapped to -1 and +1; least-squares: "
                  "the real targets)")
      ->required();
  csv->add_option("--kind", o.kind, "logistic | least-squares")->default_val(o.kind);
  csv->add_option("--features", o.features,
                  "Feature columns, comma-separated (default: every column but the label and "
                  "the client column)")
      ->delimiter(',');
  csv->add_option("--split", o.split,
                  "iid (seeded shuffle, equal blocks) | dirichlet (per-label Dirichlet(alpha) "
                  "proportions) | by-column (one client per value of --client-column)")
      ->default_val(o.split);
  csv->add_option("--clients", o.clients, "Clients N >= 1 (iid, dirichlet)");
  csv->add_option("--alpha", o.alpha, "Dirichlet concentration > 0 (small: skewed labels)")
      ->default_val(o.alpha);
  csv->add_option("--bins", o.bins,
                  "least-squares with dirichlet: the target's quantile bins that play the labels")
      ->default_val(o.bins);
  csv->add_option("--client-column", o.client_column, "by-column: the column naming the clients");
  csv->add_option("--positive-label", o.positive_label,
                  "logistic: the label value mapped to +1 (default: the larger, numerically or "
                  "as text)");
  csv->add_flag("--no-standardise", in.no_standardise,
                "Keep the features as given (default: z-scored on the pooled table)");
  csv->add_flag("--no-intercept", in.no_intercept,
                "No column of ones (default: appended, named intercept)");
  csv->add_option("--l2", o.l2, "Regularisation lambda >= 0 of every client")->default_val(o.l2);
  csv->add_option("--batch-size", o.batch_size, "Minibatch size B of the stochastic gradient")
      ->default_val(o.batch_size);
  csv->add_option("--seed", in.seed, "Seed of the split; same seed => the same file, bit for bit")
      ->default_val(in.seed);
  csv->add_option("--delimiter", in.delimiter, "Field delimiter, one character")
      ->default_val(in.delimiter);
  csv->add_option("--out", in.out, "Write the problem file here (default: stdout)");
  return csv;
}

int problem_from_csv_command(ProblemCommandInputs in) {
  theory::CsvProblemOptions& o = in.options;
  o.seed = parse_seed(in.seed, "--seed");
  if (in.delimiter.size() != 1) {
    throw InputError(fmt::format("--delimiter: expected one character, got \"{}\"", in.delimiter));
  }
  o.delimiter = in.delimiter[0];
  o.standardise = !in.no_standardise;
  o.intercept = !in.no_intercept;
  nlohmann::json problem;
  try {
    problem = theory::csv_problem_json(in.csv, o);
  } catch (const InputError& e) {
    throw InputError(with_flag_names(e.what()));
  }
  const std::string text = problem.dump() + "\n";
  if (in.out.empty()) {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() ||
        std::fflush(stdout) != 0) {
      throw InputError("stdout: write failed");
    }
    return 0;
  }
  std::ofstream file(in.out, std::ios::binary);
  if (!(file << text) || !file.flush()) {
    throw InputError(fmt::format("--out: cannot write {}", in.out));
  }
  const auto& clients = problem["clients"];
  std::string sizes;
  for (const auto& c : clients) {
    sizes += fmt::format("{}{}", sizes.empty() ? "" : ", ", c["features"].size());
  }
  fmt::print(stderr, "wrote {}: {}, d = {}, N = {} clients of {} rows\n", in.out, o.kind,
             clients[0]["features"][0].size(), clients.size(), sizes);
  return 0;
}

}  // namespace fedverify::reports
