// Presets: a name for a registered algorithm with its optimisers fixed and some of their keys
// exposed as parameters of their own, e.g. FedProx is fedopt with the client optimiser
// fedprox:mu=μ, run as `--algo fedprox --mu 0.1` (THEORY O3); FedAvgM is fedopt with server
// momentum (`--algo fedavgm --momentum 0.9 [--server-lr 1]`, O0).
//
// A preset is one registration, from its own file under theory/algorithms/presets/:
//     const bool registered = register_preset({...});
// Nothing else names it: the command line declares one option per parameter key of any preset
// (--mu, --momentum, …, with the presets that read it in its help), claim files and the Python
// package accept the same keys, and every front end resolves the name with resolve_algorithm
// below, so that a preset's run is exactly the base algorithm's run with those optimisers (same
// seed, same numbers) and the echo of the run says which preset it was.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "theory/problems/algorithm.hpp"
#include "theory/problems/optimiser.hpp"

namespace fedverify::theory {

struct AlgorithmDescriptor;  // algorithm_registry.hpp

// One parameter of a preset: the key of one of the base algorithm's optimisers it sets.
struct PresetParameter {
  // The name users write: the claim-file and Python key ("server_lr"); the command-line flag is
  // parameter_flag(key) ("--server-lr").
  std::string_view key{};
  OptimiserRole role = OptimiserRole::server;  // which optimiser it sets
  std::string_view optimiser_key{};            // the key there ("lr"); its range and default apply
  bool required = false;  // must be given (else the optimiser's default applies)
};

// The parameters of an adaptive-server preset (FedAdam, FedYogi): --server-lr, --beta1, --beta2
// and --eps set the server optimiser's lr, beta1, beta2 and eps (its table's defaults otherwise).
inline std::vector<PresetParameter> adaptive_server_parameters() {
  return {{.key = "server_lr", .role = OptimiserRole::server, .optimiser_key = "lr"},
          {.key = "beta1", .role = OptimiserRole::server, .optimiser_key = "beta1"},
          {.key = "beta2", .role = OptimiserRole::server, .optimiser_key = "beta2"},
          {.key = "eps", .role = OptimiserRole::server, .optimiser_key = "eps"}};
}

struct AlgorithmPreset {
  std::string_view name{};  // "fedprox"
  Algorithm base{};         // the registered algorithm it runs (fedopt)
  std::string summary{};    // one line for --help
  std::vector<std::string> theory_labels{};
  // The optimisers the preset fixes (parse_optimiser's names); `parameters` sets their keys.
  std::string_view server = "sgd";
  std::string_view client = "sgd";
  std::vector<PresetParameter> parameters{};

  // Whether `key` is one of its parameters.
  bool reads(std::string_view key) const;
};

// Adds `preset`. Returns true (for a namespace-scope registrar). Throws std::logic_error for an
// empty name, a name registered twice, or a parameter key that names no key of its optimiser: a
// programming error, found at start-up. (The base algorithm is checked when a preset is resolved:
// registration order between files is not defined.)
bool register_preset(AlgorithmPreset preset);

// The preset registered under `name`, or nullptr.
const AlgorithmPreset* find_preset(std::string_view name);

// Every preset, by name.
std::vector<const AlgorithmPreset*> registered_presets();

// Every parameter key of any preset, once, sorted.
std::vector<std::string_view> preset_parameter_keys();

// Every parameter key of any preset or registered algorithm (AlgorithmDescriptor::parameters),
// once, sorted: the options, claim-file keys and keyword arguments the front ends declare. The
// command-line flag of a key is parameter_flag(key) ("--server-lr" for "server_lr").
std::vector<std::string_view> parameter_keys();

// Whether some algorithm declares `key` per client (a list of values).
bool parameter_is_list(std::string_view key);

// Which algorithms a front end offers (a command's: those with closed forms for predict); every
// registered one when empty.
using AlgorithmFilter = std::function<bool(const AlgorithmDescriptor&)>;

// The registered algorithms that `accepts` takes and the presets whose base it takes that read
// the parameter `key`, as an English list ("fedadam and fedavgm"); empty when none does.
std::string parameter_readers(std::string_view key, const AlgorithmFilter& accepts = {});

// The --help text of a parameter key: its meaning and range (from its optimiser's table or its
// declaration) and "(only --algo …)" naming the readers that `accepts` takes (parameter_readers).
std::string parameter_help(std::string_view key, const AlgorithmFilter& accepts = {});

// Parameter values as given by a front end, in the order given: one number each for a preset's
// parameters, one or more for an algorithm's (a per-client list).
using PresetValues = std::vector<std::pair<std::string, std::vector<double>>>;

// How a front end names its fields in errors: the command line "--mu", "--server" and "--algo",
// a claim file "x.json: options.mu", Python "mu".
struct FieldNames {
  std::function<std::string(std::string_view key)> parameter;  // a preset parameter's key
  std::string server;                                          // the server optimiser's field
  std::string client;                                          // the client optimiser's field
  std::string algorithm;      // the algorithm's field, leading an error ("c.json: algorithm")
  std::string algorithm_key;  // the same inside a message ("algorithm fedprox"; CLI "--algo")
};
// The command line's names: parameter_flag(key), --server, --client, --algo (twice).
FieldNames command_line_fields();

// The run that the name `name` stands for, with the setting `step` as given (γ, H, optimisers,
// S) and `values` the preset parameters given.
struct ResolvedAlgorithm {
  Algorithm algorithm;  // the registered algorithm that runs
  std::string preset;   // the preset's name, or empty
  RunSetting step;      // `step` with the preset's optimisers
};

// A registered algorithm's name resolves to itself with its own parameters (`values` may hold only
// the keys it declares, each checked against its declaration; the rest take their defaults, and
// a required one left out names the parameter; any other key is refused, naming the presets and
// algorithms that read it); a preset's name
// to its base algorithm with its optimisers built from `values` (a value outside its range or a
// required one left out names the parameter). `server_given` / `client_given`: the front end's
// optimiser fields were given explicitly, which a preset that fixes them refuses. An unknown name
// throws InputError naming fields.algorithm and listing every algorithm and preset.
ResolvedAlgorithm resolve_algorithm(std::string_view name, RunSetting step,
                                    const PresetValues& values, bool server_given,
                                    bool client_given, const FieldNames& fields);

}  // namespace fedverify::theory
