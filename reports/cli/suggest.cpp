#include "reports/cli/suggest.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "theory/base/input_error.hpp"
#include "theory/problems/limits.hpp"

namespace fedverify::reports {

int edit_distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  // d[i][j]: distance between the first i characters of a and the first j of b.
  std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1, 0));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = static_cast<int>(i);
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);  // adjacent transposition
      }
    }
  }
  return d[n][m];
}

std::optional<std::string> closest_name(const std::string& word,
                                        const std::vector<std::string>& candidates) {
  // Inputs are capped: a word of kilobytes is no slip of the keyboard (and the table is n × m).
  constexpr std::size_t kLongestWord = 64;
  if (word.empty() || word.size() > kLongestWord) return std::nullopt;
  const int limit = std::min(2, static_cast<int>((word.size() + 2) / 3));
  std::optional<std::string> best;
  int best_distance = limit + 1;
  for (const std::string& c : candidates) {
    if (c.size() > kLongestWord) continue;
    const int dist = edit_distance(word, c);
    if (dist < best_distance) {
      best_distance = dist;
      best = c;
    }
  }
  return best;
}

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
