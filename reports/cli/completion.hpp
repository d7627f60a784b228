// Bash completion of the `fedverify` command line (issue 31 item 5; docs/CLI.md, "Shell
// completion"), generated from the command-line definition itself (the CLI11 App), so it cannot
// drift from the options: `fedverify --bash-completion` prints the script, and the committed copy
// docs/fedverify-completion.bash is compared with it by ctest cli.completion_contract.
// It completes the commands, each command's long options, the values of --algo (the algorithms
// that command accepts, read from its --algo help), of --server and --client (the optimiser
// names), and file names after --problem, --spec, --baseline, --out and a claim file.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace fedverify::reports {

inline constexpr const char* kBashCompletionFlag = "--bash-completion";

std::string bash_completion(const CLI::App& app);

}  // namespace fedverify::reports
