// The `fedverify` command line (docs/CLI.md): parses argv, runs the subcommand and
// returns the process exit code. reports/cli/main.cpp is only `return run_command_line(argc,
// argv);`, so that tests and the fuzz target (verify/fuzz/cli_fuzz.cpp) run the same code.
//
// Exit codes: 0 success; 1 a claim failed or regressed (report); 2 bad input, with exactly one
// stderr line naming the flag or the file and field (control characters escaped); 3 internal
// error. No exception escapes.
#pragma once

namespace fedverify::reports {

int run_command_line(int argc, char** argv);

}  // namespace fedverify::reports
