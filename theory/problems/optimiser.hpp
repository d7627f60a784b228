// Client and server optimisers of the generic FedOpt round (THEORY O0, O1, O3), as the command
// line and a run spec name them: "name" or "name:key=value,key=value,…", e.g.
//   --server sgd:lr=1.5,momentum=0.5,nesterov=1      --client fedprox:mu=0.1
//
// One parser for the whole family. Each optimiser is a row of a table (optimiser.cpp,
// optimiser_kinds): its role (server or client), its name, and its keys with their defaults and
// ranges. Adding an optimiser is one more row (and its update rule where the round and its closed
// forms read it); the parser, the error messages and --help follow from the table.
//
// Implemented: the optimisers of Table 2.1 (sgd with momentum/Nesterov, adam, nadam, radam,
// amsgrad, adamax, adagrad, adadelta, rmsprop, dog, dowg, prodigy) in both roles (the server's
// step is the key lr, the client's is --gamma), server fedexp (THEORY O4) and client fedprox (O3).
// Closed forms exist for the linear ones only: server sgd, client sgd without momentum, fedprox.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fedverify::theory {

enum class OptimiserRole { server, client };

// "--server" or "--client": the flag an error about a spec of this role names.
std::string_view role_flag(OptimiserRole role);

// One key of an optimiser: its default (NaN: required) and the closed or open range of its value.
// A flag (`boolean`) takes 0 or 1.
struct OptimiserKey {
  std::string_view name;
  double fallback;  // default; NaN when the key is required
  double lower;
  double upper;
  bool lower_open;
  bool upper_open;
  bool boolean;
  std::string_view meaning;  // for --help
};

struct OptimiserKind {
  OptimiserRole role;
  std::string_view name;
  std::vector<OptimiserKey> keys;
  std::string_view summary;  // for --help, with its THEORY label
};

// Every optimiser, by role, in help order.
const std::vector<OptimiserKind>& optimiser_kinds();

// A parsed, validated optimiser: its role and name and the values given (keys not given take the
// kind's default through value()). Default-constructed: plain SGD (server step 1, no momentum).
struct OptimiserSpec {
  OptimiserRole role = OptimiserRole::server;
  std::string name = "sgd";
  std::vector<std::pair<std::string, double>> given;

  // The value of `key`: as given, else the kind's default. Throws std::logic_error for a key the
  // kind does not have (a programming error: user keys were checked by parse_optimiser).
  double value(std::string_view key) const;
  // Whether the spec's kind has `key` (given or not).
  bool has_key(std::string_view key) const;
  bool is(std::string_view kind) const { return name == kind; }
  // "sgd:lr=1.5,momentum=0.5" (the keys given, in the order given; the name alone when none).
  std::string text() const;

  friend bool operator==(const OptimiserSpec&, const OptimiserSpec&) = default;
};

inline OptimiserSpec default_server() { return {OptimiserRole::server, "sgd", {}}; }
inline OptimiserSpec default_client() { return {OptimiserRole::client, "sgd", {}}; }

// Parses "name[:key=value[,key=value…]]" for `role`. Throws InputError naming the role's flag
// (and the key) for an unknown name, an unknown or repeated key, a missing "=", a value that is
// not a finite number or is outside the key's range, or a required key left out.
OptimiserSpec parse_optimiser(std::string_view text, OptimiserRole role);

// The spec of optimiser `name` for `role` from (key, value) pairs given one by one (a preset's
// parameters, theory/problems/algorithm_preset.hpp), with parse_optimiser's checks: a value outside
// its key's range or a required key left out throws InputError naming field(key), e.g. "--mu".
// An unknown name or key throws std::logic_error (the caller's table is wrong, not the input).
OptimiserSpec make_optimiser(OptimiserRole role, std::string_view name,
                             std::vector<std::pair<std::string, double>> given,
                             const std::function<std::string(std::string_view key)>& field);

// The --help text of a role: every optimiser with its keys, defaults and ranges.
std::string optimiser_help(OptimiserRole role);

}  // namespace fedverify::theory
