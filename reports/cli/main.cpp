// fedverify: command-line entry point (reports/cli/command_line.hpp; docs/CLI.md, "Command-line
// interface"). Exit codes: 0 success; 1 a claim failed or regressed (report); 2 bad input (one
// stderr line naming the field); 3 internal error.
#include "reports/cli/command_line.hpp"

int main(int argc, char** argv) { return fedverify::reports::run_command_line(argc, argv); }
