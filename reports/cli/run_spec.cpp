#include "reports/cli/run_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "theory/base/input_error.hpp"
#include "theory/problems/algorithm_preset.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::reports {
namespace {

// A run spec is a handful of options: 1 MiB is far more than any needs.
constexpr std::int64_t kMaxSpecBytes = std::int64_t{1} << 20;

// The JSON number as the command line would write it: integers without a decimal point (so that
// --chains 1024 is not "1024.0"), others to the last bit (max_digits10).
std::string number_text(const nlohmann::json& v) {
  if (v.is_number_integer()) return v.dump();
  const double x = v.get<double>();
  return fmt::format("{}", x);  // shortest text that reads back to x
}

std::string scalar_text(const nlohmann::json& v, const std::string& at) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return number_text(v);
  throw InputError(fmt::format("{}: expected a string or a number", at));
}

// A per-client parameter's list (theory/problems/algorithm_parameter.hpp): [1, 2, 4] → "1,2,4".
std::string list_text(const nlohmann::json& v, const std::string& at) {
  if (!v.is_array()) return scalar_text(v, at);
  if (v.empty()) throw InputError(fmt::format("{}: expected at least one number", at));
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number()) throw InputError(fmt::format("{}[{}]: expected a number", at, i));
    if (i > 0) out += ',';
    out += number_text(v[i]);
  }
  return out;
}

// {"name": "adam", "lr": 0.01} → "adam:lr=0.01" (keys in the order written).
std::string optimiser_text(const nlohmann::json& v, const std::string& at) {
  if (!v.is_object()) return scalar_text(v, at);
  const auto name = v.find("name");
  if (name == v.end() || !name->is_string()) {
    throw InputError(fmt::format("{}.name: required, a string (the optimiser's name)", at));
  }
  std::string out = name->get<std::string>();
  char sep = ':';
  for (const auto& [key, value] : v.items()) {
    if (key == "name") continue;
    if (!value.is_number()) {
      throw InputError(
          fmt::format("{}.{}: expected a number", at, theory::limits::quote_input(key)));
    }
    out += fmt::format("{}{}={}", sep, key, number_text(value));
    sep = ',';
  }
  return out;
}

void append_spec(const std::string& path, const std::string& subcommand, const OptionLookup& known,
                 std::vector<std::string>& out) {
  const nlohmann::json spec =
      theory::parse_json_text(theory::read_text_file(path, kMaxSpecBytes, "run spec"), path);
  if (!spec.is_object()) throw InputError(fmt::format("{}: expected a JSON object", path));
  for (const auto& [raw_key, value] : spec.items()) {
    const std::string at = fmt::format("{}: {}", path, theory::limits::quote_input(raw_key));
    const bool well_formed =
        !raw_key.empty() && raw_key.size() <= 64 &&
        std::all_of(raw_key.begin(), raw_key.end(), [](char ch) {
          return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
        });
    if (!well_formed) throw InputError(fmt::format("{}: not an option name", at));
    std::string key = raw_key;
    std::replace(key.begin(), key.end(), '_', '-');
    if (key == "spec") throw InputError(fmt::format("{}: a spec cannot include another", at));
    if (!known(subcommand, "--" + key)) {
      throw InputError(fmt::format("{}: not an option of {}", at, subcommand));
    }
    if (value.is_boolean()) {
      if (value.get<bool>()) out.push_back("--" + key);
      continue;
    }
    const bool optimiser = key == "server" || key == "client";
    out.push_back("--" + key);
    std::string parameter_key = key;  // the registry spells keys with underscores
    std::replace(parameter_key.begin(), parameter_key.end(), '-', '_');
    if (optimiser) {
      out.push_back(optimiser_text(value, at));
    } else if (theory::parameter_is_list(parameter_key)) {
      out.push_back(list_text(value, at));
    } else {
      out.push_back(scalar_text(value, at));
    }
  }
}

}  // namespace

std::vector<std::string> expand_run_spec(const std::vector<std::string>& args,
                                         const OptionLookup& known) {
  std::vector<std::string> out;
  std::vector<std::string> rest;
  const std::string subcommand = args.empty() ? std::string() : args.front();
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--spec") {
      if (i + 1 >= args.size()) throw InputError("--spec: expected a file name");
      append_spec(args[++i], subcommand, known, rest);
    } else if (a.rfind("--spec=", 0) == 0) {
      append_spec(a.substr(7), subcommand, known, rest);
    } else {
      out.push_back(a);
    }
  }
  // The subcommand (first argument) stays first; the spec's options follow it.
  if (!rest.empty()) {
    const auto at = out.empty() ? out.end() : out.begin() + 1;
    out.insert(at, rest.begin(), rest.end());
  }
  return out;
}

}  // namespace fedverify::reports
