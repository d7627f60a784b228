// `fedverify problem from-csv` (docs/CLI.md, docs/PROBLEM_FORMATS.md "From a CSV file"): a
// logistic or least-squares problem file from a CSV table with a client split, written by
// theory::csv_problem_json (the function fedverify.problem_from_csv calls). Declared here, in its
// own file, and dispatched by command_line.cpp.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "theory/problems/csv_problem.hpp"

namespace fedverify::reports {

struct ProblemCommandInputs {
  std::string csv;              // the table (positional)
  std::string out;              // --out FILE; empty: stdout
  std::string seed = "1";       // --seed, parsed by parse_seed
  std::string delimiter = ",";  // --delimiter, one character
  bool no_standardise = false;  // --no-standardise
  bool no_intercept = false;    // --no-intercept
  theory::CsvProblemOptions options;
};

// Declares `problem` and its subcommand `from-csv` on `app`; returns `from-csv`.
CLI::App* add_problem_command(CLI::App& app, ProblemCommandInputs& inputs);

// Builds the problem and writes it (stdout, or --out with a one-line summary on stderr); exit 0.
// InputError (exit 2) names the option as the command line spells it (--client-column, …), or
// the CSV's file, line and column.
int problem_from_csv_command(ProblemCommandInputs inputs);

}  // namespace fedverify::reports
