#include "reports/cli/suggest.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "theory/base/input_error.hpp"
#include "theory/problems/limits.hpp"

namespace fedverify::reports {

namespace {

std::string did_you_mean(const std::optional<std::string>& name) {
  return name ? fmt::format(" (did you mean {}?)", *name) : std::string();
}

// The long names ("--gamma") of the options of `sub`, in the order defined, and the help flags.
std::vector<std::string> long_names(const CLI::App& sub) {
  std::vector<std::string> names;
  for (const CLI::Option* o : sub.get_options()) {
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
  }
  return names;
}

}  // namespace

void check_spelling(const CLI::App& app, const std::vector<std::string>& args) {
  std::vector<std::string> commands;
  for (const CLI::App* s : app.get_subcommands({})) commands.push_back(s->get_name());
  if (args.empty()) {
    throw InputError(fmt::format("a command is required: {} (fedverify --help describes them)",
                                 fmt::join(commands, ", ")));
  }
  if (args.front().compare(0, 2, "--") == 0) {  // a top-level option: --help, --version, …
    const std::vector<std::string> known = long_names(app);
    const std::string name = args.front().substr(0, args.front().find('='));
    if (std::find(known.begin(), known.end(), name) != known.end()) return;
    throw InputError(
        fmt::format("unknown option {}{}; the commands are {}", theory::limits::quote_input(name),
                    did_you_mean(closest_name(name, known)), fmt::join(commands, ", ")));
  }
  if (args.front().empty() || args.front()[0] == '-') return;
  const std::string& command = args.front();
  if (std::find(commands.begin(), commands.end(), command) == commands.end()) {
    throw InputError(fmt::format(
        "unknown command \"{}\"{}; the commands are {}", theory::limits::quote_input(command),
        did_you_mean(closest_name(command, commands)), fmt::join(commands, ", ")));
  }
  const CLI::App* sub = app.get_subcommand(command);
  std::string name = command;
  std::size_t first = 1;
  if (const auto nested = sub->get_subcommands({}); !nested.empty()) {  // `problem from-csv`
    std::vector<std::string> names;
    names.reserve(nested.size());
    for (const CLI::App* s : nested) names.push_back(s->get_name());
    const std::string next = args.size() > 1 ? args[1] : std::string();
    if (next == "--help" || next == "-h") return;
    if (std::find(names.begin(), names.end(), next) == names.end()) {
      throw InputError(fmt::format(
          "{}: {}; the subcommands are {}", command,
          next.empty() || next[0] == '-'
              ? std::string("a subcommand is required")
              : fmt::format("unknown subcommand \"{}\"{}", theory::limits::quote_input(next),
                            did_you_mean(closest_name(next, names))),
          fmt::join(names, ", ")));
    }
    sub = sub->get_subcommand(next);
    name = command + " " + next;
    first = 2;
  }
  const std::vector<std::string> known = long_names(*sub);
  for (std::size_t i = first; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") return;  // the rest are positional arguments
    if (a.size() < 3 || a.compare(0, 2, "--") != 0) continue;
    const std::string option = a.substr(0, a.find('='));
    if (std::find(known.begin(), known.end(), option) != known.end()) continue;
    throw InputError(fmt::format("{}: unknown option {}{} (fedverify {} --help lists the options)",
                                 name, theory::limits::quote_input(option),
                                 did_you_mean(closest_name(option, known)), name));
  }
}

}  // namespace fedverify::reports
