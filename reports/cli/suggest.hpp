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

namespace fedverify::reports {

// The optimal-string-alignment distance (Levenshtein with adjacent transpositions, each edit
// costing 1): "gama" → "gamma" 1, "repot" → "report" 1, "sedd" → "seed" 1, "tpyo" → "typo" 1.
int edit_distance(const std::string& a, const std::string& b);

// The candidate closest to `word` when it is close enough to be a slip of the keyboard: distance
// at most 2 and at most a third of the word's length (rounded up), so that "--foo" suggests
// nothing rather than a random option; ties go to the first candidate in the given order.
std::optional<std::string> closest_name(const std::string& word,
                                        const std::vector<std::string>& candidates);

// Checks `args` (argv without the program name, after run-spec expansion) against `app`: there
// must be an argument (else "a command is required: predict, …"); a first argument that starts
// with "--" must be a top-level long option (--help, --version), one that does not start with '-'
// a subcommand; a subcommand with subcommands of its own (`problem`) must be followed by one of
// them (or --help); every later argument that starts with "--" (up to an '=') must be a long
// option of the innermost subcommand. Throws InputError ("unknown command \"repot\" (did you mean report?)",
// "unknown option --versoin (did you mean --version?)", "predict: unknown option --gama (did you
// mean --gamma?)"); leaves everything else (values, short flags) to CLI11.
void check_spelling(const CLI::App& app, const std::vector<std::string>& args);

}  // namespace fedverify::reports
