// "Did you mean": misspelt subcommands and options of the `fedverify` command line (issue 31
// item 5). CLI11 reports a misspelt option late and misleadingly (`predict --gama 0.1` said
// "--gamma is required", `repot` said "A subcommand is required"), so the arguments are checked
// against the command-line definition before CLI11 parses them: a first argument that is no
// subcommand, or a `--name` that the chosen subcommand does not define, is refused with the
// closest defined name when one is close (InputError: exit 2, one stderr line).
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "theory/base/spelling.hpp"

namespace fedverify::reports {

// edit_distance and closest_name (theory/base/spelling.hpp), shared with the formulas of claim
// files (theory/closed_forms/formula.hpp).
using fedverify::closest_name;
using fedverify::edit_distance;

// Checks `args` (argv without the program name, after run-spec expansion) against `app`: there
// must be an argument (else "a command is required: predict, …"); a first argument that starts
// with "--" must be a top-level long option (--help, --version), one that does not start with '-'
// a subcommand; a subcommand with subcommands of its own (`problem`) must be followed by one of
// them (or --help); every later argument that starts with "--" (up to an '=') must be a long
// option of the innermost subcommand. Throws InputError ("unknown command \"repot\" (did you mean
// report?)", "unknown option --versoin (did you mean --version?)", "predict: unknown option --gama
// (did you mean --gamma?)"); leaves everything else (values, short flags) to CLI11.
void check_spelling(const CLI::App& app, const std::vector<std::string>& args);

}  // namespace fedverify::reports
