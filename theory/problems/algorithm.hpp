// The algorithms of THEORY §1 and §7 as name handles, and the step-size setting a prediction or
// simulation is made in.
//
// An algorithm is the unit of extension: it is known by its registered name, and everything
// else about it (its one-line summary, the options it reads, the validation of its setting, its
// closed forms, its sampler) is looked up by that name in a registry
// (theory/problems/algorithm_registry.hpp; theory/algorithms/ for the closed forms). The built-in
// chain algorithms keep their constants, Algorithm::sgd, ::fedavg, ::scaffold, ::fedrr, so
// code that only needs to recognise one of them compares with ==.
#pragma once

#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "theory/problems/optimiser.hpp"

namespace fedverify::theory {

class Algorithm {
 public:
  // The empty handle: names no algorithm, so every registry lookup of it fails.
  constexpr Algorithm() = default;

  // The handle of the algorithm registered (or to be registered) under `name`. A string literal
  // only (consteval): the handle keeps a view of the characters, which must outlive it. A name
  // read at run time becomes a handle through parse_algorithm, which returns the registered one.
  template <std::size_t N>
  explicit consteval Algorithm(const char (&name)[N]) : name_(name, N - 1) {}

  constexpr std::string_view name() const { return name_; }
  constexpr bool empty() const { return name_.empty(); }

  // Same name, same algorithm (the characters are compared, not their addresses).
  friend constexpr bool operator==(Algorithm a, Algorithm b) { return a.name_ == b.name_; }
  friend constexpr std::strong_ordering operator<=>(Algorithm a, Algorithm b) {
    return a.name_ <=> b.name_;
  }

  // A small number that tells algorithms apart in derived seeds. The chain algorithms of THEORY §1
  // keep the values they had as an enumeration, sgd 0, fedavg 1, scaffold 2, fedrr 3, so seeds
  // derived from them (static_cast<int>(algorithm) in the claims) do not change; any other
  // algorithm gets 4 + a 16-bit FNV-1a hash of its name.
  constexpr int ordinal() const;
  template <std::integral T>
  requires(!std::same_as<T, bool>) explicit constexpr operator T() const {
    return static_cast<T>(ordinal());
  }

  // The chain algorithms of THEORY §1: (G0), (F0), (S0), (R0).
  static const Algorithm sgd;
  static const Algorithm fedavg;
  static const Algorithm scaffold;
  static const Algorithm fedrr;

 private:
  std::string_view name_;
};

inline constexpr Algorithm Algorithm::sgd{"sgd"};
inline constexpr Algorithm Algorithm::fedavg{"fedavg"};
inline constexpr Algorithm Algorithm::scaffold{"scaffold"};
inline constexpr Algorithm Algorithm::fedrr{"fedrr"};

constexpr int Algorithm::ordinal() const {
  constexpr Algorithm kEnumerated[] = {sgd, fedavg, scaffold, fedrr};  // in the former order
  constexpr int kEnumeratedCount = static_cast<int>(std::size(kEnumerated));
  for (int i = 0; i < kEnumeratedCount; ++i) {
    if (*this == kEnumerated[i]) return i;
  }
  constexpr std::uint32_t kFnvOffset = 2166136261u, kFnvPrime = 16777619u;  // FNV-1a, 32 bits
  constexpr std::uint32_t kHashMask = 0xFFFFu;                              // keep 16 bits
  std::uint32_t hash = kFnvOffset;
  for (const char c : name_) hash = (hash ^ static_cast<unsigned char>(c)) * kFnvPrime;
  return kEnumeratedCount + static_cast<int>(hash & kHashMask);
}

// FedRR's two runs at γ and 2γ: independent noise (default, THEORY R2) or the same noise.
enum class NoiseCoupling { independent, shared };

// The setting of one run, for every algorithm and family: the step γ (L2GD's α, FedGDA's α_θ),
// the local steps H (FedGDA's R), the FedOpt optimisers and participation, and every declared
// parameter by key. Front ends (command line, claim files, Python) fill and validate it through
// resolve_algorithm (algorithm_preset.hpp); a family whose formulas want named fields reads a
// typed view of it, made and checked in one place (gda_setting(RunSetting) for games,
// l2gd_setting(RunSetting, Problem) for the personalised family).
struct RunSetting {
  double gamma = 0;     // γ > 0
  int local_steps = 1;  // H ≥ 1
  // The generic FedOpt round (THEORY O0; read by --algo fedopt only, whose descriptor validates
  // them): the server and client optimisers (--server, --client) and the clients sampled per
  // round, S of N without replacement (--participating; 0: all N).
  OptimiserSpec server = default_server();
  OptimiserSpec client = default_client();
  int participating = 0;
  // The algorithm's own parameters (algorithm_parameter.hpp) by key, every one its descriptor
  // declares: as given (checked against the declaration) or its default. Empty for an algorithm
  // that declares none.
  std::map<std::string, std::vector<double>, std::less<>> parameters{};
};

// A registered algorithm's handle; throws InputError naming `field` and listing every registered
// name otherwise.
Algorithm parse_algorithm(const std::string& name, const std::string& field = "--algo");

// The registered name.
std::string to_string(Algorithm algorithm);

// Writes the registered name (so test frameworks and diagnostics print "fedavg", not bytes).
std::ostream& operator<<(std::ostream& out, Algorithm algorithm);

// The checks every algorithm's setting passes: throws InputError naming the field when γ ≤ 0 or
// not finite ("--gamma"), or H < 1 ("--local-steps").
void validate_step(const RunSetting& setting);

// The algorithm's own validation (its descriptor's; e.g. SGD requires H = 1, THEORY G0). Throws
// InputError naming the field, or naming --algo for an algorithm that is not registered.
void validate(Algorithm algorithm, const RunSetting& setting);

}  // namespace fedverify::theory

template <>
struct std::hash<fedverify::theory::Algorithm> {
  std::size_t operator()(fedverify::theory::Algorithm a) const noexcept {
    return std::hash<std::string_view>{}(a.name());
  }
};
