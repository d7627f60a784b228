// The algorithm registry: one descriptor per algorithm, looked up by its name.
//
// A descriptor says what the command line and the claims need to know about an algorithm
// without naming it anywhere else: its summary for --help, the THEORY labels it implements, its
// family (which sampler state it runs on), the command-line options it reads (any other
// algorithm-specific option is refused), the validation of its step setting, and whether
// `predict` has closed forms for it. Each algorithm registers itself from its own file under
// theory/algorithms/ with a namespace-scope registrar,
//     const bool registered = register_algorithm({...});
// (all layers are linked as whole archives, so the registrar is kept). Registration happens
// during static initialisation; lookups afterwards only read.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "theory/problems/algorithm.hpp"
#include "theory/problems/algorithm_parameter.hpp"

namespace fedverify::theory {

// Which state the algorithm's chain lives in.
enum class AlgorithmFamily {
  chain,  // a global model in ℝ^d (FedAvg-like: estimators/samplers/chains.hpp), THEORY §1
  personalised,  // one model per client, d×N (L2GD-like: estimators/samplers/l2gd.hpp), THEORY §7
  game,  // z = (θ, τ) of a federated minimax game (FedGDA: estimators/samplers/games/), THEORY §10
};

// The command-line options of a run's structure that several families read. An option that the
// algorithm does not read is refused when given, rather than silently ignored (docs/CLI.md: bad
// input names the flag).
enum class AlgorithmOption {
  local_steps,    // --local-steps H
  burn_in,        // --burn-in B (stationary runs)
  batch_rounds,   // --batch-rounds (batch-means MCSE of a stationary run)
  noise,          // --noise independent|shared (the coupling of FedRR's two runs)
  uplink,         // --uplink compressor
  downlink,       // --downlink compressor
  participating,  // --participating τ (clients per averaging step; fedopt: S sampled per round)
  server,         // --server name:key=value,… (fedopt's server optimiser, THEORY O0)
  client,         // --client name:key=value,… (fedopt's client optimiser, THEORY O0, O3)
};
// A setting that belongs to some algorithms alone (L2GD's λ and p, FedGDA's step ratio, FedNova's
// per-client steps) is not an option here but a parameter the algorithm declares
// (algorithm_parameter.hpp).

// "--local-steps", "--burn-in", …
std::string_view option_flag(AlgorithmOption option);

struct AlgorithmDescriptor {
  Algorithm algorithm{};                     // its handle; the name is algorithm.name()
  int order = 0;                             // position in registered_algorithms() (then by name)
  std::string summary{};                     // one line for --help
  std::vector<std::string> theory_labels{};  // e.g. {"F2", "F3", "F4", "F5"} (docs/THEORY.md)
  AlgorithmFamily family = AlgorithmFamily::chain;
  std::vector<AlgorithmOption> options{};  // the algorithm-specific options it reads
  // Its own parameters (algorithm_parameter.hpp): options, claim-file keys and keyword arguments
  // that exist because it declares them.
  std::vector<AlgorithmParameter> parameters{};
  // Throws InputError naming the field for a setting the algorithm does not accept.
  void (*validate)(const RunSetting&) = validate_step;
  // `predict` has closed forms for it (chain family: an AlgorithmTheory is registered for it,
  // theory/algorithms/algorithm_theory.hpp; personalised family: the L2GD predict).
  bool has_closed_forms = false;
  // Its sampler, closed forms and exact laws aggregate with the problem's client weights p_c
  // (THEORY (A1)); a problem with unequal weights is refused for every other algorithm
  // (require_client_weights), never run as if its clients weighed the same.
  bool weighted_clients = false;

  std::string_view name() const { return algorithm.name(); }
  bool reads(AlgorithmOption option) const;
  // Its declared parameter `key`, or nullptr.
  const AlgorithmParameter* parameter(std::string_view key) const;
};

// Adds `descriptor`. Returns true (for a namespace-scope registrar). Throws std::logic_error for
// an empty or already registered name, a null validate, or a parameter declared twice or whose
// default does not pass its own check: a programming error, found at start-up.
bool register_algorithm(AlgorithmDescriptor descriptor);

// The descriptor registered under `name`, or nullptr.
const AlgorithmDescriptor* find_algorithm(std::string_view name);

// The descriptor of a registered algorithm; throws InputError naming `field` and listing every
// registered name otherwise (the message of parse_algorithm).
const AlgorithmDescriptor& describe(Algorithm algorithm, const std::string& field = "--algo");

// Every registered algorithm, by `order` and then by name (stable help text and messages):
// sgd, fedavg, scaffold, fedrr, fedopt, l2gd, l2sgd, l2sgd+.
std::vector<const AlgorithmDescriptor*> registered_algorithms();

// Throws InputError when `equal_weights` is false and `algorithm` does not aggregate with client
// weights: "clients[].weight: unequal client weights are supported by sgd, fedavg, fedrr and
// dpfedavg; --algo scaffold aggregates with equal weights (THEORY (A1))".
void require_client_weights(const AlgorithmDescriptor& algorithm, bool equal_weights);

// Refuses an algorithm-specific option given to an algorithm that does not read it (it would be
// ignored silently): throws InputError "{option_name}: only for {the readers}, not for
// {algo_name} {algorithm}", e.g. "--participating: only for fedopt, not for --algo fedavg". The
// command line and the Python API name the option and the algorithm their own way.
void refuse_unread_option(const AlgorithmDescriptor& algorithm, AlgorithmOption option,
                          std::string_view option_name, std::string_view algo_name);

// The names of the algorithms that satisfy `keep`, in registered order, as an English list:
// "a", "a or b", "a, b or c" (conjunction "or"; "and" on request).
template <typename Predicate>
std::string algorithm_names(Predicate keep, std::string_view conjunction = "or");
std::string join_names(const std::vector<std::string_view>& names, std::string_view conjunction);

template <typename Predicate>
std::string algorithm_names(Predicate keep, std::string_view conjunction) {
  std::vector<std::string_view> names;
  for (const AlgorithmDescriptor* d : registered_algorithms()) {
    if (keep(*d)) names.push_back(d->name());
  }
  return join_names(names, conjunction);
}

}  // namespace fedverify::theory
