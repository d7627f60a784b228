// An algorithm's own parameters: declared with the algorithm, they are a setting like γ and H
// without any front end naming them.
//
// An algorithm's descriptor (algorithm_registry.hpp) lists the parameters it reads, e.g. FedNova's
//     {.key = "client_steps", .meaning = "local steps H_c of each client", .per_client = true,
//      .integer = true, .min = 1, …}
// and from that one declaration the command line gains --client-steps (help text, range), claim
// files accept "options": {"client_steps": [1, 2, 4]}, the Python functions the keyword
// argument client_steps=, the JSON echo of a run its "parameters" field, and any of them given
// to an algorithm that does not read it is refused naming the field and the algorithms that do
// (algorithm_preset.hpp, resolve_algorithm). The run reads the values from
// RunSetting::parameters (algorithm.hpp) by key. docs/ADDING_AN_ALGORITHM.md §1.5 has the recipe.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "theory/problems/algorithm.hpp"

namespace fedverify::theory {

struct AlgorithmParameter {
  // The name users write in claim files and Python ("client_steps"); the command-line flag is
  // parameter_flag(key) ("--client-steps"). Lower case, digits and '_'.
  std::string_view key{};
  std::string meaning{};       // one line for --help, without the range
  std::string theory_label{};  // where it enters the formulas (docs/THEORY.md), or empty
  double min = -std::numeric_limits<double>::infinity();  // every value in [min, max]
  double max = std::numeric_limits<double>::infinity();
  bool open_min = false, open_max = false;  // exclude min, max themselves: "> 0", "in (0, 1)"
  bool integer = false;                     // every value a whole number
  // A list with one value per client, or a single value for every client (its length is checked
  // against the problem's number of clients by per_client_values, when the problem is known).
  bool per_client = false;
  bool required = false;  // must be given; else `default_value` applies
  // Used when not required and not given. Empty: the parameter is absent unless given, and the
  // run computes its default from the problem (L2GD's p* = λ/(λ + L)): optional_parameter_value.
  std::vector<double> default_value{};
};

// The values of one parameter checked against its declaration: a single number unless
// per_client (then one or more), every value finite, in [min, max] and whole when integer.
// Throws InputError naming `field` (the front end's name of the parameter: "--client-steps",
// "c.json: options.client_steps", "client_steps").
void check_parameter_values(const AlgorithmParameter& parameter, const std::vector<double>& values,
                            const std::string& field);

// The range and kind in words, for help texts and errors: "an integer ≥ 1 per client".
std::string parameter_range(const AlgorithmParameter& parameter);

// "--client-steps" for "client_steps".
std::string parameter_flag(std::string_view key);

// The values of a per-client parameter of `setting` for `clients` clients: a single value
// repeated, or the list as given when its length is `clients`. Throws InputError naming the
// parameter's flag when the length is neither 1 nor `clients`, and std::logic_error when the
// setting has no such parameter (the algorithm does not declare it: a programming error).
std::vector<double> per_client_values(const RunSetting& setting, std::string_view key, int clients);

// The value of a scalar parameter of `setting`; std::logic_error as above.
double parameter_value(const RunSetting& setting, std::string_view key);

// The value of a scalar parameter without a default (default_value empty), or nullopt when it was
// not given.
std::optional<double> optional_parameter_value(const RunSetting& setting, std::string_view key);

}  // namespace fedverify::theory
